package records_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
)

// b64 returns canonical base64 of n characters (n a multiple of 4).
func b64(n int, seed byte) string {
	raw := make([]byte, n/4*3)
	for i := range raw {
		raw[i] = byte(i)*7 + seed
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func hashOf(payload string) string {
	sum := sha256.Sum256([]byte(payload))
	return hex.EncodeToString(sum[:])
}

func imagePrompt(t *testing.T, url string) records.Record {
	t.Helper()
	return mustNew(t, "turn.prompt", map[string]any{"input": []any{
		map[string]any{"type": "text", "text": "look"},
		map[string]any{"type": "image_url", "imageUrl": map[string]any{"url": url, "id": "img1"}},
	}})
}

// imageURL returns the URL of the image part of a turn.prompt record.
func imageURL(t *testing.T, r records.Record) string {
	t.Helper()
	var f struct {
		Input []struct{ ImageURL struct{ URL string } }
	}
	if err := records.Decode(r, &f); err != nil {
		t.Fatal(err)
	}
	return f.Input[1].ImageURL.URL
}

func blobFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, records.BlobsDirName))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestS44Blobs(t *testing.T) {
	dir := t.TempDir()
	o := openLog(t, dir)
	payload := b64(5000, 1)
	url := "data:image/png;base64," + payload
	rec := imagePrompt(t, url)
	before := rec.String()
	o.record(t, rec)
	o.flush(t)

	if rec.String() != before {
		t.Fatal("offloading changed the in-memory record")
	}
	line := readLines(t, dir)[1]
	ref := "blobref:image/png;" + hashOf(payload)
	if !strings.Contains(line, `"url":"`+ref+`"`) || strings.Contains(line, payload) {
		t.Fatalf("line does not carry the blob reference %s:\n%.200s", ref, line)
	}
	if files := blobFiles(t, dir); len(files) != 1 || files[0] != hashOf(payload) {
		t.Fatalf("blob files = %q, want one named by the payload hash", files)
	}
	data, err := os.ReadFile(filepath.Join(dir, "blobs", hashOf(payload)))
	if err != nil || base64.StdEncoding.EncodeToString(data) != payload {
		t.Fatalf("blob bytes do not base64-encode to the payload (err %v)", err)
	}

	o.record(t, imagePrompt(t, url)) // identical payload: same file
	below := b64(4092, 2)
	o.record(t, imagePrompt(t, "data:image/png;base64,"+below))        // under the threshold
	o.record(t, imagePrompt(t, "data:image/png;base64,"+b64(4096, 3))) // at the threshold
	odd := strings.Repeat("A", 4095)
	o.record(t, imagePrompt(t, "data:image/png;base64,"+odd)) // 4,095 characters stay inline
	o.close(t)
	if files := blobFiles(t, dir); len(files) != 2 {
		t.Fatalf("blob files = %q, want the 5000 and the 4096 payloads only", files)
	}
	lines := readLines(t, dir)
	if !strings.Contains(lines[3], below) || !strings.Contains(lines[5], odd) {
		t.Fatal("payloads under the threshold were not kept inline")
	}

	o = openLog(t, dir)
	recs, _ := o.replayAll(t)
	if got := imageURL(t, recs[1]); got != url {
		t.Fatalf("resumed URL = %.60s…, want the data URL back", got)
	}
	if got := imageURL(t, recs[2]); got != url {
		t.Fatal("second reference to the same blob not rehydrated")
	}
	o.close(t)

	if err := os.Remove(filepath.Join(dir, "blobs", hashOf(payload))); err != nil {
		t.Fatal(err)
	}
	o = openLog(t, dir)
	recs, _ = o.replayAll(t)
	if got := imageURL(t, recs[1]); got != records.MediaMissing {
		t.Fatalf("URL with a missing blob = %.60s, want %q", got, records.MediaMissing)
	}
}

