package records_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
)

// FuzzReplayLines feeds arbitrary bytes as wire.jsonl. Replay must not
// panic; it yields records (corrupt lines after the metadata record are
// quarantined) or fails with an error that names a line. When
// it succeeds, appending a record and replaying again must succeed too and
// yield exactly one record more (two on a log that had none: the metadata
// comes first): torn tails are repaired, never glued onto.
func FuzzReplayLines(f *testing.F) {
	for _, seed := range []string{
		meta14 + "\n" + `{"type":"turn.prompt","input":[],"time":2}` + "\n",
		meta14 + "\n" + `{"type":"turn.prompt","inp`,
		meta14 + "\r\n\r\n" + `{"type":"x"}`,
		meta14 + "\n{\n" + `{"type":"x"}` + "\n",
		`{"type":"metadata","protocol_version":"1.0","created_at":1}` + "\n" +
			`{"type":"context.append_message","message":{"toolCalls":[{"id":"a","function":{"name":"n"}}]}}` + "\n",
		`{"type":"metadata","protocol_version":"1.3"}` + "\n" + `{"type":"goal.account_usage","tokensUsed":1}`,
		`{"type":"metadata","protocol_version":"9.9"}` + "\n",
		`{"type":"metadata","protocol_version":"0.1"}` + "\n",
		`{"type":"turn.prompt"}` + "\n",
		"\n\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		writeRaw(t, dir, data)
		n, err := replayCount(t, dir)
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error does not name a line: %v", err)
			}
			return
		}
		o := openLog(t, dir)
		o.replayAll(t)
		o.record(t, records.Record{Type: "test.after"})
		o.close(t)
		want := n + 1
		if n == 0 {
			want = 2
		}
		m, err := replayCount(t, dir)
		if err != nil || m != want {
			t.Fatalf("after one append: %d records, %v; want %d", m, err, want)
		}
	})
}

func replayCount(t *testing.T, dir string) (int, error) {
	t.Helper()
	o := openLog(t, dir)
	defer o.close(t)
	n := 0
	_, err := o.log.Replay(t.Context(), func(records.Record) error { n++; return nil })
	return n, err
}
