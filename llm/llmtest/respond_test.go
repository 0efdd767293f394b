package llmtest

import (
	"net/http"
	"strings"
	"testing"
)

// Once the script is used up, Respond answers from what was asked; the
// window check charges exactly Request.Tokens.
func TestRespondAfterTheScript(t *testing.T) {
	srv := FakeChatCompletionsWith(t, ChatOptions{ContextWindow: 60}, Text("scripted"))
	var asked []int
	srv.Respond(func(r *Request) Reply {
		asked = append(asked, r.Tokens())
		return Text("responded")
	})
	first := request(msgs(userMsg))
	for i, want := range []string{"scripted", "responded"} {
		status, body := post(t, srv, first)
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Fatalf("request %d = %d %s; want 200 streaming %q", i, status, body, want)
		}
	}
	if len(asked) != 1 || asked[0] != len(first)/4 {
		t.Errorf("Respond saw token counts %v; want [%d]", asked, len(first)/4)
	}
	// Exactly one token over the window is rejected, and never reaches f.
	pad := strings.Repeat("x", 4*61-len(request(msgs(`{"role":"user","content":""}`))))
	over := request(msgs(`{"role":"user","content":"` + pad + `"}`))
	if status, _ := post(t, srv, over); status != http.StatusBadRequest {
		t.Fatalf("request of %d tokens over a window of 60 = %d; want 400", len(over)/4, status)
	}
	if len(asked) != 1 {
		t.Errorf("a rejected request reached Respond")
	}
}
