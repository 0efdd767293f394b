package profile

import (
	_ "embed"
	"fmt"
	"strconv"
)

// Template variables (spec 05 §8.4). Profile templates name them as
// {{.KIMI_OS}}; agent files get the same values under their own names.
const (
	VarOS                  = "KIMI_OS"
	VarShell               = "KIMI_SHELL"
	VarNow                 = "KIMI_NOW"
	VarWorkDir             = "KIMI_WORK_DIR"
	VarWorkDirListing      = "KIMI_WORK_DIR_LS"
	VarAgentsMD            = "KIMI_AGENTS_MD"
	VarSkills              = "KIMI_SKILLS"
	VarPluginSections      = "KIMI_PLUGIN_SECTIONS"
	VarAdditionalDirsInfo  = "KIMI_ADDITIONAL_DIRS_INFO"
	VarWindowsNotes        = "KIMI_WINDOWS_NOTES"
	VarAdditionalDirsProse = "KIMI_ADDITIONAL_DIRS_SECTION_PROSE"
	VarSkillsProse         = "KIMI_SKILLS_SECTION_PROSE"
	VarPluginSectionsProse = "KIMI_PLUGIN_SECTIONS_PROSE"
	VarGitBranch           = "KIMI_GIT_BRANCH"
	VarGitDirty            = "KIMI_GIT_DIRTY"
	VarGitStatusNote       = "KIMI_GIT_STATUS_NOTE"
	VarSandbox             = "KIMI_SANDBOX"
	VarRoleAdditional      = "ROLE_ADDITIONAL"
)

const (
	// skillToolName gates the skill listing (spec 05 §8.4).
	skillToolName = "Skill"
	// dateLayout is day-granular, so prompts rendered on the same day are
	// byte-identical.
	dateLayout = "2006-01-02 (Monday)"
)

// The fixed prose of the template variables, single-sourced here and shared
// with the agent-file renderer.
var (
	//go:embed prose/windows_notes.md
	windowsNotesMD string
	//go:embed prose/additional_dirs.md
	additionalDirsMD string
	//go:embed prose/skills.md
	skillsMD string
	//go:embed prose/plugin_sections.md
	pluginSectionsMD string
	//go:embed prose/git_status_slow.md
	gitStatusSlowMD string
	//go:embed prose/sandbox_off.md
	sandboxOffMD string
	//go:embed prose/sandbox_workspace_write.md
	sandboxWorkspaceWriteMD string
	//go:embed prose/sandbox_read_only.md
	sandboxReadOnlyMD string
	//go:embed prose/sandbox_no_network.md
	sandboxNoNetworkMD string
)

// sandboxProse states how commands are confined (issue 16).
func sandboxProse(s SandboxInfo) string {
	var text string
	switch s.Mode {
	case "workspace-write":
		text = prose(sandboxWorkspaceWriteMD)
	case "read-only":
		text = prose(sandboxReadOnlyMD)
	default:
		return prose(sandboxOffMD)
	}
	if !s.Network {
		text += " " + prose(sandboxNoNetworkMD)
	}
	return text
}

func contextVarNames() []string {
	return []string{
		VarOS, VarShell, VarNow, VarWorkDir, VarWorkDirListing, VarAgentsMD, VarSkills,
		VarPluginSections, VarAdditionalDirsInfo, VarWindowsNotes, VarAdditionalDirsProse,
		VarSkillsProse, VarPluginSectionsProse, VarGitBranch, VarGitDirty, VarSandbox,
		VarGitStatusNote,
	}
}

// Vars returns the context variables a template sees when rendering for p,
// every name of contextVarNames set. The skill listing is there only when p
// enables the Skill tool. ROLE_ADDITIONAL is not included: it depends on
// the profile's promptVars.
func (pc PromptContext) Vars(p *Profile) map[string]string {
	skills := ""
	if p != nil && p.HasTool(skillToolName) {
		skills = pc.Skills
	}
	branch, dirty, note := "", "", ""
	switch {
	case pc.Git.Repo && pc.Git.Slow: // the changed files are unknown
		branch, note = pc.Git.Branch, prose(gitStatusSlowMD)
	case pc.Git.Repo:
		branch, dirty = pc.Git.Branch, strconv.Itoa(pc.Git.DirtyCount)
	}
	return map[string]string{
		VarOS:                  pc.OS,
		VarShell:               fmt.Sprintf("%s (`%s`)", pc.Shell.Name, pc.Shell.Path),
		VarNow:                 pc.Now.Format(dateLayout),
		VarWorkDir:             pc.WorkDir,
		VarWorkDirListing:      pc.WorkDirListing,
		VarAgentsMD:            pc.AgentsMD,
		VarSkills:              skills,
		VarPluginSections:      pc.PluginSections,
		VarAdditionalDirsInfo:  pc.AdditionalDirsInfo,
		VarWindowsNotes:        prose(windowsNotesMD),
		VarAdditionalDirsProse: prose(additionalDirsMD),
		VarSkillsProse:         prose(skillsMD),
		VarPluginSectionsProse: prose(pluginSectionsMD),
		VarGitBranch:           branch,
		VarGitDirty:            dirty,
		VarGitStatusNote:       note,
		VarSandbox:             sandboxProse(pc.Sandbox),
	}
}

// prose trims the final newline of an embedded prose file.
func prose(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
