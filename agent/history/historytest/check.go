package historytest

import (
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// CheckWire checks the strict view's guarantees (spec 02 §8.1 scenario 1,
// S1–S9) and returns the first violation, naming the message index. For a
// list without tool-declaration messages (what a model without dynamic
// tools gets) it also checks the Anthropic turn rules (scenario 2,
// CheckAnthropic): that adapter skips declarations, so with them two
// assistants can meet on its wire, which the spec accepts for the Kimi
// wire that understands them.
func CheckWire(msgs []llm.Message) error {
	if len(msgs) > 0 && msgs[0].Role != llm.RoleUser {
		return fmt.Errorf("S1: first message is %s, want user", msgs[0].Role)
	}
	if err := checkContent(msgs); err != nil {
		return err
	}
	calls, results := map[string]bool{}, map[string]bool{}
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if i > 0 && m.Role == llm.RoleAssistant && msgs[i-1].Role == llm.RoleAssistant {
			return fmt.Errorf("S9: messages %d and %d are both assistant", i-1, i)
		}
		if m.Role == llm.RoleTool {
			return fmt.Errorf("S3: tool message %d (%q) does not directly follow its call", i, m.ToolCallID)
		}
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, tc := range m.ToolCalls {
			if calls[tc.ID] {
				return fmt.Errorf("S4: call id %q used twice (again at message %d)", tc.ID, i)
			}
			calls[tc.ID] = true
			want[tc.ID] = true
		}
		for k := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != llm.RoleTool {
				return fmt.Errorf("S2: assistant %d has %d calls but message %d is not a tool result", i, len(m.ToolCalls), j)
			}
			id := msgs[j].ToolCallID
			if !want[id] {
				return fmt.Errorf("S2: tool message %d answers %q, not a call of assistant %d", j, id, i)
			}
			if results[id] {
				return fmt.Errorf("S4: result id %q appears twice (again at message %d)", id, j)
			}
			results[id] = true
			delete(want, id)
		}
		i += len(m.ToolCalls)
		if i+1 < len(msgs) && msgs[i+1].Role == llm.RoleTool {
			return fmt.Errorf("S2: extra tool message %d after the results of an assistant", i+1)
		}
	}
	for _, m := range msgs {
		if m.IsToolDeclarationOnly() {
			return nil
		}
	}
	return CheckAnthropic(msgs)
}

// CheckNormal checks the normal view's guarantees (spec 02 §8.1 scenario 3):
// every call followed later by a non-tool message is answered in the tool
// run right after it, every result answers some call, and S5–S8 hold. The
// trailing exchange may stay open.
func CheckNormal(msgs []llm.Message) error {
	if err := checkContent(msgs); err != nil {
		return err
	}
	calls := map[string]bool{}
	lastNonTool := -1
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
		}
		if m.Role != llm.RoleTool {
			lastNonTool = i
		}
	}
	for i, m := range msgs {
		if m.Role == llm.RoleTool && !calls[m.ToolCallID] {
			return fmt.Errorf("tool message %d answers %q, which no assistant called", i, m.ToolCallID)
		}
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 || i >= lastNonTool {
			continue
		}
		run := map[string]bool{}
		for j := i + 1; j < len(msgs) && msgs[j].Role == llm.RoleTool; j++ {
			run[msgs[j].ToolCallID] = true
		}
		for _, tc := range m.ToolCalls {
			if !run[tc.ID] {
				return fmt.Errorf("call %q of assistant %d is not answered right after it", tc.ID, i)
			}
		}
	}
	return nil
}

// checkContent is S5–S8: no blank text, no empty message (tool
// declarations aside), no message of only vacuous parts unless it calls
// tools, nothing partial.
func checkContent(msgs []llm.Message) error {
	for i, m := range msgs {
		if m.Partial {
			return fmt.Errorf("S8: message %d is partial", i)
		}
		for j, p := range m.Content {
			if p.Type == llm.PartText && history.IsBlank(p.Text) {
				return fmt.Errorf("S5: message %d part %d is blank text %q", i, j, p.Text)
			}
		}
		if len(m.Tools) > 0 || len(m.ToolCalls) > 0 {
			continue
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("S6: message %d (%s) is empty", i, m.Role)
		}
		vacuous := true
		for _, p := range m.Content {
			if !(p.Type == llm.PartThink && p.Encrypted == "" && history.IsBlank(p.Think)) {
				vacuous = false
			}
		}
		if vacuous {
			return fmt.Errorf("S7: message %d (%s) has only vacuous parts", i, m.Role)
		}
	}
	return nil
}

// CheckMediaDegraded checks the media-degraded view against the normal
// view it came from (spec 02 §8.1 scenario 5).
func CheckMediaDegraded(normal, degraded []llm.Message) error {
	if len(normal) != len(degraded) {
		return fmt.Errorf("degraded view has %d messages, normal %d", len(degraded), len(normal))
	}
	var media []llm.ContentPart
	for _, m := range normal {
		for _, p := range m.Content {
			if p.IsMedia() {
				media = append(media, p)
			}
		}
	}
	keep := min(history.RecentMediaKept, len(media))
	if len(media) <= history.RecentMediaKept && len(normal) > 0 && &normal[0] != &degraded[0] {
		return fmt.Errorf("degraded view with %d media is not the normal view itself", len(media))
	}
	var kept []llm.ContentPart
	seen := 0
	for i := range normal {
		a, b := normal[i], degraded[i]
		if a.Role != b.Role || len(a.Content) != len(b.Content) {
			return fmt.Errorf("message %d: role or part count changed", i)
		}
		for j := range a.Content {
			pa, pb := a.Content[j], b.Content[j]
			if !pa.IsMedia() {
				if pa.Type != pb.Type || pa.Text != pb.Text || pa.Think != pb.Think || pa.Encrypted != pb.Encrypted {
					return fmt.Errorf("message %d part %d: non-media part changed", i, j)
				}
				continue
			}
			seen++
			if pb.IsMedia() {
				kept = append(kept, pb)
				continue
			}
			prefix := "[" + strings.TrimSuffix(string(pa.Type), "_url") + " omitted"
			if seen > len(media)-keep || pb.Type != llm.PartText || !strings.HasPrefix(pb.Text, prefix) {
				return fmt.Errorf("message %d part %d: media %d of %d replaced by %q", i, j, seen, len(media), pb.Text)
			}
		}
	}
	if len(kept) != keep {
		return fmt.Errorf("degraded view kept %d media, want %d", len(kept), keep)
	}
	for k, p := range kept {
		if want := media[len(media)-keep+k]; p.Type != want.Type || *p.Media != *want.Media {
			return fmt.Errorf("kept media %d is not the %d-th newest", k, keep-k)
		}
	}
	return nil
}
