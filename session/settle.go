package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/tools"
)

// Print background policies (spec 06 §1.6.5, config
// background.print_background_mode).
const (
	// PrintExit ends the run when its turn ends; running tasks are
	// stopped with the session.
	PrintExit = "exit"
	// PrintDrain waits for the running tasks without telling the model.
	PrintDrain = "drain"
	// PrintSteer waits for the running tasks; each one's completion
	// starts a main turn that the run renders.
	PrintSteer = "steer"
)

// Defaults of the print wait (spec 06 §1.6.5: the v1 values).
const (
	defaultPrintWaitCeiling = 315_360_000 * time.Second
	defaultPrintMaxTurns    = 100_000
)

// settleState is what Settle keeps between the completed turns of a run.
type settleState struct {
	completions int
	deadline    time.Time
}

// PrintBackgroundMode is the run's background policy: the configured
// print_background_mode, else drain when keep_alive_on_exit is true and
// steer otherwise (spec 06 §1.6.5 step 3).
func (s *Session) PrintBackgroundMode() string {
	b := s.cfg.Background
	switch {
	case b.PrintBackgroundMode != "":
		return b.PrintBackgroundMode
	case b.KeepAliveOnExit != nil && *b.KeepAliveOnExit:
		return PrintDrain
	}
	return PrintSteer
}

// Settle is what a headless run does after a main turn completed (spec
// 06 §1.6.5): it returns true when another main turn started (a
// background task's notification or a cron fire steered it), which the
// front end renders as it rendered the first and then calls Settle
// again; false when the run is over. While a cron job has a fire ahead,
// it waits for the fire. Then the policy decides: exit ends at once;
// drain keeps every running task's end from the model and waits for them
// all (tasks started meanwhile too) up to print_wait_ceiling_s; steer
// waits while a background task runs, up to the ceiling (counted from the
// first completed turn) and at most print_max_turns completed turns. It
// returns ctx's error when ctx ends first. waiting, when set, is told in
// one line what the run waits for, each time that changes (print mode
// writes it to stderr).
func (s *Session) Settle(ctx context.Context, waiting func(msg string)) (bool, error) {
	if waiting == nil {
		waiting = func(string) {}
	}
	sub := s.bus.Subscribe() // before looking, so no change is missed
	defer sub.Close()
	turn := s.agent.CurrentTurnID()
	started := func() bool { return s.agent.HasActiveTurn() || s.agent.CurrentTurnID() != turn }

	b := s.cfg.Background
	ceiling := defaultPrintWaitCeiling
	if b.PrintWaitCeilingS != nil && *b.PrintWaitCeilingS > 0 {
		ceiling = time.Duration(*b.PrintWaitCeilingS) * time.Second
	}
	maxTurns := defaultPrintMaxTurns
	if b.PrintMaxTurns != nil && *b.PrintMaxTurns > 0 {
		maxTurns = *b.PrintMaxTurns
	}
	s.settle.completions++
	if s.settle.completions == 1 {
		s.settle.deadline = time.Now().Add(ceiling)
	}
	ctx, cancel := context.WithDeadlineCause(ctx, s.settle.deadline, errWaitCeiling)
	defer cancel()

	mode := s.PrintBackgroundMode()
	said := ""
	say := func(msg string) {
		if msg != said {
			said = msg
			waiting(msg)
		}
	}
	for {
		if started() {
			return true, nil
		}
		if next, ok := s.nextCronFire(); ok {
			say(fmt.Sprintf("Waiting for the scheduled prompt due at %s.", next.Format(time.RFC3339)))
			if err := s.awaitChange(ctx, sub); err != nil {
				return false, s.settleErr(err)
			}
			continue
		}
		bg := s.rt.background
		switch mode {
		case PrintExit:
			return false, nil
		case PrintDrain:
			active := backgroundTasks(bg.List(true))
			if len(active) == 0 {
				return false, nil
			}
			for _, t := range active {
				bg.Suppress(t.TaskID)
			}
			say(waitingFor(active, "to finish"))
			return false, s.settleErr(bg.WaitForActive(ctx, isBackground))
		}
		if s.settle.completions > maxTurns {
			return false, nil
		}
		active := backgroundTasks(bg.List(true))
		if len(active) == 0 {
			// A task that just ended may still be delivering its
			// notification: once it is steered, a turn runs.
			if err := bg.WaitForActive(ctx, isBackground); err != nil {
				return false, s.settleErr(err)
			}
			return started(), nil
		}
		say(waitingFor(active, "whose results go to the model"))
		if err := s.awaitChange(ctx, sub); err != nil {
			return false, s.settleErr(err)
		}
	}
}

// errWaitCeiling ends a wait at print_wait_ceiling_s.
var errWaitCeiling = errors.New("print_wait_ceiling_s reached")

// settleErr is nil for the ceiling (the run ends normally) and the error
// otherwise.
func (s *Session) settleErr(err error) error {
	if errors.Is(err, errWaitCeiling) {
		s.logger.Info("print wait ceiling reached")
		return nil
	}
	return err
}

// awaitChange waits for the next event that may change what Settle waits
// for: a task or a turn that started or ended, a cron fire.
func (s *Session) awaitChange(ctx context.Context, sub *event.Subscription) error {
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if c := context.Cause(ctx); c != nil {
				return c
			}
			return err
		}
		switch ev.(type) {
		case event.TaskStarted, event.TaskTerminated, event.CronFired, event.TurnStarted, event.TurnEnded:
			return nil
		}
	}
}

// nextCronFire is the earliest future fire of the main agent's cron jobs.
func (s *Session) nextCronFire() (time.Time, bool) {
	var next time.Time
	for _, j := range s.rt.cron.List() {
		if !j.NextFire.IsZero() && (next.IsZero() || j.NextFire.Before(next)) {
			next = j.NextFire
		}
	}
	return next, !next.IsZero()
}

// isBackground keeps the tasks that run in the background (a foreground
// Bash belongs to its turn).
func isBackground(t tools.TaskInfo) bool { return t.Detached }

func backgroundTasks(ts []tools.TaskInfo) []tools.TaskInfo {
	var out []tools.TaskInfo
	for _, t := range ts {
		if isBackground(t) {
			out = append(out, t)
		}
	}
	return out
}

// waitingFor says which tasks a run waits for.
func waitingFor(ts []tools.TaskInfo, what string) string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		d := t.Description
		if d == "" {
			d = t.Command
		}
		names = append(names, fmt.Sprintf("%s (%s)", t.TaskID, d))
	}
	noun := "task"
	if len(ts) > 1 {
		noun = "tasks"
	}
	return fmt.Sprintf("Waiting for %d background %s %s: %s", len(ts), noun, what, strings.Join(names, ", "))
}
