package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
)

// Command is a slash command (spec 06 §5.4). Later parts of kimigo add
// theirs to the one registry: built-in ones in builtinCommands, others
// through Options.Commands.
type Command struct {
	// Name is what follows the slash; Aliases are other names for it.
	Name    string
	Aliases []string
	// Args shows the arguments in help and completion ("[instructions]").
	Args string
	// Help is one line saying what the command does.
	Help string
	// Priority orders the completion menu: higher first, then by name.
	Priority int
	// Idle refuses the command while a turn or a compaction runs; IdleFor,
	// when set, decides it from the arguments instead.
	Idle    bool
	IdleFor func(args string) bool
	// Offline says the command works before a session is open (help,
	// exit); the others wait for it.
	Offline bool
	// Available, when set, says whether the session offers what the
	// command needs (plan mode, background tasks); help and completion
	// leave out a command it does not, and typing it says so.
	Available func(s Session) bool
	// Run carries the command out; the command it returns runs after.
	Run func(c *Ctx, args string) tea.Cmd
}

// idle reports whether the command with args is refused while busy.
func (c *Command) idle(args string) bool {
	if c.IdleFor != nil {
		return c.IdleFor(args)
	}
	return c.Idle
}

// Registry holds the slash commands by name and alias.
type Registry struct {
	cmds   []*Command
	byName map[string]*Command
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Command{}} }

// Add registers c. A name or alias already taken is an error naming it.
func (r *Registry) Add(c Command) error {
	if c.Name == "" || c.Run == nil {
		return fmt.Errorf("slash command %q: a name and a Run function are required", c.Name)
	}
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		if strings.ContainsAny(n, " /") {
			return fmt.Errorf("slash command name %q: no spaces or slashes", n)
		}
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("slash command /%s is already registered", n)
		}
	}
	p := &c
	r.cmds = append(r.cmds, p)
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		r.byName[n] = p
	}
	return nil
}

// Lookup finds a command by name or alias.
func (r *Registry) Lookup(name string) *Command { return r.byName[name] }

// Commands lists the commands in completion order: by priority, highest
// first, then by name.
func (r *Registry) Commands() []*Command {
	out := slices.Clone(r.cmds)
	slices.SortFunc(out, func(a, b *Command) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Match lists the commands whose name or an alias starts with prefix, in
// completion order.
func (r *Registry) Match(prefix string) []*Command {
	var out []*Command
	for _, c := range r.Commands() {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if strings.HasPrefix(n, prefix) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// ParseCommand splits input that starts with "/" into the command name
// (up to the first space) and its arguments, trimmed (spec 06 §5.3.3). A
// name with a "/" but no ":" is a path such as /usr/bin, not a command.
func ParseCommand(input string) (name, args string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(input, " "), "/")
	if !ok {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], rest[i:]
	}
	if name == "" || strings.Contains(name, "/") && !strings.Contains(name, ":") {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// offered reports whether help and completion show c: a command that
// needs what the open session lacks is left out.
func (m *Model) offered(c *Command) bool {
	return c.Available == nil || m.sess == nil || c.Available(m.sess)
}

// refusal is why a command cannot run now, "" when it can.
func (m *Model) refusal(c *Command, name, args string) string {
	if !c.idle(args) {
		return ""
	}
	switch {
	case m.compact != nil:
		return fmt.Sprintf("Cannot /%s while compacting — wait for compaction to finish first.", name)
	case m.reopening != nil:
		return fmt.Sprintf("Cannot /%s while the session reopens — wait for it.", name)
	case m.turn != nil || m.shell != nil:
		return fmt.Sprintf("Cannot /%s while streaming — press Esc or Ctrl-C first.", name)
	}
	return ""
}

// runCommand runs a command the user submitted.
func (m *Model) runCommand(c *Command, name, args string) tea.Cmd {
	if m.sess == nil && !c.Offline {
		m.notice(render.Warning, fmt.Sprintf("Cannot /%s yet — the session is still opening.", name))
		return nil
	}
	if why := m.refusal(c, name, args); why != "" {
		m.notice(render.Warning, why)
		return nil
	}
	m.ladder.Disarm()
	return c.Run(&Ctx{m: m}, args)
}

// Ctx is what a command may do to the interface.
type Ctx struct{ m *Model }

// Session is the session shown.
func (c *Ctx) Session() Session { return c.m.sess }

// Busy reports whether a turn, a compaction or a shell command runs.
func (c *Ctx) Busy() bool { return c.m.busy() }

// Info, Success, Warn and Fail print a status line.
func (c *Ctx) Info(text string)    { c.m.notice(render.Info, text) }
func (c *Ctx) Success(text string) { c.m.notice(render.Success, text) }
func (c *Ctx) Warn(text string)    { c.m.notice(render.Warning, text) }
func (c *Ctx) Fail(text string)    { c.m.notice(render.Error, text) }

// Notice prints a titled notice with a detail under it.
func (c *Ctx) Notice(title, detail string) {
	c.m.print(render.Notice(c.m.theme, render.Info, title, detail, c.m.width))
}

// Print prints lines as a block of the transcript.
func (c *Ctx) Print(lines []string) { c.m.print(lines) }

// Call runs f off the update loop, after the session calls before it; a
// failure prints an error line.
func (c *Ctx) Call(label string, f func(ctx context.Context, s Session) error) tea.Cmd {
	s := c.m.sess
	return c.m.call(label, func(ctx context.Context) error { return f(ctx, s) })
}

// Width is the terminal's width.
func (c *Ctx) Width() int { return c.m.width }

// Theme is the colour theme.
func (c *Ctx) Theme() render.Theme { return c.m.theme }

// Quit ends the program.
func (c *Ctx) Quit() tea.Cmd { return c.m.quit() }
