package mcp

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

// Output limits (spec 06 §7.6).
const (
	// MaxOutputChars is the text budget of one result, in characters.
	MaxOutputChars = 100_000
	// maxMediaURL is the longest media data URL kept: 10 MiB of data,
	// base64-encoded.
	maxMediaURL = (10<<20*4 + 2) / 3
)

// truncationNotice ends a result whose text was cut.
var truncationNotice = fmt.Sprintf("\n\n[Output truncated: exceeded %d character limit. "+
	"Use pagination or more specific queries to get remaining content.]", MaxOutputChars)

// acceptedImageTypes are the image types every provider accepts inline.
var acceptedImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// ConvertResult turns a tools/call result into the tool's result for the
// model (spec 06 §7.6 step 4): text, images, audio and resources become
// parts; media without text is wrapped in <mcp_tool_result> tags;
// structured content and non-reserved _meta follow as JSON; text is cut
// to MaxOutputChars and media over 10 MB is dropped, both with a notice;
// a lone text part becomes a plain string. IsError is the server's flag.
func ConvertResult(qualified string, res *sdk.CallToolResult) loop.ToolResult {
	if res == nil {
		return loop.ToolResult{Output: loop.TextOutput("")}
	}
	var parts []llm.ContentPart
	for _, c := range res.Content {
		parts = append(parts, contentParts(c)...)
	}
	if hasMedia(parts) && !hasText(parts) {
		parts = slices.Concat([]llm.ContentPart{llm.TextPart(fmt.Sprintf("<mcp_tool_result name=%q>", qualified))},
			parts, []llm.ContentPart{llm.TextPart("</mcp_tool_result>")})
	}
	if s, ok := structuredPart(res); ok {
		parts = append(parts, llm.TextPart(s))
	}
	parts, cut := capText(parts)
	parts, dropped := capMedia(parts)
	out := loop.ToolResult{IsError: res.IsError, Truncated: cut || dropped}
	if len(parts) == 1 && parts[0].Type == llm.PartText {
		out.Output = loop.TextOutput(parts[0].Text)
	} else {
		out.Output = loop.PartsOutput(parts...)
	}
	return out
}

// contentParts converts one content block.
func contentParts(c sdk.Content) []llm.ContentPart {
	switch c := c.(type) {
	case *sdk.TextContent:
		return []llm.ContentPart{llm.TextPart(c.Text)}
	case *sdk.ImageContent:
		return []llm.ContentPart{llm.ImagePart(dataURL(orDefault(c.MIMEType, "image/png"), c.Data))}
	case *sdk.AudioContent:
		return []llm.ContentPart{llm.AudioPart(dataURL(orDefault(c.MIMEType, "audio/mpeg"), c.Data))}
	case *sdk.EmbeddedResource:
		r := c.Resource
		switch {
		case r == nil:
			return nil
		case r.Blob == nil:
			return []llm.ContentPart{llm.TextPart(r.Text)}
		}
		return mediaParts(r.MIMEType, dataURL(r.MIMEType, r.Blob), false)
	case *sdk.ResourceLink:
		return mediaParts(c.MIMEType, c.URI, true)
	}
	return nil // a kind the model cannot use
}

// mediaParts makes a media part of url by its MIME type; other types are
// dropped. A linked image of a type providers refuse becomes a notice
// that keeps the link.
func mediaParts(mime, url string, link bool) []llm.ContentPart {
	switch {
	case strings.HasPrefix(mime, "image/"):
		if link && !slices.Contains(acceptedImageTypes, mime) {
			return []llm.ContentPart{llm.TextPart(fmt.Sprintf("[Image %s (%s) not shown: only PNG, JPEG, GIF and WebP images can be shown.]", url, mime))}
		}
		return []llm.ContentPart{llm.ImagePart(url)}
	case strings.HasPrefix(mime, "audio/"):
		return []llm.ContentPart{llm.AudioPart(url)}
	case strings.HasPrefix(mime, "video/"):
		return []llm.ContentPart{llm.VideoPart(url, "")}
	}
	return nil
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func hasMedia(parts []llm.ContentPart) bool {
	return slices.ContainsFunc(parts, llm.ContentPart.IsMedia)
}

func hasText(parts []llm.ContentPart) bool {
	return slices.ContainsFunc(parts, func(p llm.ContentPart) bool {
		return p.Type == llm.PartText && strings.TrimSpace(p.Text) != ""
	})
}

// structuredPart is the <mcp-structured-result> text of structuredContent
// and the non-reserved _meta keys, if there are any.
func structuredPart(res *sdk.CallToolResult) (string, bool) {
	meta := map[string]any{}
	for k, v := range res.Meta {
		if !reservedMetaKey(k) {
			meta[k] = v
		}
	}
	if res.StructuredContent == nil && len(meta) == 0 {
		return "", false
	}
	v := struct {
		StructuredContent any            `json:"structuredContent,omitempty"`
		Meta              map[string]any `json:"_meta,omitempty"`
	}{res.StructuredContent, meta}
	b, err := plainjson.Marshal(v)
	if err != nil {
		return "", false
	}
	body := strings.TrimSpace(strings.ReplaceAll(string(b), "</mcp-structured-result>", ""))
	return "\n<mcp-structured-result>\n" + body + "\n</mcp-structured-result>", true
}

// reservedMetaKey reports a _meta key the protocol reserves: its prefix
// (before the first "/") has a label "modelcontextprotocol" or "mcp" that
// is not its last label (modelcontextprotocol.io/…, tools.mcp.com/…).
// Newer protocol versions write their keys in reverse-DNS order
// (io.modelcontextprotocol/…), so "modelcontextprotocol" is reserved as
// the last label too; "mcp" as the last label is not (com.example.mcp/…).
func reservedMetaKey(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	for i, l := range labels {
		last := i == len(labels)-1
		if l == "modelcontextprotocol" || (l == "mcp" && !last) {
			return true
		}
	}
	return false
}

// capText keeps MaxOutputChars characters of text and thinking, in order,
// and notes a cut on the last text part.
func capText(parts []llm.ContentPart) ([]llm.ContentPart, bool) {
	left, cut := MaxOutputChars, false
	out := parts[:0:0]
	for _, p := range parts {
		var s *string
		switch p.Type {
		case llm.PartText:
			s = &p.Text
		case llm.PartThink:
			s = &p.Think
		default:
			out = append(out, p)
			continue
		}
		n := utf8.RuneCountInString(*s)
		switch {
		case n <= left:
			left -= n
		case left == 0:
			cut = true
			continue
		default:
			*s = string([]rune(*s)[:left])
			left, cut = 0, true
		}
		out = append(out, p)
	}
	if !cut {
		return out, false
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Type == llm.PartText {
			out[i].Text += truncationNotice
			return out, true
		}
	}
	return append(out, llm.TextPart(strings.TrimLeft(truncationNotice, "\n"))), true
}

// capMedia replaces media URLs over the binary cap with a notice.
func capMedia(parts []llm.ContentPart) ([]llm.ContentPart, bool) {
	dropped := false
	for i, p := range parts {
		if !p.IsMedia() || p.Media == nil || len(p.Media.URL) <= maxMediaURL {
			continue
		}
		mb := float64(len(p.Media.URL)) * 3 / 4 / (1 << 20)
		parts[i] = llm.TextPart(fmt.Sprintf("[%s dropped: ~%.1f MB exceeds 10 MB per-part limit. Try a smaller resource.]", p.Type, mb))
		dropped = true
	}
	return parts, dropped
}
