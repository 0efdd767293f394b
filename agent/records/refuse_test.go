package records_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

// refuseSteer replays l, refusing every turn.steer record the way an
// owner refuses a record it cannot restore, and returns what it kept.
func refuseSteer(t *testing.T, l *records.Log) []string {
	t.Helper()
	var kept []records.Record
	_, err := l.Replay(t.Context(), func(r records.Record) error {
		if r.Type == "turn.steer" {
			return records.Refuse(errors.New("turn.steer record: no turn to steer"))
		}
		kept = append(kept, r)
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return strs(kept)
}

// A record its owner refuses is set aside like a corrupt line (issue 13):
// skipped, its bytes saved in the side file under a header with the
// reason, taken out of the log and reported with the reason; every other
// byte stays, and the next replay does not see it again.
func TestRefusedRecordIsQuarantined(t *testing.T) {
	dir := t.TempDir()
	steer := `{"type":"turn.steer","input":[],"time":3}`
	good := []string{meta14, `{"type":"turn.prompt","input":[],"time":2}`, `{"type":"turn.cancel","time":4}`}
	writeRaw(t, dir, []byte(good[0]+"\n"+good[1]+"\n"+steer+"\n"+good[2]+"\n"))

	l, reports := openQuarantine(t, dir, osenv.LocalFS{})
	if d := cmp.Diff(good, refuseSteer(t, l)); d != "" {
		t.Fatalf("replayed records (-want +got):\n%s", d)
	}
	side := wirePath(dir) + records.QuarantineSuffix
	want := []records.Quarantined{{Path: wirePath(dir), Line: 3, Bytes: len(steer) + 1, SideFile: side, Removed: true,
		Reason: "turn.steer record: no turn to steer"}}
	if d := cmp.Diff(want, reports()); d != "" {
		t.Fatalf("quarantine reports (-want +got):\n%s", d)
	}
	wantMsg := "set aside line 3 of " + wirePath(dir) + ", a record that cannot be restored (turn.steer record: no turn to steer); " +
		"its bytes were moved to " + side
	if msg := reports()[0].String(); msg != wantMsg {
		t.Errorf("warning = %q\nwant      %q", msg, wantMsg)
	}
	sideBytes, err := os.ReadFile(side)
	if err != nil || !strings.Contains(string(sideBytes), "# quarantined wire.jsonl line 3 (byte offset ") ||
		!strings.Contains(string(sideBytes), "bytes; turn.steer record: no turn to steer):\n"+steer+"\n") {
		t.Errorf("side file = %q, %v", sideBytes, err)
	}
	if d := cmp.Diff(good, readLines(t, dir)); d != "" {
		t.Errorf("log after the quarantine (-want +got):\n%s", d)
	}
}

// In a log of an older protocol version, a refused record is quarantined
// and left out of the migrated rewrite; in a log of a newer version, which
// is never touched, it fails the replay.
func TestRefusedRecordInOtherVersions(t *testing.T) {
	t.Run("older", func(t *testing.T) {
		dir := t.TempDir()
		writeRaw(t, dir, []byte(`{"type":"metadata","protocol_version":"1.3","created_at":1}`+"\n"+
			`{"type":"turn.prompt","input":[],"time":2}`+"\n"+`{"type":"turn.steer","input":[],"time":3}`+"\n"))
		l, reports := openQuarantine(t, dir, osenv.LocalFS{})
		refuseSteer(t, l)
		if n := len(reports()); n != 1 {
			t.Errorf("%d quarantine reports; want 1", n)
		}
		lines := readLines(t, dir)
		if len(lines) != 2 || !strings.Contains(lines[0], `"protocol_version":"1.4"`) || strings.Contains(strings.Join(lines, "\n"), "turn.steer") {
			t.Errorf("migrated log = %q; want the metadata at 1.4 and the prompt", lines)
		}
	})
	t.Run("newer", func(t *testing.T) {
		dir := t.TempDir()
		raw := `{"type":"metadata","protocol_version":"9.0","created_at":1}` + "\n" + `{"type":"turn.steer","input":[],"time":3}` + "\n"
		writeRaw(t, dir, []byte(raw))
		l, reports := openQuarantine(t, dir, osenv.LocalFS{})
		_, err := l.Replay(t.Context(), func(r records.Record) error {
			if r.Type == "turn.steer" {
				return records.Refuse(errors.New("no"))
			}
			return nil
		})
		var refused *records.RefusedError
		if !errors.As(err, &refused) || len(reports()) != 0 || string(readRaw(t, dir)) != raw {
			t.Errorf("replay of a newer log = %v, %d reports; want the refusal and the log untouched", err, len(reports()))
		}
	})
}

// A memory persistence skips a refused record.
func TestMemoryPersistenceSkipsRefusedRecords(t *testing.T) {
	p := records.NewMemory(records.MemoryOptions{Records: []records.Record{prompt(t, "a"), prompt(t, "b"), prompt(t, "c")}})
	var seen []string
	err := p.Read(context.Background(), func(r records.Record) error {
		s := string(r.Fields())
		if strings.Contains(s, `"b"`) {
			return records.Refuse(errors.New("not this one"))
		}
		seen = append(seen, s)
		return nil
	})
	if err != nil || len(seen) != 2 {
		t.Errorf("Read = %v, saw %d records; want 2", err, len(seen))
	}
}

// An inspection reads like a FilePersistence, skipping corrupt lines and
// refused records, but writes nothing and reports them with the side file
// a resume would use.
func TestInspectionWritesNothing(t *testing.T) {
	dir := t.TempDir()
	raw := meta14 + "\n" + `{"type":"turn.prompt","input":[],"time":2}` + "\n" + "not a record\n" +
		`{"type":"turn.steer","input":[],"time":3}` + "\n"
	writeRaw(t, dir, []byte(raw))
	in := records.Inspect(nil, wirePath(dir))
	l := records.NewLog(records.LogOptions{Persistence: in, Now: testNow})
	if got := refuseSteer(t, l); len(got) != 2 {
		t.Errorf("replayed %q; want the metadata and the prompt", got)
	}
	side := wirePath(dir) + records.QuarantineSuffix
	want := []records.Quarantined{
		{Path: wirePath(dir), Line: 3, Bytes: len("not a record\n"), SideFile: side},
		{Path: wirePath(dir), Line: 4, Bytes: len(`{"type":"turn.steer","input":[],"time":3}`) + 1, SideFile: side,
			Reason: "turn.steer record: no turn to steer"},
	}
	if d := cmp.Diff(want, in.Problems()); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	if string(readRaw(t, dir)) != raw {
		t.Errorf("the inspection changed the log")
	}
	if _, err := os.Stat(side); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the inspection wrote %s: %v", side, err)
	}
}

// A UTF-8 byte order mark before the metadata record (an editor saved the
// log) is not a corrupt first line: the log replays, appends go on, and
// the mark stays where it was.
func TestByteOrderMarkOnTheFirstLine(t *testing.T) {
	for _, tt := range []struct{ name, raw string }{
		{"terminated", "\xef\xbb\xbf" + meta14 + "\n" + `{"type":"turn.prompt","input":[],"time":2}` + "\n"},
		{"metadata alone, without its newline", "\xef\xbb\xbf" + meta14},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRaw(t, dir, []byte(tt.raw))
			o := openLog(t, dir)
			recs, _ := o.replayAll(t)
			if len(recs) == 0 || recs[0].Type != records.TypeMetadata || len(o.onErrors()) != 0 {
				t.Fatalf("replayed %v", types(recs))
			}
			o.record(t, prompt(t, "next"))
			o.flush(t)
			o.close(t)
			data := readRaw(t, dir)
			if !strings.HasPrefix(string(data), "\xef\xbb\xbf"+meta14+"\n") || !strings.Contains(string(data), `"next"`) {
				t.Errorf("log after an append = %q", data)
			}
			again := openLog(t, dir)
			if recs, _ := again.replayAll(t); len(recs) != strings.Count(string(data), "\n") {
				t.Errorf("second replay: %d records for %d lines", len(recs), strings.Count(string(data), "\n"))
			}
			again.close(t)
		})
	}
}
