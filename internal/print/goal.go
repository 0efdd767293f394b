package print

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kimigo/kimigo/event"
)

// Exit codes of a headless goal run that did not complete (spec 06 §1.7);
// a completed goal exits 0.
const (
	ExitGoalBlocked = 3
	ExitGoalPaused  = 6
)

// Goal is the goal a print run starts: `kimigo -p "/goal <objective>"`,
// with Replace for `/goal replace <objective>` (spec 06 §1.6.6).
type Goal struct {
	Objective string
	Replace   bool
}

// GoalHost is what a goal run needs of the session besides Host;
// *session.Session is one.
type GoalHost interface {
	Host
	// StartGoal starts the goal as the user and runs its objective as the
	// prompt.
	StartGoal(ctx context.Context, objective string, replace bool) error
	// Goal is the goal now, nil when there is none.
	Goal() *event.Goal
	// ResumeGoal resumes a paused goal and prompts the model to carry on.
	ResumeGoal(ctx context.Context) error
}

// GoalStopped is a goal run that ended with the goal blocked or paused:
// not a failure of kimigo, but not a success either. Code is the exit code.
type GoalStopped struct {
	Goal *event.Goal
	Code int
}

func (e *GoalStopped) Error() string {
	return "the goal ended " + e.Goal.Status
}

// rateLimitPause is the reason of a goal paused by a provider's rate
// limit (spec 04 §6.7).
const rateLimitPause = "Paused after provider rate limit"

// defaultMaxQuotaWait bounds the wait for a quota reset.
const defaultMaxQuotaWait = 24 * time.Hour

// runGoal starts the goal and renders the main agent's turns until the
// goal is no longer active: complete (nil error), blocked or paused
// (*GoalStopped). A goal paused by a rate limit whose reset time the
// provider gave waits for the reset and resumes by itself.
func runGoal(ctx context.Context, o Options, r renderer, log *slog.Logger) error {
	host, ok := o.Host.(GoalHost)
	if !ok {
		return fmt.Errorf("print run: the session cannot run goals")
	}
	sub := host.Subscribe()
	defer sub.Close()
	if err := host.StartGoal(ctx, o.Goal.Objective, o.Goal.Replace); err != nil {
		return failure(event.ErrorOf(err))
	}
	// The goal is followed through the stream, not read live: the agent
	// runs ahead of the events the run has rendered.
	var (
		turns   turnFilter
		cur     *event.Goal      // the goal as of the last event read; nil when there is none
		last    *event.Goal      // the last goal seen; a completion leaves its final snapshot here
		ended   *event.TurnEnded // the last goal turn, once it ended; nil while one runs
		running = true           // a goal turn runs or is about to
	)
	// stopped decides, once no goal turn runs and the goal is no longer
	// active, whether the run ends or the goal resumes after a quota reset.
	stopped := func() (done bool, err error) {
		if ended != nil {
			if wait, ok := quotaReset(*ended, cur); ok {
				if err := waitForQuota(ctx, o, wait, log); err != nil {
					return true, interrupted(ctx, o, turns, log, err)
				}
				if err := host.ResumeGoal(ctx); err != nil {
					return true, failure(event.ErrorOf(err))
				}
				running, ended = true, nil
				return false, nil
			}
		}
		return true, settleGoal(r, last, cur, o, log)
	}
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return interrupted(ctx, o, turns, log, err)
		}
		if g, ok := ev.(event.GoalUpdated); ok && g.AgentID == mainAgent {
			cur = g.Goal
			if cur != nil {
				last = cur
			}
			if !running && !goalActive(cur) {
				if done, err := stopped(); done {
					return err
				}
			}
			continue
		}
		if !turns.admit(ev) {
			continue
		}
		r.render(ev)
		switch e := ev.(type) {
		case event.TurnStarted:
			running, ended = true, nil
		case event.TurnEnded:
			running, ended = false, &e
			if goalActive(cur) {
				continue // the driver goes on, or is about to stop the goal
			}
			if done, err := stopped(); done {
				return err
			}
		}
	}
}

func goalActive(g *event.Goal) bool { return g != nil && g.Status == "active" }

