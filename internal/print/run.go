package print

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Format is print mode's output format (spec 06 §1.6.1).
type Format string

// Output formats.
const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat returns the format named s, or false for an unknown name.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, true
	}
	return "", false
}

// Host is the session print mode drives; *session.Session is one.
type Host interface {
	// Subscribe returns a subscription to the session's events.
	Subscribe() *event.Subscription
	// Prompt sends the user's input to the main agent; an error means it
	// was refused.
	Prompt(ctx context.Context, input []llm.ContentPart) error
	// Cancel cancels the main agent's running turn with cause.
	Cancel(ctx context.Context, cause error) error
}

// Settler is a host whose run may go on after its turn completed: a
// background task's notification or a cron fire starts another main turn
// (spec 06 §1.6.5); *session.Session is one. Settle returns true when
// another main turn started, false when the run is over; waiting is told
// what the run waits for.
type Settler interface {
	Settle(ctx context.Context, waiting func(msg string)) (bool, error)
}

// goesOn asks a Settler host, after a completed turn, whether another
// main turn follows.
func goesOn(ctx context.Context, o Options, ev event.TurnEnded) (bool, error) {
	st, ok := o.Host.(Settler)
	if !ok || ev.Error != nil || ev.Reason != event.EndCompleted || ev.RepeatStop != nil {
		return false, nil
	}
	return st.Settle(ctx, func(msg string) { fmt.Fprintln(o.Stderr, msg) })
}

// Options describe one print run.
type Options struct {
	Host   Host
	Prompt string
	Format Format
	// Version is kimigo's version, for the first line.
	Version string
	// SessionID and ResumeCommand make the resume hint.
	SessionID     string
	ResumeCommand string
	// Stdout and Stderr are the process's streams; StdoutWidth and
	// StderrWidth are their terminal widths, 0 when they are not
	// terminals.
	Stdout, Stderr           io.Writer
	StdoutWidth, StderrWidth int
	// Progress shows the text format's progress on stderr: thinking, tool
	// calls and their results, hook output (a terminal, or --verbose).
	// Warnings and retries are shown either way.
	Progress bool
	// Now is the clock of the result's duration; nil means time.Now.
	Now func() time.Time
	// Goal, when set, runs a goal instead of the prompt (`-p "/goal …"`):
	// Host must be a GoalHost.
	Goal *Goal
	// Sleep waits for a quota reset; nil means a timer. MaxQuotaWait
	// bounds one such wait; 0 means a day.
	Sleep        func(ctx context.Context, d time.Duration) error
	MaxQuotaWait time.Duration
	// Logger receives lifecycle lines; nil discards.
	Logger *slog.Logger
}

// Failure is a print run that ended without success: its Message is what
// the user is told (spec 06 §1.6.5 step 4).
type Failure struct {
	Message string
	// Code is the error code of the turn's failure, "" when none.
	Code string
	// Details are the failure's details (statusCode, requestId, …).
	Details map[string]any
}

func (f *Failure) Error() string { return f.Message }

// ErrInterrupted is returned when ctx ended before the run settled: the
// turn was cancelled and no resume hint was written.
var ErrInterrupted = errors.New("print run interrupted")

// renderer is one output format.
type renderer interface {
	// render shows one event that passed the filter.
	render(ev event.Event)
	// start writes what precedes the run (stream-json's version line).
	start(version string)
	// finish flushes what is buffered when the turn ended and returns the
	// first error writing stdout.
	finish() error
	// end writes how the run ended: the answer and resume hint of the
	// text format, the result object of the JSON formats.
	end(res Result)
	// goalSummary reports how a goal run left the goal (nil: none).
	goalSummary(g *event.Goal)
	// renderRuntime shows a main-agent event outside any turn: a
	// background task that started or ended, a cron fire.
	renderRuntime(ev event.Event)
}

// Run sends the prompt, renders the main agent's events until the run
// settles (spec 06 §1.6.5) and writes how it ended: the answer and the
// resume hint, or the result object. A run whose turn did not complete,
// or completed only because the repeat guard stopped it, returns a
// *Failure; ctx ending first returns ErrInterrupted (the turn is
// cancelled, the caller closes the session). The JSON formats write their
// result object however the run ended; the text format leaves a failed
// run's error and hint to the caller.
//
// A run whose turn completes leaving a goal active (the model created or
// resumed one) keeps waiting while the goal driver runs its turns, and
// settles on the last one; a turn that fails ends the run even with the
// goal active. With Options.Goal the run starts the goal instead and
// settles when the goal is no longer active (goal.go). Otherwise a host
// that is a Settler decides after each completed turn whether the run
// goes on (background tasks, cron); what it waits for goes to stderr as
// one line each.
func Run(ctx context.Context, o Options) (err error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	var r renderer
	switch o.Format {
	case FormatStreamJSON:
		r = newJSONRenderer(o)
	case FormatJSON:
		r = &resultRenderer{out: o.Stdout}
	default:
		r = newTextRenderer(o)
	}
	r.start(o.Version)
	var t tally
	defer func() {
		res := t.result(err, o, now().Sub(start))
		r.end(res)
		if werr := r.finish(); werr != nil && err == nil {
			err = fmt.Errorf("write output: %w", werr)
		}
	}()
	return run(ctx, o, r, &t)
}

