package session_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/session"
)

func hash12(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// S66: work-dir keys and session id validation.
func TestS66WorkDirKeyAndIDs(t *testing.T) {
	long := "/w/" + strings.Repeat("ab", 30)
	for _, tt := range []struct{ name, dir, want string }{
		{"slug of the base name plus hash", "/home/u/My Project", "wd_my-project_" + hash12("/home/u/My Project")},
		{"only symbols give workspace", "/home/u/###", "wd_workspace_" + hash12("/home/u/###")},
		{"root gives workspace", "/", "wd_workspace_" + hash12("/")},
		{"cleaned before hashing", "/home/u/a/../My Project/", "wd_my-project_" + hash12("/home/u/My Project")},
		{"slug cut to 40", long, "wd_" + strings.Repeat("ab", 20) + "_" + hash12(long)},
		{"dots and dashes kept, ends trimmed", "/x/-._Ünï-", "wd_._-n_" + hash12("/x/-._Ünï-")},
		{"windows drive path", `C:\Users\Me\Proj`, "wd_proj_" + hash12("C:/Users/Me/Proj")},
		{"windows UNC path", `\\host\share\dir\..\Repo`, "wd_repo_" + hash12("//host/share/Repo")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := session.WorkDirKey(tt.dir); got != tt.want {
				t.Errorf("WorkDirKey(%q) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
	for _, id := range []string{"../x", "a/b", ".", "..", "", "sp ace", `a\b`} {
		var se *session.Error
		if err := session.ValidateID(id); !errors.As(err, &se) || se.Code != session.CodeIDInvalid {
			t.Errorf("ValidateID(%q) = %v, want %s", id, err, session.CodeIDInvalid)
		}
	}
	for _, id := range []string{"session_0b7c", "a.b-c_D9", "..x"} {
		if err := session.ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v, want nil", id, err)
		}
	}
	if id := session.NewID(); session.ValidateID(id) != nil || !strings.HasPrefix(id, "session_") || len(id) != len("session_")+36 {
		t.Errorf("NewID() = %q, want session_<uuid>", id)
	}
}

func TestSameWorkDir(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"/a/b", "/a/b/", true},
		{"/a/b", "/a/c/../b", true},
		{"/a/b", "/A/b", false},
		{`C:\Work`, "c:/work", true},
		{"/a/b", "/a/bc", false},
	} {
		if got := session.SameWorkDir(tt.a, tt.b); got != tt.want {
			t.Errorf("SameWorkDir(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
