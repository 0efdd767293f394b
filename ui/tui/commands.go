package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/render"
)

// offers is a Command.Available for a session capability: the session
// implements T.
func offers[T any](s Session) bool {
	_, ok := s.(T)
	return ok
}

// builtinCommands are the slash commands of spec 06 §5.4 that kimigo has
// (the table's order; priority orders the completion menu). Later parts
// add theirs here or through Options.Commands.
func builtinCommands() *Registry {
	r := NewRegistry()
	for _, c := range []Command{
		{Name: "help", Aliases: []string{"h", "?"}, Help: "Keyboard shortcuts and commands", Priority: 100, Offline: true, Run: cmdHelp},
		{Name: "new", Aliases: []string{"clear"}, Help: "Start a fresh session in this directory", Priority: 90, Idle: true, Run: cmdNew},
		{Name: "sessions", Aliases: []string{"resume"}, Help: "Resume another session", Priority: 85, Idle: true, Run: cmdSessions},
		{Name: "model", Args: "[alias]", Help: "Switch the model of this session", Priority: 80, Run: cmdModel},
		{Name: "effort", Aliases: []string{"thinking"}, Args: "[level]", Help: "Set the thinking effort", Priority: 40, Run: cmdEffort, Available: offers[efforter]},
		{Name: "permission", Help: "Choose the permission mode", Priority: 70, Run: cmdPermission},
		{Name: "yolo", Aliases: []string{"yes"}, Args: "[on|off]", Help: "Approve ordinary tool calls without asking", Priority: 60, Run: modeCommand(event.ModeYolo)},
		{Name: "auto", Args: "[on|off]", Help: "Never ask; run what the rules allow", Priority: 60, Run: modeCommand(event.ModeAuto)},
		{Name: "manual", Help: "Ask before every tool call with side effects", Priority: 60, Run: cmdManual},
		{Name: "plan", Args: "[on|off|clear]", Help: "Toggle plan mode", Priority: 55, IdleFor: func(a string) bool { return a == "clear" }, Run: cmdPlan, Available: offers[planner]},
		{Name: "swarm", Args: "[on|off|task]", Help: "Split work across many subagents", Priority: 53, Run: cmdSwarm, Available: offers[swarmer]},
		{Name: "goal", Args: "[objective|status|pause|resume|cancel|replace|budget]", Help: "Pursue an objective turn after turn", Priority: 54, Run: cmdGoal, Available: offers[goaler]},
		{Name: "btw", Args: "<question>", Help: "Ask a side question without interrupting the work", Priority: 62, Run: cmdBtw, Available: offers[btwer]},
		{Name: "compact", Args: "[instructions]", Help: "Summarize the conversation to free context", Priority: 65, Idle: true, Run: cmdCompact},
		{Name: "undo", Args: "[count]", Help: "Withdraw your last prompts", Priority: 50, Idle: true, Run: cmdUndo},
		{Name: "tasks", Aliases: []string{"task"}, Help: "Background tasks: output, stop", Priority: 45, Run: cmdTasks, Available: offers[tasker]},
		{Name: "title", Aliases: []string{"rename"}, Args: "[text]", Help: "Show or set the session's title", Priority: 30, Run: cmdTitle},
		{Name: "status", Help: "Version, model, directory, modes, session and context", Priority: 35, Run: cmdStatus},
		{Name: "usage", Help: "Token usage and the context window", Priority: 35, Run: cmdUsage},
		{Name: "mcp", Args: "[reconnect <server>]", Help: "MCP servers: status, transport, tools", Priority: 34, Run: cmdMCP, Available: offers[mcpLister]},
		{Name: "hooks", Help: "Lifecycle hooks configured", Priority: 33, Run: cmdHooks, Available: offers[hookLister]},
		{Name: "init", Help: "Analyse the codebase and write AGENTS.md", Priority: 26, Idle: true, Run: cmdInit},
		{Name: "add-dir", Args: "[list|path]", Help: "List the session's directories or add one", Priority: 25, Idle: true, Run: cmdAddDir, Available: offers[dirAdder]},
		{Name: "reload", Help: "Read config.toml and tui.toml again", Priority: 24, Idle: true, Run: cmdReload},
		{Name: "reload-tui", Help: "Read tui.toml again", Priority: 23, Run: cmdReloadTUI},
		{Name: "theme", Args: "[auto|dark|light]", Help: "Choose the colour theme", Priority: 22, Run: cmdTheme},
		{Name: "editor", Args: "[command]", Help: "Choose the editor Ctrl-G opens", Priority: 21, Run: cmdEditor},
		{Name: "login", Help: "Set up a Kimi Platform API key", Priority: 12, Idle: true, Run: cmdLogin},
		{Name: "logout", Aliases: []string{"disconnect"}, Args: "[provider]", Help: "Remove a provider from config.toml", Priority: 11, Idle: true, Run: cmdLogout},
		{Name: "export-md", Aliases: []string{"export"}, Args: "[path]", Help: "Save the conversation as Markdown", Priority: 15, Idle: true, Run: cmdExportMarkdown},
		{Name: "export-debug-zip", Help: "Save the session as a ZIP for a bug report", Priority: 10, Idle: true, Run: cmdExportZip},
		{Name: "copy", Help: "Copy the last answer to the clipboard", Priority: 20, Idle: true, Run: cmdCopy},
		{Name: "version", Help: "Show kimigo's version", Priority: 5, Offline: true, Run: cmdVersion},
		{Name: "exit", Aliases: []string{"quit", "q"}, Help: "Leave kimigo", Priority: 95, Idle: true, Offline: true, Run: func(c *Ctx, _ string) tea.Cmd { return c.Quit() }},
	} {
		if err := r.Add(c); err != nil {
			panic(err) // the built-in table is wrong
		}
	}
	return r
}

