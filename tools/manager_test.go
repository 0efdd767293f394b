package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

func names(table []loop.ExecutableTool) []string {
	var out []string
	for _, t := range table {
		out = append(out, t.Definition().Name)
	}
	return out
}

type askerFunc func(context.Context, tools.QuestionRequest) (map[string]string, error)

func (f askerFunc) AskQuestions(ctx context.Context, r tools.QuestionRequest) (map[string]string, error) {
	return f(ctx, r)
}

// defaultManager is the table a main agent on a vision model gets today.
func defaultManager(t testing.TB) *tools.Manager {
	t.Helper()
	return tools.New(tools.Options{
		Base:       tools.Base{Env: osenvtest.New(osenvtest.Options{})},
		Capability: llm.Capability{ImageIn: true, VideoIn: true, ToolUse: true},
		Questions:  askerFunc(func(context.Context, tools.QuestionRequest) (map[string]string, error) { return nil, nil }),
		Fetcher:    tools.NewLocalFetcher(tools.FetcherOptions{}),
		Background: &fakeBackground{},
	})
}

func TestDefaultDefinitionsSize(t *testing.T) {
	m := defaultManager(t)
	m.SetActiveTools(tools.ActiveTools{Names: []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "ReadMediaFile",
		"FetchURL", "TodoList", "AskUserQuestion", "TaskList", "TaskOutput", "TaskStop"}})
	total := 0
	for _, tool := range m.Tools(nil) {
		d := tool.Definition()
		b, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{d.Name, d.Description, d.Parameters})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-16s %5d bytes", d.Name, len(b))
		total += len(b)
	}
	t.Logf("total %d bytes for %v", total, names(m.Tools(nil)))
	if total > 20<<10 {
		t.Errorf("default tool definitions are %d bytes; the budget is %d", total, 20<<10)
	}
}

func TestDefinitionsAreClosedAndCompile(t *testing.T) {
	for _, tool := range defaultManager(t).Tools(nil) {
		d := tool.Definition()
		var schema map[string]any
		if err := json.Unmarshal(d.Parameters, &schema); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		var walk func(path string, n any)
		walk = func(path string, n any) {
			switch v := n.(type) {
			case map[string]any:
				if v["type"] == "object" && v["additionalProperties"] != false {
					t.Errorf("%s: object at %s is not closed", d.Name, path)
				}
				for k, c := range v {
					walk(path+"/"+k, c)
				}
			case []any:
				for i, c := range v {
					walk(fmt.Sprintf("%s/%d", path, i), c)
				}
			}
		}
		walk("", schema)
		if d.Description == "" || len(d.Description) > 2600 {
			t.Errorf("%s: description is %d bytes", d.Name, len(d.Description))
		}
	}
}

