package acp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// prompt runs one session/prompt (spec 06 §8.5). The turn runs on the
// session's context, not the request's: the SDK cancels a prompt's
// request when a second prompt for the session arrives, and that must not
// cancel the first. Only session/cancel cancels the turn.
func (l *live) prompt(blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	l.mu.Lock()
	if l.busy {
		l.mu.Unlock()
		msg := "cannot prompt while a turn is active"
		return sdk.PromptResponse{}, &sdk.RequestError{Code: -32600, Message: msg, Data: map[string]any{"message": msg}}
	}
	l.busy, l.cancelled = true, false
	waiter := make(chan event.TurnEnded, 1)
	l.waiter, l.waitTurn = waiter, 0
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.busy, l.waiter, l.waitTurn = false, nil, 0
		l.mu.Unlock()
	}()

	parts, warnings := convert(blocks)
	for _, w := range warnings {
		l.log.Warn("acp: " + w)
	}
	if l.wasCancelled() {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if text, ok := slashCommand(parts); ok {
		return l.command(text)
	}
	if len(parts) == 0 {
		return sdk.PromptResponse{}, invalidParams("the prompt has no content kimigo can use")
	}
	if err := l.s.WaitMCP(l.srv.ctx); err != nil { // the client's servers are ready (or failed) first
		l.log.Warn("acp: waiting for MCP servers", "err", err)
	}
	if err := l.s.Prompt(l.srv.ctx, parts); err != nil {
		var coded event.CodedError
		if errors.As(err, &coded) && coded.Code() == event.CodeAgentBusy {
			return sdk.PromptResponse{}, &sdk.RequestError{Code: -32600, Message: err.Error(), Data: map[string]any{"message": err.Error()}}
		}
		return sdk.PromptResponse{}, internalError(l.srv, "prompt", err)
	}
	if l.wasCancelled() { // the cancel came while the turn was launching
		if err := l.s.Cancel(l.srv.ctx, nil); err != nil {
			l.log.Warn("acp: cancel failed", "err", err)
		}
	}
	var end event.TurnEnded
	select {
	case end = <-waiter:
	case <-l.pumped: // the session closed under the prompt
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	return l.stopReason(end)
}

func (l *live) wasCancelled() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cancelled
}

// stopReason maps how the turn ended to the response (spec 06 §8.5 step
// 5).
func (l *live) stopReason(end event.TurnEnded) (sdk.PromptResponse, error) {
	resp := func(r sdk.StopReason) (sdk.PromptResponse, error) { return sdk.PromptResponse{StopReason: r}, nil }
	switch end.Reason {
	case event.EndCompleted:
		return resp(sdk.StopReasonEndTurn)
	case event.EndCancelled:
		return resp(sdk.StopReasonCancelled)
	case event.EndBlocked:
		return resp(sdk.StopReasonRefusal)
	}
	var code, name, msg string
	if end.Error != nil {
		code, name, msg = end.Error.Code, end.Error.Name, end.Error.Message
	}
	switch code {
	case event.CodeProviderFiltered:
		return resp(sdk.StopReasonRefusal)
	case event.CodeProviderAuth, "auth.login_required":
		return sdk.PromptResponse{}, authRequired(errors.New(msg))
	case loop.CodeMaxStepsExceeded:
		return resp(sdk.StopReasonMaxTurnRequests)
	}
	l.log.Error("acp: turn failed", "code", code, "message", msg)
	if name == "" {
		name = "Error"
	}
	l.send(l.srv.ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("Error: %s: %s", name, msg)))
	return resp(sdk.StopReasonEndTurn)
}

// slashCommand is the prompt's text when its first part is text starting
// with "/".
func slashCommand(parts []llm.ContentPart) (string, bool) {
	if len(parts) == 0 || parts[0].Type != llm.PartText {
		return "", false
	}
	text := strings.TrimSpace(parts[0].Text)
	return text, strings.HasPrefix(text, "/")
}

// commands are the ACP built-ins kimigo answers without a model turn.
var commands = []sdk.AvailableCommand{
	{Name: "compact", Description: "Summarize the conversation to free context",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "optional focus for the summary"}}},
	{Name: "status", Description: "Show the model, permission mode and context use"},
	{Name: "mcp", Description: "List the MCP servers and their status"},
	{Name: "help", Description: "List the commands"},
}

// sendCommands pushes the available commands (spec 06 §8.11).
func (l *live) sendCommands() {
	l.send(l.srv.ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		AvailableCommands: commands}})
}

