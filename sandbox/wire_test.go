package sandbox

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWireRoundTrip(t *testing.T) {
	for _, m := range []message{
		{Op: opStart, ID: 1, Path: "/bin/bash", Dir: "/w d", Args: []string{"bash", "-c", "echo \"$x\" '\x00'"}, Env: []string{"A=1", "B="}},
		{Op: opStart, ID: 1 << 60, Path: "x", Args: []string{}, Env: []string{}},
		{Op: opReady},
		{Op: opReady, Text: "kimigo sandbox (workspace-write): keep /w/.kimi-code read-only: no such file"},
		{Op: opStarted, ID: 3, Pid: 4194304},
		{Op: opFailed, ID: 4, Errno: 2, Text: "execute /x: no such file or directory"},
		{Op: opExited, ID: 5, Status: 0x8b},
		{Op: opStale, ID: 6, Text: "/w/.git/hooks was replaced"},
	} {
		var buf bytes.Buffer
		buf.Write(appendFrame(nil, m))
		buf.Write(appendFrame(nil, message{Op: opExited, ID: 9})) // a second frame follows
		body, err := readFrame(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeMessage(body)
		if err != nil {
			t.Fatalf("decode %+v: %v", m, err)
		}
		if m.Op == opStart && m.Args == nil {
			m.Args, m.Env = []string{}, []string{}
		}
		if d := cmp.Diff(m, got); d != "" {
			t.Errorf("(-sent +read):\n%s", d)
		}
		if next, err := readFrame(&buf, nil); err != nil || len(next) == 0 {
			t.Errorf("the second frame: %v", err)
		}
		if _, err := readFrame(&buf, nil); !errors.Is(err, io.EOF) {
			t.Errorf("after the last frame: %v, want io.EOF", err)
		}
	}
}

func TestWireRejects(t *testing.T) {
	for _, tt := range []struct {
		name string
		body []byte
		says string
	}{
		{"empty", nil, "empty frame"},
		{"unknown op", []byte{99}, "unknown op 99"},
		{"truncated id", []byte{byte(opStarted), 0x80}, "id: truncated"},
		{"pid zero", []byte{byte(opStarted), 1, 0}, "pid: 0 is no process id"},
		{"string longer than the frame", []byte{byte(opStart), 1, 50, 'x'}, "path: 50 bytes promised"},
		{"list longer than the frame", []byte{byte(opStart), 1, 0, 0, 0xff, 0xff, 0x03}, "args:"},
		{"bytes left over", []byte{byte(opExited), 1, 0, 7}, "end: 1 bytes left over"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeMessage(tt.body)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("decode %v = %v; want an error naming %q", tt.body, err, tt.says)
			}
		})
	}
	if _, err := readFrame(bytes.NewReader([]byte{0, 0, 0, 0}), nil); err == nil || !strings.Contains(err.Error(), "frame of 0 bytes") {
		t.Errorf("empty frame: %v", err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{0, 0, 0, 0x10}), nil); err == nil || !strings.Contains(err.Error(), "frame of") {
		t.Errorf("huge frame: %v", err)
	}
	if _, err := readFrame(bytes.NewReader([]byte{5, 0, 0, 0, 1}), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut frame: %v", err)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add(appendFrame(nil, message{Op: opStart, ID: 1, Path: "/bin/sh", Args: []string{"sh"}, Env: []string{"A=1"}})[4:])
	f.Add(appendFrame(nil, message{Op: opReady, Text: "kimigo sandbox (read-only): x"})[4:])
	f.Add(appendFrame(nil, message{Op: opExited, ID: 2, Status: 9})[4:])
	f.Add([]byte{byte(opStart), 1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := decodeMessage(body)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sandbox wire: ") {
				t.Errorf("error %q does not say it is the wire's", err)
			}
			return
		}
		// What decodes encodes back to the same bytes (a uvarint may be
		// written longer than needed, so compare after a second trip).
		again, err := decodeMessage(appendFrame(nil, m)[4:])
		if err != nil {
			t.Fatalf("re-decode %+v: %v", m, err)
		}
		if d := cmp.Diff(m, again); d != "" {
			t.Errorf("(-first +second):\n%s", d)
		}
	})
}
