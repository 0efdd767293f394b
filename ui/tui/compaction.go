package tui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/render"
)

// compaction is a compaction that runs: one the user asked for (cancel
// set) or an automatic one the events report.
type compaction struct {
	started time.Time
	auto    bool
	cancel  context.CancelFunc
}

type compactDoneMsg struct{ err error }

// startCompaction runs /compact. Compact returns when the compaction
// ended, so it runs on its own, not in the call queue, and Esc or Ctrl-C
// cancel its context.
func (m *Model) startCompaction(instruction string) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.compact = &compaction{started: m.now(), cancel: cancel}
	m.touch()
	s := m.sess
	return tea.Batch(func() tea.Msg {
		defer cancel()
		return compactDoneMsg{err: s.Compact(ctx, instruction)}
	}, m.animate())
}

// cancelCompaction cancels the compaction the user started; an automatic
// one belongs to its turn, which Esc cancels.
func (m *Model) cancelCompaction() tea.Cmd {
	if m.compact == nil {
		return nil
	}
	if m.compact.cancel != nil {
		m.compact.cancel()
		return nil
	}
	return m.cancelTurn()
}

func (m *Model) compactDone(msg compactDoneMsg) tea.Cmd {
	if m.compact == nil {
		return nil
	}
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		p := event.ErrorOf(msg.err)
		m.print(render.ErrorLine(m.theme, p.Code, p.Message, m.width))
	} else if msg.err != nil {
		m.notice(render.Warning, "Compaction cancelled.")
	}
	m.endCompaction()
	return m.drainQueue()
}
