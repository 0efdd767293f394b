package search

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/internal/bug"
)

// VCSDirs are the version-control directories every walk skips, wherever
// they are and whatever the ignore files say.
var VCSDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// candidate is a regular file the walk yields: not a symlink, not excluded,
// not ignored.
type candidate struct {
	path string // absolute
	rel  string // slash-separated, relative to the walk root
	name string // base name
}

// walkSpec says what one walk visits.
type walkSpec struct {
	root           string // absolute, clean directory
	includeIgnored bool   // do not read ignore files
	excludes       globSet
	// descend, when set, prunes directories (rel to the root) whose
	// subtree cannot hold a wanted file.
	descend func(rel string) bool
	// queueFiles makes every file its own task, so expensive visits
	// (searching contents) spread over the workers; otherwise files are
	// visited by the worker that listed their directory.
	queueFiles bool
	// visit is called once per candidate, from worker wi, concurrently
	// with other workers.
	visit func(wi int, c candidate)
}

// walker runs one parallel walk: a bounded pool of workers sharing a stack
// of directories (and, with queueFiles, files). It returns only after every
// worker has exited.
type walker struct {
	fs    files
	spec  walkSpec
	queue workQueue

	mu       sync.Mutex
	warnings []string // guarded by mu
	fatal    error    // guarded by mu; the root could not be listed, or a worker panicked
}

// task is a directory to list or, with queueFiles, a file to visit.
type task struct {
	parent *dirFrame // the frame of the directory holding path
	file   *candidate
	dir    string // absolute, for a directory task
	rel    string
}

// run walks the tree with n workers. On cancellation it stops handing out
// work, waits for the workers and returns; callers read ctx themselves.
func (w *walker) run(ctx context.Context, n int) {
	if ctx.Err() != nil {
		return
	}
	stop := context.AfterFunc(ctx, w.queue.stop)
	defer stop()
	var parent *dirFrame
	if !w.spec.includeIgnored {
		parent = ancestorFrames(w.fs.fs, w.spec.root, w.warn)
	}
	w.queue.push(task{parent: parent, dir: w.spec.root})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { w.work(ctx, i) })
	}
	wg.Wait()
}

// stop ends the walk early; workers finish their current task.
func (w *walker) stop() { w.queue.stop() }

func (w *walker) work(ctx context.Context, wi int) {
	defer func() {
		if p := recover(); p != nil {
			w.setFatal(fmt.Errorf("search worker panicked: %v", p))
			w.queue.stop()
			bug.Reportf("search worker panicked: %v\n%s", p, debug.Stack())
		}
	}()
	for {
		t, ok := w.queue.pop()
		if !ok {
			return
		}
		if ctx.Err() != nil {
			w.queue.stop() // also wakes workers waiting in pop
			return
		}
		if t.file != nil {
			w.spec.visit(wi, *t.file)
		} else {
			w.listDir(ctx, wi, t)
		}
		w.queue.done()
	}
}

// listDir reads one directory, builds its frame and queues or visits what
// survives the filters.
func (w *walker) listDir(ctx context.Context, wi int, t task) {
	entries, err := w.fs.list(t.dir)
	if ctx.Err() != nil {
		return // the listing may have outlived the deadline: drop it
	}
	if err != nil {
		if t.dir == w.spec.root {
			w.setFatal(rootError(t.dir, err))
		} else {
			w.warn(fmt.Sprintf("%s: %v", t.dir, unwrapPathError(err)))
		}
		return
	}
	frame := t.parent
	if !w.spec.includeIgnored {
		frame = newDirFrame(w.fs.fs, t.parent, t.dir, entries, w.warn)
	}
	// Sorted, so that files reach visit in name order within a directory
	// (results are sorted afterwards either way).
	slices.SortFunc(entries, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	var next []task
	for _, e := range entries {
		name := e.name
		if slices.Contains(VCSDirs, name) {
			continue
		}
		typ := e.typ
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() {
			continue // symlinks are not followed; devices, sockets and pipes are not searched
		}
		abs := joinPath(t.dir, name)
		rel := name
		if t.rel != "" {
			rel = t.rel + "/" + name
		}
		if w.spec.excludes.match(rel, name) {
			continue
		}
		if frame != nil && frame.isIgnored(abs, isDir) {
			continue
		}
		switch {
		case isDir:
			if w.spec.descend == nil || w.spec.descend(rel) {
				next = append(next, task{parent: frame, dir: abs, rel: rel})
			}
		case w.spec.queueFiles:
			next = append(next, task{parent: frame, file: &candidate{path: abs, rel: rel, name: name}})
		default:
			w.spec.visit(wi, candidate{path: abs, rel: rel, name: name})
		}
	}
	// Reverse so the stack hands out entries in name order.
	slices.Reverse(next)
	w.queue.push(next...)
}

func (w *walker) warn(msg string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, msg)
	w.mu.Unlock()
}

func (w *walker) setFatal(err error) {
	w.mu.Lock()
	if w.fatal == nil {
		w.fatal = err
	}
	w.mu.Unlock()
}

// result returns the sorted warnings and the fatal error, after run.
func (w *walker) result() ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	slices.Sort(w.warnings)
	return w.warnings, w.fatal
}

func joinPath(dir, name string) string {
	if len(dir) > 0 && dir[len(dir)-1] == filepath.Separator {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// unwrapPathError drops the path of an *fs.PathError, for messages that
// already name it.
func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// workQueue is a LIFO stack of tasks with completion tracking: pop blocks
// while the stack is empty but some task is still running (it may push
// more) and reports false once everything is done or the queue stopped.
type workQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	tasks   []task // guarded by mu
	running int    // guarded by mu; popped but not done
	stopped bool   // guarded by mu
}

func (q *workQueue) lock() {
	q.mu.Lock()
	if q.cond == nil {
		q.cond = sync.NewCond(&q.mu)
	}
}

func (q *workQueue) push(ts ...task) {
	if len(ts) == 0 {
		return
	}
	q.lock()
	q.tasks = append(q.tasks, ts...)
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *workQueue) pop() (task, bool) {
	q.lock()
	defer q.mu.Unlock()
	for len(q.tasks) == 0 && q.running > 0 && !q.stopped {
		q.cond.Wait()
	}
	if q.stopped || len(q.tasks) == 0 {
		return task{}, false
	}
	t := q.tasks[len(q.tasks)-1]
	q.tasks[len(q.tasks)-1] = task{}
	q.tasks = q.tasks[:len(q.tasks)-1]
	q.running++
	return t, true
}

func (q *workQueue) done() {
	q.lock()
	q.running--
	finished := q.running == 0 && len(q.tasks) == 0
	q.mu.Unlock()
	if finished {
		q.cond.Broadcast()
	}
}

func (q *workQueue) stop() {
	q.lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
