// Package cron is a main agent's scheduled prompts (spec 05 §7): the
// five-field expression parser (Parse; errors name the field), the
// next-run search in local time (Expr.Next, bounded at five years), the
// deterministic per-job jitter, the Scheduler that decides which jobs are
// due, and the Manager that keeps the jobs (cron/<id>.json under the
// agent's home), ticks every second, and while the agent is idle steers
// each due job's prompt, wrapped in a <cron-fire> envelope with the
// cron_job origin, into a new turn. Subagents have no Manager and so no
// cron tools (tools.CronCreate, CronList and CronDelete reach a Manager
// through tools.CronScheduler).
//
// It does not own: the turn (Host.Idle and Host.Steer reach the agent),
// the environment switches (KIMI_DISABLE_CRON and friends are read by the
// configuration and arrive as Options), or the tools' wording.
//
// Invariants, and the tests that guard them:
//   - A malformed expression is an *Error naming the field; Parse never
//     panics (expr_test.go, FuzzParse, S65).
//   - Next is strictly after its input and never goes back across a
//     daylight-saving change (next_test.go).
//   - Jitter depends only on the job id (jitter_test.go, S68).
//   - Nothing fires while a turn runs; missed fires are delivered once,
//     counted in coalescedCount; a delivered fire is recorded so a resume
//     does not repeat it; a fire that could not be delivered stays due
//     (manager_test.go, S66, S70).
//   - A job file that does not read is reported and skipped
//     (TestHandEditedCronDirIsReported).
//   - A tick over 1,000 waiting jobs stays well under a millisecond
//     (BenchmarkTick1000Jobs, BenchmarkManagerTick1000Jobs).
package cron