func cmdHelp(c *Ctx, _ string) tea.Cmd {
	c.m.openHelp()
	return nil
}

func cmdNew(c *Ctx, _ string) tea.Cmd { return c.m.switchTo("") }

func cmdSessions(c *Ctx, _ string) tea.Cmd { return c.m.openSessionPicker(false) }

func cmdModel(c *Ctx, args string) tea.Cmd {
	m := c.m
	if args != "" {
		return m.setModel(args)
	}
	if len(m.o.Models) == 0 {
		c.Warn("No models are configured; add one to config.toml.")
		return nil
	}
	var items []choice
	for _, mc := range m.o.Models {
		d := ""
		if mc.Display != "" && mc.Display != mc.Alias {
			d = mc.Display
		}
		items = append(items, choice{label: mc.Alias, detail: d, current: mc.Alias == m.model, value: mc.Alias})
	}
	p := newPicker("Model", items)
	p.choose = func(m *Model, ch choice) tea.Cmd { return m.setModel(ch.value.(string)) }
	m.overlay = p
	return nil
}

// setModel switches the session's model.
func (m *Model) setModel(alias string) tea.Cmd {
	known := len(m.o.Models) == 0
	for _, mc := range m.o.Models {
		if mc.Alias == alias {
			known = true
		}
	}
	if !known {
		m.notice(render.Error, fmt.Sprintf("Model %q is not configured in config.toml.", alias))
		return nil
	}
	s := m.sess
	return m.call("model", func(ctx context.Context) error {
		if err := s.SetModel(ctx, alias); err != nil {
			return err
		}
		return nil
	})
}

