package tui

import (
	tea "charm.land/bubbletea/v2"
)

// initPrompt is what /init asks the model to do (spec 06 §5.4): explore
// the project and write AGENTS.md at its root.
const initPrompt = `Explore this project and write AGENTS.md at its root; if one exists, update it and keep what is still true.
Coding agents read this file before they work here, so keep it short and concrete:
- what the project is, in two or three sentences;
- how it is laid out: the main directories and what lives in each;
- how to build, run, test and lint it: the exact commands;
- the code style and conventions the code actually follows;
- anything a newcomer would trip over.
Read the build files, the READMEs and a sample of the source first, and only write commands you have seen evidence for. Write the file, then reply with a short summary of what it says.`

// cmdInit is /init: a turn that analyses the codebase and writes
// AGENTS.md. The session's approvals apply to the write as to any other.
func cmdInit(c *Ctx, _ string) tea.Cmd {
	c.Info("Analysing the codebase to write AGENTS.md.")
	return c.m.sendPromptAs("/init", initPrompt)
}
