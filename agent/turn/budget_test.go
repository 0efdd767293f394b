package turn_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

const spillHeader = "Tool output exceeded 50000 characters; showing a preview only."

// localBudget returns a budget over a fresh home directory on disk, with
// ids "uuid-1", "uuid-2", ….
func localBudget(t *testing.T) (*turn.ResultBudget, string) {
	t.Helper()
	home := t.TempDir()
	return turn.NewResultBudget(turn.ResultBudgetOptions{FS: osenv.LocalFS{}, HomeDir: home,
		NewUUID: looptest.SeqUUIDs()}), home
}

// spillFiles lists the files in home's tool-results directory, or nil when
// it does not exist.
func spillFiles(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(home, "tool-results"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readSpill(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestS32LargeOutputIsSpilled(t *testing.T) {
	output := strings.Repeat("x", 60_000) + "tail survives"
	r := newDedupRig(textTool("Lookup", "", loop.TextResult(output)))
	budget, home := localBudget(t)
	r.budget = budget
	r.run(t, looptest.Calls(looptest.Call("call_lookup", "Lookup", `{}`)), looptest.Text("done"))

	dir := filepath.Join(home, "tool-results")
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("stat %s = %v, %v; want a directory with mode 0700", dir, info, err)
	}
	if diff := cmp.Diff([]string{"Lookup-call_lookup-uuid-1.txt"}, spillFiles(t, home)); diff != "" {
		t.Fatalf("spill files (-want +got):\n%s", diff)
	}
	path := filepath.Join(dir, "Lookup-call_lookup-uuid-1.txt")
	if got := readSpill(t, path); got != output {
		t.Errorf("spill file holds %d bytes, want the %d-byte output exactly", len(got), len(output))
	}

	results := r.results()
	if len(results) != 1 {
		t.Fatalf("got %d tool results, want 1", len(results))
	}
	lines := strings.Split(results[0], "\n")
	if len(lines) != 10 {
		t.Fatalf("notice has %d lines, want 10:\n%s", len(lines), results[0])
	}
	want := []string{spillHeader, "tool_name: Lookup", "tool_call_id: call_lookup", "output_size_chars: 60013",
		"output_size_bytes: 60013", "output_path: " + path}
	if diff := cmp.Diff(want, lines[:6]); diff != "" {
		t.Errorf("notice head (-want +got):\n%s", diff)
	}
	if next := lines[6]; !strings.HasPrefix(next, "next_step: ") || !strings.Contains(next, "Read") {
		t.Errorf("line 7 = %q, want a next_step line naming the Read tool", next)
	}
	if diff := cmp.Diff([]string{"", "[preview]", strings.Repeat("x", 2_000)}, lines[7:]); diff != "" {
		t.Errorf("notice preview (-want +got):\n%s", diff)
	}
	if strings.Contains(results[0], "tail survives") {
		t.Error("the tail of the output reached history")
	}
}

func TestS33BudgetExemptionsAndBoundary(t *testing.T) {
	text := func(n int) loop.ToolResult { return loop.TextResult(strings.Repeat("x", n)) }
	truncated := text(60_000)
	truncated.Truncated = true
	withImage := loop.ToolResult{Output: loop.PartsOutput(llm.TextPart(strings.Repeat("x", 60_000)),
		llm.ImagePart("data:image/png;base64,AAAA"))}
	wide := loop.TextResult(strings.Repeat("é", 50_000)) // 100,000 bytes, 50,000 runes

	for _, tt := range []struct {
		name string
		res  loop.ToolResult
	}{
		{"exactly 50,000 characters", text(50_000)},
		{"already truncated by the tool", truncated},
		{"an image part", withImage},
		{"50,000 two-byte runes", wide},
	} {
		t.Run(tt.name+" is unchanged", func(t *testing.T) {
			budget, home := localBudget(t)
			if diff := cmp.Diff(tt.res, budget.Apply("Lookup", "c1", tt.res)); diff != "" {
				t.Errorf("Apply changed the result (-want +got):\n%s", diff)
			}
			if files := spillFiles(t, home); files != nil {
				t.Errorf("tool-results holds %q, want no directory", files)
			}
		})
	}
	t.Run("50,001 characters are spilled", func(t *testing.T) {
		budget, home := localBudget(t)
		res := text(50_001)
		res.IsError, res.Note = true, "note"
		got := budget.Apply("Lookup", "c1", res)
		if !strings.HasPrefix(got.Output.Text(), spillHeader+"\n") || !got.IsError || got.Note != "note" {
			t.Errorf("Apply = %+v, want the notice with the other fields kept", got)
		}
		if files := spillFiles(t, home); len(files) != 1 {
			t.Errorf("tool-results holds %q, want one file", files)
		}
	})
	t.Run("runes, not bytes, are counted and previewed", func(t *testing.T) {
		budget, home := localBudget(t)
		out := strings.Repeat("é", 50_001)
		got := budget.Apply("Lookup", "c1", loop.ToolResult{Output: loop.PartsOutput(
			llm.TextPart(out[:50_000]), llm.TextPart(out[50_000:]))})
		notice := got.Output.Text()
		for _, want := range []string{"\noutput_size_chars: 50001\n", "\noutput_size_bytes: 100002\n",
			"\n[preview]\n" + strings.Repeat("é", 2_000)} {
			if !strings.Contains(notice, want) {
				t.Errorf("notice lacks %q", want)
			}
		}
		if !strings.HasSuffix(notice, "\n[preview]\n"+strings.Repeat("é", 2_000)) {
			t.Error("the preview is not exactly the first 2,000 runes")
		}
		if files := spillFiles(t, home); len(files) != 1 ||
			readSpill(t, filepath.Join(home, "tool-results", files[0])) != out {
			t.Errorf("spill files %q do not hold the joined text parts", files)
		}
	})
	t.Run("without a home directory it is unchanged", func(t *testing.T) {
		for _, home := range []string{"", "relative/home"} {
			budget := turn.NewResultBudget(turn.ResultBudgetOptions{FS: osenvtest.Deny(), HomeDir: home})
			if diff := cmp.Diff(text(60_000), budget.Apply("Lookup", "c1", text(60_000))); diff != "" {
				t.Errorf("home %q: Apply changed the result (-want +got):\n%s", home, diff)
			}
		}
	})
	t.Run("a write failure leaves it unchanged", func(t *testing.T) {
		deny := osenvtest.Deny()
		budget := turn.NewResultBudget(turn.ResultBudgetOptions{FS: deny, HomeDir: "/home/agent"})
		if diff := cmp.Diff(text(60_000), budget.Apply("Lookup", "c1", text(60_000))); diff != "" {
			t.Errorf("Apply changed the result (-want +got):\n%s", diff)
		}
		if len(deny.Attempts()) == 0 {
			t.Error("no write was attempted")
		}
	})
}

func TestS34SpillsNeverOverwrite(t *testing.T) {
	t.Run("the same call id twice makes two files", func(t *testing.T) {
		budget, home := localBudget(t)
		first := strings.Repeat("a", 60_000)
		second := strings.Repeat("b", 60_000)
		n1 := budget.Apply("Lookup", "call_1", loop.TextResult(first)).Output.Text()
		n2 := budget.Apply("Lookup", "call_1", loop.TextResult(second)).Output.Text()
		files := spillFiles(t, home)
		if len(files) != 2 {
			t.Fatalf("tool-results holds %q, want two files", files)
		}
		for _, c := range []struct{ notice, content string }{{n1, first}, {n2, second}} {
			path := spillPath(t, c.notice)
			if got := readSpill(t, path); got != c.content {
				t.Errorf("%s holds %.10q…, want %.10q…", path, got, c.content)
			}
		}
	})
	t.Run("an existing file is left alone", func(t *testing.T) {
		home := t.TempDir()
		budget := turn.NewResultBudget(turn.ResultBudgetOptions{FS: osenv.LocalFS{}, HomeDir: home,
			NewUUID: func() string { return "same" }})
		first := loop.TextResult(strings.Repeat("a", 60_000))
		second := loop.TextResult(strings.Repeat("b", 60_000))
		budget.Apply("Lookup", "call_1", first)
		if diff := cmp.Diff(second, budget.Apply("Lookup", "call_1", second)); diff != "" {
			t.Errorf("a name collision changed the result (-want +got):\n%s", diff)
		}
		path := filepath.Join(home, "tool-results", "Lookup-call_1-same.txt")
		if got := readSpill(t, path); got != first.Output.Text() {
			t.Errorf("%s was overwritten", path)
		}
	})
}

// spillPath returns the output_path of a spill notice.
func spillPath(t *testing.T, notice string) string {
	t.Helper()
	for line := range strings.SplitSeq(notice, "\n") {
		if p, ok := strings.CutPrefix(line, "output_path: "); ok {
			return p
		}
	}
	t.Fatalf("no output_path in %.200q", notice)
	return ""
}

func TestBudgetSpillStem(t *testing.T) {
	for _, tt := range []struct {
		name, tool, id, want string
	}{
		{"safe characters are kept", "Lookup", "call_lookup.1", "Lookup-call_lookup.1"},
		{"each unsafe run becomes one underscore", "mcp__srv__tool", "call 1/ 2", "mcp__srv__tool-call_1_2"},
		{"path separators cannot escape", "Bash", "../../etc/passwd", "Bash-.._.._etc_passwd"},
		{"underscores are trimmed at both ends", " x", "y!", "x-y"},
		{"non-ASCII runs are replaced", "工具", "✓id✓", "-_id"},
		{"empty parts leave the dash", "", "", "-"},
		{"cut to 80 characters", strings.Repeat("a", 100), "id", strings.Repeat("a", 80)},
		{"cut after replacing", strings.Repeat("é", 30), strings.Repeat("b", 90),
			"-" + strings.Repeat("b", 79)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			budget := turn.NewResultBudget(turn.ResultBudgetOptions{HomeDir: home,
				NewUUID: func() string { return "U" }})
			budget.Apply(tt.tool, tt.id, loop.TextResult(strings.Repeat("x", 50_001)))
			if diff := cmp.Diff([]string{tt.want + "-U.txt"}, spillFiles(t, home)); diff != "" {
				t.Errorf("spill file for (%q, %q) (-want +got):\n%s", tt.tool, tt.id, diff)
			}
		})
	}
}

func TestBudgetRandomIDsAreVersion4UUIDs(t *testing.T) {
	home := t.TempDir()
	budget := turn.NewResultBudget(turn.ResultBudgetOptions{FS: osenv.LocalFS{}, HomeDir: home})
	for range 2 {
		budget.Apply("T", "c", loop.TextResult(strings.Repeat("x", 50_001)))
	}
	files := spillFiles(t, home)
	if len(files) != 2 {
		t.Fatalf("tool-results holds %q, want two files", files)
	}
	for _, f := range files {
		id := strings.TrimSuffix(strings.TrimPrefix(f, "T-c-"), ".txt")
		parts := strings.Split(id, "-")
		if len(id) != 36 || len(parts) != 5 || parts[2][0] != '4' || !strings.ContainsRune("89ab", rune(parts[3][0])) {
			t.Errorf("file %q does not end in a version 4 UUID", f)
		}
		if _, err := strconv.ParseUint(strings.ReplaceAll(id, "-", "")[:16], 16, 64); err != nil {
			t.Errorf("file %q: id is not hex: %v", f, err)
		}
	}
}
