package wire

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

type msg struct {
	Text string
	N    int
}

// encodeMsg is a message encoder that counts its calls.
func encodeMsg(calls *int) func(dst []byte, m *msg) ([]byte, error) {
	return func(dst []byte, m *msg) ([]byte, error) {
		*calls++
		if m.N < 0 {
			return nil, errors.New("message " + m.Text + " cannot be sent")
		}
		dst = append(dst, `{"text":"`...)
		dst = append(dst, m.Text...)
		return append(append(dst, `","n":`...), strconv.Itoa(m.N)+"}"...), nil
	}
}

// TestBody: the body reads as head, comma-separated messages, tail and the
// pieces after it (an empty one among them), in pieces of any size, with the length it was measured at, as often as it
// is asked for.
func TestBody(t *testing.T) {
	for _, comma := range []bool{false, true} {
		calls := 0
		msgs := []msg{{"a", 1}, {strings.Repeat("b", 100<<10), 2}, {"c", 3}}
		head := `{"messages":[`
		if comma {
			head += `{"system":1}`
		}
		b, err := NewBody(BodyParts[msg]{Head: []byte(head), Tail: []byte(`],"tools":`), Messages: msgs,
			More: [][]byte{[]byte(`[{"name":"a"}]`), nil, []byte(`,"stream":true}`)}, Comma: comma, Encode: encodeMsg(&calls)})
		if err != nil {
			t.Fatal(err)
		}
		sep := ""
		if comma {
			sep = ","
		}
		want := head + sep + `{"text":"a","n":1},{"text":"` + msgs[1].Text + `","n":2},{"text":"c","n":3}],"tools":[{"name":"a"}],"stream":true}`
		for range 2 {
			r := b.Reader()
			got, err := io.ReadAll(io.LimitReader(r, 1<<30))
			if err != nil || string(got) != want {
				t.Fatalf("comma %v: read %d bytes (%v), want %d", comma, len(got), err, len(want))
			}
		}
		if b.Len() != int64(len(want)) {
			t.Errorf("comma %v: Len() = %d, want %d", comma, b.Len(), len(want))
		}
		if all, _ := b.Bytes(); string(all) != want {
			t.Errorf("comma %v: Bytes() differs", comma)
		}
	}
}

// TestSizesMeasureOnlyWhatIsNew: a request that repeats the last one's
// messages encodes only its new ones to measure; another key, or a
// changed message, measures again; a refused message is an error.
func TestSizesMeasureOnlyWhatIsNew(t *testing.T) {
	var sizes Sizes[msg]
	calls := 0
	measure := func(key any, msgs ...msg) (int64, error) {
		calls = 0
		b, err := NewBody(BodyParts[msg]{Messages: msgs, Encode: encodeMsg(&calls), Sizes: &sizes, Key: key})
		if err != nil {
			return 0, err
		}
		measured := calls
		all, _ := b.Bytes()
		calls = measured
		if b.Len() != int64(len(all)) {
			t.Errorf("Len() = %d, body has %d bytes", b.Len(), len(all))
		}
		return b.Len(), nil
	}
	long := strings.Repeat("x", 1000)
	if _, err := measure(1, msg{long, 1}, msg{"b", 2}); err != nil || calls != 2 {
		t.Fatalf("first request: %v, %d encodes", err, calls)
	}
	if _, err := measure(1, msg{long, 1}, msg{"b", 2}, msg{"c", 3}); err != nil || calls != 1 {
		t.Errorf("repeated prefix: %v, %d encodes; want the new message only", err, calls)
	}
	if _, err := measure(1, msg{long, 1}, msg{"B", 2}, msg{"c", 3}); err != nil || calls != 1 {
		t.Errorf("changed message: %v, %d encodes", err, calls)
	}
	if _, err := measure(2, msg{long, 1}, msg{"B", 2}, msg{"c", 3}); err != nil || calls != 3 {
		t.Errorf("another key: %v, %d encodes", err, calls)
	}
	if _, err := measure(2, msg{long, 1}, msg{"bad", -1}); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("refused message: %v", err)
	}
}

// TestSizesUseTheirEqual: with BodyParts.Equal, a message counts as
// repeated when Equal says so, not when reflect.DeepEqual does.
func TestSizesUseTheirEqual(t *testing.T) {
	var sizes Sizes[msg]
	sameText := func(a, b *msg) bool { return a.Text == b.Text }
	for i, tt := range []struct {
		msgs    []msg
		encodes int
	}{
		{[]msg{{"a", 1}, {"b", 2}}, 2},
		{[]msg{{"a", 1}, {"b", 3}, {"c", 4}}, 1}, // b's number does not count
		{[]msg{{"a", 1}, {"B", 3}, {"c", 4}}, 1},
	} {
		calls := 0
		if _, err := NewBody(BodyParts[msg]{Messages: tt.msgs, Encode: encodeMsg(&calls), Sizes: &sizes, Equal: sameText}); err != nil {
			t.Fatal(err)
		}
		if calls != tt.encodes {
			t.Errorf("request %d: %d encodes; want %d", i, calls, tt.encodes)
		}
	}
}
