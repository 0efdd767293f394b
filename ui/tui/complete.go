package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/editor"
	"github.com/kimigo/kimigo/ui/render"
)

// menuRows is how many completions show at once.
const menuRows = 8

// menu is the completion menu under the typing: slash commands (and
// /skill:<name>) when the text is a command name being typed, paths
// after an @.
type menu struct {
	kind  byte // '/' or '@'
	from  editor.Pos
	token string // what was typed, without the / or @
	list  list
	gen   int
	// pending says the paths for the token typed last are still being
	// listed: the list shown is an earlier token's, which Enter and Tab
	// must not accept.
	pending bool
}

// completionMsg carries the paths found for an @ token.
type completionMsg struct {
	gen   int
	paths []string
}

// refreshMenu opens, updates or closes the menu after the text changed.
func (m *Model) refreshMenu() tea.Cmd {
	if m.ed.Shell {
		m.menu = nil
		return nil
	}
	line := m.ed.LineBeforeCursor()
	cur := m.ed.Cursor()
	// A command name at the start of a one-line text.
	if cur.Row == 0 && m.ed.Lines() == 1 && strings.HasPrefix(line, "/") && !strings.ContainsAny(line, " \t") {
		name := line[1:]
		var items []choice
		for _, c := range m.reg.Match(name) {
			if !m.offered(c) {
				continue
			}
			d := c.Help
			if c.Args != "" {
				d = c.Args + " · " + d
			}
			items = append(items, choice{label: "/" + c.Name, detail: d, value: c.Name})
		}
		items = append(items, m.skillItems(name)...)
		if len(items) == 0 {
			m.menu = nil
			return nil
		}
		if m.menu == nil || m.menu.kind != '/' {
			m.menu = &menu{kind: '/'}
		}
		m.menu.from, m.menu.token = editor.Pos{Row: 0, Col: 0}, name
		m.menu.list.items = items
		if m.menu.list.sel >= len(items) {
			m.menu.list.sel = 0
		}
		return nil
	}
	// A directory after /add-dir.
	if arg, ok := strings.CutPrefix(line, "/add-dir "); ok && cur.Row == 0 && m.ed.Lines() == 1 && isDirStart(arg) {
		if m.menu == nil || m.menu.kind != 'd' {
			m.menu = &menu{kind: 'd'}
		}
		m.menu.from, m.menu.token = editor.Pos{Row: 0, Col: len("/add-dir ")}, arg
		m.menu.gen++
		m.menu.pending = true
		gen, dir, home := m.menu.gen, m.o.WorkDir, m.o.UserHome
		return func() tea.Msg { return completionMsg{gen: gen, paths: completeDir(dir, home, arg, 50)} }
	}
	// An @path token: from the last @ that starts a word.
	at := strings.LastIndexByte(line, '@')
	if at < 0 || at > 0 && !strings.ContainsRune(" \t(", rune(line[at-1])) || strings.ContainsAny(line[at:], " \t") {
		m.menu = nil
		return nil
	}
	token := line[at+1:]
	if m.menu == nil || m.menu.kind != '@' {
		m.menu = &menu{kind: '@'}
	}
	m.menu.from, m.menu.token = editor.Pos{Row: cur.Row, Col: at}, token
	m.menu.gen++
	m.menu.pending = true
	gen, dir := m.menu.gen, m.o.WorkDir
	return func() tea.Msg { return completionMsg{gen: gen, paths: CompletePath(dir, token, 50)} }
}

// completed shows the paths found, unless the typing moved on.
func (m *Model) completed(msg completionMsg) {
	if m.menu == nil || m.menu.kind == '/' || msg.gen != m.menu.gen {
		return
	}
	m.menu.pending = false
	if len(msg.paths) == 0 {
		m.menu = nil
		m.touch()
		return
	}
	items := make([]choice, len(msg.paths))
	for i, p := range msg.paths {
		items[i] = choice{label: p, value: p}
	}
	m.menu.list.items = items
	m.menu.list.sel = 0
	m.touch()
}

// menuKey handles the keys the open menu takes.
func (m *Model) menuKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	mu := m.menu
	switch k.String() {
	case "esc":
		m.menu = nil
		return nil, true
	case "up", "ctrl+p":
		mu.list.move(-1)
		return nil, true
	case "down", "ctrl+n":
		mu.list.move(1)
		return nil, true
	case "tab":
		if mu.pending {
			return nil, true
		}
		return m.accept(false), true
	case "enter":
		if len(mu.list.items) == 0 || mu.pending {
			return nil, false
		}
		return m.accept(mu.kind == '/'), true
	}
	return nil, false
}

// accept puts the selected completion into the text; a command accepted
// with Enter runs at once.
func (m *Model) accept(run bool) tea.Cmd {
	mu := m.menu
	c := mu.list.selected()
	if c == nil {
		return nil
	}
	switch mu.kind {
	case '/':
		m.ed.Replace(mu.from, "/"+c.value.(string)+" ")
		m.menu = nil
		if run {
			return m.enter()
		}
		return nil
	case 'd':
		m.ed.Replace(mu.from, c.value.(string))
		m.menu = nil
		return m.refreshMenu() // keep completing inside the folder
	default:
		p := c.value.(string)
		text := "@" + p
		if !strings.HasSuffix(p, "/") {
			text += " "
		}
		m.ed.Replace(mu.from, text)
		m.menu = nil
		if strings.HasSuffix(p, "/") { // keep completing inside the folder
			return m.refreshMenu()
		}
		return nil
	}
}

// lines renders the menu.
func (mu *menu) lines(m *Model) []string {
	if len(mu.list.items) == 0 {
		return nil
	}
	out := mu.list.render(m.theme, m.width, menuRows, false)
	if n := len(mu.list.items); n > menuRows {
		out = append(out, m.theme.Dim.Render(render.Indent+"…"))
	}
	return out
}

// isDirStart says arg is a path /add-dir completes: one that starts
// with ".", "/" or "~" and has no space (spec 06 §5.4).
func isDirStart(arg string) bool {
	return arg != "" && strings.ContainsRune("./~", rune(arg[0])) && !strings.ContainsAny(arg, " \t")
}

// completeDir lists the directories partial may complete to, relative
// to dir; "~" is home.
func completeDir(dir, home, partial string, limit int) []string {
	switch partial {
	case ".":
		return []string{"./", "../"}
	case "..":
		return []string{"../"}
	case "~":
		partial = "~/"
	}
	prefix := ""
	if rest, ok := strings.CutPrefix(partial, "~/"); ok && home != "" {
		dir, partial, prefix = home, rest, "~/"
	}
	var out []string
	for _, p := range CompletePath(dir, partial, limit) {
		if strings.HasSuffix(p, "/") {
			out = append(out, prefix+p)
		}
	}
	return out
}

// CompletePath lists what the partial path after an @ may complete to,
// relative to dir: the entries of its folder that start with its last
// part (case-insensitively), folders first and ending in "/", at most
// limit. .git is never listed; other hidden entries are.
func CompletePath(dir, partial string, limit int) []string {
	parent, base := filepath.Split(partial)
	root := filepath.Join(dir, filepath.FromSlash(parent))
	if filepath.IsAbs(parent) {
		root = filepath.FromSlash(parent)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	lb := strings.ToLower(base)
	var dirs, files []string
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || !strings.HasPrefix(strings.ToLower(name), lb) {
			continue
		}
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") && base != "" {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(root, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			dirs = append(dirs, parent+name+"/")
		} else {
			files = append(files, parent+name)
		}
	}
	sort.Strings(dirs)
	sort.Strings(files)
	out := append(dirs, files...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
