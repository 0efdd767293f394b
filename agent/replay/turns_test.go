package replay_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/llm"
)

func msgCard(text string, origin *history.Origin) replay.Card {
	return replay.Card{Type: replay.CardMessage, Message: &history.Message{Message: llm.UserMessage(text), Origin: origin}}
}

func texts(cards []replay.Card) []string {
	var out []string
	for _, c := range cards {
		if c.Message != nil {
			out = append(out, llm.ExtractText(c.Message.Message, ""))
		} else {
			out = append(out, string(c.Type))
		}
	}
	return out
}

// Spec 02 §8.9 scenario 65.
func TestReplayS65LimitByTurns(t *testing.T) {
	skill := func(trigger history.Trigger) *history.Origin {
		return &history.Origin{Kind: history.OriginSkillActivation, ActivationID: "a", SkillName: "s", Trigger: trigger}
	}
	cards := []replay.Card{
		{Type: replay.CardConfigUpdated},
		msgCard("prompt", history.UserOrigin()),
		{Type: replay.CardMessage, Message: &history.Message{Message: llm.AssistantMessage("answer")}},
		msgCard("/skill", skill(history.TriggerUserSlash)),
		msgCard("model skill", skill(history.TriggerModelTool)),
		msgCard("!ls", &history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellInput}),
		msgCard("ls output", &history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellOutput}),
		msgCard("continue", history.SystemTriggerOrigin(history.TriggerNameGoalContinue)),
		msgCard("stop hook", history.SystemTriggerOrigin("stop_hook")),
	}
	two, zero, many := 2, 0, 10
	for _, tt := range []struct {
		name string
		max  *int
		want []string
	}{
		{"unset keeps all", nil, texts(cards)},
		{"zero keeps none", &zero, nil},
		{"more than there are keeps all", &many, texts(cards)},
		{"shell input and goal continuation start turns; outputs and other triggers do not", &two,
			[]string{"!ls", "ls output", "continue", "stop hook"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, texts(replay.LimitByTurns(cards, tt.max))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	three := 3
	if got := texts(replay.LimitByTurns(cards, &three)); got[0] != "/skill" {
		t.Errorf("three turns start at %q, want the user-slash skill", got[0])
	}
}
