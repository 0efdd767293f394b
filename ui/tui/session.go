package tui

import (
	"context"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/session"
)

// Session is what the interface needs of a session; *session.Session
// implements it. Every method may block on the session's records, so the
// interface calls them off its update loop, one at a time and in order
// (caller.go), except Compact, which runs until the compaction ends and
// is cancelled through its context.
type Session interface {
	// ID is the session id; WorkDir the work dir it was created in.
	ID() string
	WorkDir() string
	// Prompt starts a turn with input; Steer gives input to the running
	// turn (or starts one); Cancel cancels the running turn.
	Prompt(ctx context.Context, input []llm.ContentPart) error
	Steer(ctx context.Context, input []llm.ContentPart) error
	Cancel(ctx context.Context, cause error) error
	// Compact compacts the conversation and returns when it ended.
	Compact(ctx context.Context, instruction string) error
	// SetMode and SetModel switch the permission mode and the model.
	SetMode(ctx context.Context, mode event.PermissionMode) error
	SetModel(ctx context.Context, alias string) error
	// AnswerApproval and AnswerQuestion answer open requests.
	AnswerApproval(id string, a event.ApprovalAnswer) error
	AnswerQuestion(id string, answers map[string]string) error
	// Subscribe returns the event stream; Status the state to start from.
	Subscribe() *event.Subscription
	Status() event.Status
	// Rename sets a custom title.
	Rename(title string) error
	// ResumeCommand is the command that resumes the session.
	ResumeCommand() string
	// Close ends the session: the running turn is cancelled, records
	// are flushed, the lock released.
	Close(ctx context.Context) error
}

// Optional capabilities a session may have, found by type assertion.
// Each is a seam for a later piece of kimigo.
type (
	// undoer withdraws the last count prompts (/undo).
	undoer interface {
		Undo(ctx context.Context, count int) error
	}
	// shellRunner runs a user's "!" command as part of the conversation,
	// through the session's Bash and its command sandbox, so the model
	// sees it (spec 05 §2.7); the output streams as event.ShellOutput
	// named by commandID. Without it the interface runs the command
	// itself and the model does not see it.
	shellRunner interface {
		RunShell(ctx context.Context, commandID, command string) (session.ShellResult, error)
	}
	// detacher moves the foreground command to the background (Ctrl-B).
	detacher interface {
		Detach(ctx context.Context) error
	}
	// planner toggles plan mode (Shift-Tab, /plan).
	planner interface {
		SetPlanMode(ctx context.Context, on bool) error
		PlanMode() bool
	}
	// planClearer empties the plan file (/plan clear).
	planClearer interface {
		ClearPlan() error
	}
	// efforter switches the thinking effort (/effort).
	efforter interface {
		SetThinkingEffort(ctx context.Context, effort string) error
	}
	// markdownExporter writes the conversation as Markdown (/export-md).
	markdownExporter interface {
		ExportMarkdown(path string, now time.Time) (string, int, error)
	}
	// stater reads the session's state.json: its title (/title without
	// text).
	stater interface {
		State() (session.State, error)
	}
)
