package permission

import (
	"errors"
	"slices"
	"strings"
)

// errParserPanic stands for a panic of the shell parser; the command is
// then treated as unparsable.
var errParserPanic = errors.New("shell parser panicked")

// wrapperSpec describes a command that runs the command after its options.
type wrapperSpec struct {
	kind unitKind
	// argOpts are the short options that take the next word as their
	// value when they end a cluster ("-n 5", "-un5" needs none).
	argOpts string
	// longArgs are the long options that take the next word when not
	// written --name=value.
	longArgs []string
	// skip is the number of operands before the command (timeout's
	// duration).
	skip int
	// numeric accepts "-5" as an option (nice).
	numeric bool
}

// wrapper returns the spec of the command named name, if it wraps one.
// Privileged and fan-out wrappers are guarded: approving them by the
// wrapped command alone would hand sudo or xargs any command.
func wrapper(name string) (wrapperSpec, bool) {
	switch name {
	case "nohup", "builtin":
		return wrapperSpec{kind: transparentUnit}, true
	case "command":
		return wrapperSpec{kind: transparentUnit}, true
	case "exec":
		return wrapperSpec{kind: transparentUnit, argOpts: "a"}, true
	case "timeout":
		return wrapperSpec{kind: transparentUnit, argOpts: "sk", longArgs: []string{"signal", "kill-after"}, skip: 1}, true
	case "nice":
		return wrapperSpec{kind: transparentUnit, argOpts: "n", longArgs: []string{"adjustment"}, numeric: true}, true
	case "stdbuf":
		return wrapperSpec{kind: transparentUnit, argOpts: "ioe", longArgs: []string{"input", "output", "error"}}, true
	case "setsid":
		return wrapperSpec{kind: transparentUnit}, true
	case "ionice":
		return wrapperSpec{kind: transparentUnit, argOpts: "cnp", longArgs: []string{"class", "classdata", "pid"}}, true
	case "time":
		return wrapperSpec{kind: transparentUnit, argOpts: "of", longArgs: []string{"output", "format"}}, true
	case "env":
		return wrapperSpec{kind: transparentUnit, argOpts: "uC", longArgs: []string{"unset", "chdir"}}, true
	case "sudo":
		return wrapperSpec{kind: guardedUnit, argOpts: "ughpCDrtUT",
			longArgs: []string{"user", "group", "host", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout"}}, true
	case "doas":
		return wrapperSpec{kind: guardedUnit, argOpts: "uC"}, true
	case "xargs":
		return wrapperSpec{kind: guardedUnit, argOpts: "adEILnPs",
			longArgs: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}}, true
	case "watch":
		return wrapperSpec{kind: guardedUnit, argOpts: "nq", longArgs: []string{"interval", "equexit"}}, true
	}
	return wrapperSpec{}, false
}

// isShell reports the shells whose -c string is a script.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox":
		return true
	}
	return false
}

// unwrap fills in u.kind and u.inner for commands that run other
// commands. byPath says the command was named by a path, which makes even
// a transparent wrapper guarded: /tmp/nohup is not nohup. The assignments
// before the wrapper stay with the wrapped command, so PATH=. nohup git
// is not git.
func (a *analyzer) unwrap(u *unit, byPath bool, assigns, words []word, depth int) {
	name := u.name
	if len(assigns) > 0 && (isShell(name) || name == "eval" || name == "trap") {
		a.opaque("variables assigned for a nested shell")
	}
	switch {
	case name == "eval":
		a.opaque("eval")
		u.kind = shellUnit
		u.inner = a.nested(joinTexts(words[1:]), true)
	case name == "trap":
		a.trap(u, words)
	case name == "find":
		a.find(u, words, depth)
	case name == "su":
		a.su(u, words)
	case isShell(name):
		a.shell(u, words, depth)
		if byPath && u.kind != plainUnit { // /tmp/x/bash is whatever that file is
			u.kind = guardedUnit
		}
	default:
		spec, ok := wrapper(name)
		if !ok {
			return
		}
		rest := afterOptions(spec, words[1:])
		if name == "env" {
			a.env(u, byPath, assigns, words, rest, depth)
			return
		}
		if len(rest) == 0 {
			return
		}
		u.kind = spec.kind
		if byPath {
			u.kind = guardedUnit
		}
		in := a.build(assigns, rest, depth+1)
		if name == "xargs" { // xargs appends words read from its input
			in.spellings = append(in.spellings, in.text+" _")
		}
		u.inner = []*unit{in}
	}
}

