package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

type noQuestions struct{}

func (noQuestions) AskQuestions(context.Context, tools.QuestionRequest) (map[string]string, error) {
	return nil, nil
}

// benchRequest is a first request's shape: the builtin tool table of a
// main agent on a vision model and a system prompt of 8 KB.
func benchRequest() llm.Request {
	m := tools.New(tools.Options{Base: tools.Base{Env: osenvtest.New(osenvtest.Options{})},
		Capability: llm.Capability{ImageIn: true, ToolUse: true}, Questions: noQuestions{},
		Fetcher: tools.NewLocalFetcher(tools.FetcherOptions{})})
	var defs []llm.Tool
	for _, t := range m.Tools(nil) {
		defs = append(defs, t.Definition())
	}
	system := ""
	for i := range 100 {
		system += fmt.Sprintf("Line %03d of the system prompt, <with> & such.\n", i)
	}
	return llm.Request{System: system, Tools: defs}
}

// BenchmarkRequestHashes is what the first request of an agent spends on
// hashing its tool table and system prompt.
func BenchmarkRequestHashes(b *testing.B) {
	req := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		a := &Agent{}
		a.requestHashes(req)
	}
}

// BenchmarkFirstRequestRecords is the records of an agent's first request
// (llm.tools_snapshot and llm.request) written to a file log: the hashes,
// the records, their encoding and the flush that writes them (one fsync),
// without the log's opening.
func BenchmarkFirstRequestRecords(b *testing.B) {
	req := benchRequest()
	p := scripted.New(scripted.Options{})
	dir := b.TempDir()
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		fp, err := records.OpenFile(records.FileOptions{Dir: filepath.Join(dir, fmt.Sprint(i))})
		if err != nil {
			b.Fatal(err)
		}
		a := New(Options{Persistence: fp})
		if _, err := a.commitPayload(ctx, TypeConfigUpdate, ConfigUpdate{}); err != nil { // opens the log
			b.Fatal(err)
		}
		if err := a.log.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		a.recordRequest(ctx, p, req, loop.RequestLogFields{})
		if err := a.log.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := a.Close(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
