// Package session hosts a session's agents for the front ends (print
// mode, the TUI, the ACP server), and keeps the session store (spec 02
// §6.15, spec 06 §1.4 and §4).
//
// How a front end drives a session:
//
//	s, err := session.Open(ctx, session.Options{Config: cfg, Home: root, WorkDir: W,
//		Resume: id /* or Continue: true, or neither for a new one */, Model: m,
//		Requests: session.Answered /* the front end answers approvals */})
//	defer s.Close(ctx)
//	sub := s.Subscribe() // the event stream (package event), read on its own goroutine
//	s.Prompt(ctx, input) // then render sub's events; the turn ends with event.TurnEnded
//	// approval.requested → s.AnswerApproval(id, event.ApprovalAnswer{Choice: event.ApproveOnce})
//	// question.requested → s.AnswerQuestion(id, answers)
//	// and at any time: s.Steer, s.Cancel, s.Compact, s.SetMode, s.SetModel, s.Status
//	// between turns: s.RunShell (!cmd); after a headless turn: s.Settle
//	// for a resumed session's transcript: s.History
//
// There is one way to do each; the agents themselves are not handed out.
//
// A side question (/btw, spec 05 §5.12; btw.go), also while a turn runs:
//
//	id, err := s.StartBtw(ctx)        // an in-memory child "btw-<n>" of the main agent
//	s.AskBtw(ctx, id, question)       // its events arrive on sub with AgentID id
//	answer, err := s.WaitBtw(ctx, id) // or render the deltas; AskBtw again for a follow-up
//	s.CancelBtw(ctx, id); s.CloseBtw(ctx, id) // stop the answer; dismiss (Close closes the rest)
//
// The child copies the main agent's model, exact system prompt and tool
// table, starts from its projected history (an exchange still waiting for
// its results left out) and a reminder, and has every tool call refused
// (deny-all first in its chain). It writes nothing: no records, no agent
// home, no state.json change, nothing in the main history. Print mode has
// no side questions; the ACP server does not offer them (yet).
//
// Plan mode and goal mode of the main agent (modes.go; spec 04 §5–6):
//
//	// --plan, default_plan_mode: Options.Plan, the configuration (new sessions only)
//	s.PlanMode(), s.PlanState() // on?, and the plan id and file
//	s.Plan()                    // the plan's text (nil while off)
//	s.SetPlanMode(ctx, on)      // /plan on|off, Shift-Tab; on writes no file
//	s.ClearPlan()               // /plan clear
//	cmd, ok, err := session.ParseGoalCommand(text) // the /goal grammar, shared with print mode
//	s.StartGoal(ctx, objective, replace) // /goal <objective>, /goal replace <objective>
//	s.Goal()                             // /goal status: the goal now, nil when none
//	s.PauseGoal(ctx); s.ResumeGoal(ctx); s.CancelGoal(ctx) // /goal pause|resume|cancel
//	s.SetGoalBudget(ctx, cmd.Budget)     // /goal budget 20 turns
//
// Changes reach the stream as events: event.Status.PlanMode on every
// plan-mode change (and in s.Status()), event.GoalUpdated with the goal's
// snapshot (nil once it completed or was cancelled) and, for a status
// change or a completion, what changed; the goal driver's turns are
// ordinary turn.started/turn.ended pairs. The plan review is an approval
// request whose display is the plan (ExitPlanMode), marked OnceOnly like
// the goal-start request: answered like any other, except that no answer
// is remembered (a session or always choice approves that plan only), and
// no rule skips it. A --plan session nobody answers leaves plan mode
// unreviewed, its plan being its answer. QueueGoal is /goal next: a queue of goals
// (recorded, restored on resume) whose head starts when a goal completes. StartGoal
// and ResumeGoal refuse while a turn runs; goal errors carry the goal's
// codes (ErrNoGoal for goal.not_found).
//
// It owns:
//   - building agents (Open in session.go; build.go, model.go,
//     profile.go): Open reads nothing but what it is given (the loaded
//     configuration, the flags as Options) and resolves the model, the
//     profile and agent files with the system prompt, the tools and their
//     workspace (.kimi-code/local.toml, --add-dir), the permission rules,
//     before anything is written; then it creates or locks the session,
//     builds the main agent and, resuming, restores it with the model it
//     had (or the one Options.Model switches to, recorded). The agent binds
//     models through the session's resolver (model.go): provider, window,
//     completion budget, loop control and compaction strategy of one
//     configured alias at a time; a saved alias that is no longer
//     configured falls back to default_model with a notice.
//   - the main agent's runtime (runtime.go): the reminders
//     (agent/injection), the background task manager over the agent's
//     home with [background]'s cap, grace and Bash timeouts (a foreground
//     Bash past its timeout moves to the background unless
//     bash_auto_background_on_timeout is false), and cron with the
//     KIMI_CRON_* switches; and Settle (settle.go), what a headless run
//     does after a completed turn (spec 06 §1.6.5: exit, drain, steer,
//     cron fires ahead);
//   - the session's MCP connections (mcp.go): the four layers of spec 06
//     §7.1 loaded before anything is written (a broken file is a warning
//     naming it), workspace servers only in a trusted workspace
//     (trust.go's Trusted: the project root is in the trust store),
//     servers started in parallel when the session opens,
//     the main agent's tools following them, an mcp.server.updated event
//     for each status change, the first prompt waiting for them (each
//     bounded by its startup timeout), and shutdown at Close;
//   - the user's lifecycle hooks (hooks.go): an engine from [[hooks]]
//     handed to the main agent (agent.HookRunner), SessionStart after the
//     agent is built or restored, SessionEnd at Close after the agent
//     closed and before MCP shuts down;
//   - skills (skills.go): the registry from the skill roots (or
//     --skills-dir) and extra_skill_dirs behind the built-in skills, its
//     listing in a new session's system prompt, the Skill tool, and a
//     prompt /skill:<name> [args] sent as that skill's activation;
//   - the front-end facade (session.go): Prompt, Steer, Cancel, Compact,
//     SetMode, SetModel, AnswerApproval, AnswerQuestion, Subscribe, Status,
//     Close; side questions (btw.go: StartBtw, AskBtw, WaitBtw,
//     CancelBtw, CloseBtw; ids btw-<n>, which cannot collide with the
//     agent-<n> of children kept on disk); the plan and goal controls
//     (modes.go), with building plan
//     mode (plan files in the main agent's home) and goal mode, their
//     tools and reminders, for the main agent; History (history.go), the
//     main agent's conversation for a front end's replay;
//   - the MCP servers a front end hands over (mcp.go, Options.MCPServers:
//     the ACP client's): started at Open without blocking it, followed by
//     the main agent's tool manager, WaitMCP, MCPServers, closed at Close
//     (loading the MCP files is not here yet); and Options.TextFiles, the
//     file seam of Read, Write and Edit alone (the ACP editor bridge);
//   - the request broker (requests.go) turns the permission chain's
//     approval requests and AskUserQuestion into events and hands the
//     answers back; with Requests Declined (the zero value) nobody is
//     asked: approvals are denied, questions dismissed.
//   - the command sandbox (sandbox.go, issue 16): Options.Sandbox names
//     the policy; the session's sandbox.Sandbox is made at Open without
//     any work and ended by Close; the Bash tool (foreground and
//     background) gets the Starter of the current workspace dirs on its
//     first command, which is when the system is probed. A policy this
//     system cannot enforce is said once (an event.Notice) and makes every
//     Bash call ask — denied without a front end — never run unconfined.
//     The system prompt states the policy. Options.RunRules are this
//     run's rules (--allowedTools), refused before anything is written
//     when malformed.
//   - the on-disk layout under the data root (store.go, ERRATA 7):
//     <root>/session_index.jsonl and
//     <root>/sessions/<workDirKey>/<id>/ with state.json, .lock,
//     agents/<agentId>/ (each agent home holds the records' wire.jsonl,
//     blobs/, .lock, tool-results/, tasks/, cron/, plans/ of their
//     owners) and logs/kimigo.log;
//   - work-dir keys and id validation (workdir.go);
//   - the append-only index (index.go): folding its lines, appends with
//     one O_APPEND write, corrupt lines skipped and copied to
//     session_index.jsonl.quarantine, Reindex (reindex.go), which rebuilds
//     missing or stale lines from the session directories (state.json,
//     else the cwd in the main agent's records), and RepairIndex
//     (index_repair.go), kimigo doctor's repair, the one rewrite of the
//     index: corrupt lines out (their bytes kept in the side file), then
//     Reindex; and CheckLogs (check.go), doctor's read-only check of every
//     agent's records;
//   - state.json (state.go): whole-file atomic writes, unknown fields kept;
//     the title, lastPrompt and turns count of a prompt, sanitized
//     (title.go), so a listing shows a session's size without its records;
//   - lookups and listings (summary.go): Get, Find (the work dir's bucket
//     first, then the index), List and Latest in spec 06 §4.2 order;
//   - the session lock <session>/.lock (lock.go), held while a Session is
//     open;
//   - the debug export ZIP (export.go) and what-to-do hints for storage
//     failures found by errno and path (storage_hint.go);
//   - what the user must hear about an open: Notify while it opens (load
//     warnings, the offline-model notice, the -c notice), Warnings (corrupt
//     record lines quarantined while resuming) and WriteError (the last
//     failed records write, file and errno). The UI replay stream is built
//     only when Options.Cards asks (the last CardTurns user turns) and is
//     handed over once by TakeReplayCards.
//   - subagents (subagent.go, child.go; spec 05 §5): every agent has a subagent
//     host (the main agent's and each child's), the Agent tool's launcher
//     (tools.SubagentLauncher) and the batch scheduler's API: Spawn,
//     Resume and Retry return a SubagentHandle whose completion carries
//     the handoff or the error (a *RateLimitError when the provider's
//     rate limit ended it); SpawnOptions.OnReady fires at the child's
//     first model answer. A child is agent-<n>, lives in agents/agent-<n>/
//     with its own records, background tasks and plan mode, and has an
//     entry {homedir, type: sub, parentAgentId, swarmItem} in state.json.
//     It inherits the parent's model alias, thinking effort, work dir,
//     additional dirs and (through a permission manager whose parent is
//     the parent's) mode, rules and session approvals; it shares the
//     session's bus (its events carry its id), request broker (its
//     approvals and questions are tagged with its id), MCP servers,
//     skills and hooks; it has no cron and no goal tools. The parent's
//     bus gets subagent.spawned / started / completed / failed. A short
//     handoff (under 200 characters) is asked for once more; the child's
//     background tasks are drained, unheard, before the handoff. A
//     cancel of the parent's turn reaches foreground children through
//     the Agent call's context (and on to theirs); background children
//     run on in the parent's background manager until stopped, timed
//     out or the session closes. A child whose run ended and that has
//     nothing running is closed on its own goroutine (its records stay;
//     a resume opens it again from them); the rest close with the
//     session.
//   - AgentSwarm on the host (swarm.go; spec 05 §5.7): swarmRunner
//     refuses a malformed KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY, a
//     profile the agent may not delegate to and a resume id that is not
//     one of its children before anything starts, then runs the tasks
//     through session/batch with the subagent timeout per attempt;
//     swarmLauncher spawns, resumes and retries children (quiet about
//     rate-limit failures, which the scheduler retries) and publishes
//     subagent.suspended on the parent. Swarm mode of the main agent
//     (modes.go): SwarmMode, SetSwarmMode (/swarm on|off), StartSwarmTask
//     (/swarm <task>), event.Status.SwarmMode. BenchmarkSwarm100
//     (swarm_bench_test.go) times a swarm of 100 and its launches.
//
// It does not own: reading configuration files (the front end loads the
// configuration at the edge and passes it), the records format and the
// agent's state (agent, agent/records), the event vocabulary (event), log
// handlers (the front end points its handler at Options.LogTo's path),
// printing messages (front ends print the errors' texts, Error.Hint and
// the notices). Fork (spec 02 §6.15, /fork, Tier 2) is not here yet.
//
// Invariants, and the tests that guard them:
//   - The index is only appended to, one line per write; a torn last line
//     costs only itself (index_test.go S67, TestIndexAppendAfterTornLine).
//   - state.json is replaced whole or not at all, and an invalid one is an
//     error naming it and is never rewritten (store_test.go
//     TestStateBadInputAndUnknownFields, session_test.go
//     TestResumeRefusesInvalidState); unknown fields survive updates.
//   - Keys, ids and listing order follow the spec (workdir_test.go S66,
//     store_test.go TestListOrderAndLatest, session_test.go S33).
//   - Listing reads the index and state.json files, never a record log:
//     a log's modification time is all it takes from it, so listing stays
//     fast however large the sessions (listing_test.go
//     TestListingNeverReadsLogs).
//   - A new session costs no fsync before its first request: its
//     directories, state.json and index line are written at Open and
//     made durable by the main agent's first records commit, which runs
//     while the first request is out; the turn is acknowledged only after
//     it, and a kill -9 at any moment leaves a session that resumes
//     (durability_test.go TestFirstRequestLeavesWhileTheFirstCommitSyncs;
//     through the binary cmd/kimigo crash_test.go
//     TestCrashKillBetweenTheFirstRequestAndItsCommit).
//   - The live heap grows with the conversation, not per step
//     (step_bench_test.go TestLiveHeapIsProportionalToTheConversation;
//     BenchmarkSessionReadStep and BenchmarkSessionBashStep measure a
//     step's time and allocations on the real path).
//   - A session is open in at most one place; a refused open writes
//     nothing (lock_test.go S69, TestSessionOpensOnceInProcess), and a
//     session from another work dir is refused with the cd hint and no
//     write (session_test.go S10).
//   - A resumed or continued session sends exactly the request the
//     previous run would have sent next, also after an interrupted run
//     (session_test.go TestResumeAndContinueKeepTheConversation,
//     TestCloseMidTurnResumes), with or without the replay stream; the
//     cards are handed over once and only when asked for (same test).
//   - A resumed session runs the model it had, with that model's budget
//     and window; SetModel switches all of it, is recorded, and refuses an
//     unknown alias changing nothing (model_test.go
//     TestSetModelThroughTheSession; cmd/kimigo's
//     TestResumeKeepsTheSavedModelAndItsBudget through the binary).
//   - Approvals and questions reach an answering front end as events, and
//     only an answer runs the call; a cancelled turn withdraws its request;
//     without a front end every approval is denied (requests_test.go).
//   - AgentSwarm runs real children with rate limits, failures,
//     timeouts and a user cancel, and refuses bad input with nothing
//     spawned (swarm_test.go; S63; cmd/kimigo's TestE2ESwarmOf20…,
//     TestE2ESwarmKilledThenContinued through the binary); swarm mode's
//     controls end and restore as spec 04 §7 says (swarm_mode_test.go).
//   - Every event of a session names its agent and the stream ends with
//     Close (TestEveryEventOfASessionNamesTheMainAgent); a run's own
//     permission mode is undone at Close (model_test.go TestModeForThisRun).
//   - A failed records write (disk full, quota, I/O error) fails the
//     prompt or turn at once, WriteError names the file and the errno,
//     and the next prompt goes through once the disk recovers
//     (robust_test.go TestSessionSurvivesWriteFailures, with
//     osenvtest.FaultFS).
//   - A corrupt line in the middle of the records does not stop a resume:
//     it is quarantined, reported, and the call it left unanswered is
//     closed so the next request is valid (TestResumeQuarantinesACorruptLine).
//   - A log of a newer kimigo is refused with CodeLogTooNew and nothing in
//     the data root changes (TestResumeRefusesALogFromANewerKimigo).
//   - Corrupt index lines cost only themselves and are kept in the side
//     file once; RepairIndex takes them out and rebuilds lost entries,
//     also from the records when state.json is gone (TestRepairIndex).
//   - Subagents (subagent_test.go, spec 05 §12 S46–S55): a foreground
//     child hands back its last non-blank text as "[summary]" under its
//     agent id and profile, is asked once more when that is short, and
//     fails on max_tokens without a re-ask; a profile outside the
//     delegatable set, a resume of an unknown, foreign or running child
//     and a resume with subagent_type are refused naming the value and
//     create nothing; a background child answers with its task id at once
//     and notifies; a parent's cancel reaches foreground children and
//     grandchildren as the user's, never background ones; the timeout
//     ends a child with the resume hint (synctest); explore starts with
//     the <git-context> block; a child's denials carry the subagent
//     wording, the parent's session approvals hold for it and its own
//     requests reach the front end tagged with its id; a resumed session
//     resumes each child by agent id with its own history
//     (TestResumeWithFinishedRunningAndInterruptedChildren; through the
//     binary cmd/kimigo subagent_test.go, with kill -9 then -c).
//   - A background task that ends after a print turn steers a turn the
//     run renders (steer), is waited for unheard (drain), or is stopped
//     with the session (exit) (runtime_test.go TestPrintSettle*; through
//     the binary cmd/kimigo runtime_test.go, with the foreground timeout
//     and kill -9 then -c).
//   - MCP servers of an untrusted workspace never start; a server that
//     fails is a status, never a failed open (mcp_test.go
//     TestSessionLoadsMCPLayers; through the binary against the npm
//     servers, cmd/kimigo extensions_test.go).
//   - A prompt that cannot fit the model's window with the conversation is
//     refused with CodePromptTooLarge and the amount, and nothing is sent
//     (cmd/kimigo TestS15PromptLargerThanTheWindow).
//   - Plan mode starts with --plan for any session and with
//     default_plan_mode for new ones only; a resume restores it with the
//     same plan id and file, and the goal paused (modes_test.go
//     TestSessionStartsInPlanMode, robust_test.go
//     TestResumeWarnsAboutRecordsItCannotRestoreYet). The controls do
//     what /plan and /goal say, and a goal started or resumed right after
//     a cancelled goal turn is not paused by that turn's late bookkeeping
//     (TestSessionGoalControls, TestSessionPlanControls,
//     TestSessionStartGoalRunsItToCompletion).
//   - A side question sends the main agent's system prompt, projected
//     history (without an open exchange) and tools byte for byte, every
//     tool call it makes is refused, the main turn runs on undisturbed and
//     nothing of it is written or reaches the main history (btw_test.go
//     TestScenario57SideChannel); follow-ups, busy, cancel and close
//     (TestBtwFollowUpsCancelAndClose).
//   - Titles and lastPrompt carry no secrets (title_test.go, session_test.go
//     S34); the export holds the manifest, the session's files and the
//     global log in spec order and changes nothing (export_test.go S35).
package session