// quotaReset reports how long to wait when the turn failed on a rate limit
// that paused the goal and said when it lifts.
func quotaReset(e event.TurnEnded, g *event.Goal) (time.Duration, bool) {
	if g == nil || g.Status != "paused" || g.TerminalReason != rateLimitPause || e.Error == nil ||
		e.Error.Code != event.CodeProviderRateLimit {
		return 0, false
	}
	var ms float64
	switch v := e.Error.Details["retryAfterMs"].(type) {
	case int64:
		ms = float64(v)
	case float64:
		ms = v
	case int:
		ms = float64(v)
	}
	if ms <= 0 {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// waitForQuota waits d (at most the run's bound) before the goal resumes.
func waitForQuota(ctx context.Context, o Options, d time.Duration, log *slog.Logger) error {
	limit := o.MaxQuotaWait
	if limit <= 0 {
		limit = defaultMaxQuotaWait
	}
	d = min(d, limit)
	fmt.Fprintf(o.Stderr, "Rate limited by the provider; the goal resumes in %s.\n", d.Round(time.Second))
	log.Info("goal waits for the provider's quota", "wait_ms", d.Milliseconds())
	sleep := o.Sleep
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return sleep(ctx, d)
}

// settleGoal ends a goal run: the buffered output and the goal summary;
// the goal's status decides the outcome. final is the
// goal as last seen (a completed goal's final snapshot), now the goal at
// the end (nil once a completion cleared it).
func settleGoal(r renderer, final, now *event.Goal, o Options, log *slog.Logger) error {
	werr := r.finish()
	g := now
	if g == nil {
		g = final // completed and cleared: its final snapshot
	}
	log.Info("print goal ended", "status", goalStatus(g))
	r.goalSummary(g)
	if werr != nil {
		return fmt.Errorf("write output: %w", werr)
	}
	// The resume hint follows when the run ends (Run's end).
	switch goalStatus(g) {
	case "blocked":
		return &GoalStopped{Goal: g, Code: ExitGoalBlocked}
	case "paused", "active":
		return &GoalStopped{Goal: g, Code: ExitGoalPaused}
	}
	return nil
}

func goalStatus(g *event.Goal) string {
	if g == nil {
		return ""
	}
	return g.Status
}

// goalSummaryLine is the goal.summary line of stream-json (spec 06
// §1.6.3): every field null when there is no goal.
type goalSummaryLine struct {
	Type        string  `json:"type"`
	GoalID      *string `json:"goalId"`
	Status      *string `json:"status"`
	Reason      *string `json:"reason"`
	TurnsUsed   *int    `json:"turnsUsed"`
	TokensUsed  *int    `json:"tokensUsed"`
	WallClockMs *int64  `json:"wallClockMs"`
}

func summaryLine(g *event.Goal) goalSummaryLine {
	l := goalSummaryLine{Type: "goal.summary"}
	if g == nil {
		return l
	}
	id, status, turns, tokens, wall := g.GoalID, g.Status, g.TurnsUsed, g.TokensUsed, g.WallClockMs
	l.GoalID, l.Status, l.TurnsUsed, l.TokensUsed, l.WallClockMs = &id, &status, &turns, &tokens, &wall
	if g.TerminalReason != "" {
		reason := g.TerminalReason
		l.Reason = &reason
	}
	return l
}

// summaryText is the text-mode summary (stderr): "Goal [blocked]: <reason>
// (turns: 3, tokens: 1200)", or "Goal: no goal found.".
func summaryText(g *event.Goal) string {
	if g == nil {
		return "Goal: no goal found."
	}
	reason := ""
	if g.TerminalReason != "" {
		reason = ": " + g.TerminalReason
	}
	return fmt.Sprintf("Goal [%s]%s (turns: %d, tokens: %d)", g.Status, reason, g.TurnsUsed, g.TokensUsed)
}

// interrupted ends a run whose context ended (or whose stream broke).
func interrupted(ctx context.Context, o Options, turns turnFilter, log *slog.Logger, err error) error {
	if ctx.Err() == nil {
		return fmt.Errorf("read the session's events: %w", err)
	}
	log.Info("print run interrupted", "turn", turns.current, "cause", context.Cause(ctx))
	if cerr := o.Host.Cancel(context.WithoutCancel(ctx), context.Cause(ctx)); cerr != nil {
		log.Warn("cancel the interrupted turn", "err", cerr)
	}
	return ErrInterrupted
}
