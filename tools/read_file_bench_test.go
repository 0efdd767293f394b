package tools_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// BenchmarkReadNearEndOf100MB reads 100 lines just before the end of a
// 100 MB file. Read must stream: besides time it reports the peak heap
// growth during the call, which must stay far below the file size.
func BenchmarkReadNearEndOf100MB(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.txt")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := strings.Repeat("0123456789", 9) + "\n" // 91 bytes
	lines := 0
	for size := 0; size < 100<<20; size += len(line) {
		w.WriteString(line)
		lines++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: dir})
	read := tools.NewReadFile(tools.Base{Env: env})
	exec, _, err := read.ResolveExecution([]byte(fmt.Sprintf(`{"path":%q,"line_offset":%d,"n_lines":100}`, p, lines-150)))
	if err != nil {
		b.Fatal(err)
	}

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		var m runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	})
	b.ReportAllocs()
	b.SetBytes(100 << 20)
	b.ResetTimer()
	for b.Loop() {
		r, err := exec.Execute(b.Context(), execCtx())
		if err != nil || r.IsError || !strings.HasPrefix(r.Output.Text(), fmt.Sprint(lines-150)+"\t") {
			b.Fatalf("read: %v %q", err, r.Output.Text()[:40])
		}
	}
	b.StopTimer()
	close(stop)
	sampler.Wait()
	growth := float64(0)
	if p := peak.Load(); p > base.HeapAlloc {
		growth = float64(p-base.HeapAlloc) / (1 << 20)
	}
	b.ReportMetric(growth, "peak-heap-MB")
}
