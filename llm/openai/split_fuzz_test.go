package openai

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
)

// splitReader returns data in reads that end at the given offsets, which
// ascend.
type splitReader struct {
	data []byte
	pos  int
	cuts []int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	for len(r.cuts) > 0 && r.cuts[0] <= r.pos {
		r.cuts = r.cuts[1:]
	}
	end := len(r.data)
	if len(r.cuts) > 0 {
		end = min(end, r.cuts[0])
	}
	n := copy(p, r.data[r.pos:end])
	r.pos += n
	return n, nil
}

// merged is what a stream yields, merged as llm.Generate merges it.
type merged struct {
	Message llm.Message
	Err     string
}

func readSplit(data []byte, cuts []int) merged {
	s := newStream(context.Background(), io.NopCloser(&splitReader{data: data, cuts: cuts}), streamConfig{flavour: Kimi}, nil)
	var parts []llm.StreamPart
	for range len(data) + 2 {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return merged{Message: llm.MergeParts(parts), Err: err.Error()}
		}
		parts = append(parts, p)
	}
	return merged{Message: llm.MergeParts(parts)}
}

// FuzzSplitStream: how the network cuts a stream into reads changes how
// many parts come out (deltas that arrived together are one part), never
// what they add up to.
func FuzzSplitStream(f *testing.F) {
	arg := func(i, s string) string {
		return `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":` + i + `,"function":{"arguments":"` + s + `"}}]}}]}`
	}
	stream := events(`{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"content":"lo \u00e9"}}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"Glob","arguments":""}}]}}]}`,
		arg("0", `{\"pattern\"`), arg("0", `:\"*.txt\"}`),
		`{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"Read","arguments":"{"}}]}}]}`,
		arg("1", `}`), arg("0", ``),
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	f.Add([]byte(stream), []byte{30, 200, 7})
	f.Add([]byte(stream), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data, gaps []byte) {
		var cuts []int
		at := 0
		for _, g := range gaps {
			at += int(g) + 1
			cuts = append(cuts, at)
		}
		whole, split := readSplit(data, nil), readSplit(data, cuts)
		if d := cmp.Diff(whole, split, anyID); d != "" {
			t.Fatalf("reads cut at %v change the result (-whole +split):\n%s", cuts, d)
		}
	})
}
