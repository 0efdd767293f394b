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
// The settle rules of goals, cron and background tasks do not apply yet:
// none of them exists in a print session, so the run settles when its
// turn ends.
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
	sub := o.Host.Subscribe()
	defer sub.Close()

	if err := o.Host.Prompt(ctx, []llm.ContentPart{llm.TextPart(o.Prompt)}); err != nil {
		return failure(event.ErrorOf(err))
	}
	var turns turnFilter
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				log.Info("print run interrupted", "turn", turns.current, "cause", context.Cause(ctx))
				if cerr := o.Host.Cancel(context.WithoutCancel(ctx), context.Cause(ctx)); cerr != nil {
					log.Warn("cancel the interrupted turn", "err", cerr)
				}
				return ErrInterrupted
			}
			return fmt.Errorf("read the session's events: %w", err)
		}
		if !turns.admit(ev) {
			continue
		}
		t.add(ev)
		r.render(ev)
		if ended, ok := ev.(event.TurnEnded); ok {
			return settle(r, ended, log)
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
