package agent_test

import (
	"context"
	"fmt"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// An agent needs no session: give it a model and prompt it.
func ExampleAgent_Prompt() {
	ctx := context.Background()
	model := scripted.New(scripted.Options{Responses: []scripted.Response{
		scripted.Text("Hello! What shall we build today?"),
	}})
	a := agent.New(agent.Options{
		Model:  agent.ModelBinding{Provider: model},
		Config: agent.Config{SystemPrompt: "You are a helpful coding agent."},
	})
	defer a.Close(ctx)

	if _, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart("hi")}, nil); err != nil {
		fmt.Println("prompt:", err)
		return
	}
	res, err := a.WaitForCurrentTurn(ctx)
	if err != nil {
		fmt.Println("wait:", err)
		return
	}
	h := a.History()
	fmt.Println(res.Event.Reason)
	fmt.Println(llm.ExtractText(h[len(h)-1].Message, ""))
	// Output:
	// completed
	// Hello! What shall we build today?
}
