package profile

import (
	"path"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// originURL reads remote.origin.url from the repository's config file
// without starting git (one process less on a cold start), when nothing
// can make git answer otherwise. ok is false, and the caller asks `git
// remote get-url origin`, when the config file is missing, when the
// environment adds or replaces config files, when any config file git
// reads mentions url rewriting (insteadOf), includes or per-worktree
// config, or when the value is not a plain one. A config without the
// remote gives "", as git's "No such remote" does.
func originURL(env osenv.Env, config string) (url string, ok bool) {
	if config == "" {
		return "", false
	}
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_DIR", "GIT_COMMON_DIR"} {
		if env.Getenv(k) != "" {
			return "", false
		}
	}
	repo, err := env.ReadFile(config)
	if err != nil || rewrites(repo) {
		return "", false
	}
	var others []string
	if home := env.Home(); home != "" {
		others = append(others, path.Join(home, ".gitconfig"))
		xdg := env.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = path.Join(home, ".config")
		}
		others = append(others, path.Join(xdg, "git", "config"))
	}
	if env.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		others = append(others, "/etc/gitconfig")
	}
	for _, f := range others {
		if b, err := env.ReadFile(f); err == nil && rewrites(b) {
			return "", false
		}
	}
	return configValue(string(repo), "remote", "origin", "url")
}

// rewrites reports whether a config file may change what another file's
// remote URL means: url.<base>.insteadOf, includes, worktree config.
func rewrites(b []byte) bool {
	s := strings.ToLower(string(b))
	return strings.Contains(s, "insteadof") || strings.Contains(s, "include") || strings.Contains(s, "worktreeconfig")
}

// configValue returns the first value of key in section "name"."sub" of a
// git config file. ok is false for what it does not read plainly: quoted
// or escaped values, continuation lines, comments after a value.
func configValue(text, name, sub, key string) (value string, ok bool) {
	in := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "", false
			}
			if rest := strings.TrimSpace(line[end+1:]); rest != "" && rest[0] != '#' && rest[0] != ';' {
				return "", false // a key on the header's line
			}
			head := strings.TrimSpace(line[1:end])
			sec, subsec, quoted := strings.Cut(head, " ")
			if quoted {
				subsec = strings.TrimSpace(subsec)
				if len(subsec) < 2 || subsec[0] != '"' || subsec[len(subsec)-1] != '"' || strings.ContainsAny(subsec[1:len(subsec)-1], `"\`) {
					return "", false
				}
				subsec = subsec[1 : len(subsec)-1]
			} else if s, ss, dotted := strings.Cut(head, "."); dotted {
				sec, subsec = s, strings.ToLower(ss) // the old [remote.origin] form
			}
			in = strings.EqualFold(sec, name) && subsec == sub
			continue
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, "\"\\#;") {
			return "", false
		}
		return v, true
	}
	return "", true
}
