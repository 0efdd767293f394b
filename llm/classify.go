package llm

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// compileAll returns the expressions compiled on first use: the lists are
// only needed when a request fails, so a run that never fails (and every
// --version) does not pay for compiling them at start.
func compileAll(exprs ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		out := make([]*regexp.Regexp, len(exprs))
		for i, e := range exprs {
			out[i] = regexp.MustCompile(e)
		}
		return out
	})
}

// lazyRegexp returns expr compiled on first use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// The pattern lists of spec 01 §3.7, applied to lower-cased messages.
var (
	contextOverflowPatterns = compileAll(
		`context[ _-]?length`,
		`(?:context[ _-]?window.*exceed|exceed.*context[ _-]?window)`,
		`maximum context`,
		`exceed(?:ed|s|ing)?\s+(?:the\s+)?max(?:imum)?\s+tokens?`,
		`(?:too many tokens.*(?:prompt|input|context)|(?:prompt|input|context).*too many tokens)`,
		`prompt is too long.*maximum`,
		`input token count.*exceeds?.*maximum number of tokens`,
		`request.*exceed(?:ed|s|ing)?.*model token limit`,
	)
	requestTooLargePatterns = compileAll(
		`request exceeds the maximum size`,
		`request entity too large`,
		`request_too_large`,
		`exceeds? the maximum allowed number of bytes`,
		`payload too large`,
		`content too large`,
		`request (?:body )?too large`,
	)
	thinkingEffortPatterns = compileAll(
		`reasoning[_ .-]?effort`,
		`thinking[_ .-]?effort`,
		`output_config[\s\S]*effort`,
		`unsupported[\s\S]*effort`,
		`invalid[\s\S]*effort`,
	)
	adjacencyPatterns = compileAll(
		`tool_use[\s\S]*tool_result`,
		`tool_result[\s\S]*tool_use`,
		"unexpected\\s+`?tool_result",
		`tool_call_id[\s\S]*not found`,
		"role\\s+['\"`]?tool['\"`]?\\s+must be a response to a precee?ding message", // OpenAI spells it "preceeding"
		"assistant message with\\s+['\"`]?tool_calls['\"`]?\\s+must be followed by tool messages",
		`tool_call_ids? did not have response messages`,
		`insufficient tool messages following`,
	)
	structurePatterns = compileAll(
		`text content blocks must be non-empty`,
		`text content blocks must contain non-whitespace`,
		`first message must use the .*user.* role`,
		`roles must alternate`,
		`multiple .*(?:user|assistant).* roles in a row`,
		`tool_use[\s\S]*ids must be unique`,
		"message at position \\d+ with role ['\"`]?[a-z]+['\"`]? must not be empty",
	)
	imageFormatPatterns = compileAll(
		`unsupported image (?:url|format|type)`,
		`does not represent a valid image`,
		`could not (?:process|decode) (?:the |input )?image`,
		`unable to process (?:the |input )?image`,
		`failed to decode (?:the )?image`,
		`invalid image(?: data| type| format)?`,
	)
	mediaTypeWord     = lazyRegexp(`(?:media|mime)_?type`)
	rateLimitPatterns = compileAll(
		`(?:apistatuserror.*429|429.*apistatuserror)`,
		`429.*too many requests`,
		`too many requests`,
		`provider\.rate_limit`,
		`reached .*max rpm`,
		`rate[ _-]?limit(?:ed)?`,
		`rate-limited`,
	)
	kimiQuotaPatterns = compileAll(
		`exceeded your current (?:token )?quota`,
		`check your account balance`,
		`insufficient balance`,
		`recharge your account|please recharge`,
		`account (?:is )?in arrears`,
	)
	transportTimeout    = lazyRegexp(`(?i)timed?\s*out|timeout|deadline`)
	transportConnection = lazyRegexp(`(?i)network|connection|connect|disconnect|terminated`)
)

// thinkingEffortHint is appended once to 400/422 errors that complain about
// the thinking effort.
const thinkingEffortHint = "The provider rejected the configured thinking effort. Effort strings " +
	"are sent to non-Kimi providers unmapped, so pick an effort this model supports " +
	"(for Kimi models, see the model's support_efforts and default_effort). " +
	"The thinking settings are described in kimigo's README under Configuration."

// NormalizeStatus classifies an HTTP status error in place (spec 01
// §3.7.2) and returns it: rate limit, context overflow, request too large,
// or a plain status error. A quota classification made earlier is kept.
func NormalizeStatus(e *Error) *Error {
	if e.Kind == KindQuotaExhausted {
		return e
	}
	msg := strings.ToLower(e.Message)
	status := e.StatusCode
	switch {
	case status == 429:
		e.Kind = KindRateLimit
	case (status == 400 || status == 413 || status == 422) &&
		(matchAny(contextOverflowPatterns(), msg) || e.Code == "context_length_exceeded"):
		e.Kind = KindContextOverflow
	case status == 413 && matchAny(requestTooLargePatterns(), msg):
		e.Kind = KindRequestTooLarge
	default:
		e.Kind = KindStatus
		if (status == 400 || status == 422) && matchAny(thinkingEffortPatterns(), msg) &&
			!strings.Contains(e.Message, thinkingEffortHint) {
			e.Message += "\n\n" + thinkingEffortHint
		}
	}
	return e
}

