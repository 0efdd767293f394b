package agent

import "testing"

func TestSnapshotHash(t *testing.T) {
	for _, c := range []struct {
		name, fields, want string
		err                bool
	}{
		{"hash first", `{"hash":"h1","tools":[{"name":"Bash"}]}`, "h1", false},
		{"hash after the table", `{"tools":[{"name":"Bash","parameters":{"a":[1,{"b":"}"}]}}],"hash":"h2"}`, "h2", false},
		{"no hash", `{"tools":[]}`, "", false},
		{"empty", `{}`, "", false},
		{"not an object", `["hash","h"]`, "", true},
		{"hash not a string", `{"hash":3}`, "", true},
		{"torn", `{"tools":[{"name":`, "", true},
	} {
		got, err := snapshotHash([]byte(c.fields))
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: snapshotHash(%s) = %q, %v; want %q, error %v", c.name, c.fields, got, err, c.want, c.err)
		}
	}
}