func cmdEffort(c *Ctx, args string) tea.Cmd {
	m := c.m
	e, ok := m.sess.(efforter)
	if !ok {
		c.Warn("This session cannot change the thinking effort yet.")
		return nil
	}
	var efforts []string
	for _, mc := range m.o.Models {
		if mc.Alias == m.model {
			efforts = mc.Efforts
		}
	}
	set := func(m *Model, level string) tea.Cmd {
		m.effort = level
		return m.call("effort", func(ctx context.Context) error { return e.SetThinkingEffort(ctx, level) })
	}
	if args != "" {
		return set(m, args)
	}
	if len(efforts) == 0 {
		c.Info("The current model has no thinking effort levels.")
		return nil
	}
	var items []choice
	for _, ef := range efforts {
		items = append(items, choice{label: ef, current: ef == m.effort, value: ef})
	}
	p := newPicker("Thinking effort", items)
	p.choose = func(m *Model, ch choice) tea.Cmd { return set(m, ch.value.(string)) }
	m.overlay = p
	return nil
}

// modeDescriptions say what each permission mode does.
var modeDescriptions = map[event.PermissionMode]string{
	event.ModeManual: "ask before tool calls with side effects",
	event.ModeYolo:   "approve ordinary calls; still ask about risky ones",
	event.ModeAuto:   "never ask; run what the rules allow",
}

func cmdPermission(c *Ctx, _ string) tea.Cmd {
	m := c.m
	var items []choice
	for _, md := range []event.PermissionMode{event.ModeManual, event.ModeYolo, event.ModeAuto} {
		items = append(items, choice{label: string(md), detail: modeDescriptions[md], current: md == m.mode(), value: md})
	}
	p := newPicker("Permission mode", items)
	p.choose = func(m *Model, ch choice) tea.Cmd { return m.setMode(ch.value.(event.PermissionMode)) }
	m.overlay = p
	return nil
}

// mode is the session's permission mode as last reported.
func (m *Model) mode() event.PermissionMode {
	if m.status.Permission == "" {
		return event.ModeManual
	}
	return m.status.Permission
}

// modeCommand is /yolo and /auto: on, off, or a toggle.
func modeCommand(md event.PermissionMode) func(c *Ctx, args string) tea.Cmd {
	return func(c *Ctx, args string) tea.Cmd {
		on := c.m.mode() != md
		switch strings.ToLower(args) {
		case "on":
			on = true
		case "off":
			on = false
		case "":
		default:
			c.Fail(fmt.Sprintf("Unknown argument %q: use on or off.", args))
			return nil
		}
		if !on {
			if c.m.mode() != md {
				c.Info(fmt.Sprintf("%s mode is already off.", md))
				return nil
			}
			return c.m.setMode(event.ModeManual)
		}
		return c.m.setMode(md)
	}
}

func cmdManual(c *Ctx, _ string) tea.Cmd { return c.m.setMode(event.ModeManual) }

// setMode switches the permission mode; the footer shows it at once.
func (m *Model) setMode(md event.PermissionMode) tea.Cmd {
	m.status.Permission = md
	m.touch()
	m.notice(render.Success, fmt.Sprintf("Permission mode: %s — %s.", md, modeDescriptions[md]))
	s := m.sess
	return m.call("mode", func(ctx context.Context) error { return s.SetMode(ctx, md) })
}

func cmdPlan(c *Ctx, args string) tea.Cmd {
	p, ok := c.m.sess.(planner)
	if !ok {
		c.Warn("Plan mode is not available in this version of kimigo yet.")
		return nil
	}
	on := !p.PlanMode()
	switch strings.ToLower(args) {
	case "clear":
		pc, ok := p.(planClearer)
		if !ok {
			c.Warn("This session cannot clear its plan.")
			return nil
		}
		return c.Call("plan", func(context.Context, Session) error { return pc.ClearPlan() })
	case "on":
		on = true
	case "off":
		on = false
	case "":
	default:
		c.Fail(fmt.Sprintf("Unknown argument %q: use on, off or clear.", args))
		return nil
	}
	return c.Call("plan", func(ctx context.Context, _ Session) error { return p.SetPlanMode(ctx, on) })
}

// togglePlan is Shift-Tab.
func (m *Model) togglePlan() tea.Cmd { return cmdPlan(&Ctx{m: m}, "") }

func cmdCompact(c *Ctx, args string) tea.Cmd { return c.m.startCompaction(args) }