func TestS3UnknownTool(t *testing.T) {
	m := defaultManager(t)
	fake := looptest.New(looptest.Calls(looptest.Call("c1", "Nope", `{}`)), looptest.Text("done"))
	rec := &looptest.Recorder{}
	_, err := loop.RunTurn(t.Context(), loop.RunTurnInput{
		TurnID: "1", LLM: looptest.WithoutRetry(fake), Dispatch: rec.Dispatcher(),
		BuildTools:          func(context.Context) ([]loop.ExecutableTool, error) { return m.Tools(nil), nil },
		DescribeMissingTool: m.MissingToolDescriber(nil),
		BuildMessages: func(context.Context) ([]llm.Message, error) {
			return []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("go")}}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := looptest.RecordedOfType[loop.ToolResultEvent](rec)
	if len(got) != 1 {
		t.Fatalf("%d results", len(got))
	}
	wantError(t, got[0].Result, `Tool "Nope" not found`)
}

func mcpTool(name string) *looptest.Tool {
	return &looptest.Tool{Name: name, Schema: `{"type":"object","additionalProperties":false}`}
}

func TestS7ProfileWhitelistAndDenylist(t *testing.T) {
	m := defaultManager(t)
	if err := m.SetMCPTools("gh", []loop.ExecutableTool{mcpTool("mcp__gh__list"), mcpTool("mcp__gh__delete")}); err != nil {
		t.Fatal(err)
	}
	m.SetActiveTools(tools.ActiveTools{Names: []string{"Read", "Bash", "mcp__*"}, Disallowed: []string{"Bash", "mcp__gh__delete"}})
	if diff := cmp.Diff([]string{"mcp__gh__list", "Read"}, names(m.Tools(nil))); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	for _, tool := range m.Tools(nil) {
		if tool.Definition().Deferred {
			t.Errorf("%s deferred with disclosure off", tool.Definition().Name)
		}
	}
}

func TestTableOrderAndPrecedence(t *testing.T) {
	m := defaultManager(t)
	got := names(m.Tools(nil))
	want := slices.Clone(got)
	slices.SortStableFunc(want, func(a, b string) int {
		return strings.Compare(lower(a), lower(b))
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("table not in case-insensitive order (-want +got):\n%s", diff)
	}
	// A user tool named like a builtin wins.
	mine := &looptest.Tool{Name: "Read", Description: "user read"}
	m.RegisterUserTool(mine, false)
	for _, tool := range m.Tools(nil) {
		if tool.Definition().Name == "Read" && tool.Definition().Description != "user read" {
			t.Error("builtin Read shadowed the user tool")
		}
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func TestProgressiveDisclosure(t *testing.T) {
	m := tools.New(tools.Options{Base: tools.Base{Env: osenvtest.New(osenvtest.Options{})},
		Capability: llm.Capability{ToolUse: true, DynamicallyLoadedTools: true}, ToolSelect: true})
	if err := m.SetMCPTools("gh", []loop.ExecutableTool{mcpTool("mcp__gh__list"), mcpTool("mcp__gh__get")}); err != nil {
		t.Fatal(err)
	}
	m.SetActiveTools(tools.ActiveTools{Names: []string{"Read", "mcp__gh__*"}})
	if diff := cmp.Diff([]string{"mcp__gh__get", "mcp__gh__list"}, m.Loadable()); diff != "" {
		t.Errorf("loadable (-want +got):\n%s", diff)
	}
	// select_tools is a slot: not registered yet, so only Read is in the table.
	if diff := cmp.Diff([]string{"Read"}, names(m.Tools(nil))); diff != "" {
		t.Errorf("table before loading (-want +got):\n%s", diff)
	}
	table := m.Tools([]string{"mcp__gh__list"})
	if diff := cmp.Diff([]string{"mcp__gh__list", "Read"}, names(table)); diff != "" {
		t.Errorf("table after loading (-want +got):\n%s", diff)
	}
	if !table[0].Definition().Deferred || table[1].Definition().Deferred {
		t.Error("loaded MCP tools must be deferred, builtins not")
	}
	describe := m.MissingToolDescriber([]string{"mcp__gh__list"})
	if msg, ok := describe("mcp__gh__get"); !ok || msg != `Tool "mcp__gh__get" is available but not loaded. Call select_tools with ["mcp__gh__get"] first, then call the tool.` {
		t.Errorf("describe = %q, %v", msg, ok)
	}
	m.RemoveMCPServer("gh")
	if msg, ok := describe("mcp__gh__list"); !ok || msg == "" {
		t.Error("a loaded, disconnected MCP tool is not explained")
	}
	m.MarkPendingLoaded([]string{"x"})
	m.ClearPendingLoaded()
}

func TestMCPNameClash(t *testing.T) {
	m := defaultManager(t)
	if err := m.SetMCPTools("a", []loop.ExecutableTool{mcpTool("mcp__x__t")}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetMCPTools("b", []loop.ExecutableTool{mcpTool("mcp__x__t")}); err == nil {
		t.Error("a clashing MCP name was accepted")
	}
	infos := m.Infos()
	if len(infos) == 0 || infos[0].Name == "" {
		t.Fatal("no infos")
	}
}

func TestReadMediaFileNeedsAVisionModel(t *testing.T) {
	m := tools.New(tools.Options{Base: tools.Base{Env: osenvtest.New(osenvtest.Options{})}})
	if slices.Contains(names(m.Tools(nil)), "ReadMediaFile") {
		t.Error("ReadMediaFile registered for a model without media input")
	}
	m.SetCapability(llm.Capability{ImageIn: true})
	if !slices.Contains(names(m.Tools(nil)), "ReadMediaFile") {
		t.Error("ReadMediaFile missing for an image model")
	}
	if slices.Contains(names(m.Tools(nil)), "AskUserQuestion") || slices.Contains(names(m.Tools(nil)), "FetchURL") {
		t.Error("tools without their collaborator were registered")
	}
}

func TestS5AccessScheduling(t *testing.T) {
	w := newWorkspace(t)
	read, edit := tools.NewReadFile(w.base), tools.NewEditFile(w.base)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	acc := func(tool loop.ExecutableTool, args string) []loop.Access {
		e, r, err := tool.ResolveExecution([]byte(args))
		if err != nil || r != nil {
			t.Fatalf("resolve %s: %v %v", args, err, r)
		}
		if e.Accesses == nil {
			return loop.All()
		}
		return e.Accesses
	}
	readA, readB := acc(read, `{"path":"a"}`), acc(read, `{"path":"b"}`)
	editA := acc(edit, `{"path":"a","old_string":"x","new_string":"y"}`)
	bash1 := acc(bash, `{"command":"true"}`)
	for _, tt := range []struct {
		name string
		a, b []loop.Access
		want bool
	}{
		{"two reads run together", readA, readB, false},
		{"the same file read twice runs together", readA, readA, false},
		{"edit waits for a read of its file", editA, readA, true},
		{"edit and a read of another file run together", editA, readB, false},
		{"two Bash calls never overlap", bash1, bash1, true},
	} {
		if got := loop.Conflict(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Conflict = %v", tt.name, got)
		}
	}
}

// cronStub is a CronScheduler the table tests only register; nothing is
// scheduled through it (agent/cron's tests run the tools on the real
// manager).
type cronStub struct{ tools.CronScheduler }

func TestS72NoCronInSubagents(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	profile := tools.ActiveTools{Names: []string{"Read", "Bash", "TaskList", "TaskOutput", "TaskStop", "CronCreate", "CronList", "CronDelete"}}
	child := tools.New(tools.Options{Base: tools.Base{Env: env}, Background: &fakeBackground{}})
	child.SetActiveTools(profile)
	if got := names(child.Tools(nil)); !slices.Equal(got, []string{"Bash", "Read", "TaskList", "TaskOutput", "TaskStop"}) {
		t.Errorf("subagent table = %v; want no cron tools", got)
	}
	main := tools.New(tools.Options{Base: tools.Base{Env: env}, Background: &fakeBackground{}, Cron: cronStub{}})
	main.SetActiveTools(profile)
	if got := names(main.Tools(nil)); !slices.Equal(got, []string{"Bash", "CronCreate", "CronDelete", "CronList", "Read", "TaskList", "TaskOutput", "TaskStop"}) {
		t.Errorf("main table = %v", got)
	}
}

func TestTaskToolsNeedATaskManager(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	none := tools.New(tools.Options{Base: tools.Base{Env: env}})
	for _, n := range names(none.Tools(nil)) {
		if strings.HasPrefix(n, "Task") {
			t.Errorf("%s without a task manager", n)
		}
	}
	// Without a profile the task tools come with the manager, and Bash may
	// start background commands.
	with := tools.New(tools.Options{Base: tools.Base{Env: env}, Background: &fakeBackground{}})
	for _, tool := range with.Tools(nil) {
		if tool.Definition().Name == "Bash" && !strings.Contains(tool.Definition().Description, "run_in_background: true") {
			t.Errorf("Bash description without the background paragraph:\n%s", tool.Definition().Description)
		}
	}
}

// TestActivationDecidesBackgroundRuns: a profile that leaves out a task
// tool takes background runs out of Bash's and AskUserQuestion's
// definitions, one that has all three puts them back, and applying the
// same profile again changes nothing; every definition is the one a table
// built afresh under that profile holds.
func TestActivationDecidesBackgroundRuns(t *testing.T) {
	all := []string{"Read", "Bash", "AskUserQuestion", "TaskList", "TaskOutput", "TaskStop"}
	noOutput := []string{"Read", "Bash", "AskUserQuestion", "TaskList", "TaskStop"}
	m := defaultManager(t)
	for _, step := range []struct {
		active     tools.ActiveTools
		background bool
	}{
		{tools.ActiveTools{Names: all}, true},
		{tools.ActiveTools{Names: noOutput}, false},
		{tools.ActiveTools{Names: noOutput}, false},
		{tools.ActiveTools{Names: all}, true},
		{tools.ActiveTools{Names: all}, true},
		{tools.ActiveTools{Names: all, Disallowed: []string{"TaskStop"}}, false},
		{tools.ActiveTools{Names: all}, true},
	} {
		m.SetActiveTools(step.active)
		fresh := defaultManager(t)
		fresh.SetActiveTools(step.active)
		want := map[string]llm.Tool{}
		for _, tool := range fresh.Tools(nil) {
			want[tool.Definition().Name] = tool.Definition()
		}
		got := map[string]llm.Tool{}
		for _, tool := range m.Tools(nil) {
			got[tool.Definition().Name] = tool.Definition()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v: the table differs from a fresh one (-fresh +got):\n%s", step.active, diff)
		}
		bash, ask := got["Bash"], got["AskUserQuestion"]
		if has := strings.Contains(bash.Description, "run_in_background: true"); has != step.background {
			t.Errorf("%v: Bash offers background runs: %v, want %v", step.active, has, step.background)
		}
		if has := strings.Contains(string(bash.Parameters), "background task"); has != step.background {
			t.Errorf("%v: Bash's schema describes background runs: %v, want %v", step.active, has, step.background)
		}
		if has := strings.Contains(ask.Description, "background: true"); has != step.background {
			t.Errorf("%v: AskUserQuestion offers background questions: %v, want %v", step.active, has, step.background)
		}
	}
}
