// Package agent is the host of one conversation: the Agent owns its
// mutable state and drives the stateless loop over it through the turn
// layer (agent/turn). It needs no session: New plus Prompt is a working
// agent (example_test.go).
//
// It owns:
//   - the one commit path (commit.go): a subsystem builds a record
//     payload; the commit path appends it to the record log and applies it
//     under the state lock; apply hands each record to its owner and
//     returns what should be published, which goes out after the lock is
//     released. The subsystems reach the commit path only through the
//     small interfaces they declare (turn.Committer, compaction.Committer,
//     permission.Recorder, tools.StoreCommitter); it is not exported.
//   - user shell commands (shell.go): RunShellCommand runs a !cmd
//     through the agent's Bash between turns and records its bash-input
//     and bash-output messages (spec 05 §2.7; session shell_test.go);
//   - the table of record owners (owners.go): every record type of spec
//     02 §6.3 has exactly one owner that applies it (history, the tool
//     store and manager, usage, configuration, the turn counter, the
//     permission manager, the request recorder), or is pending: its owner
//     (user tools, micro compaction, another engine's
//     profile binding) does not exist yet, so the record stays in the log
//     untouched and Resume reports each such type once
//     (ResumeResult.Unrestored). Unknown types are ignored, as spec 02
//     §6.1 says; a log of a newer protocol is refused before it is read
//     (session).
//   - the model as recorded state (model.go): a ModelBinding is a
//     provider with its capability and window, completion budget, loop
//     control and compaction strategy, swapped whole; SetModel resolves an
//     alias through Options.Models, refuses an unknown alias or a window
//     smaller than the conversation (changing nothing) and records the
//     switch as config.update; Resume binds the alias the records left (or
//     ResumeOptions.Model, recorded), so a resumed agent runs the model,
//     budget and window it had.
//   - the host of the permission manager (permission.go): with
//     Options.Permission the agent builds a permission.Manager whose
//     Recorder is the commit path, so permission.set_mode and
//     permission.record_approval_result are applied by the same code live
//     and on resume; the manager is the turn's gate; SetPermissionMode
//     switches the mode and the status event carries it. Approval requests
//     go to the Approver in those options, and the agent's hook runner
//     serves the chain's hook events. Without an Approver the manager
//     denies an ask at once with a message saying what would allow the
//     call (the safe default). Without Options.Permission the agent keeps
//     Gate (nil: every call approved), which suits library use; a session
//     always sets it.
//   - Resume and the post-replay phase (resume.go): replay calls only
//     apply; afterwards calls left open are closed once, as ordinary
//     records. BuildReplay previews the UI stream over a read-only copy.
//     Resume builds the UI replay stream only when ResumeOptions.Cards
//     asks (limited by CardTurns) and keeps no card afterwards. Without
//     cards it replays with records.ReplayOptions.Supersede: the tool
//     outputs before the last context.apply_compaction that carries
//     keptUserMessageCount arrive empty and their blobs are never read
//     (dropsToolResults says why no state after that record can depend on
//     them). Every record is still applied in order, so everything else
//     derived from history records (the turn counter, message sequence
//     numbers, deferred messages, the user messages a compaction keeps)
//     is rebuilt exactly; only a tool output before that compaction that
//     would not decode is no longer even read. A record apply refuses (it
//     does not decode, names a step that never began, or would put into
//     history what no request can carry) is set aside with records.Refuse,
//     like a corrupt line, instead of failing the resume; CheckLog runs
//     the same replay writing nothing, for `kimigo doctor`.
//   - the configuration state and config.update (config.go); the usage
//     recorder and usage.record (usage.go); the status event and the
//     publisher (events.go): every event the agent and its turn produce
//     gets the agent's id (Options.ID, "main" by default) and goes on the
//     event bus of Options.Events, which never waits for a subscriber;
//     OnEvent, for tests and traces, sees each one synchronously and its
//     panic is contained;
//   - the model request choke point (generate.go): llm.request and
//     llm.tools_snapshot observability records; every record is written
//     before the request is sent, and durable before any of its response
//     is handed on (the fsync runs while the request is out); a tool
//     table's hash is the SHA-256 of its plain JSON, written to the hash
//     without the table being encoded in memory
//     (TestHashSummariesIsTheHashOfTheEncoding);
//   - the host of full compaction (compaction.go): unless
//     Options.Compactor replaces it, the agent builds a
//     compaction.FullCompaction configured by Options.Compaction and hands
//     it to TurnFlow as its compactor; compactionHost adapts the agent to
//     the collaborator interfaces of agent/compaction (history under the
//     state lock, the commit path with CommitCompaction, TurnFlow, usage
//     with session scope, its events on the agent's bus, the PreCompact and
//     PostCompact hooks), and the model, tool table, request choke point,
//     todo list and system prompt refresh (a changed prompt is a
//     config.update) are the agent's own. Compact and CancelCompaction are
//     the manual entry points (the TUI's /compact, print mode); Close
//     stops a running compaction. full_compaction.begin/cancel/complete
//     restore nothing; context.apply_compaction is applied by history,
//     live and on resume.
//   - the host of the runtime subsystems (runtime.go): Options.Injection
//     (the turn's injector; history's clear, compaction and undo reach
//     it; it re-adds reminders after a compaction), Options.Background
//     (notifications are steered in; history tells it which were
//     delivered; Resume reconciles lost tasks and appends undelivered
//     notifications; the Notification hook fires) and Options.Cron (it
//     fires only while no turn runs; Resume loads the jobs). Their events
//     go out as event.TaskStarted, TaskTerminated and CronFired; Close
//     stops them.
//   - the adapters to kimigo's extensions: HookRunner puts a hooks.Engine
//     behind turn.HookRunner (hookrunner.go); the tool manager's
//     ContextAppender appends select_tools' schema messages and the Skill
//     tool's instructions through the commit path, and progressive
//     disclosure keeps schema messages and announcements in the projection,
//     narrowed to tools still registered (context.go).
//   - the host of plan and goal mode (modes.go): Options.Plan and
//     Options.Goals are bound to the commit path, so plan_mode.* and
//     goal.* are applied by the same code live and on resume (goal cards
//     join the replay stream with the goal's snapshot); their policies
//     fill the permission chain's slots; the goal store is the turn's goal
//     driver; the post-replay phase pauses a restored active goal first;
//     a forked record drops a copied goal and derives the fork reminder.
//     StartGoal, PauseGoal, ResumeGoal, CancelGoal and QueueGoal (/goal
//     next: the store's queue, whose head the driver starts when a goal
//     completes) are the user's goal controls (spec 04 §6.11); goal events go out as event.GoalUpdated
//     and the status carries plan mode.
//   - the host of swarm mode (swarm_mode.go): Options.Swarm is bound to
//     the commit path; swarm_mode.exit takes the enter reminder back
//     inside its apply, so a replay does the same; its policies fill the
//     chain's swarm slots; a task's or a tool's swarm mode ends after each
//     turn (turn.Options.AfterTurn), before the turn's records are
//     flushed; the status carries swarm mode (swarm_mode_test.go S59,
//     S88, S89 and resume).
//   - the wiring of TurnFlow's collaborators (agent.go, tools.go):
//     history views, the tool table, the result budget, and the per-request
//     model snapshot; NextRequest and State for inspection (request.go);
//     Undo and Clear (control.go); what a side conversation copies and
//     how it starts (seed.go: ToolTable, ProjectedHistory, Seed; the
//     session builds the child, seed_test.go).
//
// It does not own: the loop, the turn lifecycle, steering, dedup or the
// result budget (agent/turn); the conversation's facts and projection
// (agent/history); storage, blobs and migrations (agent/records); the
// replay cards (agent/replay); the policy chain, rules and approval flow
// (agent/permission); when and how to compact (agent/compaction); the
// plan, goal and swarm state machines and their policies (agent/plan,
// agent/goal, agent/swarm); injections, background tasks and hooks, which plug in
// through the small interfaces of agent/turn.
//
// Durability (ERRATA 6): records are written (in the file: a killed
// process leaves them) when a prompt is accepted and before every model
// request, whose response waits for their fsync, which runs meanwhile;
// they are flushed (durable) before a tool runs and at turn end. A turn is
// not reported complete until its flush succeeded, and a failed write or
// flush fails what needed it with records.write_failed naming the file
// and the errno. The next flush retries.
//
// Invariants, and the tests that guard them:
//   - State changes only through the commit path; apply never appends and
//     never publishes; every known record type, permission's included, is
//     applied and unknown ones are ignored (apply_test.go); every type of
//     the catalogue is owned or pending, never both, and pending records
//     are kept and reported once per type (owners_test.go).
//   - The model is state: SetModel switches provider, budget, window and
//     compaction together, a resume binds the recorded model, and bad input
//     changes nothing (model_test.go).
//   - The permission mode and session approvals are records: a resumed
//     agent has the same mode, rules and session approvals, and asks,
//     hooks and rule writes never happen during a resume; a call that needs
//     approval is never approved without an answer and never waits for an
//     Approver that does not exist (permission_test.go, turnflow_test.go
//     S2–S3, cancel_test.go S7, resume_test.go S51).
//   - Resume rebuilds the same state and the byte-identical next request,
//     with no model call, no tool, no OS side effect, no event and no
//     record written during replay: every agenttest scenario ends with
//     ExpectResumeMatches (turnflow_test.go S1–S16, resume_test.go
//     S51–S60, adapter_test.go, usage_test.go, durability_test.go, and
//     TestResumeFromFileLog on a real file).
//   - The replay stream matches history (resume_test.go S53, S59;
//     replay_test.go S61–S64).
//   - Plan and goal mode survive a resume exactly; an active goal comes
//     back paused, with one record, and never continues by itself; the
//     goal driver, budgets and failure mapping follow spec 04 §6
//     (modes_test.go, modes_goal_test.go: S60, S62, S66–S87, spec 03 S17,
//     S18, spec 02 S51, S60; kill_test.go TestGoalSurvivesKill9 kills a
//     real process mid-goal and resumes it with every charge kept).
//   - A resume without cards reaches exactly the state of the full one:
//     ExpectResumeMatches checks both against the live agent in every
//     scenario, and resume_supersede_test.go checks them against each
//     other across record mixes (TestResumeWithoutCardsAgrees,
//     FuzzResumeWithoutCardsAgrees) and shows the elision happens
//     (TestResumeWithoutCardsSkipsSupersededToolOutputs).
//   - A flush failure fails the prompt or the turn and nothing is sent to
//     the model undurably (durability_test.go).
//   - One bad record never bricks a session: a resume sets aside the
//     records that cannot be restored, reports them, and the next request
//     passes the strict fakes on both wires (resume_refuse_test.go, with
//     hand-made logs); a log bricked by the summary shape of ERRATA 28
//     resumes and completes (compaction_bricked_test.go).
//   - Every event the agent publishes carries its id and a rising
//     sequence number, and an observer that panics never reaches the turn
//     (agent_test.go TestEveryEventCarriesTheAgentID,
//     TestEventObserverPanicIsContained).
//   - Compaction is a record: resume rebuilds a compacted history without
//     calling the model, a round that died (begin without complete)
//     leaves the previous history intact and usable, and a cancelled,
//     failed or closed compaction leaves history byte-identical
//     (compaction_manual_test.go: TestCompactManualWithInstructionAndResume,
//     TestCompactCrashDuringRoundKeepsHistory,
//     TestCompactCancelLeavesHistoryByteIdentical,
//     TestCompactContextCancelStopsTheRound, TestCloseStopsARunningCompaction;
//     TestCompactDefersInput and
//     TestCompactDeferredPromptBlockedByHookKeepsTheTurnCount for input
//     that waits for a compaction).
//   - The turn-level compaction scenarios of spec 03 §8, by id, over the
//     strict fake server (compaction_test.go): S38, S39, S50 (the overflow
//     test: a real context-length 400, compact, retry, finish), S51, S52,
//     S56, S58, S59 (cancel while blocked leaves history byte-identical),
//     S61. Bad summaries and failing summarisers end in their ladder step
//     with a clear event and never lose history, and a summary larger than
//     history never loops (compaction_badinput_test.go). The long session
//     (longsession_test.go, TestCompactionLongSession): 300 tool round
//     trips through a 32,000-token window that the server enforces, no
//     request over it, the last prompt and open todo list kept, resume
//     matching, and the estimate's error against reported usage logged
//     and held under 10 %.
package agent
