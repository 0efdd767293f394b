package compaction

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// BenchmarkDecideAndBuild200k measures what a step pays to decide on a
// compaction and build its summary request for a 200,000-token history,
// the model call excluded: the pending context count with nothing covered
// yet, the strategy, and the projected, estimated and fitted request.
func BenchmarkDecideAndBuild200k(b *testing.B) {
	r := newRig(b, Options{})
	r.setCapability(llm.Capability{MaxContextTokens: 230_000})
	r.append(U("refactor the parser and keep the tests green"))
	for i := range 200 {
		id := fmt.Sprintf("call_%03d", i)
		r.append(A("", id))
		r.append(T(id, strings.Repeat("line of tool output ", 199)))
	}
	if n := r.TokenCountWithPending(); n < 200_000 || n > 210_000 {
		b.Fatalf("history is %d tokens; want about 200,000", n)
	}
	c := r.c
	b.ReportAllocs()
	for b.Loop() {
		used := r.TokenCountWithPending()
		if !c.Strategy().ShouldCompact(used) {
			b.Fatal("200,000 tokens do not call for a compaction")
		}
		m, err := c.o.Model()
		if err != nil {
			b.Fatal(err)
		}
		req := c.newSummaryRequest(m, "", r.History())
		msgs := req.fit(c.EffectiveMaxContextTokens())
		if req.estimate(msgs) < used || req.dropped != 0 {
			b.Fatalf("request estimate %d below the history or input dropped (%d)", req.estimate(msgs), req.dropped)
		}
	}
}
