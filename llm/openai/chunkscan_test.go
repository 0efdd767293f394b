package openai

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
)

// scanSeeds are chunks on and off the scanner's fast path.
var scanSeeds = []string{
	`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"r\n\"q\"","reasoning":"x"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"p\":\"\\n\"}"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\u00e9\ud83d\ude00"}},{"index":-0,"id":null,"function":null}]}}]}`,
	`{"choices":[{"delta":{"content":"caf\u00e9 \/ ok"},"finish_reason":"stop","usage":null}],"usage":null,"error":null}`,
	`{"choices":[{"delta":{},"finish_reason":"length","usage":{"prompt_tokens":3,"cached_tokens":1}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":4}}}`,
	`{"ID":"upper","Choices":[{"Delta":{"Content":"folded keys"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	`{"choices":[{"delta":{"content":"one"}},{"delta":{"content":"two"}}]}`,
	`{"choices":[null]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":1.0,"function":{"name":"f"}}]}}]}`,
	`{"choices":[{"delta":{"content":5}}]}`,
	`{"choices":[{"delta":{"content":"x"}}]} trailing`,
	`{"error":{"message":"boom"}}`,
	`{"id":"\u0063","choices":[{"delta":{"reasoning_details":[{"text":"t"}],"x":{"deep":[[[[1e5,-2.5E-3,true,false,null]]]]}}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf8\"}}]}",
	`{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}`,
	`null`,
	`[1,2]`,
}

// repeatSeeds are chunk sequences, one chunk a line, whose chunks repeat
// the one before but for one string: the scanner's repeat path, and inputs
// that look like a repeat but are not.
var repeatSeeds = []string{
	`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ab"}}]},"finish_reason":null}]}` + "\n" +
		`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"c\"d\\n"}}]},"finish_reason":null}]}` + "\n" +
		`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]},"finish_reason":null}]}` + "\n" +
		`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\u00e9\ud83d"}}]},"finish_reason":null}]}` + "\n" +
		`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"a","x":"b"}}]},"finish_reason":null}]}` + "\n" +
		`{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"a","arguments":"b"}}]},"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null}]}` + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":"lo \/ \t"},"logprobs":null}]}` + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":null},"logprobs":null}]}` + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null}]}` + "\n" +
		"{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\"},\"logprobs\":null}]}" + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":"y"},"logprobs":null}]}` + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":"y"}` + "\n" +
		`{"id":"c","choices":[{"index":0,"delta":{"content":"z"},"logprobs":null}]}`,
	`{"choices":[{"delta":{"reasoning_content":"a","content":"b"}}]}` + "\n" +
		`{"choices":[{"delta":{"reasoning_content":"a","content":"c"}}]}` + "\n" +
		`{"choices":[{"delta":{"content":"a","tool_calls":[{"index":0,"function":{"arguments":"b"}}]}}]}` + "\n" +
		`{"choices":[{"delta":{"content":"a","tool_calls":[{"index":0,"function":{"arguments":"c"}}]}}]}`,
}

func FuzzChunkScanner(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range repeatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		chunks := bytes.Split(data, []byte("\n"))
		fast := handleAll(chunks, false)
		slow := handleAll(chunks, true)
		if d := cmp.Diff(slow, fast, anyID); d != "" {
			t.Fatalf("fast path differs from encoding/json (-slow +fast):\n%s\ninput %q", d, data)
		}
	})
}

func TestChunkScannerMatchesEncodingJSON(t *testing.T) {
	for _, s := range scanSeeds {
		chunks := [][]byte{[]byte(s)}
		if d := cmp.Diff(handleAll(chunks, true), handleAll(chunks, false), anyID); d != "" {
			t.Errorf("input %s: fast path differs (-slow +fast):\n%s", s, d)
		}
	}
}

// TestChunkScannerRepeatsMatchEncodingJSON runs the repeat seeds through
// both paths, chunk by chunk.
func TestChunkScannerRepeatsMatchEncodingJSON(t *testing.T) {
	for _, s := range repeatSeeds {
		chunks := bytes.Split([]byte(s), []byte("\n"))
		if d := cmp.Diff(handleAll(chunks, true), handleAll(chunks, false), anyID); d != "" {
			t.Errorf("input %s: fast path differs (-slow +fast):\n%s", s, d)
		}
	}
}

// outcome is everything a sequence of chunks changes in a stream.
type outcome struct {
	Parts     []llm.StreamPart
	Err       string
	ID        string
	Usage     llm.TokenUsage
	HasUsage  bool
	RawFinish string
	Learned   ReasoningKey
}

func handleAll(chunks [][]byte, slow bool) outcome {
	s := newStream(context.Background(), io.NopCloser(bytes.NewReader(nil)), streamConfig{flavour: Kimi}, nil)
	s.noFastPath = slow
	var o outcome
	for _, c := range chunks {
		if len(bytes.TrimSpace(c)) == 0 {
			continue
		}
		if err := s.handle(c); err != nil {
			o.Err = err.Error()
			break
		}
	}
	o.Parts = s.run.Flush(s.queue)
	o.ID, o.RawFinish = s.id, s.rawFinish
	o.Usage, o.HasUsage = s.usage, s.hasUsage
	o.Learned = s.cfg.dialect.learned
	return o
}
