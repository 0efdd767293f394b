package historytest

import (
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// CheckAnthropic converts msgs the way the Anthropic adapter does (spec 01
// §3.4.3: tool-declaration-only messages skipped, system and tool messages
// as user turns, empty assistant turns dropped, consecutive user turns
// merged unless a tool-result turn would follow a text turn) and applies
// the structural rules the Messages API enforces: the first turn is user,
// roles alternate, every tool_use is answered in the next turn and every
// tool_result answers a tool_use of the previous turn, tool_use ids are
// unique, and no text block is empty or a turn all whitespace. It checks
// both ways the adapter treats unsigned thinking (kept for compatible
// backends, dropped for Claude).
func CheckAnthropic(msgs []llm.Message) error {
	for _, keepUnsigned := range []bool{false, true} {
		if err := checkTurns(anthropicTurns(msgs, keepUnsigned)); err != nil {
			return fmt.Errorf("anthropic (unsigned thinking kept: %v): %w", keepUnsigned, err)
		}
	}
	return nil
}

type block struct {
	kind string // text, thinking, media, tool_use, tool_result
	text string
	id   string
	// inner are a tool_result's text blocks.
	inner []string
}

type turn struct {
	user   bool
	blocks []block
}

func (t turn) toolResultsOnly() bool {
	if !t.user || len(t.blocks) == 0 {
		return false
	}
	for _, b := range t.blocks {
		if b.kind != "tool_result" {
			return false
		}
	}
	return true
}

func anthropicTurns(msgs []llm.Message, keepUnsigned bool) []turn {
	var out []turn
	for _, m := range msgs {
		if m.IsToolDeclarationOnly() {
			continue
		}
		t := turn{user: m.Role != llm.RoleAssistant}
		switch m.Role {
		case llm.RoleSystem:
			t.blocks = []block{{kind: "text", text: "<system>" + llm.ExtractText(m, "\n") + "</system>"}}
		case llm.RoleTool:
			r := block{kind: "tool_result", id: m.ToolCallID}
			for _, p := range m.Content {
				if p.Type == llm.PartText && p.Text != "" {
					r.inner = append(r.inner, p.Text)
				}
			}
			t.blocks = []block{r}
		default:
			t.blocks = contentBlocks(m, keepUnsigned)
		}
		if !t.user && len(t.blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].user && t.user && (out[n-1].toolResultsOnly() || !t.toolResultsOnly()) {
			out[n-1].blocks = append(out[n-1].blocks, t.blocks...)
			continue
		}
		out = append(out, t)
	}
	return out
}

func contentBlocks(m llm.Message, keepUnsigned bool) []block {
	var bs []block
	for _, p := range m.Content {
		switch {
		case p.Type == llm.PartText:
			bs = append(bs, block{kind: "text", text: p.Text})
		case p.Type == llm.PartThink && (p.Encrypted != "" || keepUnsigned):
			bs = append(bs, block{kind: "thinking"})
		case p.Type == llm.PartAudioURL:
			bs = append(bs, block{kind: "text", text: "[audio]"})
		case p.IsMedia():
			bs = append(bs, block{kind: "media"})
		}
	}
	for _, tc := range m.ToolCalls {
		bs = append(bs, block{kind: "tool_use", id: tc.ID})
	}
	return bs
}

func checkTurns(turns []turn) error {
	if len(turns) == 0 {
		return nil
	}
	if !turns[0].user {
		return fmt.Errorf("first turn is assistant")
	}
	uses := map[string]bool{}
	for i, t := range turns {
		if i > 0 && t.user == turns[i-1].user {
			return fmt.Errorf("turns %d and %d have the same role", i-1, i)
		}
		if err := checkText(i, t); err != nil {
			return err
		}
		for _, b := range t.blocks {
			switch b.kind {
			case "tool_use":
				if uses[b.id] {
					return fmt.Errorf("turn %d: tool_use id %q is not unique", i, b.id)
				}
				uses[b.id] = true
				if i+1 >= len(turns) || !hasBlock(turns[i+1], "tool_result", b.id) {
					return fmt.Errorf("turn %d: tool_use %q has no tool_result in the next turn", i, b.id)
				}
			case "tool_result":
				if i == 0 || !hasBlock(turns[i-1], "tool_use", b.id) {
					return fmt.Errorf("turn %d: tool_result %q answers no tool_use of the previous turn", i, b.id)
				}
			}
		}
	}
	return nil
}

// checkText is the service's text rule: no empty text block (tool results
// included) and not every text block of a turn whitespace.
func checkText(i int, t turn) error {
	texts, blank := 0, 0
	for _, b := range t.blocks {
		for _, s := range b.inner {
			if s == "" {
				return fmt.Errorf("turn %d: empty text in a tool_result", i)
			}
		}
		if b.kind != "text" {
			continue
		}
		if b.text == "" {
			return fmt.Errorf("turn %d: empty text block", i)
		}
		texts++
		if strings.TrimSpace(b.text) == "" {
			blank++
		}
	}
	if texts > 0 && blank == texts {
		return fmt.Errorf("turn %d: every text block is whitespace", i)
	}
	return nil
}

func hasBlock(t turn, kind, id string) bool {
	for _, b := range t.blocks {
		if b.kind == kind && b.id == id {
			return true
		}
	}
	return false
}
