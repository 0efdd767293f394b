package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// fetchCall is a FetchURL call of url. The hosts are addresses the
// session's fetcher refuses, so the tool runs without touching a network
// and its refusal shows that it ran.
func fetchCall(id, url string) llmtest.Reply {
	return llmtest.ToolCall(id, "FetchURL", `{"url":"`+url+`"}`)
}

// In manual mode a fetch asks once per host: "approve for this session"
// lets later fetches of that host run unasked, and a fetch of another host
// asks again (issue 16 item 5).
func TestFetchURLAsksOncePerHost(t *testing.T) {
	r := newRig(t)
	r.srv.Add(fetchCall("c1", "http://10.1.1.1/a"), fetchCall("c2", "http://10.1.1.1/b/c?d=e"),
		fetchCall("c3", "http://198.18.0.7/"), llmtest.Text("done"))
	s, sub := r.start(t, session.Answered, "fetch the pages")
	var asked []string
	results := map[string]event.ToolResult{}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(event.ApprovalRequested); ok {
			asked = append(asked, e.ToolCallID)
			choice := event.ApproveSession
			if e.ToolCallID == "c3" {
				choice = event.Reject
			}
			if err := s.AnswerApproval(e.RequestID, event.ApprovalAnswer{Choice: choice}); err != nil {
				t.Fatal(err)
			}
		}
		if e, ok := ev.(event.ToolResult); ok {
			results[e.ToolCallID] = e
		}
		if e, ok := ev.(event.TurnEnded); ok {
			if e.Reason != event.EndCompleted {
				t.Fatalf("turn ended %+v", e)
			}
			break
		}
	}
	if strings.Join(asked, ",") != "c1,c3" {
		t.Errorf("approval requests for %v; want c1 and c3", asked)
	}
	for _, id := range []string{"c1", "c2"} {
		if got := results[id].Output.Text(); !strings.Contains(got, "not a public address") {
			t.Errorf("%s ran to %q; want the fetcher's refusal", id, got)
		}
	}
	if got := results["c3"].Output.Text(); !strings.Contains(got, "the user rejected the approval request") {
		t.Errorf("c3 = %q; want the rejection", got)
	}
}

// Nobody answers: the fetch is denied, naming the host rule that allows
// it; that rule as --allowedTools lets it run (ERRATA 34).
func TestFetchURLWithoutAFrontEnd(t *testing.T) {
	const url = "http://10.1.1.1/a/b"
	r := newRig(t)
	r.srv.Add(fetchCall("c1", url), llmtest.Text("denied"))
	_, sub := r.start(t, session.Declined, "fetch it")
	if got := toolResult(t, sub).Output.Text(); !strings.Contains(got, "nobody is here to approve it") ||
		!strings.Contains(got, `--allowedTools "FetchURL(http://10.1.1.1/*)"`) {
		t.Errorf("denial = %q", got)
	}
	waitEnded(t, sub)

	r.srv.Add(fetchCall("c2", url), llmtest.Text("fetched"))
	o := r.opts("")
	o.RunRules = []config.PermissionRule{{Decision: config.DecisionAllow, Pattern: "FetchURL(http://10.1.1.1/*)",
		Origin: config.OriginUser, Source: "--allowedTools"}}
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub2 := s.Subscribe()
	t.Cleanup(sub2.Close)
	if err := s.Prompt(t.Context(), textParts("fetch it")); err != nil {
		t.Fatal(err)
	}
	if got := toolResult(t, sub2).Output.Text(); !strings.Contains(got, "not a public address") {
		t.Errorf("with the rule: %q; want the fetcher's refusal", got)
	}
	waitEnded(t, sub2)
}
