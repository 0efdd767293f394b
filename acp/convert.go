package acp

import (
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/llm"
)

// convert turns a prompt's content blocks into the user's input (spec 06
// §8.5 step 1). What it drops it names in the returned warnings.
func convert(blocks []sdk.ContentBlock) (parts []llm.ContentPart, warnings []string) {
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, llm.TextPart(b.Text.Text))
		case b.Image != nil:
			parts = append(parts, llm.ImagePart("data:"+b.Image.MimeType+";base64,"+b.Image.Data))
		case b.Audio != nil:
			warnings = append(warnings, "prompt block "+itoa(i)+": audio is not supported; dropped")
		case b.ResourceLink != nil:
			parts = append(parts, llm.TextPart(resourceLink(b.ResourceLink.Uri, b.ResourceLink.Name)))
		case b.Resource != nil:
			r := b.Resource.Resource
			if r.TextResourceContents != nil {
				parts = append(parts, llm.TextPart(`<resource uri="`+xmlEscape(r.TextResourceContents.Uri)+`">`+
					r.TextResourceContents.Text+"</resource>"))
			} else {
				warnings = append(warnings, "prompt block "+itoa(i)+": binary resources are not supported; dropped")
			}
		default:
			warnings = append(warnings, "prompt block "+itoa(i)+": unknown block type; dropped")
		}
	}
	return parts, warnings
}

var lineRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:L(\d+)(?:-L?(\d+))?|lines?=(\d+)(?:-(\d+))?)$`)
})

// resourceLink is a file link as its path (with a line range when the
// fragment or query names one), anything else as a tag.
func resourceLink(uri, name string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return `<resource_link uri="` + xmlEscape(uri) + `" name="` + xmlEscape(name) + `" />`
	}
	path := u.Path
	if len(path) >= 3 && path[0] == '/' && path[2] == ':' { // /C:/x on Windows
		path = path[1:]
	}
	for _, s := range []string{u.Fragment, u.RawQuery} {
		if m := lineRange().FindStringSubmatch(s); m != nil {
			start, end := m[1]+m[3], m[2]+m[4]
			if end != "" {
				return path + ":" + start + "-" + end
			}
			return path + ":" + start
		}
	}
	return path
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&#34;", "&quot;", "&#39;", "&apos;").Replace(html.EscapeString(s))
}

func itoa(i int) string { return strconv.Itoa(i) }