// afterOptions returns the words after a wrapper's options and operands.
func afterOptions(spec wrapperSpec, words []word) []word {
	i := 0
	for i < len(words) {
		w := words[i].text
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		i++
		if long, ok := strings.CutPrefix(w, "--"); ok {
			if !strings.Contains(long, "=") && slices.Contains(spec.longArgs, long) {
				i++
			}
			continue
		}
		if spec.numeric && isNumber(w[1:]) {
			continue
		}
		for j := 1; j < len(w); j++ {
			if strings.IndexByte(spec.argOpts, w[j]) >= 0 {
				if j == len(w)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	i = min(i+spec.skip, len(words))
	return words[i:]
}

// env: NAME=value words become the wrapped command's assignments.
func (a *analyzer) env(u *unit, byPath bool, assigns, words, rest []word, depth int) {
	for _, w := range words[1:] {
		if w.text == "-S" || strings.HasPrefix(w.text, "-S") || strings.HasPrefix(w.text, "--split-string") {
			a.opaque("env -S splits a string into a command")
			return
		}
	}
	assigns = slices.Clone(assigns)
	for len(rest) > 0 && isAssignment(rest[0].text) {
		assigns, rest = append(assigns, rest[0]), rest[1:]
	}
	if len(rest) == 0 {
		return
	}
	u.kind = transparentUnit
	if byPath {
		u.kind = guardedUnit
	}
	u.inner = []*unit{a.build(assigns, rest, depth+1)}
}

// isAssignment reports NAME=value.
func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shell: "sh -c STRING" runs STRING; "sh FILE" runs a file, judged by its
// own text; a shell with neither reads its commands from standard input.
func (a *analyzer) shell(u *unit, words []word, depth int) {
	if u.name == "busybox" {
		if len(words) > 1 {
			u.kind = transparentUnit
			u.inner = []*unit{a.build(nil, words[1:], depth+1)}
		}
		return
	}
	cFlag, i := false, 1
	for ; i < len(words); i++ {
		w := words[i].text
		if w == "--" || w == "-" {
			i++
			break
		}
		if len(w) < 2 || (w[0] != '-' && w[0] != '+') {
			break
		}
		if strings.HasPrefix(w, "--") {
			if w == "--rcfile" || w == "--init-file" {
				i++
			}
			continue
		}
		if w[0] == '-' && strings.ContainsRune(w[1:], 'c') {
			cFlag = true
		}
		if w[0] == '-' && strings.ContainsRune(w[1:], 's') {
			a.opaque("the shell reads its commands from standard input")
		}
		if last := w[len(w)-1]; last == 'o' || last == 'O' {
			i++ // -o option-name
		}
	}
	switch {
	case cFlag && i < len(words):
		if !words[i].static {
			a.opaque("the shell's script is not known before it runs")
		}
		u.kind = shellUnit
		u.inner = a.nested(words[i].text, false)
	case cFlag:
		a.opaque("the shell has -c but no script")
	case i >= len(words):
		a.opaque("the shell reads its commands from standard input")
	}
}

// trap ACTION SIGNAL…: ACTION runs later in this shell.
func (a *analyzer) trap(u *unit, words []word) {
	args := words[1:]
	if len(args) > 0 && args[0].text == "--" {
		args = args[1:]
	}
	if len(args) < 2 || strings.HasPrefix(args[0].text, "-") || args[0].text == "" {
		return // listing, resetting or ignoring signals
	}
	if !args[0].static {
		a.opaque("the trap action is not known before it runs")
	}
	u.kind = shellUnit
	u.inner = a.nested(args[0].text, true)
}

// find … -exec CMD ; runs CMD for each file found.
func (a *analyzer) find(u *unit, words []word, depth int) {
	for i := 1; i < len(words); i++ {
		switch words[i].text {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(words) && words[j].text != ";" && words[j].text != "+" {
			j++
		}
		if j > i+1 {
			u.kind = guardedUnit
			u.inner = append(u.inner, a.build(nil, words[i+1:j], depth+1))
		}
		i = j
	}
}

// su … -c STRING runs STRING as another user: both su and the commands of
// the string need allow rules.
func (a *analyzer) su(u *unit, words []word) {
	for i := 1; i < len(words)-1; i++ {
		if w := words[i].text; w == "-c" || w == "--command" {
			if !words[i+1].static {
				a.opaque("the su command is not known before it runs")
			}
			u.kind = guardedUnit
			u.inner = a.nested(words[i+1].text, false)
			return
		}
	}
}

// nested analyzes a script given as a string. sameShell says it runs in
// the current shell (eval, trap), so its cd moves this script too.
func (a *analyzer) nested(src string, sameShell bool) []*unit {
	if a.depth+1 >= maxScriptDepth {
		a.opaque("scripts nested too deeply")
		return nil
	}
	child := &analyzer{parser: a.parser, src: src, depth: a.depth + 1, cwd: a.cwd, home: a.home,
		s: &script{command: src, parsed: true}}
	f, err := child.parse(src)
	if err != nil {
		a.opaque("a nested script does not parse")
		return roughUnits(src)
	}
	child.walk(f)
	child.finish()
	a.s.opaque = append(a.s.opaque, child.s.opaque...)
	a.s.writes = append(a.s.writes, child.s.writes...)
	a.s.unknownWrites = a.s.unknownWrites || child.s.unknownWrites
	if sameShell && child.cd {
		a.cd = true
	}
	return child.s.units
}

func joinTexts(words []word) string {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.text
	}
	return strings.Join(texts, " ")
}
