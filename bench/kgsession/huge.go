//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimigo/kimigo/session"
)

// smallSessions is how many ordinary sessions share the work dir with the
// huge one, so listing has more than one entry to read.
const smallSessions = 50

// huge generates the synthetic session, or with reuse takes the one a
// previous run left in tmp, and measures listing and resume.
func huge(bin, tmp string, size int64, n int, reuse bool) error {
	home, work := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	var g generated
	if reuse {
		sum, ok, err := session.NewStore(session.StoreOptions{Root: home}).Latest(work)
		if err != nil || !ok {
			return fmt.Errorf("no session to reuse under %s: %v", tmp, err)
		}
		g.id = sum.ID
		fmt.Printf("reusing %s\n", g.id)
	} else {
		var err error
		if g, err = generateAll(home, work, size); err != nil {
			return err
		}
	}
	fmt.Println("load average:", loadAverage())

	// Listing: the store's Latest, as -c and export call it, on a fresh
	// store each time.
	var latest []float64
	for range max(n, 20) {
		store := session.NewStore(session.StoreOptions{Root: home})
		t0 := time.Now()
		sum, ok, err := store.Latest(work)
		latest = append(latest, ms(time.Since(t0)))
		if err != nil || !ok || sum.ID != g.id {
			return fmt.Errorf("latest session = %s, %v, %v; want %s", sum.ID, ok, err, g.id)
		}
	}
	fmt.Printf("list the work dir's %d sessions (session.Store.Latest, in process), ms: %v\n", smallSessions+1, statsOf(latest))

	base, err := serve(newFakeModel(wireOpenAI, 0, nil))
	if err != nil {
		return err
	}
	env := environment(tmp, home, base, wireOpenAI, 262144)
	var export, resume, resumeCPU, rss []float64
	for range n {
		c, err := runChild(work, env, "n\n", bin, "export")
		if err != nil {
			return err
		}
		if c.stdout != "Export cancelled.\n" {
			return fmt.Errorf("kimigo export did not offer %s:\n%s%s", g.id, c.stdout, c.stderr)
		}
		export = append(export, ms(c.wall))
	}
	fmt.Printf("kimigo export, answered n (whole process: lists, asks), ms: %v\n", statsOf(export))
	var sessions []float64
	for range max(n, 20) {
		c, err := runChild(work, env, "", bin, "sessions")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(c.stdout, g.id+"  ") {
			return fmt.Errorf("kimigo sessions did not list %s first:\n%s%s", g.id, c.stdout, c.stderr)
		}
		sessions = append(sessions, ms(c.wall))
	}
	fmt.Printf("kimigo sessions (whole process: index and state.json only), ms: %v\n", statsOf(sessions))
	for range n {
		c, err := runChild(work, env, "", bin, "-c", "-p", "continue")
		if err != nil {
			return err
		}
		if !strings.Contains(c.stderr, "kimigo -r "+g.id) {
			return fmt.Errorf("kimigo -c resumed another session:\n%s", c.stderr)
		}
		resume, resumeCPU = append(resume, ms(c.wall)), append(resumeCPU, ms(c.cpu))
		rss = append(rss, c.rssMiB)
	}
	fmt.Printf("kimigo -c -p continue (whole process: resume, one request, close), ms: %v; cpu ms: %v\n",
		statsOf(resume), statsOf(resumeCPU))
	fmt.Printf("peak RSS of the resuming process, MiB: %v\n", statsOf(rss))
	return nil
}

// generateAll writes the small sessions, then the huge one, the latest.
func generateAll(home, work string, size int64) (generated, error) {
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return generated{}, err
		}
	}
	ctx := context.Background()
	for range smallSessions {
		if _, err := generateSession(ctx, home, work, 0, hugeShape{stepsPerTurn: 2, outputBytes: 2 << 10,
			imageBytes: 8 << 10, imageEvery: 2}); err != nil {
			return generated{}, err
		}
	}
	start := time.Now()
	g, err := generateSession(ctx, home, work, size, defaultShape)
	if err != nil {
		return g, err
	}
	fmt.Printf("generated %s in %.1f s: wire.jsonl %.1f MiB, blobs %.1f MiB, %d turns, %d steps (+%d small sessions)\n",
		g.id, time.Since(start).Seconds(), float64(g.logBytes)/(1<<20), float64(g.blobSize)/(1<<20),
		g.turns, g.steps, smallSessions)
	return g, nil
}

// loadAverage is the first line of /proc/loadavg, where there is one.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
