// Package records is the durable record log of one agent: the JSON Lines
// file <agentHome>/wire.jsonl of spec 02 §6, its envelope, storage, blobs,
// migrations and replay iteration.
//
// What it owns:
//
//   - the envelope (record.go): a Record is a type, a time in milliseconds
//     and the type's fields at the top level of one JSON object; records
//     read from a file keep their bytes, so records nobody changed (and
//     record types nobody here knows) survive a rewrite byte for byte;
//   - the record classes (catalogue.go): observability types versus state
//     types, and the few type names records itself must know;
//   - the Log (log.go, replay.go): metadata first with protocol 1.4, time
//     stamping, no writes while replaying, version checks and the
//     migrations 1.0 → 1.4 (migration.go) with a rewrite after a complete
//     replay of an older log, and the "opened" latch for observability;
//   - persistence (persistence.go): the Persistence interface, an
//     in-memory implementation, and the file one (file.go, writer.go): a
//     writer goroutine and a sync goroutine that group-commit in a
//     pipeline (the writer writes each batch in one write, the syncer
//     fsyncs what was written so far while the writer goes on, when a
//     Flush or a Stage asked for it, so a step's records share one fsync;
//     Stage waits for the write, Flush for the fsync; FileOptions.Parents
//     joins the first commit), torn-tail repair before the first append, atomic
//     rewrites through wire.jsonl.tmp, write failures as *WriteError
//     (file and errno), and an advisory lock on <agentHome>/.lock
//     (lock.go) naming the holder's pid;
//   - the quarantine of corrupt lines (quarantine.go): a corrupt line
//     after the metadata record is skipped, its bytes saved in
//     wire.jsonl.quarantine, then taken out of the log by the writer, and
//     reported through FileOptions.OnQuarantine naming file and line; the
//     line of a record the replay's reader refuses (Refuse, RefusedError:
//     its owner cannot restore it) is handled the same way, with the
//     reason;
//   - Inspection (inspect.go): a read-only Persistence over a log that
//     skips what a read would quarantine and lists it, writing nothing;
//   - read-only looks into a log (reader.go): CheckVersion (refuse a log
//     of a newer kimigo before opening it) and ScanFile;
//   - blobs (blob.go, media.go, blob_cache.go): large base64 media moved to
//     <agentHome>/blobs/<sha256> when written and put back when replayed,
//     with a 50 MiB LRU read cache;
//   - the reading of lines (reader.go), in one place, with a JSON check
//     (valid.go) that answers exactly as json.Valid, vouching for the
//     common record line itself and asking json.Valid about the rest;
//   - superseded tool outputs (supersede.go): ReplayWith with a Supersede
//     finds the last record of a type its owner accepts (in a file by the
//     leading "type" of each line, parsing only the candidates) and hands
//     every tool.result before it with an empty output and without
//     reading its blobs, in a log of the current version only.
//
// What it does not own: the meaning of records. Subsystems (history,
// permission, goal, …) build their records with New and decode them with
// Decode; only the agent's commit appends them, and replay hands each one
// to its owner. Payload structs live with their owners; the migrations and
// the blob walk here work on generic JSON.
//
// Invariants, and the tests that guard them:
//
//   - a non-empty log starts with exactly one metadata record (S38, S39);
//   - Stage returns once the records are in the file, before their fsync,
//     and the writer writes later batches while an fsync runs; the wait
//     it returns ends only after the fsync and the first commit's Parents
//     (writer_test.go TestStageDoesNotWaitForTheFsync); a failed fsync
//     cuts the file back to its durable length and writes the records
//     again, since the kernel may have dropped the pages it could not
//     write (TestWriteFailureKeepsPendingRecords);
//   - Flush returns nil only when every record recorded before it is on
//     stable storage; a failed write (ENOSPC, EDQUOT, EIO, EROFS, injected
//     through osenvtest.FaultFS) keeps the records queued, reports a
//     *WriteError naming the file and the errno through OnError and
//     Flush, and every later Flush retries until the fault is gone
//     (S42, fault_test.go TestWriteFailureKeepsPendingRecords); nothing
//     acknowledged is lost when the process is killed at any moment
//     (crash_test.go, a real child process SIGKILLed at random, run with
//     -args -records.kills=N);
//   - a log deleted or replaced under the writer (its session directory
//     removed while kimigo runs) fails every later write with
//     ErrLogRemoved, and nothing is written into the unlinked file or
//     created in its place (fault_test.go TestLogRemovedWhileOpen);
//   - a crash tears at most the last line, and the torn part is cut off (a
//     complete last line gets its newline) before anything is appended
//     (S40, crash_test.go);
//   - a corrupt line after the metadata record never bricks a log: it is
//     skipped and reported naming file and line, and its bytes are always
//     in the log or in wire.jsonl.quarantine, never lost, saved once
//     (quarantine_test.go); every other byte of the log stays as it was.
//     A corrupt first line, or any corrupt line in a log of a newer
//     protocol version, is a *LineError naming file and line, and nothing
//     is written (S41, TestNewerVersionLogIsNotQuarantined,
//     FuzzReplayLines). A refused record is set aside the same way, left
//     out of a migrated rewrite, and fails the read of a newer log
//     (refuse_test.go); an Inspection reports the same lines and writes
//     nothing (TestInspectionWritesNothing);
//   - a UTF-8 byte order mark before the metadata record is not a corrupt
//     line; it stays in the file (TestByteOrderMarkOnTheFirstLine);
//   - a rewrite leaves the complete old file or the complete new one (S43);
//   - offloading never changes the in-memory record; a missing blob reads
//     back as MediaMissing (S44); a record read back is offloaded as one
//     built from fields is (TestBlobOffloadOfARecordReadBack);
//   - each batch lands in the file as its records' lines, whatever the
//     sizes of the batches before it (the writer reuses its buffer;
//     writer_test.go TestBatchesOfEverySizeAreWrittenWhole);
//   - unknown record types replay without error and keep their bytes
//     (S45); replay never writes a record (S46);
//   - migrations follow spec 02 §6.5 exactly; a newer version replays
//     unmigrated with a warning and is never rewritten (S47–S50);
//   - two opens of one log, in one process or two, never both succeed
//     (lock_test.go);
//   - a superseded replay differs from the plain one only in the outputs
//     of tool results before the last accepted record, reads none of their
//     blobs, ignores a corrupt or refused candidate, and elides nothing in
//     a migrated log (supersede_test.go); the fast JSON check and string
//     scan agree with json.Valid and the byte-by-byte walk (valid_test.go
//     FuzzSurelyValid, FuzzScanString).
package records