// command answers an ACP built-in command with one message chunk.
func (l *live) command(text string) (sdk.PromptResponse, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	args = strings.TrimSpace(args)
	var reply string
	switch name {
	case "help":
		var b strings.Builder
		b.WriteString("Commands:")
		for _, c := range commands {
			fmt.Fprintf(&b, "\n/%s — %s", c.Name, c.Description)
		}
		reply = b.String()
	case "status":
		st := l.s.Status()
		reply = fmt.Sprintf("Session: %s\nModel: %s\nMode: %s\nContext: %d tokens", l.id, st.Model, acpMode(st.Permission, l.s.PlanMode()), st.ContextTokens)
		if st.MaxContextTokens > 0 {
			reply += fmt.Sprintf(" of %d", st.MaxContextTokens)
		}
	case "mcp":
		servers := l.s.MCPServers()
		if len(servers) == 0 {
			reply = "No MCP servers."
			break
		}
		var b strings.Builder
		b.WriteString("MCP servers:")
		for _, srv := range servers {
			fmt.Fprintf(&b, "\n%s (%s): %s", srv.Name, srv.Transport, srv.Status)
			if srv.Status == "connected" {
				fmt.Fprintf(&b, ", %d tools", srv.ToolCount)
			}
			if srv.Error != "" {
				fmt.Fprintf(&b, " — %s", srv.Error)
			}
		}
		reply = b.String()
	case "compact":
		if args != "" {
			l.send(l.srv.ctx, sdk.UpdateAgentMessageText("Compacting conversation context with instruction: "+args+"\n"))
		} else {
			l.send(l.srv.ctx, sdk.UpdateAgentMessageText("Compacting conversation context…\n"))
		}
		if err := l.s.Compact(l.srv.ctx, args); err != nil {
			reply = "/compact failed: " + err.Error()
		} else {
			reply = "Compaction completed."
		}
	default:
		reply = "Unknown ACP command: /" + name + ". Use /help to see available commands."
	}
	l.send(l.srv.ctx, sdk.UpdateAgentMessageText(reply))
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// acpMode is the ACP mode of a session's state (spec 06 §8.1): plan mode
// on is "plan", else the permission mode's.
func acpMode(m event.PermissionMode, plan bool) string {
	switch {
	case plan:
		return "plan"
	case m == event.ModeAuto:
		return "auto"
	case m == event.ModeYolo:
		return "yolo"
	}
	return "default"
}

// modes are the ACP modes (spec 06 §8.7): the permission mode and plan
// mode each sets.
var modes = []struct {
	id, name, desc string
	mode           event.PermissionMode
	plan           bool
}{
	{"default", "Default", "Ask before edits and commands", event.ModeManual, false},
	{"plan", "Plan", "Research and write a plan; change nothing until it is approved", event.ModeManual, true},
	{"auto", "Auto", "Run tools without asking", event.ModeAuto, false},
	{"yolo", "YOLO", "Approve ordinary calls; still ask about risky ones", event.ModeYolo, false},
}

// setMode switches the ACP mode, both its toggles even when it is the
// current one, and pushes the new options; an unknown mode changes
// nothing.
func (l *live) setMode(ctx context.Context, id string) error {
	for _, m := range modes {
		if m.id == id {
			if err := l.s.SetMode(ctx, m.mode); err != nil {
				return internalError(l.srv, "set mode", err)
			}
			if err := l.s.SetPlanMode(ctx, m.plan); err != nil {
				return internalError(l.srv, "set plan mode", err)
			}
			l.sendOptions()
			return nil
		}
	}
	return invalidParams("Unknown sessionModeId: %s", id)
}

// setModel switches the model and pushes the new options; thinking on
// (session/set_model's "<alias>,thinking") also turns its thinking on at
// the model's default effort.
func (l *live) setModel(ctx context.Context, alias string, thinking bool) error {
	if _, ok := l.srv.o.Config.Models[alias]; !ok {
		return invalidParams("Unknown model: %s", alias)
	}
	if err := l.s.SetModel(ctx, alias); err != nil {
		return invalidParams("cannot switch to model %s: %s", alias, err.Error())
	}
	if m := l.s.Model(); thinking && m.Capability.Thinking {
		if err := l.s.SetThinkingEffort(ctx, onEffort(m)); err != nil {
			return internalError(l.srv, "set thinking", err)
		}
	}
	l.sendOptions()
	return nil
}

// thinkingChoices are the values of the thinking option for m (spec 06
// §8.10), none when m cannot think: an always-thinking model's efforts,
// or "on" alone; else "off" and the efforts, or "off" and "on".
func thinkingChoices(m config.Model) []string {
	switch {
	case !m.Capability.Thinking:
		return nil
	case m.AlwaysThinking && len(m.SupportEfforts) > 0:
		return slices.Clone(m.SupportEfforts)
	case m.AlwaysThinking:
		return []string{"on"}
	case len(m.SupportEfforts) > 0:
		return append([]string{"off"}, m.SupportEfforts...)
	}
	return []string{"off", "on"}
}

// onEffort is what "on" means for m: its default effort, else the
// provider's own "on".
func onEffort(m config.Model) string {
	if m.DefaultEffort != "" {
		return m.DefaultEffort
	}
	return "on"
}

// thinkingValue is the option value of effort, the setting in effect,
// clamped into choices: "off" when off, the effort when listed, else
// what "on" means (the default effort, or "on"), else the first choice
// that thinks.
func thinkingValue(m config.Model, choices []string, effort string) string {
	if effort == "off" && slices.Contains(choices, "off") {
		return "off"
	}
	if effort != "" && effort != "off" && slices.Contains(choices, effort) {
		return effort
	}
	for _, v := range []string{m.DefaultEffort, "on"} {
		if v != "" && slices.Contains(choices, v) {
			return v
		}
	}
	for _, v := range choices {
		if v != "off" {
			return v
		}
	}
	return ""
}

// setThinking applies a thinking option value from the next request on
// and pushes the new options; a value the model does not list changes
// nothing.
func (l *live) setThinking(ctx context.Context, v string) error {
	m := l.s.Model()
	if !slices.Contains(thinkingChoices(m), v) {
		return invalidParams("Unknown thinking effort for model %q: %s", m.Alias, v)
	}
	effort := v
	if v == "on" {
		effort = onEffort(m)
	}
	if err := l.s.SetThinkingEffort(ctx, effort); err != nil {
		return internalError(l.srv, "set thinking", err)
	}
	l.sendOptions()
	return nil
}

func (l *live) sendOptions() {
	l.send(l.srv.ctx, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: l.configOptions()}})
}

