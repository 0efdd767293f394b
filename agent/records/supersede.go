package records

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// Supersede lets a replay skip the tool outputs that a later record makes
// unreachable (spec 02 §5 step 9: tool results never survive a full
// compaction). The owner of the superseding record type decides which of
// its records qualify; records only finds the last one and elides what
// precedes it.
type Supersede struct {
	// Type is the superseding record type (context.apply_compaction).
	Type Type
	// Accept reports whether a record of Type drops every tool result
	// before it, whatever its output was. It sees the record as replay
	// will yield it and must be a pure function of it.
	Accept func(Record) bool
}

// ReplayOptions tune Log.ReplayWith. The zero value replays every record
// as stored (Log.Replay).
type ReplayOptions struct {
	// Supersede, when set, makes the replay hand every tool.result loop
	// event that comes before the last accepted record of its Type with
	// an empty output ("") and without reading the blobs that output
	// referenced. Every other record, and every record from the accepted
	// one on, is yielded as stored. It takes effect only in a log of the
	// current protocol version (no migration, no rewrite) on a persistence
	// that can find the record without replaying (a file or memory log);
	// otherwise the replay is the plain one. The yielded records differ
	// from a plain replay's in nothing else, so a caller whose state after
	// the accepted record does not depend on those outputs reaches the
	// same state either way.
	Supersede *Supersede
}

// boundaryFinder is a persistence that can find the last record of a type
// that accept takes without a replay and without side effects. at reports
// whether the record a replay yields as the ordinal-th (1-based) is that
// record.
type boundaryFinder interface {
	findLast(ctx context.Context, typ Type, accept func(Record) bool) (at func(ordinal int, rec Record) bool, ok bool, err error)
}

// findLast implements boundaryFinder: the records are in memory and every
// one is yielded, so the position is the ordinal.
func (m *MemoryPersistence) findLast(ctx context.Context, typ Type, accept func(Record) bool) (func(int, Record) bool, bool, error) {
	last := 0
	for i, rec := range m.Records() {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if rec.Type == typ && accept(rec) {
			last = i + 1
		}
	}
	if last == 0 {
		return nil, false, nil
	}
	return func(ordinal int, _ Record) bool { return ordinal == last }, true, nil
}

// findLast implements boundaryFinder without parsing the log: it looks at
// the first bytes of each line for the envelope's leading "type" member
// and parses only the lines that start with typ. The position is the line
// number, counted the way lineReader counts it; a candidate counts only
// when it parses as a record (so replay yields it) and accept takes it. A
// record of typ whose "type" is not its first member is not found, which
// only makes the elision stop earlier.
func (p *FilePersistence) findLast(ctx context.Context, typ Type, accept func(Record) bool) (func(int, Record) bool, bool, error) {
	if err := p.Flush(ctx); err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p.path, err)
	}
	f, err := p.fs.OpenFile(p.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read records: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	prefix := append(append([]byte(`{"type":`), plainjson.Quote(string(typ))...), ',')
	br := bufio.NewReaderSize(f, 64<<10)
	last := 0
	for n := 1; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		line, candidate, err := readLineIf(br, prefix)
		if errors.Is(err, io.EOF) && line == nil && !candidate {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("read %s: %w", p.path, err)
		}
		if candidate { // parsed the way lineReader parses it; a torn tail does not parse
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if rec, perr := parseRecord(line); perr == nil && rec.Type == typ && accept(rec) {
				last = n
			}
		}
		if err != nil { // io.EOF after an unterminated last line
			break
		}
	}
	if last == 0 {
		return nil, false, nil
	}
	return func(_ int, rec Record) bool { return rec.lineNo == last }, true, nil
}

// readLineIf reads one line. When the line starts with prefix it returns
// its bytes (with the line ending) and candidate true; otherwise it skips
// the line without keeping it. err is io.EOF at the end of the input (with
// the unterminated last line, if any) or a read error.
func readLineIf(br *bufio.Reader, prefix []byte) (line []byte, candidate bool, err error) {
	chunk, err := br.ReadSlice('\n')
	if len(chunk) == 0 && err != nil {
		return nil, false, err
	}
	// A first chunk shorter than prefix is a whole line: a full buffer
	// holds far more.
	candidate = bytes.HasPrefix(chunk, prefix)
	if candidate {
		line = bytes.Clone(chunk)
	} else {
		line = chunk[:0:0] // non-nil: a line was read
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		if candidate {
			line = append(line, chunk...)
		}
	}
	return line, candidate, err
}

// superseder is the state of one replay's elision.
type superseder struct {
	at      func(ordinal int, rec Record) bool
	ordinal int
	passed  bool // the boundary record was yielded; nothing more is elided
}

// elide returns rec as the replay yields it, and whether it was elided.
func (s *superseder) elide(rec Record) (Record, bool) {
	s.ordinal++
	if s.passed {
		return rec, false
	}
	if s.at(s.ordinal, rec) {
		s.passed = true
		return rec, false
	}
	if rec.Type != typeAppendLoopEvent {
		return rec, false
	}
	return elideToolOutput(rec)
}

// elideToolOutput returns the context.append_loop_event record rec with
// event.result.output replaced by "" when its event is a tool.result, and
// rec itself otherwise (another event, or a shape the owner's decoder
// should judge as stored).
func elideToolOutput(rec Record) (Record, bool) {
	top, ok := parseObject(rec.encode())
	if !ok {
		return rec, false
	}
	ev := top.getObject("event")
	if ev == nil {
		return rec, false
	}
	if t, _ := ev.getString("type"); t != loopEventToolResult {
		return rec, false
	}
	res := ev.getObject("result")
	if res == nil {
		return rec, false
	}
	if _, ok := res.get("output"); !ok {
		return rec, false
	}
	res.set("output", []byte(`""`))
	ev.set("result", res.bytes())
	top.set("event", ev.bytes())
	nr, err := parseRecord(top.bytes())
	if err != nil { // an edit of valid JSON stays valid; keep the original
		return rec, false
	}
	nr.lineNo = rec.lineNo
	return nr, true
}
