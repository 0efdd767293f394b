package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/session"
)

// sessionsArgs is the command line of `kimigo sessions`.
type sessionsArgs struct {
	all, json, help bool
}

func parseSessionsArgs(args []string) (sessionsArgs, error) {
	var s sessionsArgs
	for _, a := range args {
		switch a {
		case "--all", "-a":
			s.all = true
		case "--json":
			s.json = true
		case "-h", "--help":
			s.help = true
		default:
			if strings.HasPrefix(a, "-") {
				return s, usagef("unknown option '%s'", a)
			}
			return s, usagef("too many arguments for 'sessions': it takes none, got %q.", a)
		}
	}
	return s, nil
}

const sessionsUsage = `Usage: kimigo sessions [--all] [--json]

List this directory's sessions, the most recently updated first, with the
command that resumes each.

  -a, --all   list the sessions of every directory
      --json  one JSON array, for scripts
`

// sessionEntry is one session of the --json listing.
type sessionEntry struct {
	SessionID     string `json:"session_id"`
	Title         string `json:"title"`
	LastPrompt    string `json:"last_prompt"`
	UpdatedAt     string `json:"updated_at"`
	CreatedAt     string `json:"created_at"`
	Turns         int    `json:"turns"`
	WorkDir       string `json:"work_dir"`
	ResumeCommand string `json:"resume_command"`
}

// runSessions is `kimigo sessions [--all] [--json]` (issue 15 item 6): it
// reads the index and the sessions' state.json files, never a record
// log, so it stays fast however large the sessions are.
func runSessions(args []string, env config.Env, p proc) int {
	a, err := parseSessionsArgs(args)
	if err != nil {
		return printUsageError(p.stderr, err)
	}
	if a.help {
		fmt.Fprint(p.stdout, sessionsUsage)
		return exitOK
	}
	cwd, err := p.getwd()
	if err != nil {
		return fail(p, fmt.Errorf("find the working directory: %w", err))
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return fail(p, err)
	}
	store := session.NewStore(session.StoreOptions{Root: absolute(cwd, home),
		OnWarning: func(msg string) { fmt.Fprintf(p.stderr, "Warning: %s\n", msg) }})
	opts := session.ListOptions{WorkDir: cwd}
	if a.all {
		opts.WorkDir = ""
	}
	list, err := store.List(opts)
	if err != nil {
		return fail(p, fmt.Errorf("list sessions: %w", err))
	}
	if a.json {
		err = writeSessionsJSON(p.stdout, list)
	} else {
		err = writeSessionsText(p.stdout, list, cwd, a.all, p.stdoutWidth)
	}
	if err != nil {
		return fail(p, fmt.Errorf("write the list: %w", err))
	}
	return exitOK
}

func writeSessionsJSON(w io.Writer, list []session.Summary) error {
	out := make([]sessionEntry, 0, len(list))
	for _, s := range list {
		out = append(out, sessionEntry{SessionID: s.ID, Title: s.Title, LastPrompt: s.LastPrompt,
			UpdatedAt: s.UpdatedAt.UTC().Format(time.RFC3339), CreatedAt: s.CreatedAt.UTC().Format(time.RFC3339),
			Turns: s.Turns, WorkDir: s.WorkDir, ResumeCommand: resumeCommand(s.ID)})
	}
	b, err := plainjson.Marshal(out)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeSessionsText writes one block per session: the id, when it was
// updated, its turns and title; the last prompt when it says more than
// the title; the work dir with --all.
func writeSessionsText(w io.Writer, list []session.Summary, cwd string, all bool, width int) error {
	if len(list) == 0 {
		where := fmt.Sprintf("under %q", cwd)
		if all {
			where = "yet"
		}
		_, err := fmt.Fprintf(w, "No sessions %s. Start one with: kimigo -p \"…\"\n", where)
		return err
	}
	var b strings.Builder
	for _, s := range list {
		turns := "?"
		if s.Turns > 0 {
			turns = fmt.Sprint(s.Turns)
		}
		fmt.Fprintf(&b, "%s  %s  %s turns  %s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), turns,
			clipLine(s.Title, width, 40+len(s.ID)))
		if lp := oneLine(s.LastPrompt); lp != "" && lp != oneLine(s.Title) {
			fmt.Fprintf(&b, "  last prompt: %s\n", clipLine(lp, width, 15))
		}
		if all {
			fmt.Fprintf(&b, "  in: %s\n", s.WorkDir)
		}
	}
	fmt.Fprintf(&b, "\nResume one with: kimigo -r <id> -p \"…\"\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clipLine cuts s to what fits after used columns of a terminal width
// (100 columns when the width is unknown).
func clipLine(s string, width, used int) string {
	if width <= 0 {
		width = 100
	}
	room := max(width-used, 20)
	rs := []rune(s)
	if len(rs) <= room {
		return s
	}
	return string(rs[:room-1]) + "…"
}
