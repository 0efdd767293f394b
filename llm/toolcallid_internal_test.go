package llm

import (
	"strings"
	"testing"
)

// legalToolCallID is the allocation-free form of "cleaning keeps it":
// both agree on every id, legal or not (ids that are too long, empty, or
// carry a character outside [A-Za-z0-9_-], ASCII or not).
func FuzzLegalToolCallID(f *testing.F) {
	for _, id := range []string{"", "call_1", "call-1_AZaz09", "call 1", "call.1", "call:1", "functions.Read:0",
		"é", "call_\x00", "call_\xff", strings.Repeat("a", maxToolCallID), strings.Repeat("a", maxToolCallID+1),
		strings.Repeat("é", 40)} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		want := id != "" && cleanToolCallID(id) == id
		if got := legalToolCallID(id); got != want {
			t.Errorf("legalToolCallID(%q) = %v; cleanToolCallID gives %q", id, got, cleanToolCallID(id))
		}
	})
}

// A history whose ids are all legal costs no cleaned copy per id: one
// request's normalisation allocates the same whatever the history's length
// beyond its maps.
func TestNormalizeLegalIDsAllocatesNoCopies(t *testing.T) {
	var msgs []Message
	for i := range 50 {
		id := "call_" + strings.Repeat("x", i%10) + string(rune('a'+i%26)) + string(rune('A'+i/26))
		msgs = append(msgs, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: "Read"}}},
			Message{Role: RoleTool, ToolCallID: id})
	}
	out := NormalizeToolCalls(msgs)
	if &out[0] != &msgs[0] {
		t.Fatal("a history with legal, unique ids was copied")
	}
	allocs := testing.AllocsPerRun(20, func() { NormalizeToolCalls(msgs) })
	if allocs > 40 {
		t.Errorf("normalising 100 messages with legal ids allocates %.0f times; want at most 40 (no copy per id)", allocs)
	}
}

// alreadyNormal is NormalizeToolCalls' shortcut: whatever the ids and
// names, a history it passes is one the full rewrite returns unchanged.
func FuzzAlreadyNormalIsUnchanged(f *testing.F) {
	f.Add("call_1", "call_2", "call_3", true)
	f.Add("call_1", "call_1", "call_3", true)
	f.Add("call_1", "call_2", "call_2", true)
	f.Add("call_1", "call_2", "call_3", false)
	f.Add("call.1", "call_2", "call_3", true)
	f.Add("call_1", "call_2", "", true)
	f.Add("", "call_2", "call_3", true)
	f.Add(strings.Repeat("a", maxToolCallID+1), "b", "c", true)
	f.Fuzz(func(t *testing.T, a, b, c string, named bool) {
		name := "Read"
		if !named {
			name = ""
		}
		msgs := []Message{
			UserMessage("go"),
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: a, Name: "Read"}, {ID: b, Name: name}}},
			{Role: RoleTool, ToolCallID: a}, {Role: RoleTool, ToolCallID: c},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: c, Name: "Bash"}}},
			{Role: RoleTool, ToolCallID: b}, {Role: RoleTool, ToolCallID: c},
		}
		if !alreadyNormal(msgs) {
			return
		}
		out := normalizeToolCalls(msgs)
		if &out[0] != &msgs[0] {
			t.Errorf("ids %q %q %q (named %v) pass the shortcut, but the rewrite changes them: %+v", a, b, c, named, out)
		}
	})
}
