package profile

import (
	"bytes"
	"context"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

const (
	// gitTimeout bounds each git call; a prompt is not worth waiting for a
	// slow file system.
	gitTimeout = 3 * time.Second
	// gitDrainGrace bounds reading the pipes after git exited, in case a
	// helper it started still holds them.
	gitDrainGrace = 250 * time.Millisecond
	// gitOutputMax is how much of stdout is kept; newlines are counted
	// past it.
	gitOutputMax = 64 << 10
)

// gitOutput is what one git call printed and how it ended.
type gitOutput struct {
	stdout, stderr string
	newlines       int // in all of stdout, kept or not
	code           int
}

// lines returns the kept, non-empty stdout lines.
func (o gitOutput) lines() []string {
	var out []string
	for l := range strings.SplitSeq(o.stdout, "\n") {
		if l = strings.TrimRight(l, "\r"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// runGit runs git with args in dir through env and waits at most
// gitTimeout. The error is a start failure (git missing) or the timeout.
func runGit(ctx context.Context, env osenv.Env, dir string, args ...string) (gitOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	proc, err := env.Exec(osenv.Cmd{
		Args: append([]string{gitBinary(env), "--no-pager", "-c", "core.quotepath=false"}, args...),
		Dir:  dir,
		// No index refresh lock, no prompts, stable English messages.
		Env: []string{"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"},
	})
	if err != nil {
		return gitOutput{}, err
	}
	defer func() { _ = proc.Close() }() // read ends only; nothing to flush
	stdout := &capWriter{max: gitOutputMax}
	stderr := &capWriter{max: 4 << 10}
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(stdout, proc.Stdout()) }) // a read error ends the output early
	wg.Go(func() { _, _ = io.Copy(stderr, proc.Stderr()) })
	select {
	case <-proc.Done():
	case <-ctx.Done():
		_ = proc.Kill(syscall.SIGKILL) // a group already gone is not an error
		<-proc.Done()
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(gitDrainGrace):
		_ = proc.Close() // unblocks the readers
		<-drained
	}
	if err := ctx.Err(); err != nil {
		return gitOutput{}, err
	}
	code, _ := proc.ExitCode()
	return gitOutput{stdout: stdout.buf.String(), stderr: stderr.buf.String(), newlines: stdout.newlines, code: code}, nil
}

// gitBinary is the git that env's PATH names first, so the agent's
// environment decides which git runs, as it does for its other commands;
// plain "git" (the process's PATH) when none is found there.
func gitBinary(env osenv.Env) string {
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" || !path.IsAbs(dir) {
			continue
		}
		p := path.Join(dir, "git")
		if fi, err := env.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return "git"
}

// capWriter keeps the first max bytes written and counts every newline.
type capWriter struct {
	buf      bytes.Buffer
	max      int
	newlines int
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.newlines += bytes.Count(p, []byte{'\n'})
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
