// Package session is the session store and the host of a session's main
// agent (spec 02 §6.15, spec 06 §1.4 and §4).
//
// It owns:
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
//     Reindex;
//   - state.json (state.go): whole-file atomic writes, unknown fields kept;
//     the title and lastPrompt of a prompt, sanitized (title.go);
//   - lookups and listings (summary.go): Get, Find (the work dir's bucket
//     first, then the index), List and Latest in spec 06 §4.2 order;
//   - the session lock <session>/.lock (lock.go), held while a Session is
//     open;
//   - the debug export ZIP (export.go);
//   - Session (session.go): Create, Resume (by id, refusing another work
//     dir or a log of a newer kimigo), Continue (the work dir's latest,
//     else a new one); it opens the main agent's records in agents/main
//     and restores the agent from them, and keeps what the user must hear:
//     Warnings (corrupt record lines quarantined while resuming) and
//     WriteError (the last failed records write, file and errno). The UI
//     replay stream is built only when Options.Cards asks (the last
//     CardTurns user turns) and is handed over once by TakeReplayCards:
//     the session never keeps cards, and print mode builds none.
//
// It does not own: reading configuration, resolving models, profiles or
// tools — the caller passes an Options.Agent function that returns them
// as agent.Options; the records format and the agent's state (agent,
// agent/records); log handlers (cmd configures them, at Session.LogPath);
// printing messages (cmd prints the errors' texts, Error.Hint and
// NoSessionsNotice). Fork (spec 02 §6.15, /fork, Tier 2) is not here yet.
//
// What cmd/kimigo calls (W = the process's working directory, absolute):
//
//	store := session.NewStore(session.StoreOptions{Root: dataRoot})
//	opts := session.Options{Store: store, Env: env, WorkDir: W,
//		AdditionalDirs: addDirs, Agent: buildAgentOptions, Logger: logger}
//	new:      s, err := session.Create(ctx, opts)
//	-S/-r id: s, err := session.Resume(ctx, id, opts)
//	          // *Error CodeNotFound: print err; CodeWorkDirMismatch: print
//	          // err, then "  "+err.Hint(), then fail with err
//	-S alone: store.List(session.ListOptions{WorkDir: W}) for the picker
//	-c:       s, err := session.Continue(ctx, opts)
//	          // !s.Resumed(): print session.NoSessionsNotice(W)
//	prompt:   s.Prompt(ctx, parts); resume hint: s.ResumeCommand()
//	cleanup:  s.Close(ctx) (cancels the turn, flushes, unlocks)
//	export:   sum, err := store.Find(id, W) or store.Latest(W);
//	          store.ExportFile(ctx, sum, out, session.ExportOptions{…}),
//	          out defaulting to filepath.Join(W, DefaultExportName(id, now))
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
//   - A session is open in at most one place; a refused open writes
//     nothing (lock_test.go S69, TestSessionOpensOnceInProcess), and a
//     session from another work dir is refused with the cd hint and no
//     write (session_test.go S10).
//   - A resumed or continued session sends exactly the request the
//     previous run would have sent next, also after an interrupted run
//     (session_test.go TestResumeAndContinueKeepTheConversation,
//     TestCloseMidTurnResumes), with or without the replay stream; the
//     cards are handed over once and only when asked for (same test).
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
//   - Titles and lastPrompt carry no secrets (title_test.go, session_test.go
//     S34); the export holds the manifest, the session's files and the
//     global log in spec order and changes nothing (export_test.go S35).
package session
