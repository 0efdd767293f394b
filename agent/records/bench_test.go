package records_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/records"
)

// benchRecord is an assistant message record of about 500 bytes.
func benchRecord(b *testing.B, i int) records.Record {
	return mustNew(b, "context.append_message", map[string]any{
		"message": map[string]any{
			"role":    "assistant",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("%05d ", i) + strings.Repeat("lorem ipsum ", 33)}},
		},
	})
}

// BenchmarkAppendGroupCommit measures durable appends: every writer
// appends a record and waits for Flush. With 16 writers the group commit
// shares one fsync among the records that arrive together.
func BenchmarkAppendGroupCommit(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			fp, err := records.OpenFile(records.FileOptions{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			log := records.NewLog(records.LogOptions{Persistence: fp})
			rec := benchRecord(b, 1)
			ctx := b.Context()
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			per := (b.N + writers - 1) / writers
			for range writers {
				wg.Go(func() {
					for range per {
						if err := log.Record(rec); err != nil {
							b.Error(err)
							return
						}
						if err := log.Flush(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(per*writers)/time.Since(start).Seconds(), "records/s")
			b.StopTimer()
			if err := log.Close(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkReplay100k replays a log of 100,000 records of about 500 bytes.
func BenchmarkReplay100k(b *testing.B) {
	dir := b.TempDir()
	f, err := os.Create(wirePath(dir))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, meta14)
	for i := range 100_000 - 1 {
		r := benchRecord(b, i)
		r.Time = nowMs + int64(i)
		fmt.Fprintln(w, r.String())
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		fp, err := records.OpenFile(records.FileOptions{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		log := records.NewLog(records.LogOptions{Persistence: fp})
		n := 0
		if _, err := log.Replay(b.Context(), func(records.Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 100_000 {
			b.Fatalf("replayed %d records", n)
		}
		if err := log.Close(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
