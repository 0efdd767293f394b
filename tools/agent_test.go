package tools_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/tools"
)

// typesLauncher is a subagent host whose types and deadline the test
// changes; the Agent tool's definition only reads them.
type typesLauncher struct {
	tools.SubagentLauncher
	mu      sync.Mutex
	types   []tools.SubagentType
	timeout time.Duration
}

func (l *typesLauncher) Types() []tools.SubagentType {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.types
}

func (l *typesLauncher) Timeout() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.timeout
}

func (l *typesLauncher) set(timeout time.Duration, types ...tools.SubagentType) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.types, l.timeout = types, timeout
}

// TestAgentDefinitionFollowsItsInputs: the Agent tool's description lists
// the launcher's types as they are now, its deadline and whether
// background runs are offered, for a tool built earlier and one built
// afresh alike, also when another tool rendered other inputs in between.
func TestAgentDefinitionFollowsItsInputs(t *testing.T) {
	coder := tools.SubagentType{Name: "coder", Description: "Writes code.", Tools: []string{"Read", "Edit", "Bash"},
		DisallowedTools: []string{"Bash"}}
	explore := tools.SubagentType{Name: "explore", Description: "Reads code.", WhenToUse: "For questions."}
	l := &typesLauncher{}
	bg := &fakeBackground{}
	old := tools.NewAgent(tools.AgentOptions{Launcher: l, Tasks: bg, AllowBackground: true})
	for _, step := range []struct {
		timeout    time.Duration
		types      []tools.SubagentType
		background bool
		want       []string
		notWant    []string
	}{
		{0, []tools.SubagentType{coder}, true,
			[]string{"- coder: Writes code.\n  Tools: Read, Edit\n  Disabled: Bash", "Background runs (`run_in_background: true`)"},
			[]string{"explore", "is limited to"}},
		{30 * time.Minute, []tools.SubagentType{coder, explore}, true,
			[]string{"- explore: Reads code. For questions.", "is limited to 30 minutes"}, nil},
		{30 * time.Minute, []tools.SubagentType{coder, explore}, false,
			[]string{"- explore: Reads code. For questions.", "Background runs are not available here"}, nil},
		{0, []tools.SubagentType{explore}, true, []string{"- explore: Reads code. For questions."},
			[]string{"coder", "is limited to"}},
	} {
		l.set(step.timeout, step.types...)
		descs := []string{tools.NewAgent(tools.AgentOptions{Launcher: l, Tasks: bg, AllowBackground: step.background}).Definition().Description}
		if step.background {
			descs = append(descs, old.Definition().Description)
		}
		for _, d := range descs {
			for _, w := range step.want {
				if !strings.Contains(d, w) {
					t.Errorf("step %+v: description without %q:\n%s", step, w, d)
				}
			}
			for _, w := range step.notWant {
				if strings.Contains(d, w) {
					t.Errorf("step %+v: description with %q:\n%s", step, w, d)
				}
			}
		}
		if len(descs) == 2 && descs[0] != descs[1] {
			t.Errorf("step %+v: an earlier tool and a new one differ:\n%s\n----\n%s", step, descs[1], descs[0])
		}
	}
}
