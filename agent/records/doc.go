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
//     single writer goroutine that group-commits (one write and one fsync
//     per batch), torn-tail repair before the first append, atomic
//     rewrites through wire.jsonl.tmp, and an advisory lock on
//     <agentHome>/.lock (lock.go) naming the holder's pid;
//   - blobs (blob.go, media.go, blob_cache.go): large base64 media moved to
//     <agentHome>/blobs/<sha256> when written and put back when replayed,
//     with a 50 MiB LRU read cache;
//   - the reading of lines (reader.go), in one place.
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
//   - Flush returns nil only when every record recorded before it is on
//     stable storage; a failed write keeps the records queued, reports
//     the file and the errno through OnError, and the next Flush retries
//     (S42, fault_test.go); nothing acknowledged is lost when the process
//     is killed at any moment (crash_test.go, a real child process
//     SIGKILLed at random, run with -args -records.kills=N);
//   - a crash tears at most the last line, and the torn part is cut off (a
//     complete last line gets its newline) before anything is appended
//     (S40, crash_test.go); a corrupt line elsewhere is an error naming the
//     file and the line, and nothing is rewritten (S41, FuzzReplayLines);
//   - a rewrite leaves the complete old file or the complete new one (S43);
//   - offloading never changes the in-memory record; a missing blob reads
//     back as MediaMissing (S44);
//   - unknown record types replay without error and keep their bytes
//     (S45); replay never writes a record (S46);
//   - migrations follow spec 02 §6.5 exactly; a newer version replays
//     unmigrated with a warning and is never rewritten (S47–S50);
//   - two opens of one log, in one process or two, never both succeed
//     (lock_test.go).
package records
