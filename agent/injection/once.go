package injection

import (
	"context"

	"github.com/kimigo/kimigo/agent/history"
)

// OncePerContext adds its reminder once per context (spec 04 §8.2, the
// shape of the plugin session-start injector): not again while it is in
// history — a resumed history that already holds one counts — and again
// after a clear or a compaction dropped it. An empty Text adds nothing.
type OncePerContext struct {
	Tracker
	Variant string
	Text    func(h Host) string
}

// Inject implements Injector.
func (o *OncePerContext) Inject(ctx context.Context, h Host) error {
	if _, ok := o.InjectedAt(); ok {
		return nil
	}
	for i, m := range h.History() {
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == o.Variant {
			o.mark(i)
			return nil
		}
	}
	return o.Append(ctx, h, o.Variant, o.Text(h))
}
