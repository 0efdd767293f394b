package openai

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// fuzzSeeds are real chunk sequences from Kimi and OpenAI streams.
var fuzzSeeds = []string{
	"data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4.1\"," +
		"\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n" +
		"data: [DONE]\n\n",
	"data: {\"id\":\"cmpl-k\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Let me think.\"}}]}\n\n" +
		"data: {\"id\":\"cmpl-k\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"Read:0\",\"type\":\"function\"," +
		"\"function\":{\"name\":\"Read\",\"arguments\":\"\"}}]}}]}\n\n" +
		"data: {\"id\":\"cmpl-k\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"a.go\\\"}\"}}]}}]}\n\n" +
		"data: {\"id\":\"cmpl-k\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"," +
		"\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":6,\"total_tokens\":18,\"cached_tokens\":2}}]}\n\n" +
		"data: [DONE]\n\n",
	"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{\\\"a\\\":\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"1}\"}}]}}]}\n\n",
	"data: {\"error\":{\"message\":\"upstream overloaded\",\"type\":\"server_error\"}}\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"cho",
	": ping\r\n\r\nevent: message\r\ndata: {\"choices\":[{\"delta\":{\"reasoning\":\"r\"}}]}\r\n\r\n",
	`{"id":"x","choices":[{"message":{"content":"hi","tool_calls":[{"function":{"name":"f"}}]},"finish_reason":"stop"}]}`,
}

func FuzzChatCompletionsStream(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cfg := range []streamConfig{{flavour: Kimi}, {flavour: OpenAI}, {flavour: Kimi, json: true}} {
			drain(t, cfg, data)
		}
	})
}

// drain reads a stream over data to its end, checking that it ends, and
// that every failure is a classified error with a message.
func drain(t *testing.T, cfg streamConfig, data []byte) {
	t.Helper()
	s := newStream(context.Background(), io.NopCloser(bytes.NewReader(data)), cfg, nil)
	defer s.Close()
	limit := 2*len(data) + 16 // every part costs input bytes
	for range limit {
		_, err := s.Next()
		if err == nil {
			continue
		}
		if err == io.EOF {
			return
		}
		e, ok := llm.AsError(err)
		if !ok || e.Message == "" {
			t.Fatalf("error %v (%T) is not an *llm.Error with a message", err, err)
		}
		if _, again := s.Next(); again != err {
			t.Fatalf("error is not sticky: %v then %v", err, again)
		}
		return
	}
	t.Fatalf("stream over %d bytes did not end after %d parts", len(data), limit)
}
