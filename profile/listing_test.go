package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
)

// unreadable fails ReadDir for the listed directories.
type unreadable struct {
	osenv.FS
	dirs map[string]bool
}

func (u unreadable) ReadDir(name string) ([]fs.DirEntry, error) {
	if u.dirs[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("permission denied")}
	}
	return u.FS.ReadDir(name)
}

func TestListDirectory(t *testing.T) {
	files := map[string]string{
		"/d/.hidden/x":   "",
		"/d/B.txt":       "",
		"/d/a.txt":       "",
		"/d/b.txt":       "",
		"/d/Zed/z.go":    "",
		"/d/alpha/e/f":   "",
		"/d/alpha/a.go":  "",
		"/d/locked/s":    "",
		"/empty/.keep/x": "",
	}
	for i := range 12 {
		files[fmt.Sprintf("/d/alpha/n%02d", i)] = ""
	}
	env := newEnv(t, files)
	if err := env.MkdirAll("/void", 0o755); err != nil {
		t.Fatal(err)
	}
	fsys := unreadable{FS: env, dirs: map[string]bool{"/d/locked": true, "/gone": true}}

	want := `├── .hidden/
├── alpha/
│   ├── e/
│   ├── a.go
│   ├── n00
│   ├── n01
│   ├── n02
│   ├── n03
│   ├── n04
│   ├── n05
│   ├── n06
│   ├── n07
│   └── ... and 4 more
├── locked/
│   └── [not readable]
├── Zed/
│   └── z.go
├── a.txt
├── B.txt
└── b.txt`
	if diff := cmp.Diff(want, listDirectory(fsys, "/d", collapseHidden)); diff != "" {
		t.Errorf("collapsed listing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("└── .keep/\n    └── x", listDirectory(fsys, "/empty", expandHidden)); diff != "" {
		t.Errorf("expanded hidden dir (-want +got):\n%s", diff)
	}
	if got := listDirectory(fsys, "/void", collapseHidden); got != "(empty directory)" {
		t.Errorf("empty dir: %q", got)
	}
	if got := listDirectory(fsys, "/gone", collapseHidden); got != "[not readable]" {
		t.Errorf("unreadable root: %q", got)
	}
}
