package history

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// OriginKind says where a user-role message came from (spec 02 §1.3). It is
// persisted as the origin's "kind".
type OriginKind string

// Origin kinds. Every behaviour table below lists each kind explicitly; an
// unknown kind gets the defaults: dropped by compaction, not counted by
// undo, no user-turn boundary.
const (
	OriginUser              OriginKind = "user"
	OriginSkillActivation   OriginKind = "skill_activation"
	OriginPluginCommand     OriginKind = "plugin_command"
	OriginInjection         OriginKind = "injection"
	OriginShellCommand      OriginKind = "shell_command"
	OriginCompactionSummary OriginKind = "compaction_summary"
	OriginSystemTrigger     OriginKind = "system_trigger"
	OriginBackgroundTask    OriginKind = "background_task"
	OriginCronJob           OriginKind = "cron_job"
	OriginCronMissed        OriginKind = "cron_missed"
	OriginHookResult        OriginKind = "hook_result"
	OriginRetry             OriginKind = "retry"
)

// Trigger says who activated a skill or plugin command.
type Trigger string

// Triggers of skill activations and plugin commands.
const (
	TriggerUserSlash   Trigger = "user-slash"
	TriggerModelTool   Trigger = "model-tool"
	TriggerNestedSkill Trigger = "nested-skill"
)

// ShellPhase distinguishes a shell command's input from its output.
type ShellPhase string

// Shell command phases.
const (
	ShellInput  ShellPhase = "input"
	ShellOutput ShellPhase = "output"
)

// Injection variants and system-trigger names that carry behaviour in this
// package. Variants and names are open strings; the others pass through.
const (
	VariantSystemReminder     = "system_reminder"
	VariantImageCompression   = "image_compression"
	VariantLocalCommandStdout = "local-command-stdout"
	VariantCompactionElision  = "compaction_elision"
	VariantDynamicToolSchema  = "dynamic_tool_schema"
	TriggerNameLoadableTools  = "loadable-tools"
	TriggerNameGoalContinue   = "goal_continuation"
)

// Origin is the tagged origin object {"kind": K, …} of a user-role message.
// Only the fields of its Kind are meaningful and written. An origin of an
// unknown kind keeps its JSON verbatim so that it survives a rewrite.
type Origin struct {
	Kind OriginKind

	// skill_activation and plugin_command.
	ActivationID string
	Trigger      Trigger // also retry's optional trigger
	SkillName    string
	SkillArgs    string
	SkillType    string
	SkillPath    string
	SkillSource  string
	PluginID     string
	CommandName  string
	CommandArgs  string

	// injection.
	Variant string

	// shell_command; IsError only on a failed output.
	Phase   ShellPhase
	IsError bool

	// system_trigger.
	Name string

	// background_task.
	TaskID         string
	Status         string
	NotificationID string

	// cron_job.
	JobID          string
	Cron           string
	Recurring      bool
	CoalescedCount int
	Stale          bool

	// cron_missed.
	Count int

	// hook_result.
	Event   string
	Blocked bool

	// raw is the compact JSON of an unknown kind, kept verbatim.
	raw string
}

// UserOrigin is the origin of a prompt the user typed.
func UserOrigin() *Origin { return &Origin{Kind: OriginUser} }

// InjectionOrigin is the origin of host-injected context with the given
// variant.
func InjectionOrigin(variant string) *Origin {
	return &Origin{Kind: OriginInjection, Variant: variant}
}

// SystemTriggerOrigin is the origin of a message the host sent on its own.
func SystemTriggerOrigin(name string) *Origin {
	return &Origin{Kind: OriginSystemTrigger, Name: name}
}

// CompactionSummaryOrigin is the origin of a compaction summary.
func CompactionSummaryOrigin() *Origin { return &Origin{Kind: OriginCompactionSummary} }

// kindOf is o's kind, or "" for an absent origin.
func kindOf(o *Origin) OriginKind {
	if o == nil {
		return ""
	}
	return o.Kind
}

// Is reports whether o is present and of kind k.
func (o *Origin) Is(k OriginKind) bool { return o != nil && o.Kind == k }

// keptByCompaction is the compaction disposition of spec 02 §1.3: absent,
// user, and user-slash skill activations or plugin commands are kept.
func keptByCompaction(o *Origin) bool {
	switch kindOf(o) {
	case "", OriginUser:
		return true
	case OriginSkillActivation, OriginPluginCommand:
		return o.Trigger == TriggerUserSlash
	}
	return false
}

// IsRealUserInput reports whether m is input the user gave: a user message
// that compaction keeps. Undo counts these.
func IsRealUserInput(m Message) bool {
	return m.Role == "user" && keptByCompaction(m.Origin)
}

// StartsUserTurn reports whether a user message with origin o starts a user
// turn in the replay stream (spec 02 §6.13): absent or user, user-slash
// skills and plugin commands, shell input, and goal continuations.
func StartsUserTurn(o *Origin) bool {
	switch kindOf(o) {
	case "", OriginUser:
		return true
	case OriginSkillActivation, OriginPluginCommand:
		return o.Trigger == TriggerUserSlash
	case OriginShellCommand:
		return o.Phase == ShellInput
	case OriginSystemTrigger:
		return o.Name == TriggerNameGoalContinue
	}
	return false
}

