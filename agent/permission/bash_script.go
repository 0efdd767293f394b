package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds of the analysis. A longer or deeper script is not read: allow
// rules cannot approve it, deny and ask rules see rough pieces of it.
const (
	maxScriptDepth = 6 // nested scripts (bash -c inside bash -c …) and wrappers
	maxScriptLen   = 256 << 10
)

// script is what permission learns from a Bash command without running it
// (ERRATA 9): every simple command it would run, anywhere in it, and the
// files its redirections write.
type script struct {
	command string
	// parsed is false when the command is not valid shell; units then hold
	// rough pieces of the text that only deny and ask rules look at.
	parsed bool
	// opaque lists why no allow rule may approve the script: eval, a
	// command name that is not a plain word, an unparsable nested script…
	opaque []string
	units  []*unit
	// writes are the redirection targets known before the script runs,
	// absolute and clean; raw keeps each as written.
	writes []writeTarget
	// unknownWrites is set when some redirection target is not known
	// (a variable, a glob, a relative path after a cd).
	unknownWrites bool
}

// writeTarget is a file a redirection writes.
type writeTarget struct {
	raw, path string
}

// approvable reports whether allow rules may approve the script at all.
func (s *script) approvable() bool { return s.parsed && len(s.opaque) == 0 && len(s.units) > 0 }

// unitKind says how a command that runs another command is judged.
type unitKind uint8

const (
	// plainUnit runs only itself.
	plainUnit unitKind = iota
	// transparentUnit (nohup, timeout, env, command, …) is approved when
	// its whole text is, or when the command it wraps is.
	transparentUnit
	// guardedUnit (sudo, xargs, find -exec, a wrapper given by path) needs
	// both its whole text and the commands it runs approved.
	guardedUnit
	// shellUnit (bash -c, trap, eval) is judged by the commands of its
	// script string only.
	shellUnit
)

// unit is one simple command of a script.
type unit struct {
	// text is what allow rules match: assignments, name and arguments
	// after quote removal, joined by single spaces.
	text string
	// static says every word of the command is known before it runs.
	static bool
	kind   unitKind
	inner  []*unit
	// spellings are the other texts deny and ask rules try: without the
	// leading assignments, with a binary's path reduced to its name, …
	spellings []string
	// name is the command name (after the wrappers), for cd detection.
	name string
}

// each calls fn for u and every command u runs, depth first.
func (u *unit) each(fn func(*unit)) {
	fn(u)
	for _, in := range u.inner {
		in.each(fn)
	}
}

// analyzer walks one parsed script.
type analyzer struct {
	parser   *syntax.Parser
	src      string
	depth    int
	cwd      string
	home     string
	s        *script
	relative []writeTarget // relative targets, resolved once cd is ruled out
	cd       bool          // the script changes directory
}

// analyzeScript parses command as bash and collects its commands and
// writes. cwd is where the script starts; home expands "~".
func analyzeScript(p *syntax.Parser, command, cwd, home string) *script {
	a := &analyzer{parser: p, cwd: cwd, home: home, s: &script{command: command}}
	if len(command) > maxScriptLen {
		a.s.units = roughUnits(command)
		return a.s
	}
	f, err := a.parse(command)
	if err != nil {
		a.s.units = roughUnits(command)
		return a.s
	}
	a.s.parsed = true
	a.src = command
	a.walk(f)
	a.finish()
	return a.s
}

func (a *analyzer) parse(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil { // the parser is third-party code: never let it take the turn down
			f, err = nil, errParserPanic
		}
	}()
	return a.parser.Parse(strings.NewReader(src), "")
}

// walk visits every node of f, including command and process substitutions,
// function bodies and here-documents.
func (a *analyzer) walk(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Cmd == nil { // a redirection alone: "> file" truncates it
				a.s.units = append(a.s.units, &unit{})
			}
		case *syntax.CallExpr:
			a.s.units = append(a.s.units, a.call(x))
		case *syntax.DeclClause:
			a.s.units = append(a.s.units, a.decl(x))
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.TestClause, *syntax.CStyleLoop:
			// Arithmetic evaluates variable contents as expressions, which
			// can run commands through array subscripts.
			a.opaque("arithmetic or [[ ]] expression")
		case *syntax.Redirect:
			a.redirect(x)
		}
		return true
	})
}

func (a *analyzer) opaque(why string) { a.s.opaque = append(a.s.opaque, why) }

// call builds the unit of a simple command.
func (a *analyzer) call(x *syntax.CallExpr) *unit {
	assigns := make([]word, 0, len(x.Assigns))
	for _, as := range x.Assigns {
		assigns = append(assigns, a.assign(as))
	}
	words := make([]word, 0, len(x.Args))
	for _, w := range x.Args {
		words = append(words, readWord(a.src, a.home, w))
	}
	return a.build(assigns, words, 0)
}

