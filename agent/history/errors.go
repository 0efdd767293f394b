package history

// Code is the wire code of an error the agent reports to a client.
type Code string

// Error codes history produces.
const (
	CodeRequestInvalid  Code = "request.invalid"
	CodeContextOverflow Code = "context.overflow"
)

// Reasons, the details.reason of an error.
const (
	ReasonUndoLimit             = "undo_limit"
	ReasonImportContentEmpty    = "import_content_empty"
	ReasonImportSourceEmpty     = "import_source_empty"
	ReasonImportContextOverflow = "import_context_overflow"
)

// Error is a refused request: the client asked for something this history
// cannot do. Message is shown to the user as is; Details carry the data of
// the RPC error (camelCase keys).
type Error struct {
	Code    Code
	Reason  string
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }
