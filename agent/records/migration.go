package records

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// A migration rewrites one record from its source version's shape to its
// target version's. It works on generic JSON (object), so unknown fields
// and unknown record types pass through untouched; it returns the record
// to keep and whether anything changed. Never change what a record type
// means: add a type, or a migration.
type migration struct {
	from, to string
	apply    func(o *object) (*object, bool)
}

// chain is the migration table of spec 02 §6.5, in order.
func chain() []migration {
	return []migration{
		{"1.0", "1.1", flattenToolCalls},         // tool calls lose their "function" wrapper
		{"1.1", "1.2", addSessionApprovalRule},   // session approvals gain an explicit rule
		{"1.2", "1.3", identity},                 // blob references may appear from here on
		{"1.3", "1.4", collapseGoalRecordShapes}, // goal records lose per-goal ids and audit fields
	}
}

// migrationsFrom resolves the migrations that lift version v to
// ProtocolVersion. v must be a valid version.
func migrationsFrom(v string) ([]migration, error) {
	var out []migration
	all := chain()
	for compareVersions(v, ProtocolVersion) < 0 {
		i := slices.IndexFunc(all, func(m migration) bool { return m.from == v })
		if i < 0 {
			//lint:ignore ST1005 the wording is fixed by spec 02 §6.5
			return nil, fmt.Errorf("Missing wire migration for version %s", v)
		}
		out = append(out, all[i])
		v = all[i].to
	}
	return out, nil
}

// migrate runs rec through ms. An unchanged record is returned as is, so
// its line is written back byte for byte.
func migrate(rec Record, ms []migration) Record {
	if len(ms) == 0 {
		return rec
	}
	o, ok := parseObject(rec.encode())
	if !ok {
		return rec
	}
	changed := false
	for _, m := range ms {
		var c bool
		o, c = m.apply(o)
		changed = changed || c
	}
	if !changed {
		return rec
	}
	nr, err := parseRecord(o.bytes())
	if err != nil { // a migration dropped the envelope: keep what was there
		return rec
	}
	nr.lineNo = rec.lineNo
	return nr
}

func recordType(o *object) Type {
	t, _ := o.getString("type")
	return Type(t)
}

func identity(o *object) (*object, bool) { return o, false }

// flattenToolCalls (1.0 → 1.1): in context.append_message, each
// message.toolCalls[i] of shape {…, function:{name, arguments}} becomes
// {…, name, arguments}. Keys keep their places; absent stays absent.
func flattenToolCalls(o *object) (*object, bool) {
	if recordType(o) != typeAppendMessage {
		return o, false
	}
	msg := o.getObject("message")
	if msg == nil {
		return o, false
	}
	raw, _ := msg.get("toolCalls")
	calls, ok := parseArray(raw)
	if !ok {
		return o, false
	}
	changed := false
	for i, c := range calls {
		call, ok := parseObject(c)
		if !ok {
			continue
		}
		fn := call.getObject("function")
		if fn == nil {
			continue
		}
		call.del("function")
		for _, k := range []string{"name", "arguments"} {
			if v, ok := fn.get(k); ok {
				call.set(k, v)
			} else {
				call.del(k)
			}
		}
		calls[i] = call.bytes()
		changed = true
	}
	if !changed {
		return o, false
	}
	msg.set("toolCalls", encodeArray(calls))
	o.set("message", msg.bytes())
	return o, true
}

// addSessionApprovalRule (1.1 → 1.2): an approved, session-scoped approval
// without a sessionApprovalRule gets the rule its action implied. Actions
// whose approval cannot be narrowed safely stay as they are.
func addSessionApprovalRule(o *object) (*object, bool) {
	if recordType(o) != typeApprovalResult {
		return o, false
	}
	if _, has := o.get("sessionApprovalRule"); has {
		return o, false
	}
	res := o.getObject("result")
	if res == nil {
		return o, false
	}
	decision, _ := res.getString("decision")
	scope, _ := res.getString("scope")
	if decision != "approved" || scope != "session" {
		return o, false
	}
	action, _ := o.getString("action")
	switch action {
	case "run command in plan mode", "run background command":
		return o, false
	}
	rule := map[string]string{
		"run command":                            "Bash",
		"stop background task":                   "TaskStop",
		"edit file":                              "Write",
		"edit file outside of working directory": "Write",
		"write file":                             "Write",
	}
	if r, ok := rule[action]; ok {
		o.set("sessionApprovalRule", plainjson.Quote(r))
		return o, true
	}
	name, ok := o.get("toolName")
	if !ok || string(name) == "null" {
		return o, false
	}
	o.set("sessionApprovalRule", name)
	return o, true
}

// collapseGoalRecordShapes (1.3 → 1.4): goal records keep only the fields
// of the single-goal model, in a fixed order; usage and continuation
// records become goal.update.
func collapseGoalRecordShapes(o *object) (*object, bool) {
	var n *object
	switch recordType(o) {
	case typeGoalCreate:
		n = o.pick("type", "goalId", "objective", "completionCriterion", "time")
	case typeGoalUpdate:
		n = o.pick("type", "status", "reason", "turnsUsed", "tokensUsed", "wallClockMs", "actor", "time")
	case typeGoalAccountUsage:
		n = renamed(o, typeGoalUpdate, "tokensUsed", "wallClockMs", "time")
	case typeGoalContinuation:
		n = renamed(o, typeGoalUpdate, "turnsUsed", "time")
	case typeGoalClear:
		n = o.pick("type", "time")
	default:
		return o, false
	}
	return n, !sameMembers(o, n)
}

func renamed(o *object, typ Type, keys ...string) *object {
	n := &object{}
	n.set("type", plainjson.Quote(string(typ)))
	n.members = append(n.members, o.pick(keys...).members...)
	return n
}

func sameMembers(a, b *object) bool {
	if len(a.members) != len(b.members) {
		return false
	}
	for i := range a.members {
		if a.members[i].key != b.members[i].key || string(a.members[i].val) != string(b.members[i].val) {
			return false
		}
	}
	return true
}

// validVersion reports whether v matches ^\d+(\.\d+)*$.
func validVersion(v string) bool {
	for _, part := range strings.Split(v, ".") {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// compareVersions compares valid versions numerically per component;
// missing components count as 0. Components may exceed any integer type.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		x, y := "0", "0"
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
		if c := len(x) - len(y); c != 0 {
			return c
		}
		if c := strings.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}
