package profile

import (
	"context"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// PromptContext is the runtime information a system prompt is rendered
// from (spec 05 §8.5). PrepareContext gathers the environment half; the
// caller adds Skills and PluginSections. Equal contexts render equal
// prompts, byte for byte.
type PromptContext struct {
	// OS is "macOS", "Linux", "Windows" or the raw platform name.
	OS string
	// Shell runs Bash commands.
	Shell osenv.Shell
	// Now is when the context was gathered. Prompts show only its date, in
	// its location, so a session's re-renders agree within a day.
	Now time.Time
	// WorkDir is the agent's working directory.
	WorkDir string
	// WorkDirListing is the two-level tree of WorkDir, hidden directories
	// collapsed; "" when absent.
	WorkDirListing string
	// AgentsMD is the merged AGENTS.md content; "" when there is none.
	AgentsMD string
	// AdditionalDirsInfo lists each additional directory; "" when none.
	AdditionalDirsInfo string
	// Git is the repository state of WorkDir; the zero value when git is
	// missing or failed.
	Git GitState
	// Skills is the model-facing skill listing (spec 05 §9.4). A profile
	// shows it only when it enables the Skill tool.
	Skills string
	// PluginSections are the composed plugin prompt sections (§8.6).
	PluginSections string
	// RoleAdditional, when set, replaces the profile's role text.
	RoleAdditional string
	// Sandbox is how Bash commands are confined; the zero value says
	// they are not.
	Sandbox SandboxInfo
}

// SandboxInfo is the command sandbox the prompt states: Mode is
// "read-only", "workspace-write", or "" / "off" for none.
type SandboxInfo struct {
	Mode    string
	Network bool
}

// WarningCode classifies a Warning; it is sent on the wire as is.
type WarningCode string

// WarningAgentsMDOversized reports merged AGENTS.md content over 32 KiB.
const WarningAgentsMDOversized WarningCode = "agents-md-oversized"

// Warning is a degraded-but-continuing condition the session shows the
// user as a warning event.
type Warning struct {
	Code    WarningCode
	Message string
}

// PrepareContext gathers the runtime prompt context for an agent working
// in workDir (spec 05 §8.5): OS, shell, date, the directory listing, the
// AGENTS.md files, the additional directories and the git state. home is
// kimigo's data root (where the user-level AGENTS.md lives); the OS home
// comes from env. The parts are gathered concurrently; each is sorted and
// independent of timing, except the git state: git gets gitDeadline, and
// a repository whose status takes longer is described without it (the
// verdict is cached under home, see git_cache.go). Unreadable files only
// shrink the result; the error is ctx's when it ends first.
func PrepareContext(ctx context.Context, env osenv.Env, workDir string, additionalDirs []string, home string) (PromptContext, []Warning, error) {
	return prepareContext(ctx, env, workDir, additionalDirs, home, gitProbe{deadline: gitDeadline, cacheDir: gitCacheDir(home)})
}

// prepareContext is PrepareContext with the git probe's settings.
func prepareContext(ctx context.Context, env osenv.Env, workDir string, additionalDirs []string, home string, probe gitProbe) (PromptContext, []Warning, error) {
	workDir = absPath(env, env.Cwd(), workDir)
	pc := PromptContext{OS: osName(runtime.GOOS), Shell: env.Shell(), Now: time.Now(), WorkDir: workDir}
	root := ProjectRoot(env, workDir)
	var (
		wg      sync.WaitGroup
		warning *Warning
	)
	wg.Go(func() { pc.WorkDirListing = listDirectory(env, workDir, collapseHidden) })
	wg.Go(func() { pc.AgentsMD, warning = collectAgentsMD(env, root, workDir, home) })
	wg.Go(func() { pc.AdditionalDirsInfo = additionalDirsInfo(env, workDir, additionalDirs) })
	wg.Go(func() { pc.Git = gatherGit(ctx, env, workDir, root, probe) })
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return PromptContext{}, nil, err
	}
	var warnings []Warning
	if warning != nil {
		warnings = append(warnings, *warning)
	}
	return pc, warnings, nil
}

// ProjectRoot is the nearest ancestor of dir (dir included) that contains
// a .git entry, or dir itself when there is none.
func ProjectRoot(fsys osenv.FS, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if _, err := fsys.Lstat(path.Join(d, ".git")); err == nil {
			return d
		}
		if d == "/" || d == "." || d == "" {
			return dir
		}
	}
}

// additionalDirsInfo renders "### <dir>\n<listing>" per distinct
// directory, hidden directories expanded, joined with a blank line.
func additionalDirsInfo(env osenv.Env, workDir string, dirs []string) string {
	var sections []string
	var seen []string
	for _, d := range dirs {
		d = absPath(env, workDir, d)
		if slices.Contains(seen, d) {
			continue
		}
		seen = append(seen, d)
		sections = append(sections, "### "+d+"\n"+listDirectory(env, d, expandHidden))
	}
	return strings.Join(sections, "\n\n")
}

// absPath resolves p against base and cleans it.
func absPath(env osenv.Env, base, p string) string {
	if !path.IsAbs(p) {
		p = path.Join(base, p)
	}
	return env.Normpath(p)
}

const osWindows = "Windows"

// osName is the OS kind of spec 05 §8.4 for a GOOS value.
func osName(goos string) string {
	switch goos {
	case "darwin":
		return "macOS"
	case "linux":
		return "Linux"
	case "windows":
		return osWindows
	}
	return goos
}
