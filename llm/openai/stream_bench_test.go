package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// benchStream builds a realistic Chat Completions stream of about size
// bytes: reasoning deltas, many small content deltas, and one tool call
// whose arguments stream in small pieces.
func benchStream(size int) []byte {
	var b bytes.Buffer
	chunk := func(delta map[string]any) {
		c := map[string]any{"id": "chatcmpl-9Abc123XyZ", "object": "chat.completion.chunk", "created": 1730000000,
			"model": "kimi-k2-turbo-preview", "system_fingerprint": "fp_8f0b3c",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": nil}}}
		data, _ := json.Marshal(c)
		b.WriteString("data: ")
		b.Write(data)
		b.WriteString("\n\n")
	}
	words := strings.Fields("the quick brown fox jumps over the lazy dog while a careful reader " +
		"checks every line of the patch and writes a short note about what changed and why")
	i := 0
	for b.Len() < size/10 {
		chunk(map[string]any{"reasoning_content": words[i%len(words)] + " "})
		i++
	}
	for b.Len() < size*6/10 {
		chunk(map[string]any{"content": " " + words[i%len(words)]})
		i++
	}
	chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_0", "type": "function",
		"function": map[string]any{"name": "Write", "arguments": ""}}}})
	chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `{"path":"main.go","content":"`}}}})
	for b.Len() < size {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
			"function": map[string]any{"arguments": `func f() {\n\treturn ` + words[i%len(words)] + `\n}\n`}}}})
		i++
	}
	b.WriteString(`data: {"id":"chatcmpl-9Abc123XyZ","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":1200,"completion_tokens":900,"prompt_tokens_details":{"cached_tokens":1000}}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func BenchmarkSSEDecode(b *testing.B) {
	data := benchStream(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := newStream(b.Context(), io.NopCloser(bytes.NewReader(data)), streamConfig{flavour: Kimi}, nil)
		for {
			_, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
