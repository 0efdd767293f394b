package permission_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// fuzzAllows are the allow rules' arguments of realisticRules.
var fuzzAllowArgs = []string{"git status", "git diff *", "go test *", "ls *"}

// FuzzBashRules: arbitrary shell text never panics the chain, and the
// allow rules never approve a script that runs a command none of them
// matches. The check below reads the script on its own, with the parser's
// expand package for word values, and is deliberately more lenient than
// the chain (any suffix of a wrapper's words may be the command it runs).
func FuzzBashRules(f *testing.F) {
	for _, s := range []string{
		"git status", "git status && rm -rf x", "ls -la > .env", "bash -c 'git status; make'", "nohup timeout 5 git diff HEAD",
		"echo $(git status)", "PATH=. git status", "git st'at'us", "$'git' status", "env A=1 ls -l", "sudo ls -l",
		"x() { make; }; x", "git status | sh", "eval 'git status'", "ls -l > $F", "find . -exec ls -l \\;", "ls -l ~",
	} {
		f.Add([]byte{}, s)
	}
	f.Add([]byte{1, 9, 2, 3, 17, 4, 8, 30, 5}, "")
	f.Add([]byte{12, 0, 7, 1, 20, 2, 25, 3}, "")
	env := osenvtest.New(osenvtest.Options{Cwd: "/repo", Home: "/home/u"})
	if err := env.MkdirAll("/repo/.git", 0o755); err != nil {
		f.Fatal(err)
	}
	tele := &lastDecision{}
	m := permission.New(permission.Options{Env: env, Rules: realisticRules(), Telemetry: tele,
		Workspace: func() workspace.Dirs { return workspace.Dirs{Dir: "/repo"} }})
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env, Workspace: workspace.Dirs{Dir: "/repo"}}})
	var globs []*regexp.Regexp
	for _, a := range fuzzAllowArgs {
		globs = append(globs, commandRegexp(a))
	}
	f.Fuzz(func(t *testing.T, ops []byte, raw string) {
		for _, script := range []string{raw, buildScript(ops)} {
			if script == "" {
				continue
			}
			args, _ := json.Marshal(map[string]string{"command": script})
			exec, res, err := bash.ResolveExecution(args)
			if err != nil || res != nil {
				continue
			}
			tc := llm.ToolCall{ID: "c1", Name: "Bash", Arguments: string(args)}
			if _, err := m.Authorize(t.Context(), loop.ToolCtx{ToolCall: tc, ToolCalls: []llm.ToolCall{tc}, Args: args, Execution: &exec}); err != nil {
				t.Fatalf("Authorize(%q): %v", script, err)
			}
			policy, kind := tele.get()
			if kind != "approve" {
				continue
			}
			if policy != "user-configured-allow" {
				t.Fatalf("%q approved by %s in manual mode", script, policy)
			}
			var sent struct{ Command string } // what the chain saw: JSON replaced invalid UTF-8
			_ = json.Unmarshal(args, &sent)
			if why := uncovered(sent.Command, globs, 0); why != "" {
				t.Fatalf("allow rules approved %q, but %s", script, why)
			}
		}
	})
}

type lastDecision struct {
	mu           sync.Mutex
	policy, kind string
}

func (l *lastDecision) Track(event string, props map[string]any) {
	if event != permission.EventPolicyDecision {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.policy, l.kind = props["policy_name"].(string), props["decision"].(string)
}

func (l *lastDecision) get() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.policy, l.kind
}

// uncovered returns why the allow rules should not approve script, or ""
// when every command of it is covered.
func uncovered(script string, globs []*regexp.Regexp, depth int) string {
	if depth > 8 {
		return "it nests too deeply to check"
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return "it does not parse"
	}
	why := ""
	commands := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Cmd == nil {
				why = "a statement is a bare redirection"
			}
		case *syntax.CallExpr:
			commands++
			why = callUncovered(x, globs, depth)
		case *syntax.DeclClause:
			commands++
			why = "it declares variables (" + x.Variant.Value + ")"
			for _, g := range globs {
				if text, ok := declText(x); ok && g.MatchString(text) {
					why = ""
				}
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.TestClause, *syntax.CStyleLoop:
			why = "it evaluates arithmetic"
		}
		return true
	})
	if why == "" && commands == 0 {
		why = "it runs no command"
	}
	return why
}

