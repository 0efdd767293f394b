package anthropic

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// TestEncodeBodyMatchesEncodeJSON: the body written a message at a time is
// byte for byte the body encoding/json writes in one piece.
func TestEncodeBodyMatchesEncodeJSON(t *testing.T) {
	temp, topK := 0.5, 3
	p := New(Options{Model: "claude-sonnet-4-5", Temperature: &temp, TopK: &topK, MetadataUserID: "u<1>"})
	req := &llm.Request{System: "be <brief>", Tools: []llm.Tool{{Name: "Read", Description: "reads & more"}},
		Messages: []llm.Message{llm.UserMessage("hi <there>"),
			llm.AssistantMessage("ok", llm.ToolCall{ID: "c1", Name: "Read", Arguments: `{"path":"a&b"}`}),
			llm.ToolMessage("c1", llm.TextPart("line\n\tmore \u2028"))}}
	for _, tt := range []struct {
		name string
		p    *Provider
		req  *llm.Request
	}{
		{"full", p.WithThinking("high").(*Provider), req},
		{"plain", New(Options{Model: "m"}), &llm.Request{Messages: []llm.Message{llm.UserMessage("x")}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.p.buildBody(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plainjson.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeBody(b)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("encodeBody:\n%s\nplainjson.Marshal:\n%s", got, want)
			}
		})
	}
	b := &requestBody{Model: "m"}
	want, _ := plainjson.Marshal(b)
	if got, _ := encodeBody(b); string(got) != string(want) {
		t.Errorf("nil messages: encodeBody %s, plainjson.Marshal %s", got, want)
	}
}

// TestEncodeBodyLeavesNoRequestSizedBuffer: after a large request is
// encoded, encoding/json's buffer pool holds nothing near its size (the
// Anthropic wire's memory growth of issue 13 item 8). Live heap is read
// after one collection, which keeps what the pool holds.
func TestEncodeBodyLeavesNoRequestSizedBuffer(t *testing.T) {
	var msgs []llm.Message
	for i := range 200 {
		msgs = append(msgs, llm.UserMessage(strings.Repeat("x", 40<<10)+string(rune('a'+i%26))),
			llm.AssistantMessage("ok"))
	}
	p := New(Options{Model: "claude-sonnet-4-5"})
	b, err := p.buildBody(&llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	size := func() int {
		data, err := encodeBody(b)
		if err != nil {
			t.Fatal(err)
		}
		return len(data)
	}()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(b)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > int64(size)/2 {
		t.Errorf("encoding a %d-byte body left the heap %d bytes larger; want well under the body's size", size, grew)
	}
}

// encodeBody is the request body in one buffer: the bytes the transport
// sends.
func encodeBody(b *requestBody) ([]byte, error) {
	body, err := newBody(b, nil)
	if err != nil {
		return nil, err
	}
	return body.Bytes()
}

// sa1Request is TestSA1RequestShapeAndCredentials's request with tools as
// its tool table.
func sa1Request(tools []llm.Tool) llm.Request {
	return llm.Request{System: "You are a calculator.", Tools: tools,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{
			llm.TextPart("What is in this picture?"), llm.ImagePart("https://example.com/cat.png")}}}}
}

// TestSameToolTableSendsTheGoldenBodyTwice (issue 23: the tool table and
// the system blocks are encoded once while unchanged): two requests with
// the same tool table, then one with an equal table in other memory, each
// send the golden body, byte for byte the first one's.
func TestSameToolTableSendsTheGoldenBodyTwice(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("0"), llmtest.Text("1"), llmtest.Text("2"))
	p := newTestProvider(srv, Options{})
	tools := []llm.Tool{tool("add"), tool("multiply")}
	mustRun(t, p, sa1Request(tools))
	mustRun(t, p, sa1Request(tools))
	copied := []llm.Tool{tool(strings.Clone("add")), tool(strings.Clone("multiply"))}
	copied[0].Parameters = append(json.RawMessage(nil), copied[0].Parameters...)
	mustRun(t, p, sa1Request(copied))
	for i := range 3 {
		llmtest.Golden(t, "sa1_request.golden.json", srv.Request(i).CanonicalBody())
		if got, first := string(srv.Request(i).Body), string(srv.Request(0).Body); got != first {
			t.Errorf("request %d differs from request 0:\n%s\n%s", i, got, first)
		}
	}
}

// TestChangedToolTableIsSent: a request whose tool table (or system
// prompt) differs from the last one's sends the new one, byte for byte
// what a provider that never sent the old one sends; a table that cannot
// be encoded fails every time, and the table before it is sent right
// afterwards.
func TestChangedToolTableIsSent(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("0"), llmtest.Text("1"), llmtest.Text("2"), llmtest.Text("3"))
	fresh := llmtest.FakeAnthropic(t, llmtest.Text("0"), llmtest.Text("1"), llmtest.Text("2"), llmtest.Text("3"))
	p := newTestProvider(srv, Options{})
	tools := []llm.Tool{tool("add"), tool("multiply")}
	changed := []llm.Tool{tool("add"), tool("multiply")}
	changed[0].Description = "add two numbers, carefully"
	broken := []llm.Tool{tool("add"), {Name: "x", Parameters: json.RawMessage(`{"type":`)}}
	reprompted := sa1Request(append(changed, tool("divide")))
	reprompted.System = "You are a careful calculator."
	reqs := []llm.Request{sa1Request(tools), sa1Request(changed), reprompted, sa1Request(tools)}
	for i, req := range reqs {
		if i == 3 {
			for range 2 {
				if _, err := run(t, p, sa1Request(broken)); !llm.IsInvalidRequest(err) || !strings.Contains(err.Error(), "encode request") {
					t.Fatalf("tools with a broken schema: err = %v; want an invalid request", err)
				}
			}
		}
		mustRun(t, p, req)
		mustRun(t, newTestProvider(fresh, Options{}), req)
		if got, want := string(srv.Request(i).Body), string(fresh.Request(i).Body); got != want {
			t.Errorf("request %d:\n%s\nfrom a new provider:\n%s", i, got, want)
		}
	}
	llmtest.Golden(t, "sa1_request.golden.json", srv.Request(0).CanonicalBody())
	llmtest.Golden(t, "sa1_request.golden.json", srv.Request(3).CanonicalBody())
	if got := at(t, wireBody(t, srv, 1), "tools", 0, "description"); got != "add two numbers, carefully" {
		t.Errorf("the changed description was not sent: %v", got)
	}
	body := wireBody(t, srv, 2)
	if n := len(body["tools"].([]any)); n != 3 || at(t, body, "tools", 2, "name") != "divide" {
		t.Fatalf("the longer table was not sent: %s", jsonOf(t, body["tools"]))
	}
	if has(at(t, body, "tools", 1), "cache_control") || !has(at(t, body, "tools", 2), "cache_control") {
		t.Errorf("cache_control must be on the last tool only: %s", jsonOf(t, body["tools"]))
	}
	if got := at(t, body, "system", 0, "text"); got != "You are a careful calculator." {
		t.Errorf("system after the change = %v", got)
	}
}