// IsKimiQuotaExhausted reports whether a 429 from a Kimi endpoint means the
// account is out of quota or balance rather than throttled. Bare "quota" or
// "balance" does not match: per-minute token throttles stay rate limits.
func IsKimiQuotaExhausted(e *Error) bool {
	if e.StatusCode != 429 {
		return false
	}
	if e.Type == "exceeded_current_quota_error" || e.Code == "exceeded_current_quota_error" {
		return true
	}
	return matchAny(kimiQuotaPatterns(), strings.ToLower(e.Message))
}

// maxErrorBody bounds how much of a non-JSON error body goes into a message.
const maxErrorBody = 2000

// StatusError builds the error for an HTTP error response (spec 01 §3.1.5)
// without classifying it: Kind is KindStatus. The message is
// "<status> <message>" with " (<type>/<code>)" appended when they add
// information. Both the Chat Completions body {error:{message,type,code}}
// and the Anthropic body {type:"error",error:{type,message}} are read.
func StatusError(status int, h http.Header, body []byte) *Error {
	e := &Error{Kind: KindStatus, StatusCode: status}
	if h != nil {
		e.RequestID = h.Get("x-request-id")
		if e.RequestID == "" {
			e.RequestID = h.Get("request-id")
		}
		e.RetryAfter = ParseRetryAfter(h.Get("retry-after"))
		e.TraceID = strings.TrimSpace(h.Get("x-trace-id"))
	}
	text := strings.TrimSpace(string(body))
	msg, typ, code, ok := parseErrorBody(body)
	switch {
	case ok:
		e.Type, e.Code = typ, code
		m := fmt.Sprintf("%d %s", status, msg)
		var extra []string
		for _, s := range []string{typ, code} {
			if s != "" && !strings.Contains(msg, s) {
				extra = append(extra, s)
			}
		}
		if len(extra) > 0 {
			m += " (" + strings.Join(extra, "/") + ")"
		}
		e.Message = m
	case text == "":
		e.Message = fmt.Sprintf("%d status code (no body)", status)
	case isHTML(text):
		// A proxy's or gateway's error page: its title says what happened,
		// the markup around it says nothing.
		line := strings.TrimPrefix(BodySummary(body), strconv.Itoa(status)+" ")
		e.Message = fmt.Sprintf("%d %s (HTML page)", status, line)
	case strings.Contains(text, "\n"):
		// A page of text (issue 15 item 11): its first line, not the page.
		e.Message = fmt.Sprintf("%d %s (first line of the body)", status, BodySummary(body))
	default:
		if len(text) > maxErrorBody {
			text = truncateUTF8(text, maxErrorBody)
		}
		e.Message = fmt.Sprintf("%d %s", status, text)
	}
	return e
}

// parseErrorBody reads message, type and code from a JSON error body.
func parseErrorBody(body []byte) (msg, typ, code string, ok bool) {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "", "", "", false
	}
	var inner struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if len(b.Error) > 0 && json.Unmarshal(b.Error, &inner) == nil {
		code := ""
		switch c := inner.Code.(type) {
		case string:
			code = c
		case float64:
			code = strconv.FormatFloat(c, 'f', -1, 64)
		}
		if inner.Message == "" && inner.Type == "" && code == "" {
			return "", "", "", false
		}
		return inner.Message, inner.Type, code, true
	}
	var s string
	if len(b.Error) > 0 && json.Unmarshal(b.Error, &s) == nil && s != "" {
		return s, "", "", true
	}
	if b.Message != "" {
		return b.Message, b.Type, "", true
	}
	return "", "", "", false
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ParseRetryAfter honours only a non-negative integer number of seconds;
// HTTP-dates and anything else mean no hint.
func ParseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// ErrProviderTimeout is the cause a provider uses when a deadline it set
// itself (response headers, idle read, the whole response) expired.
var ErrProviderTimeout = errors.New("provider timeout")

// ErrResponseTimeout is the cause of a response cut at the provider's
// ceiling on one response. It is an ErrProviderTimeout, but the Timeout
// error it becomes is not retryable: an answer that ran past the ceiling
// once will again, and a stream that never ends (endless deltas) must not
// be asked for over and over.
var ErrResponseTimeout = fmt.Errorf("response timeout: %w", ErrProviderTimeout)

// ClassifyTransport turns an error from sending a request or reading its
// body into an abort (ctx is done), a Timeout, a Connection error or, by
// message heuristics, a generic provider error (spec 01 §3.7.6). An *Error
// already in err's chain is returned unchanged.
func ClassifyTransport(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return Aborted(ctx)
	}
	if IsAbort(err) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if e, ok := AsError(err); ok {
		return e
	}
	var ne net.Error
	if errors.Is(err, ErrProviderTimeout) || (errors.As(err, &ne) && ne.Timeout()) ||
		errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Message: "request timed out: " + err.Error(), Cause: err}
	}
	var tlsErr *tls.RecordHeaderError
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.As(err, &tlsErr) || isOpError(err) {
		return &Error{Kind: KindConnection, Message: "connection error: " + err.Error(), Cause: err}
	}
	return ClassifyMessage(err.Error(), err)
}

func isOpError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// ClassifyMessage applies the transport text heuristics: timeout words
// first, then connection words, else a generic "Error: <message>".
func ClassifyMessage(msg string, cause error) *Error {
	switch {
	case transportTimeout().MatchString(msg):
		return &Error{Kind: KindTimeout, Message: msg, Cause: cause}
	case transportConnection().MatchString(msg):
		return &Error{Kind: KindConnection, Message: msg, Cause: cause}
	}
	return &Error{Kind: KindGeneric, Message: "Error: " + msg, Cause: cause}
}