// configOptions is the snapshot of spec 06 §8.10: model, thinking (when
// the model can think), then mode.
func (l *live) configOptions() []sdk.SessionConfigOption {
	cfg := l.srv.o.Config
	current := l.s.Model().Alias
	var models sdk.SessionConfigSelectOptionsUngrouped
	seen := false
	for _, alias := range sortedKeys(cfg.Models) {
		name := alias
		if m, err := cfg.Resolve(alias); err == nil && m.DisplayName != "" {
			name = m.DisplayName
		}
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(alias), Name: name})
		seen = seen || alias == current
	}
	if !seen && current != "" {
		models = append(models, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(current), Name: current})
	}
	var ms sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		ms = append(ms, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	out := []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: "model", Name: "Model", Category: sdk.Ptr(sdk.SessionConfigOptionCategoryModel),
			CurrentValue: sdk.SessionConfigValueId(current), Options: sdk.SessionConfigSelectOptions{Ungrouped: &models}}},
	}
	if m := l.s.Model(); len(thinkingChoices(m)) > 0 {
		choices := thinkingChoices(m)
		var ts sdk.SessionConfigSelectOptionsUngrouped
		for _, v := range choices {
			ts = append(ts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(v), Name: capitalize(v)})
		}
		out = append(out, sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{Id: "thinking", Name: "Thinking",
			Category: sdk.Ptr(sdk.SessionConfigOptionCategoryThoughtLevel),
			// The setting in effect, re-read: the provider may have clamped it.
			CurrentValue: sdk.SessionConfigValueId(thinkingValue(m, choices, l.s.ThinkingEffort())),
			Options:      sdk.SessionConfigSelectOptions{Ungrouped: &ts}}})
	}
	return append(out, sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{Id: "mode", Name: "Mode",
		Category:     sdk.Ptr(sdk.SessionConfigOptionCategoryMode),
		CurrentValue: sdk.SessionConfigValueId(acpMode(l.s.Status().Permission, l.s.PlanMode())), Options: sdk.SessionConfigSelectOptions{Ungrouped: &ms}}})
}

// capitalize is v with its first letter upper-cased: an option's label.
func capitalize(v string) string {
	if v == "" {
		return v
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
