package profile

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// agentsMDRecommendedMax is the size past which merged AGENTS.md content
// draws a warning. The content is never cut.
const agentsMDRecommendedMax = 32 << 10

// collectAgentsMD reads the AGENTS.md files that apply to workDir and
// merges them, lowest precedence first (spec 05 §8.5): the one in kimigo's
// data root, the user's ~/.agents one, then for each directory from the
// project root down to workDir its .kimi-code/AGENTS.md and its own
// AGENTS.md (or agents.md). Each group contributes its first existing
// regular file, when that has non-blank content; a path is read once.
func collectAgentsMD(env osenv.Env, root, workDir, dataHome string) (string, *Warning) {
	var groups [][]string
	if dataHome != "" {
		groups = append(groups, []string{path.Join(dataHome, "AGENTS.md")})
	}
	if home := env.Home(); home != "" {
		groups = append(groups, []string{path.Join(home, ".agents", "AGENTS.md"), path.Join(home, ".agents", "agents.md")})
	}
	for _, d := range dirsDown(root, workDir) {
		groups = append(groups,
			[]string{path.Join(d, ".kimi-code", "AGENTS.md")},
			[]string{path.Join(d, "AGENTS.md"), path.Join(d, "agents.md")})
	}
	var blocks, seen []string
	for _, g := range groups {
		p, ok := firstRegularFile(env, g)
		if !ok || slices.Contains(seen, p) {
			continue
		}
		seen = append(seen, p)
		data, err := env.ReadFile(p)
		if err != nil {
			continue // unreadable instructions are skipped, like missing ones
		}
		content := strings.TrimSpace(strings.ToValidUTF8(string(data), ""))
		if content == "" {
			continue
		}
		blocks = append(blocks, "<!-- From: "+p+" -->\n"+content)
	}
	merged := strings.Join(blocks, "\n\n")
	if len(merged) <= agentsMDRecommendedMax {
		return merged, nil
	}
	return merged, &Warning{Code: WarningAgentsMDOversized, Message: fmt.Sprintf(
		"AGENTS.md total %s KB exceeds the recommended 32 KB. Every request carries it, so large instruction files cost more and can slow the agent down; consider trimming them.",
		kib(len(merged)))}
}

// dirsDown lists the directories from root down to dir, both included.
// When dir is not below root it is the only one.
func dirsDown(root, dir string) []string {
	if !osenv.Within(dir, root) {
		return []string{dir}
	}
	var out []string
	for d := dir; ; d = path.Dir(d) {
		out = append(out, d)
		if d == root || d == "/" {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// firstRegularFile returns the first candidate that exists, cleaned, and
// whether it is a regular file.
func firstRegularFile(fsys osenv.FS, candidates []string) (string, bool) {
	for _, c := range candidates {
		fi, err := fsys.Stat(c)
		if err != nil {
			continue
		}
		return path.Clean(c), fi.Mode().IsRegular()
	}
	return "", false
}

// kib formats n bytes as KiB with at most one decimal: 40960 → "40".
func kib(n int) string {
	return strconv.FormatFloat(math.Round(float64(n)/1024*10)/10, 'f', -1, 64)
}
