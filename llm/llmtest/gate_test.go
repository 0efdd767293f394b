package llmtest

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// A gate before the headers holds a received request unanswered; released,
// the reply streams whole.
func TestGateHoldsBeforeHeaders(t *testing.T) {
	g := NewGate()
	srv := FakeChatCompletions(t, Text("hello").WithFault(Fault{Hold: g}))
	done := make(chan string, 1)
	go func() {
		_, body := post(t, srv, request(msgs(userMsg)))
		done <- body
	}()
	<-g.Reached()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests recorded at the gate; want 1", n)
	}
	select {
	case body := <-done:
		t.Fatalf("the reply went past a closed gate: %s", body)
	default:
	}
	g.Release()
	if body := <-done; !strings.Contains(body, `"hello"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("released reply = %s", body)
	}
}

// A gate after n events lets exactly those reach the client, and a client
// that goes away frees the held handler.
func TestGateHoldsMidStream(t *testing.T) {
	g := NewGate()
	srv := FakeChatCompletions(t, Text("hello").WithFault(Fault{Hold: g, HoldAfter: 1}))
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ChatBaseURL(srv)+"/chat/completions",
		strings.NewReader(request(msgs(userMsg))))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-g.Reached()
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "data: ") {
		t.Fatalf("first event line = %q, %v", first, err)
	}
	if _, err := r.ReadString('\n'); err != nil { // the blank line ending the event
		t.Fatal(err)
	}
	if r.Buffered() != 0 {
		t.Errorf("%d bytes past the first event reached the client before the release", r.Buffered())
	}
	cancel() // the client goes away; srv's cleanup then waits for no handler
}
