package background_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// BenchmarkHundredChattyTasks runs 100 background processes at once, each
// printing 1 MB, and reports the peak Go heap and the process RSS while
// they run: the in-memory rings are bounded, and every byte reaches the
// tasks' output.log files.
//
//	go test -run '^$' -bench HundredChattyTasks -benchtime 3x ./agent/background
func BenchmarkHundredChattyTasks(b *testing.B) {
	const tasks, size = 100, 1_000_000
	var peakHeap, peakRSS atomic.Uint64
	for b.Loop() {
		home := b.TempDir()
		env := osenv.NewLocal(osenv.LocalOptions{Cwd: home, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		m := background.New(background.Options{Dir: home})
		runtime.GC()
		stop := sampleMemory(&peakHeap, &peakRSS)
		ids := make([]string, 0, tasks)
		for i := range tasks {
			p, err := env.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c",
				"head -c " + strconv.Itoa(size) + " /dev/zero | tr '\\0' " + string(rune('a'+i%26))}, CombinedOutput: true})
			if err != nil {
				b.Fatal(err)
			}
			task, err := m.StartProcess(context.Background(), tools.BackgroundProcess{Process: p, Command: "print", Description: "print"})
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, task.ID)
		}
		if err := m.WaitForActive(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		stop()
		for _, id := range ids {
			info, _ := m.Get(id)
			fi, err := os.Stat(filepath.Join(home, "tasks", id, "output.log"))
			if info.Status != tools.TaskCompleted || err != nil || fi.Size() != size {
				b.Fatalf("task %s: %+v, log %v %v", id, info, fi, err)
			}
		}
		if err := m.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(peakRSS.Load())/(1<<20), "peak-rss-MiB")
}

// sampleMemory records the largest live heap and RSS seen until stop.
func sampleMemory(heap, rss *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			raise(heap, s[0].Value.Uint64())
			raise(rss, residentBytes())
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func raise(a *atomic.Uint64, v uint64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

// residentBytes is VmRSS of this process (0 where /proc has none).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
