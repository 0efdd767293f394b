package records

// ProtocolVersion is the wire protocol version this package writes into
// the metadata record (spec 02 §6.5). New record types do not change it;
// only a change that needs a migration does.
const ProtocolVersion = "1.4"

// Record types this package itself must know. Every other type belongs to
// the subsystem that builds and applies it (spec 02 §6.3, ERRATA 5).
const (
	// TypeMetadata is the first record of every non-empty log:
	// protocol_version and created_at, never a time.
	TypeMetadata Type = "metadata"
	// TypeForked is appended to every retained agent log by a session fork.
	TypeForked Type = "forked"

	// TypeToolsSnapshot records a distinct tool table sent to the model.
	TypeToolsSnapshot Type = "llm.tools_snapshot"
	// TypeLLMRequest records the shape of one model request attempt.
	TypeLLMRequest Type = "llm.request"
	// TypeMCPToolsDiscovered records the tools an MCP server offered.
	TypeMCPToolsDiscovered Type = "mcp.tools_discovered"
)

// Types whose payloads the blob offloader and the migrations walk. They are
// owned elsewhere; records only knows where media and legacy shapes sit.
const (
	typeTurnPrompt       Type = "turn.prompt"
	typeTurnSteer        Type = "turn.steer"
	typeAppendMessage    Type = "context.append_message"
	typeAppendLoopEvent  Type = "context.append_loop_event"
	typeApprovalResult   Type = "permission.record_approval_result"
	typeGoalCreate       Type = "goal.create"
	typeGoalUpdate       Type = "goal.update"
	typeGoalClear        Type = "goal.clear"
	typeGoalAccountUsage Type = "goal.account_usage"
	typeGoalContinuation Type = "goal.continuation"
)

// Pieces of the format records reads and writes itself.
const (
	loopEventToolResult   = "tool.result"      // the loop event whose parts may hold media
	metadataVersionKey    = "protocol_version" // in the metadata record
	blobRefScheme         = "blobref:"         // blobref:<mime>;<sha256>
	dataURLScheme         = "data:"
	dataURLBase64Marker   = ";base64,"
	defaultBlobThreshold  = 4096     // base64 characters
	defaultBlobCacheBytes = 50 << 20 // 50 MiB
)

// IsObservability reports whether t is an observability record type: a
// durable trace of what was sent to the model. Replay hands those to their
// owners only to restore write-dedup cursors; they never rebuild state.
// Every other type is a state record, which must have a restore action
// (spec 02 §6.1).
func IsObservability(t Type) bool {
	switch t {
	case TypeToolsSnapshot, TypeLLMRequest, TypeMCPToolsDiscovered:
		return true
	}
	return false
}

// MediaMissing is the URL a media part gets on replay when the blob it
// referenced is gone or the reference is malformed (spec 02 §6.6).
// Projection turns such a part into a text part with this text.
const MediaMissing = "[media missing]"