// MarshalJSON writes {"kind":K,…} with the fields of K in a fixed order.
// Required fields are always written, optional ones only when set.
func (o Origin) MarshalJSON() ([]byte, error) {
	if o.raw != "" {
		return []byte(o.raw), nil
	}
	w := objectWriter{}
	w.str("kind", string(o.Kind), true)
	switch o.Kind {
	case OriginSkillActivation:
		w.str("activationId", o.ActivationID, true)
		w.str("skillName", o.SkillName, true)
		w.str("skillArgs", o.SkillArgs, false)
		w.str("trigger", string(o.Trigger), true)
		w.str("skillType", o.SkillType, false)
		w.str("skillPath", o.SkillPath, false)
		w.str("skillSource", o.SkillSource, false)
	case OriginPluginCommand:
		w.str("activationId", o.ActivationID, true)
		w.str("pluginId", o.PluginID, true)
		w.str("commandName", o.CommandName, true)
		w.str("commandArgs", o.CommandArgs, false)
		w.str("trigger", string(o.Trigger), true)
	case OriginInjection:
		w.str("variant", o.Variant, true)
	case OriginShellCommand:
		w.str("phase", string(o.Phase), true)
		if o.IsError {
			w.val("isError", true)
		}
	case OriginSystemTrigger:
		w.str("name", o.Name, true)
	case OriginBackgroundTask:
		w.str("taskId", o.TaskID, true)
		w.str("status", o.Status, true)
		w.str("notificationId", o.NotificationID, true)
	case OriginCronJob:
		w.str("jobId", o.JobID, true)
		w.str("cron", o.Cron, true)
		w.val("recurring", o.Recurring)
		w.val("coalescedCount", o.CoalescedCount)
		w.val("stale", o.Stale)
	case OriginCronMissed:
		w.val("count", o.Count)
	case OriginHookResult:
		w.str("event", o.Event, true)
		if o.Blocked {
			w.val("blocked", true)
		}
	case OriginRetry:
		w.str("trigger", string(o.Trigger), false)
	}
	return w.close()
}

// originJSON is every field any kind may carry.
type originJSON struct {
	Kind           OriginKind `json:"kind"`
	ActivationID   string     `json:"activationId"`
	Trigger        Trigger    `json:"trigger"`
	SkillName      string     `json:"skillName"`
	SkillArgs      string     `json:"skillArgs"`
	SkillType      string     `json:"skillType"`
	SkillPath      string     `json:"skillPath"`
	SkillSource    string     `json:"skillSource"`
	PluginID       string     `json:"pluginId"`
	CommandName    string     `json:"commandName"`
	CommandArgs    string     `json:"commandArgs"`
	Variant        string     `json:"variant"`
	Phase          ShellPhase `json:"phase"`
	IsError        bool       `json:"isError"`
	Name           string     `json:"name"`
	TaskID         string     `json:"taskId"`
	Status         string     `json:"status"`
	NotificationID string     `json:"notificationId"`
	JobID          string     `json:"jobId"`
	Cron           string     `json:"cron"`
	Recurring      bool       `json:"recurring"`
	CoalescedCount int        `json:"coalescedCount"`
	Stale          bool       `json:"stale"`
	Count          int        `json:"count"`
	Event          string     `json:"event"`
	Blocked        bool       `json:"blocked"`
}

// UnmarshalJSON reads an origin object. A known kind is decoded into its
// fields; an unknown kind is kept verbatim.
func (o *Origin) UnmarshalJSON(data []byte) error {
	var v originJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	if v.Kind == "" {
		return fmt.Errorf("origin: missing kind in %s", truncateJSON(data))
	}
	switch v.Kind {
	case OriginUser, OriginSkillActivation, OriginPluginCommand, OriginInjection, OriginShellCommand,
		OriginCompactionSummary, OriginSystemTrigger, OriginBackgroundTask, OriginCronJob,
		OriginCronMissed, OriginHookResult, OriginRetry:
		*o = fromOriginJSON(v)
	default:
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return fmt.Errorf("origin: %w", err)
		}
		*o = Origin{Kind: v.Kind, raw: compact.String()}
	}
	return nil
}

func fromOriginJSON(v originJSON) Origin {
	return Origin{
		Kind: v.Kind, ActivationID: v.ActivationID, Trigger: v.Trigger, SkillName: v.SkillName,
		SkillArgs: v.SkillArgs, SkillType: v.SkillType, SkillPath: v.SkillPath, SkillSource: v.SkillSource,
		PluginID: v.PluginID, CommandName: v.CommandName, CommandArgs: v.CommandArgs, Variant: v.Variant,
		Phase: v.Phase, IsError: v.IsError, Name: v.Name, TaskID: v.TaskID, Status: v.Status,
		NotificationID: v.NotificationID, JobID: v.JobID, Cron: v.Cron, Recurring: v.Recurring,
		CoalescedCount: v.CoalescedCount, Stale: v.Stale, Count: v.Count, Event: v.Event, Blocked: v.Blocked,
	}
}

// Equal reports whether o and p are the same origin; go-cmp uses it.
func (o *Origin) Equal(p *Origin) bool {
	if o == nil || p == nil {
		return o == p
	}
	return *o == *p
}

// truncateJSON keeps error messages short.
func truncateJSON(data []byte) string {
	const limit = 120
	if len(data) <= limit {
		return string(data)
	}
	return string(data[:limit]) + "…"
}
