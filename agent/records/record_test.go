package records_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
)

type promptFields struct {
	Input  []map[string]string `json:"input"`
	Origin string              `json:"origin,omitempty"`
}

func TestNewEncodesTypeFirstTimeLast(t *testing.T) {
	r := mustNew(t, "turn.prompt", promptFields{Input: []map[string]string{{"text": "<b>a & b</b>"}}})
	r.Time = 42
	got, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"turn.prompt","input":[{"text":"<b>a & b</b>"}],"time":42}`
	if string(got) != want {
		t.Fatalf("MarshalJSON = %s, want %s", got, want)
	}
	var back promptFields
	if err := records.Decode(r, &back); err != nil || back.Input[0]["text"] != "<b>a & b</b>" {
		t.Fatalf("Decode = %+v, %v", back, err)
	}
}

func TestNewRejects(t *testing.T) {
	for _, tt := range []struct {
		name   string
		typ    records.Type
		fields any
		want   string
	}{
		{"empty type", "", nil, "empty type"},
		{"own type key", "x.y", map[string]any{"type": "z"}, `"type"`},
		{"own time key", "x.y", struct {
			Time int64 `json:"time"`
		}{1}, `"time"`},
		{"not an object", "x.y", []int{1}, "not a JSON object"},
		{"unencodable", "x.y", map[string]any{"f": func() {}}, "encode x.y record"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := records.New(tt.typ, tt.fields)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestReadRecordKeepsItsBytes(t *testing.T) {
	line := `{"time":7, "type":"x.y","b":1.50,"a":"\u00e9"}`
	var r records.Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Type != "x.y" || r.Time != 7 || r.String() != line {
		t.Fatalf("read %q as type %q time %d", r.String(), r.Type, r.Time)
	}
	if got := string(r.Fields()); got != `{"b":1.50,"a":"\u00e9"}` {
		t.Fatalf("Fields = %s", got)
	}
	r.Time = 8 // a changed envelope is encoded afresh
	if got, want := r.String(), `{"type":"x.y","b":1.50,"a":"\u00e9","time":8}`; got != want {
		t.Fatalf("after changing Time: %s, want %s", got, want)
	}
	built := mustNew(t, "x.y", json.RawMessage(`{"b":1.50,"a":"\u00e9"}`))
	built.Time = 8
	if !r.Equal(built) {
		t.Fatal("a read record and a built one with the same content differ")
	}
	built.Time = 9
	if r.Equal(built) {
		t.Fatal("Equal ignores the time")
	}
}

func TestUnmarshalRejectsNonRecords(t *testing.T) {
	for _, line := range []string{`[1]`, `{"type":5}`, `{"x":1}`, `{"type":"a","time":"soon"}`, `{"type":"a","time":1.5}`, `{"type":""}`, `{`} {
		var r records.Record
		if err := json.Unmarshal([]byte(line), &r); err == nil {
			t.Errorf("Unmarshal(%s) accepted %v", line, r)
		}
	}
}

func TestEqualForCmp(t *testing.T) {
	a, b := prompt(t, "x"), prompt(t, "x")
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("equal records differ:\n%s", d)
	}
	if cmp.Equal(a, prompt(t, "y")) {
		t.Fatal("different records compare equal")
	}
}
