package agentfile

import (
	"strings"

	"github.com/kimigo/kimigo/profile"
)

// filePrompt renders an agent file body: every ${name} whose name is a
// known variable is replaced, anything else (unknown names, {{…}}) stays
// verbatim, so rendering fails only when ${base_prompt} does (spec 05 §8.8).
type filePrompt struct {
	body string
	// base is the effective default profile, whose prompt ${base_prompt}
	// renders: SYSTEM.md's or the built-in one, never a file's, so a file
	// cannot recurse into itself.
	base *profile.Profile
}

// Render implements profile.Prompt.
func (f *filePrompt) Render(p *profile.Profile, pc profile.PromptContext) (string, error) {
	vars := fileVars(p, pc)
	if f.base != nil && referencesVar(f.body, "base_prompt") {
		base, err := f.base.SystemPrompt(pc)
		if err != nil {
			return "", err
		}
		vars["base_prompt"] = base
	}
	return substitute(f.body, vars), nil
}

// fileVars maps the agent-file variable names to the values built-in
// templates see, and composes the optional sections.
func fileVars(p *profile.Profile, pc profile.PromptContext) map[string]string {
	kv := pc.Vars(p)
	vars := map[string]string{
		"role_additional":      pc.RoleAdditional,
		"os":                   kv[profile.VarOS],
		"shell":                kv[profile.VarShell],
		"now":                  kv[profile.VarNow],
		"cwd":                  kv[profile.VarWorkDir],
		"cwd_listing":          kv[profile.VarWorkDirListing],
		"agents_md":            kv[profile.VarAgentsMD],
		"additional_dirs_info": kv[profile.VarAdditionalDirsInfo],
		"skills":               kv[profile.VarSkills],
		"sandbox":              kv[profile.VarSandbox],
	}
	vars["windows_notes"] = ""
	if pc.OS == "Windows" {
		vars["windows_notes"] = "\n\n" + kv[profile.VarWindowsNotes] + "\n\n"
	}
	vars["additional_dirs_section"] = section("## Additional Directories", kv[profile.VarAdditionalDirsProse], kv[profile.VarAdditionalDirsInfo])
	vars["skills_section"] = section("# Skills", kv[profile.VarSkillsProse], kv[profile.VarSkills])
	vars["plugin_sections"] = section("# Plugin Instructions", kv[profile.VarPluginSectionsProse], kv[profile.VarPluginSections])
	return vars
}

// section is "\n\n<heading>\n\n<prose>\n\n<content>\n\n", or "" without
// content.
func section(heading, prose, content string) string {
	if content == "" {
		return ""
	}
	return "\n\n" + heading + "\n\n" + prose + "\n\n" + content + "\n\n"
}

// substitute replaces ${name} for every name in vars, in one pass: a value
// is never scanned again.
func substitute(body string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(body, "${")
		if i < 0 {
			b.WriteString(body)
			return b.String()
		}
		b.WriteString(body[:i])
		body = body[i:]
		end := strings.IndexByte(body, '}')
		if end < 0 || !isIdent(body[2:end]) {
			b.WriteString("${")
			body = body[2:]
			continue
		}
		if v, ok := vars[body[2:end]]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(body[:end+1])
		}
		body = body[end+1:]
	}
}

// referencesVar reports whether body contains ${name}.
func referencesVar(body, name string) bool {
	return strings.Contains(body, "${"+name+"}")
}

// isIdent reports a name matching [A-Za-z_][A-Za-z0-9_]*.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