// callUncovered judges one simple command.
func callUncovered(x *syntax.CallExpr, globs []*regexp.Regexp, depth int) string {
	var assigns []string
	for _, a := range x.Assigns {
		if a.Name == nil || a.Index != nil || a.Array != nil {
			return "an assignment is not a plain NAME=value"
		}
		v, ok := staticValue(a.Value)
		if !ok {
			return "an assignment value is not static"
		}
		op := "="
		if a.Append {
			op = "+="
		}
		assigns = append(assigns, a.Name.Value+op+v)
	}
	var words []string
	for _, w := range x.Args {
		v, ok := staticValue(w)
		if !ok {
			return "a word is not static: " + w.Lit()
		}
		words = append(words, v)
	}
	if len(words) == 0 {
		return "it only assigns variables"
	}
	name := words[0]
	switch name {
	case "eval":
		return "it uses eval"
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish":
		for i, w := range words[1:] {
			if strings.HasPrefix(w, "-") && strings.Contains(w, "c") && !strings.HasPrefix(w, "--") && i+2 < len(words) {
				return uncovered(words[i+2], globs, depth+1)
			}
		}
		return "it starts a shell without a script string"
	case "trap":
		if len(words) > 2 && !strings.HasPrefix(words[1], "-") {
			return uncovered(words[1], globs, depth+1)
		}
	}
	full := strings.Join(append(assigns, words...), " ")
	if matchAny(globs, full) {
		return ""
	}
	if isWrapperName(name) {
		for i := 1; i < len(words); i++ {
			if matchAny(globs, strings.Join(append(append([]string(nil), assigns...), words[i:]...), " ")) {
				return ""
			}
		}
	}
	return "no allow rule matches " + full
}

func isWrapperName(name string) bool {
	switch name {
	case "nohup", "timeout", "nice", "command", "builtin", "exec", "env", "stdbuf", "setsid", "ionice",
		"time", "sudo", "doas", "xargs", "watch", "busybox":
		return true
	}
	return false
}

// commandRegexp is the oracle's reading of a Bash rule argument (ERRATA
// 35), written apart from the chain's: `*` is any characters, and
// "x *" also matches the bare "x".
func commandRegexp(arg string) *regexp.Regexp {
	re := strings.ReplaceAll(regexp.QuoteMeta(arg), `\*`, ".*")
	if p, ok := strings.CutSuffix(re, " .*"); ok {
		re = p + "(?: .*)?"
	}
	return regexp.MustCompile("^(?s:" + re + ")$")
}

func matchAny(globs []*regexp.Regexp, s string) bool {
	for _, g := range globs {
		if g.MatchString(s) {
			return true
		}
	}
	return false
}

// staticValue is a word's value when it has no expansion but "~", which
// expands to the rig's home.
func staticValue(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	static := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob, *syntax.BraceExp:
			static = false
		}
		return static
	})
	if !static {
		return "", false
	}
	v, err := expand.Literal(&expand.Config{Env: expand.ListEnviron("HOME=/home/u")}, w)
	return v, err == nil
}

func declText(x *syntax.DeclClause) (string, bool) {
	parts := []string{x.Variant.Value}
	for _, a := range x.Args {
		if a.Name == nil || a.Value == nil {
			return "", false
		}
		v, ok := staticValue(a.Value)
		if !ok {
			return "", false
		}
		parts = append(parts, a.Name.Value+"="+v)
	}
	return strings.Join(parts, " "), true
}

// buildScript turns fuzz bytes into a shell script from a vocabulary of
// commands, connectors, wrappers, quotes and redirections, so the fuzzer
// explores scripts that parse.
func buildScript(ops []byte) string {
	commands := []string{"git status", "git diff HEAD", "ls -la", "go test -run X", "rm -rf x", "curl x", "make",
		"echo hi", `git "status"`, "g'i't status", "$'ls' -l", "ls -l $X", "$CMD", "/bin/ls -l", "./git status", "git push",
		"ls -l *", "git diff {a,b}", "ls ~", "true"}
	prefixes := []string{"", "nohup ", "timeout 5 ", "sudo ", "env ", "env A=1 ", "A=1 ", "PATH=. ", "command ", "xargs ",
		"exec ", "nice -n 1 ", "builtin ", "time ", "! "}
	joins := []string{"; ", " && ", " || ", " | ", " & ", "\n", " |& "}
	wraps := []string{"%s", "(%s)", "{ %s; }", "$(%s)", "`%s`", "bash -c '%s'", "sh -c \"%s\"", "echo <(%s)",
		"if %s; then true; fi", "f() { %s; }; f", "eval '%s'", "trap '%s' EXIT", "for i in a; do %s; done", "x=$(%s)"}
	redirs := []string{"", " > out.txt", " > .env", " > .git/config", " 2>&1", " > $F", " > /dev/null", " >> /tmp/x",
		" < in.txt", " <<< hi"}
	var b strings.Builder
	for i := 0; i+3 < len(ops) && i < 40; i += 4 {
		if i > 0 {
			b.WriteString(joins[int(ops[i])%len(joins)])
		}
		cmd := prefixes[int(ops[i+1])%len(prefixes)] + commands[int(ops[i+2])%len(commands)]
		cmd = strings.Replace(wraps[int(ops[i+3])%len(wraps)], "%s", cmd, 1)
		b.WriteString(cmd + redirs[int(ops[i+3]/16)%len(redirs)])
	}
	return b.String()
}
