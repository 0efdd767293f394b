package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// Type names a record kind on the wire, "<owner>.<verb>" (spec 02 §6.3).
type Type string

// Record is one line of wire.jsonl: a type, an optional time in integer
// milliseconds (0 = unset) and the type-specific fields at the top level of
// the same JSON object.
//
// A Record is an immutable value. A record read from a log keeps the exact
// bytes of its line, so writing it back (a migration rewrite) reproduces
// the line byte for byte as long as Type and Time were not changed.
type Record struct {
	Type Type
	Time int64

	fields []byte // compact JSON object of the other fields; nil: derive from line
	line   []byte // the line this record was read from, without its newline
	// Envelope values parsed from line; when Type or Time differ from them,
	// line is stale and the record is encoded afresh.
	lineType Type
	lineTime int64
	lineNo   int // 1-based line number in the source file; 0 when built in memory
}

// New builds a record of type typ whose fields are the JSON object that
// fields encodes to (a struct, a map or a json.RawMessage; nil means no
// fields). It rejects fields that are not an object or that carry their
// own "type" or "time" key: those belong to the envelope.
func New(typ Type, fields any) (Record, error) {
	if typ == "" {
		return Record{}, errors.New("new record: empty type")
	}
	if fields == nil {
		return Record{Type: typ}, nil
	}
	b, err := plainjson.Marshal(fields)
	if err != nil {
		return Record{}, fmt.Errorf("encode %s record: %w", typ, err)
	}
	if string(b) == "null" {
		return Record{Type: typ}, nil
	}
	o, ok := parseObject(b)
	if !ok {
		return Record{}, fmt.Errorf("encode %s record: fields encode as %.40s, not a JSON object", typ, b)
	}
	for _, m := range o.members {
		if m.key == "type" || m.key == "time" {
			return Record{}, fmt.Errorf("encode %s record: fields carry their own %q key", typ, m.key)
		}
	}
	return Record{Type: typ, fields: b}, nil
}

// Fields returns the type-specific fields as a JSON object (at least
// "{}"). The caller must not modify the returned bytes.
func (r Record) Fields() json.RawMessage {
	if r.fields != nil {
		return r.fields
	}
	if r.line != nil {
		if o, ok := parseObject(r.line); ok {
			o.del("type")
			o.del("time")
			return o.bytes()
		}
	}
	return json.RawMessage("{}")
}

// payload is the bytes r's fields are in, without a copy: its fields, or
// the line it was read from (with its type and time), or nil.
func (r Record) payload() []byte {
	if r.fields != nil {
		return r.fields
	}
	return r.line
}

// Line reports the 1-based line of wire.jsonl the record was read from,
// or 0 for a record built in memory. Errors about a record name it.
func (r Record) Line() int { return r.lineNo }

// Decode unmarshals the fields of rec into v.
func Decode(rec Record, v any) error {
	if err := json.Unmarshal(rec.Fields(), v); err != nil {
		if rec.lineNo > 0 {
			return fmt.Errorf("decode %s record (line %d): %w", rec.Type, rec.lineNo, err)
		}
		return fmt.Errorf("decode %s record: %w", rec.Type, err)
	}
	return nil
}

// MarshalJSON encodes the record with "type" first and "time" last (time
// omitted when unset), or returns the line it was read from unchanged. It
// does not escape HTML; json.Marshal would escape it again afterwards, so
// write records with plainjson.Marshal.
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Type == "" {
		return nil, errors.New("encode record: empty type")
	}
	return r.encode(), nil
}

func (r Record) encode() []byte {
	if r.line != nil && r.Type == r.lineType && r.Time == r.lineTime {
		return r.line
	}
	var buf bytes.Buffer
	buf.Grow(r.encodedSize())
	r.writeTo(&buf)
	return buf.Bytes()
}

// encodedSize is about the length of r's line (at least it, for a record
// built in memory): what a buffer it is written to grows by.
func (r Record) encodedSize() int {
	if r.fields != nil {
		return len(r.fields) + len(r.Type) + 32
	}
	return len(r.line) + 32
}

// writeTo appends r's line (encode's bytes) to buf without a copy of its
// own.
func (r Record) writeTo(buf *bytes.Buffer) {
	if r.line != nil && r.Type == r.lineType && r.Time == r.lineTime {
		buf.Write(r.line)
		return
	}
	fields := r.Fields()
	inner := bytes.TrimSpace(fields[1 : len(fields)-1])
	buf.WriteString(`{"type":`)
	buf.Write(plainjson.Quote(string(r.Type)))
	if len(inner) > 0 {
		buf.WriteByte(',')
		buf.Write(inner)
	}
	if r.Time != 0 {
		buf.WriteString(`,"time":`)
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), r.Time, 10))
	}
	buf.WriteByte('}')
}

// UnmarshalJSON parses one record object, keeping its bytes.
func (r *Record) UnmarshalJSON(b []byte) error {
	rec, err := parseRecord(bytes.Clone(bytes.TrimSpace(b)))
	if err != nil {
		return err
	}
	*r = rec
	return nil
}

// Equal reports whether two records have the same type, time and fields
// (byte-wise). go-cmp uses it.
func (r Record) Equal(o Record) bool {
	return r.Type == o.Type && r.Time == o.Time && bytes.Equal(r.Fields(), o.Fields())
}

// String returns the record's JSON line.
func (r Record) String() string { return string(r.encode()) }

// parseRecord checks that line is a JSON object with a string "type" and,
// when present, an integer "time". It keeps line (the caller hands over
// ownership).
func parseRecord(line []byte) (Record, error) {
	if !validJSON(line) {
		var v json.RawMessage
		err := json.Unmarshal(line, &v)
		if err == nil { // json.Valid and Unmarshal disagree only on odd input
			err = errors.New("invalid JSON")
		}
		return Record{}, err
	}
	var rawType, rawTime []byte
	if !eachMember(line, func(rawKey, val []byte) bool {
		switch { // with duplicate keys the last one wins
		case keyIs(rawKey, "type"):
			rawType = val
		case keyIs(rawKey, "time"):
			rawTime = val
		}
		return true
	}) {
		return Record{}, errors.New("not a JSON object")
	}
	typ, ok := decodeString(rawType)
	if !ok || typ == "" {
		return Record{}, errors.New(`no non-empty string "type" field`)
	}
	var ms int64
	if rawTime != nil {
		t, err := parseMillis(rawTime)
		if err != nil {
			return Record{}, err
		}
		ms = t
	}
	return Record{Type: Type(typ), Time: ms, line: line, lineType: Type(typ), lineTime: ms}, nil
}

func parseMillis(raw []byte) (int64, error) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, fmt.Errorf(`"time" is %.40s, not integer milliseconds`, raw)
	}
	return int64(f), nil
}
