package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
)

// agentRuntime is the main agent's runtime subsystems (issue 18):
// background tasks and cron (the reminders are built with plan and goal
// mode in agentOptions). The agent binds, restores and closes them;
// the session keeps them to settle print runs (settle.go).
type agentRuntime struct {
	background *background.Manager
	cron       *cron.Manager
	// bashTimeout is Bash's default background timeout (0: the tool's
	// default, negative: none); noAutoBackground kills a foreground
	// command at its timeout instead of moving it to the background.
	bashTimeout      time.Duration
	noAutoBackground bool
}

// newRuntime builds the main agent's runtime from the configuration:
// [background] (spec 06 §2.3) and the KIMI_CRON_* switches (spec 05
// §7.6). Task and job files live under the agent's home.
func newRuntime(cfg *config.Config, fs osenv.FS, env osenv.Env, home string, s *Session) *agentRuntime {
	b := cfg.Background
	r := &agentRuntime{background: newBackground(cfg, fs, home, s)}
	switch t := b.BashTaskTimeoutS; {
	case t == nil:
	case *t == 0:
		r.bashTimeout = -1
	default:
		r.bashTimeout = time.Duration(*t) * time.Second
	}
	r.noAutoBackground = b.BashAutoBackgroundOnTimeout != nil && !*b.BashAutoBackgroundOnTimeout
	cs := cfg.Env.Cron
	co := cron.Options{Dir: home, FS: fs, Disabled: cfg.Env.DisableCron, ManualTick: cs.ManualTick,
		NoJitter: cs.NoJitter, NoStale: cs.NoStale, Logger: s.logger.With("component", "cron")}
	if cs.ClockFile != "" {
		co.Now = fileClock(env, cs.ClockFile, s)
	}
	r.cron = cron.New(co)
	return r
}

// newBackground is the background task manager of the agent whose home
// is home, with [background]'s cap and grace.
func newBackground(cfg *config.Config, fs osenv.FS, home string, s *Session) *background.Manager {
	b := cfg.Background
	bo := background.Options{Dir: home, FS: fs, Logger: s.logger.With("component", "background")}
	if b.MaxRunningTasks != nil {
		bo.MaxRunning = *b.MaxRunningTasks
	}
	if b.KillGracePeriodMs != nil && *b.KillGracePeriodMs > 0 {
		bo.KillGrace = time.Duration(*b.KillGracePeriodMs) * time.Millisecond
	}
	return background.New(bo)
}

// fileClock is KIMI_CRON_CLOCK=file:<path>: the wall clock read from the
// first line of the file, an RFC 3339 time or Unix milliseconds. A file
// that does not read or parse falls back to the real clock, logged once
// per failure.
func fileClock(fs osenv.FS, path string, s *Session) func() time.Time {
	return func() time.Time {
		t, err := readClock(fs, path)
		if err != nil {
			s.logger.Warn("KIMI_CRON_CLOCK unreadable; using the real clock", "err", err)
			return time.Now()
		}
		return t
	}
}

func readClock(fs osenv.FS, path string) (time.Time, error) {
	data, err := fs.ReadFile(path)
	if err != nil {
		return time.Time{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	line = strings.TrimSpace(line)
	if t, err := time.Parse(time.RFC3339Nano, line); err == nil {
		return t, nil
	}
	var ms int64
	if _, err := fmt.Sscanf(line, "%d", &ms); err == nil && fmt.Sprint(ms) == line {
		return time.UnixMilli(ms), nil
	}
	return time.Time{}, fmt.Errorf("%s: first line %q is neither an RFC 3339 time nor Unix milliseconds", path, line)
}