func cmdUndo(c *Ctx, args string) tea.Cmd {
	if args == "" {
		return c.m.openUndo()
	}
	n, err := strconv.Atoi(args)
	if err != nil || n < 1 {
		c.Fail(fmt.Sprintf("/undo takes a number of prompts, not %q.", args))
		return nil
	}
	return c.m.undo(n)
}

func cmdTitle(c *Ctx, args string) tea.Cmd {
	if args == "" {
		st, ok := c.m.sess.(stater)
		if !ok {
			c.Warn("This session cannot show its title.")
			return nil
		}
		s, err := st.State()
		if err != nil {
			c.Fail(err.Error())
			return nil
		}
		c.Info("Title: " + s.Title)
		return nil
	}
	title := args
	c.Success("Title: " + render.Truncate(title, 200))
	return c.Call("title", func(_ context.Context, s Session) error { return s.Rename(title) })
}

func cmdStatus(c *Ctx, _ string) tea.Cmd {
	m := c.m
	st := m.status
	var lines []string
	add := func(k, v string) { lines = append(lines, fmt.Sprintf("%-12s %s", k, v)) }
	add("version", m.o.Version)
	add("model", m.modelDisplay())
	add("directory", m.o.WorkDir)
	add("permission", string(m.mode()))
	if p, ok := m.sess.(planner); ok {
		add("plan mode", onOff(p.PlanMode()))
	}
	add("session", m.sess.ID())
	add("context", contextText(st))
	c.Notice("Status", strings.Join(lines, "\n"))
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func contextText(st event.Status) string {
	if st.MaxContextTokens > 0 {
		return fmt.Sprintf("%s of %s tokens (%.0f%%)", render.Tokens(st.ContextTokens), render.Tokens(st.MaxContextTokens),
			100*float64(st.ContextTokens)/float64(st.MaxContextTokens))
	}
	return render.Tokens(st.ContextTokens) + " tokens"
}

func cmdUsage(c *Ctx, _ string) tea.Cmd {
	st := c.m.status
	var lines []string
	if u := st.Usage; u != nil {
		if u.Total != nil {
			lines = append(lines, "session  "+usageText(*u.Total))
		}
		for model, mu := range u.ByModel {
			lines = append(lines, fmt.Sprintf("%-8s %s", model, usageText(mu)))
		}
	}
	lines = append(lines, "context  "+contextText(st))
	c.Notice("Usage", strings.Join(lines, "\n"))
	return nil
}

func usageText(u llm.TokenUsage) string {
	return fmt.Sprintf("%s in (%s cached) · %s out", render.Tokens(u.InputTotal()), render.Tokens(u.InputCacheRead), render.Tokens(u.Output))
}

func cmdExportZip(c *Ctx, _ string) tea.Cmd { return c.m.exportZip() }

func cmdExportMarkdown(c *Ctx, args string) tea.Cmd {
	m := c.m
	e, ok := m.sess.(markdownExporter)
	if !ok {
		c.Warn("This session cannot be exported as Markdown.")
		return nil
	}
	now := m.now()
	return m.calls.Run(func(context.Context) tea.Msg {
		path, n, err := e.ExportMarkdown(args, now)
		switch {
		case errors.Is(err, session.ErrNothingToExport):
			return noticeMsg{level: render.Info, text: "No messages to export."}
		case err != nil:
			return callDoneMsg{label: "export", err: err}
		}
		return noticeMsg{level: render.Success, text: fmt.Sprintf("Exported %d %s", n, plural(n, "message", "messages")), detail: path}
	})
}

func cmdCopy(c *Ctx, _ string) tea.Cmd {
	if c.m.lastAnswer == "" {
		c.Info("There is no answer to copy yet.")
		return nil
	}
	c.m.clipboard = c.m.lastAnswer
	c.Success("Copied the last answer to the clipboard.")
	return nil
}

func cmdVersion(c *Ctx, _ string) tea.Cmd {
	c.Info("kimigo " + c.m.o.Version)
	return nil
}
