package agent_test

import (
	"errors"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// Seed starts an empty agent's conversation with the messages given, in
// order, and refuses an agent that already has one.
func TestSeedStartsAnEmptyConversationOnly(t *testing.T) {
	a := agent.New(agent.Options{})
	t.Cleanup(func() { _ = a.Close(t.Context()) })
	seed := history.FromProjected([]llm.Message{llm.UserMessage("q"), {Role: llm.RoleAssistant,
		Content: []llm.ContentPart{llm.TextPart("a")}}})
	if err := a.Seed(t.Context(), seed, 1234); err != nil {
		t.Fatal(err)
	}
	if n := a.TokenCount(); n != 1234 {
		t.Errorf("token count after Seed = %d, want 1234", n)
	}
	got := a.ProjectedHistory()
	if len(got) != 2 || llm.ExtractText(got[0], "") != "q" || llm.ExtractText(got[1], "") != "a" {
		t.Errorf("projected history after Seed = %+v", got)
	}
	if err := a.Seed(t.Context(), seed, 0); !errors.Is(err, agent.ErrSeedNotEmpty) {
		t.Errorf("a second Seed = %v, want ErrSeedNotEmpty", err)
	}
	if len(a.ToolTable(t.Context())) != 0 {
		t.Errorf("an agent without tools has a table")
	}
}