func TestBlobCandidates(t *testing.T) {
	payload := b64(8000, 9)
	url := "data:image/jpeg;base64," + payload
	media := map[string]any{"type": "image_url", "imageUrl": map[string]any{"url": url}}
	for _, tt := range []struct {
		name    string
		typ     records.Type
		fields  any
		offload bool
	}{
		{"steer input", "turn.steer", map[string]any{"input": []any{media}}, true},
		{"message content", "context.append_message", map[string]any{"message": map[string]any{"role": "user", "content": []any{media}}}, true},
		{"tool result parts", "context.append_loop_event", map[string]any{"event": map[string]any{
			"type": "tool.result", "toolCallId": "c1", "result": map[string]any{"output": []any{media}}}}, true},
		{"other loop event", "context.append_loop_event", map[string]any{"event": map[string]any{
			"type": "tool.call", "result": map[string]any{"output": []any{media}}}}, false},
		{"string tool output", "context.append_loop_event", map[string]any{"event": map[string]any{
			"type": "tool.result", "result": map[string]any{"output": url}}}, false},
		{"not a candidate type", "custom.media", map[string]any{"input": []any{media}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			o := openLog(t, dir)
			o.record(t, mustNew(t, tt.typ, tt.fields))
			o.close(t)
			line := readLines(t, dir)[1]
			if got := !strings.Contains(line, payload); got != tt.offload {
				t.Fatalf("offloaded = %v, want %v:\n%.200s", got, tt.offload, line)
			}
			o = openLog(t, dir)
			recs, _ := o.replayAll(t)
			if !strings.Contains(recs[1].String(), url) {
				t.Fatal("replay did not give the data URL back")
			}
		})
	}
}

func TestBlobStoredAsBase64TextIsRead(t *testing.T) {
	// Older writers stored the base64 text itself; its hash tells them apart.
	dir := t.TempDir()
	payload := b64(6000, 4)
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blobs", hashOf(payload)), []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	ref := "blobref:image/png;" + hashOf(payload)
	bad := "blobref:image/png;../../etc/passwd"
	writeWire(t, dir, meta14,
		`{"type":"turn.prompt","input":[{"type":"text","text":"a"},{"type":"image_url","imageUrl":{"url":"`+ref+`"}}]}`,
		`{"type":"turn.prompt","input":[{"type":"text","text":"a"},{"type":"image_url","imageUrl":{"url":"`+bad+`"}}]}`)
	o := openLog(t, dir)
	recs, _ := o.replayAll(t)
	if got := imageURL(t, recs[1]); got != "data:image/png;base64,"+payload {
		t.Fatalf("URL = %.60s…, want the data URL", got)
	}
	if got := imageURL(t, recs[2]); got != records.MediaMissing {
		t.Fatalf("malformed reference gave %q, want %q", got, records.MediaMissing)
	}
}

// TestBlobOffloadOfARecordReadBack: a record taken from a line (a log of
// an older version, a copy) is offloaded as one built from fields is,
// whether it is written as it was read or with a new time.
func TestBlobOffloadOfARecordReadBack(t *testing.T) {
	payload := b64(6000, 4)
	url := "data:image/png;base64," + payload
	line := `{"type":"turn.prompt","input":[{"type":"image_url","imageUrl":{"url":"` + url + `"}}],"time":5}`
	var kept, retimed records.Record
	if err := kept.UnmarshalJSON([]byte(line)); err != nil {
		t.Fatal(err)
	}
	if err := retimed.UnmarshalJSON([]byte(line)); err != nil {
		t.Fatal(err)
	}
	retimed.Time = 0 // the log stamps it again
	dir := t.TempDir()
	o := openLog(t, dir)
	o.record(t, kept, retimed)
	o.close(t)
	lines := readLines(t, dir)
	ref := "blobref:image/png;" + hashOf(payload)
	for i, l := range lines[1:] {
		if !strings.Contains(l, `"url":"`+ref+`"`) || strings.Contains(l, payload) {
			t.Errorf("record %d: line does not carry the blob reference %s:\n%.200s", i+1, ref, l)
		}
	}
	if files := blobFiles(t, dir); len(files) != 1 || files[0] != hashOf(payload) {
		t.Fatalf("blob files = %q, want one named by the payload hash", files)
	}
}