func run(ctx context.Context, o Options, r renderer, t *tally) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Goal != nil {
		return runGoal(ctx, o, tallied{r, t}, log)
	}
	sub := o.Host.Subscribe()
	defer sub.Close()
	var (
		turns turnFilter
		// goal is the main agent's goal as of the last event read (the
		// agent runs ahead of the events, so it is not read live).
		goal *event.Goal
		// waiting is the turn that ended while the goal was still active:
		// the run settles on it once the goal driver is done (spec 06
		// §1.6.5 step 1).
		waiting *event.TurnEnded
	)
	if gh, ok := o.Host.(GoalHost); ok {
		goal = gh.Goal() // before the prompt: later changes arrive as events
	}
	if err := o.Host.Prompt(ctx, []llm.ContentPart{llm.TextPart(o.Prompt)}); err != nil {
		return failure(event.ErrorOf(err))
	}
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return interrupted(ctx, o, turns, log, err)
		}
		if g, ok := ev.(event.GoalUpdated); ok && g.AgentID == mainAgent {
			if goal = g.Goal; waiting != nil && !goalActive(goal) {
				return settle(r, *waiting, log)
			}
			continue
		}
		if h := ev.EventHeader(); h.AgentID == mainAgent && h.TurnID == event.NoTurn {
			r.renderRuntime(ev)
		}
		if !turns.admit(ev) {
			continue
		}
		t.add(ev)
		r.render(ev)
		switch e := ev.(type) {
		case event.TurnStarted:
			waiting = nil
		case event.TurnEnded:
			if goalActive(goal) && handsOff(e) {
				waiting = &e // the goal driver goes on with a continuation turn
				continue
			}
			if more, err := goesOn(ctx, o, e); err != nil {
				if ctx.Err() != nil {
					log.Info("print run interrupted while settling", "cause", context.Cause(ctx))
					return ErrInterrupted
				}
				return fmt.Errorf("wait for background work: %w", err)
			} else if more {
				continue
			}
			return settle(r, e, log)
		}
	}
}

// settle ends a run whose turn ended: the buffered output and the
// outcome.
func settle(r renderer, ev event.TurnEnded, log *slog.Logger) error {
	werr := r.finish()
	log.Info("print turn ended", "turn", ev.TurnID, "reason", ev.Reason, "duration_ms", ev.DurationMs)
	if ev.Error != nil || ev.Reason != event.EndCompleted {
		return endFailure(ev)
	}
	if rs := ev.RepeatStop; rs != nil {
		// The turn "completed" only because the guard stopped it: the
		// task is not done, so the run is not a success.
		log.Info("print turn stopped by the repeat guard", "turn", ev.TurnID, "tool", rs.Tool, "calls", rs.Calls)
		return repeatFailure(*rs)
	}
	if werr != nil {
		return fmt.Errorf("write output: %w", werr)
	}
	return nil
}

// handsOff reports whether the goal driver carries on after a turn that
// ended leaving a goal active: it does after a completed turn and after
// one stopped by the step cap, and leaves the goal as it is after any
// other (spec 03 §1.4), so such a turn is the run's end.
func handsOff(e event.TurnEnded) bool {
	return e.Reason == event.EndCompleted || e.Error != nil && e.Error.Code == loop.CodeMaxStepsExceeded
}

// endFailure words a turn that did not complete (spec 06 §1.6.5 step 4).
func endFailure(ev event.TurnEnded) *Failure {
	switch {
	case ev.Error != nil:
		return failure(*ev.Error)
	case ev.Reason == event.EndBlocked:
		return &Failure{Message: "Prompt hook blocked the request."}
	default:
		return &Failure{Message: fmt.Sprintf("Prompt turn ended with reason: %s", ev.Reason)}
	}
}

// CodeRepeatStopped is the Failure code of a run whose turn the repeat
// guard stopped.
const CodeRepeatStopped = "turn.repeat_stopped"

// repeatFailure words a turn the repeat guard stopped (spec 03 §3.4).
func repeatFailure(rs event.RepeatStop) *Failure {
	return &Failure{Code: CodeRepeatStopped, Details: map[string]any{"tool": rs.Tool, "calls": rs.Calls},
		Message: fmt.Sprintf("%s: the model called %s with the same arguments %d times in a row; the turn was stopped "+
			"before the task was finished", CodeRepeatStopped, rs.Tool, rs.Calls)}
}

func failure(p event.ErrorPayload) *Failure {
	if p.Code == event.CodeProviderFiltered {
		return &Failure{Message: "Provider safety policy blocked the response.", Code: p.Code, Details: p.Details}
	}
	return &Failure{Message: p.Code + ": " + p.Message, Code: p.Code, Details: p.Details}
}

// resultRenderer is the json format: nothing while the run goes, one
// result object at its end.
type resultRenderer struct {
	out io.Writer
	err error
}

func (r *resultRenderer) start(string)       {}
func (r *resultRenderer) render(event.Event) {}
func (r *resultRenderer) finish() error      { return r.err }
func (r *resultRenderer) end(res Result) {
	if err := WriteResult(r.out, res); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *resultRenderer) goalSummary(*event.Goal) {}

// tallied is a renderer whose events are also counted for the result.
type tallied struct {
	renderer
	t *tally
}

func (x tallied) render(ev event.Event) {
	x.t.add(ev)
	x.renderer.render(ev)
}