// decl builds the unit of export, declare, local, readonly, typeset.
func (a *analyzer) decl(x *syntax.DeclClause) *unit {
	words := []word{{text: x.Variant.Value, static: true}}
	for _, as := range x.Args {
		words = append(words, a.assign(as))
	}
	return a.build(nil, words, 0)
}

// assign renders NAME=value, NAME+=value, a bare NAME or a declare option.
func (a *analyzer) assign(as *syntax.Assign) word {
	if as.Name == nil { // a declare argument such as -x
		if as.Value == nil {
			return word{text: source(a.src, as)}
		}
		return readWord(a.src, a.home, as.Value)
	}
	if as.Index != nil || as.Array != nil {
		return word{text: source(a.src, as)}
	}
	if as.Naked {
		return word{text: as.Name.Value, static: true}
	}
	op := "="
	if as.Append {
		op = "+="
	}
	if as.Value == nil {
		return word{text: as.Name.Value + op, static: true}
	}
	v := readWord(a.src, a.home, as.Value)
	return word{text: as.Name.Value + op + v.text, static: v.static}
}

// build makes the unit of assignments plus words, looking through the
// commands that run other commands. depth counts wrappers.
func (a *analyzer) build(assigns, words []word, depth int) *unit {
	u := &unit{static: true}
	var b strings.Builder
	nameAt, restAt := 0, 0 // where the command name and its arguments start in the text
	for i := range len(assigns) + len(words) {
		var w word
		if i < len(assigns) {
			w = assigns[i]
		} else {
			w = words[i-len(assigns)]
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		switch i {
		case len(assigns):
			nameAt = b.Len()
		case len(assigns) + 1:
			restAt = b.Len()
		}
		b.WriteString(w.text)
		u.static = u.static && w.static
	}
	u.text = b.String()
	if len(words) == 0 {
		return u // assignments alone change the shell's variables
	}
	name := words[0]
	if len(assigns) > 0 {
		u.spellings = append(u.spellings, u.text[nameAt:])
	}
	if !name.static || name.glob || name.text == "" {
		u.static = false
		a.opaque("the command name is not a plain word")
	}
	base := name.text
	if i := strings.LastIndexByte(base, '/'); i >= 0 && i < len(base)-1 && name.static {
		base = base[i+1:]
		spelling := base
		if restAt > 0 {
			spelling += " " + u.text[restAt:]
		}
		u.spellings = append(u.spellings, spelling)
	}
	u.name = base
	if why := hiddenRunner(base, words); why != "" {
		a.opaque(why)
	}
	if depth >= maxScriptDepth {
		a.opaque("commands nested too deeply")
		return u
	}
	a.unwrap(u, name.text != base, assigns, words, depth)
	return u
}

// redirect records the file a redirection writes, if it writes one.
func (a *analyzer) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll,
		syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
	case syntax.DplOut: // >&2 and >&- duplicate or close descriptors
		if w := readWord(a.src, a.home, r.Word); w.static && (w.text == "-" || isNumber(w.text)) {
			return
		}
	default: // reads and here-documents
		return
	}
	w := readWord(a.src, a.home, r.Word)
	if !w.static || w.glob || w.text == "" {
		a.s.unknownWrites = true
		return
	}
	t := w.text
	if !path.IsAbs(t) {
		a.relative = append(a.relative, writeTarget{raw: w.text, path: t})
		return
	}
	a.addWrite(writeTarget{raw: w.text, path: path.Clean(t)})
}

func (a *analyzer) addWrite(t writeTarget) {
	if isDeviceFile(t.path) {
		return
	}
	a.s.writes = append(a.s.writes, t)
}

// finish resolves relative write targets: against the start directory,
// unless some command changes directory first.
func (a *analyzer) finish() {
	for _, u := range a.s.units {
		u.each(func(u *unit) {
			if u.name == "cd" || u.name == "pushd" || u.name == "popd" {
				a.cd = true
			}
		})
	}
	for _, t := range a.relative {
		if a.cd || a.cwd == "" {
			a.s.unknownWrites = true
			continue
		}
		a.addWrite(writeTarget{raw: t.raw, path: path.Join(a.cwd, t.path)})
	}
}

// isDeviceFile reports the device files a redirection may write freely.
func isDeviceFile(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero":
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && isNumber(n)
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// roughUnits splits a command that does not parse at the characters that
// separate commands, so deny and ask rules still see each piece. None of
// them is static: allow rules never approve an unparsable script.
func roughUnits(command string) []*unit {
	pieces := strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune("\n;&|()`{}", r)
	})
	units := []*unit{{text: command}}
	for _, p := range pieces {
		p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "$"))
		if p == "" {
			continue
		}
		u := &unit{text: p}
		if f := strings.Fields(p); len(f) > 0 && strings.Contains(f[0], "/") {
			f[0] = path.Base(f[0])
			u.spellings = append(u.spellings, strings.Join(f, " "))
		}
		units = append(units, u)
	}
	return units
}
