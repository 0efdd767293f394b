package sse

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type ev struct{ Type, Data string }

func collect(t *testing.T, in string) ([]ev, error) {
	t.Helper()
	d := NewDecoder(strings.NewReader(in))
	var out []ev
	for {
		e, err := d.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev{e.Type, string(e.Data)})
	}
}

func TestDecoder(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []ev
		err      error
	}{
		{"single data line", "data: {}\n\n", []ev{{"", "{}"}}, nil},
		{"crlf line ends", "event: ping\r\ndata: x\r\n\r\n", []ev{{"ping", "x"}}, nil},
		{"multi data lines join with newline", "data: a\ndata: b\n\n", []ev{{"", "a\nb"}}, nil},
		{"only one space stripped", "data:  two\n\n", []ev{{"", " two"}}, nil},
		{"no space after colon", "data:x\n\n", []ev{{"", "x"}}, nil},
		{"comments ignored", ": keep-alive\n\ndata: y\n\n", []ev{{"", "y"}}, nil},
		{"event type resets per event", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1"}, {"", "2"}}, nil},
		{"blank lines between events", "\n\n\ndata: z\n\n\n", []ev{{"", "z"}}, nil},
		{"eof inside event is torn", "data: {\"a\"", nil, io.ErrUnexpectedEOF},
		{"eof after data line without blank", "data: x\n", nil, io.ErrUnexpectedEOF},
		{"empty stream", "", nil, nil},
		{"event without data", "event: message_stop\n\n", []ev{{"message_stop", ""}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collect(t, tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestDecoderLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	got, err := collect(t, "data: "+big+"\n\ndata: after\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Data != big || got[1].Data != "after" {
		t.Fatalf("long line not decoded: %d events", len(got))
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add([]byte("event: a\ndata: 1\n\n"))
	f.Add([]byte("data: x\r\n\r\n: c\n"))
	f.Add([]byte("data"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(strings.NewReader(string(b)))
		for i := 0; i <= len(b)+1; i++ {
			if _, err := d.Next(); err != nil {
				return
			}
		}
		t.Fatalf("decoder produced more events than input bytes")
	})
}

// TestDecoderEndings tells the three ways a body ends apart: at an event
// boundary (io.EOF), cleanly inside an event (ErrUnterminated), or by the
// transport's own failure (returned as it is); Bytes says whether anything
// arrived at all.
func TestDecoderEndings(t *testing.T) {
	d := NewDecoder(strings.NewReader(""))
	if _, err := d.Next(); err != io.EOF || d.Bytes() != 0 {
		t.Errorf("empty body: %v, %d bytes", err, d.Bytes())
	}
	d = NewDecoder(strings.NewReader(": keep-alive\n\n"))
	if _, err := d.Next(); err != io.EOF || d.Bytes() != 14 {
		t.Errorf("comment only: %v, %d bytes", err, d.Bytes())
	}
	d = NewDecoder(strings.NewReader("data: x"))
	if _, err := d.Next(); err != ErrUnterminated || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("clean end inside an event: %v", err)
	}
	boom := errors.New("connection reset")
	d = NewDecoder(io.MultiReader(strings.NewReader("data: x\n"), errReader{boom}))
	if _, err := d.Next(); err != boom {
		t.Errorf("transport failure: %v, want it as it is", err)
	}
	d = NewDecoder(strings.NewReader("data: " + strings.Repeat("x", 100<<10) + "\n\n"))
	if _, err := d.Next(); err != nil || d.Bytes() != 6+100<<10+2 {
		t.Errorf("long line: %v, %d bytes", err, d.Bytes())
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestReady checks when the next event counts as buffered.
func TestReady(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     bool
	}{
		{"whole event", "data: x\n\n", true},
		{"crlf", "data: x\r\n\r\n", true},
		{"type only", "event: ping\n\n", true},
		{"no blank line yet", "data: x\n", false},
		{"torn line", "data: x", false},
		{"comment then nothing", ": keep-alive\n\n", false},
		{"comment then event", ": keep-alive\n\ndata: y\n\n", true},
		{"blank lines only", "\n\n\n", false},
		{"empty type does not dispatch", "event:\n\n", false},
		{"type reset by an empty one", "event: a\nevent:\n\n", false},
		{"nothing", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(io.MultiReader(strings.NewReader(tt.in), errReader{errBlocked}))
			_, _ = d.r.Peek(1) // fill the buffer as a first read would
			if got := d.Ready(); got != tt.want {
				t.Errorf("Ready() = %v, want %v", got, tt.want)
			}
		})
	}
}

// errBlocked stands for a read that would wait for the network.
var errBlocked = errors.New("read would block")

// FuzzReady checks that Ready never reports an event that needs a read:
// after the first k bytes arrived, every event Ready promises comes
// without touching the reader again.
func FuzzReady(f *testing.F) {
	f.Add([]byte("event: a\ndata: 1\n\ndata: 2\n\n: c\n\ndata: 3\n"), uint16(20))
	f.Add([]byte("data: x\r\n\r\nevent:\n\nevent: b\n\n"), uint16(40))
	f.Fuzz(func(t *testing.T, b []byte, k uint16) {
		n := int(k) % (len(b) + 1)
		d := NewDecoder(io.MultiReader(strings.NewReader(string(b[:n])), errReader{errBlocked}))
		for range len(b) + 1 {
			ready := d.Ready()
			_, err := d.Next()
			if err != nil {
				if ready {
					t.Fatalf("Ready promised an event, Next failed: %v (input %q, %d bytes arrived)", err, b, n)
				}
				return
			}
		}
	})
}

// A decoder of a short answer allocates its 16 KiB buffer and little else
// (every request has one: issue 23, allocations per step); lines longer
// than the buffer are still whole (TestDecoderLongLine).
func TestDecoderOfAShortStreamAllocatesLittle(t *testing.T) {
	in := "data: {\"choices\":[{\"delta\":{\"content\":\"Done.\"}}]}\n\ndata: [DONE]\n\n"
	const streams = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range streams {
		got, err := collect(t, in)
		if err != nil || len(got) != 2 || got[1].Data != "[DONE]" {
			t.Fatalf("events %v (%v)", got, err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / streams; per > 20<<10 {
		t.Errorf("decoding a %d-byte stream allocates %d B; want at most 20 KiB", len(in), per)
	}
}
