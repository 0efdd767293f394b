package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed fetch_url.md
var fetchURLMD string

const fetchURLSchema = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "http or https URL."}
  },
  "required": ["url"],
  "additionalProperties": false
}`

// fetchLabelRunes is how much of a URL a call's label shows.
const fetchLabelRunes = 50

// FetchURL is the FetchURL tool.
type FetchURL struct {
	fetcher URLFetcher
	def     llm.Tool
}

// NewFetchURL returns the FetchURL tool fetching through f; nil means a
// LocalFetcher with default options.
func NewFetchURL(f URLFetcher) *FetchURL {
	if f == nil {
		f = NewLocalFetcher(FetcherOptions{})
	}
	return &FetchURL{fetcher: f, def: definition(NameFetchURL, fetchURLMD, nil, fetchURLSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *FetchURL) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *FetchURL) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		URL string `json:"url"`
	}
	if r := decodeArgs(NameFetchURL, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Fetching: " + firstRunes(a.URL, fetchLabelRunes),
		Display:      &loop.URLFetchDisplay{URL: a.URL},
		ApprovalRule: workspace.URLOriginRule(NameFetchURL, a.URL), // approving for the session approves the host
		MatchesRule:  workspace.URLRuleMatcher(a.URL),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.fetch(ctx, a.URL)
		},
	}, nil, nil
}

const (
	fetchedVerbatim  = "The returned content is the full response body, returned verbatim."
	fetchedExtracted = "The returned content is the main text extracted from the page."
	fetchCite        = "When you rely on it, cite the page as a Markdown link."
)

func (t *FetchURL) fetch(ctx context.Context, url string) (loop.ToolResult, error) {
	page, err := t.fetcher.Fetch(ctx, url)
	var se *FetchStatusError
	var re *FetchRedirectError
	switch {
	case ctx.Err() != nil:
		return loop.ToolResult{}, context.Cause(ctx)
	case errors.As(err, &re):
		return loop.TextResult(fmt.Sprintf("The URL redirects to another host: %s. It was not followed; to read that page, call FetchURL with that URL.", re.URL)), nil
	case errors.As(err, &se):
		return loop.ErrorResult(fmt.Sprintf("Failed to fetch URL. Status: %d. %s", se.StatusCode, se.Error())), nil
	case err != nil:
		return loop.ErrorResult(fmt.Sprintf("Failed to fetch URL due to network error: %s. %s", url, err)), nil
	case page.Content == "":
		return loop.TextResult("The response body is empty."), nil
	}
	lead := fetchedExtracted
	if page.Kind == FetchPassthrough {
		lead = fetchedVerbatim
	}
	rb := NewResultBuilder(BuilderOptions{NoLineLimit: true})
	rb.Write(lead + " " + fetchCite + "\n\n")
	rb.Write(page.Content)
	return rb.OK(""), nil
}
