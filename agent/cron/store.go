package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// validID is the shape of a job id: 8 lowercase hex digits. It is checked
// before an id names a file.
var validID = regexp.MustCompile(`^[0-9a-f]{8}$`)

// ValidID reports whether id has the shape of a job id.
func ValidID(id string) bool { return validID.MatchString(id) }

// jobRecord is cron/<id>.json.
type jobRecord struct {
	ID        string `json:"id"`
	Cron      string `json:"cron"`
	Prompt    string `json:"prompt"`
	CreatedAt int64  `json:"createdAt"`
	// Recurring absent means true.
	Recurring   *bool  `json:"recurring,omitempty"`
	LastFiredAt *int64 `json:"lastFiredAt,omitempty"`
}

func recordOf(j Job) jobRecord {
	r := jobRecord{ID: j.ID, Cron: j.Cron, Prompt: j.Prompt, CreatedAt: j.CreatedAt.UnixMilli()}
	rec := j.Recurring
	r.Recurring = &rec
	if !j.LastFiredAt.IsZero() {
		ms := j.LastFiredAt.UnixMilli()
		r.LastFiredAt = &ms
	}
	return r
}

func (r jobRecord) job(loc *time.Location) Job {
	j := Job{ID: r.ID, Cron: r.Cron, Prompt: r.Prompt, CreatedAt: time.UnixMilli(r.CreatedAt).In(loc),
		Recurring: r.Recurring == nil || *r.Recurring}
	if r.LastFiredAt != nil {
		j.LastFiredAt = time.UnixMilli(*r.LastFiredAt).In(loc)
	}
	return j
}

// LoadError is a job file a resume skipped, and why.
type LoadError struct {
	Path string
	Err  error
}

func (e LoadError) Error() string { return fmt.Sprintf("cron job file %s: %v", e.Path, e.Err) }

func (e LoadError) Unwrap() error { return e.Err }

// jobStore persists jobs as <dir>/cron/<id>.json (spec 05 §7.5).
type jobStore struct {
	fs  osenv.FS
	dir string // "" keeps nothing on disk
}

func (s jobStore) cronDir() string { return path.Join(s.dir, "cron") }

func (s jobStore) write(j Job) error {
	if s.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(recordOf(j), "", "  ")
	if err != nil {
		return err
	}
	if _, err := s.fs.Stat(s.dir); err != nil { // a deleted agent home is not recreated
		return fmt.Errorf("agent home %s: %w", s.dir, err)
	}
	if err := s.fs.MkdirAll(s.cronDir(), 0o700); err != nil {
		return err
	}
	return osenv.WriteFileAtomic(s.fs, path.Join(s.cronDir(), j.ID+".json"), append(data, '\n'), 0o600)
}

func (s jobStore) remove(id string) error {
	if s.dir == "" {
		return nil
	}
	err := s.fs.Remove(path.Join(s.cronDir(), id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// load reads every job file; files that are not valid jobs are returned
// as problems and skipped.
func (s jobStore) load(loc *time.Location) ([]Job, []error) {
	if s.dir == "" {
		return nil, nil
	}
	entries, err := s.fs.ReadDir(s.cronDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{LoadError{Path: s.cronDir(), Err: err}}
	}
	var (
		jobs     []Job
		problems []error
	)
	for _, de := range entries {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || de.IsDir() {
			continue
		}
		p := path.Join(s.cronDir(), de.Name())
		if !ValidID(id) {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("%q is not a job id", id)})
			continue
		}
		data, err := s.fs.ReadFile(p)
		if err != nil {
			problems = append(problems, LoadError{Path: p, Err: err})
			continue
		}
		var r jobRecord
		if err := json.Unmarshal(data, &r); err != nil {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("not a job record: %w", err)})
			continue
		}
		if r.ID != id {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("record is for job %q", r.ID)})
			continue
		}
		if _, err := Parse(r.Cron); err != nil {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("invalid cron expression: %w", err)})
			continue
		}
		if r.CreatedAt <= 0 {
			problems = append(problems, LoadError{Path: p, Err: errors.New("no createdAt")})
			continue
		}
		jobs = append(jobs, r.job(loc))
	}
	return jobs, problems
}
