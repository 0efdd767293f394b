package permission

import (
	"context"
	"path"
	"strings"

	"github.com/kimigo/kimigo/loop"
)

// executedFileAsk asks before a write to a file that commands run or that
// kimigo reads as configuration (issue 16 item 5): kimigo's own
// .kimi-code files in every mode but auto, and in manual mode the
// manifests and scripts an allowed command executes (package.json's
// scripts under `npm test`, a Makefile under `make`, conftest.py under
// `pytest`, …), so an approved write cannot smuggle a command past an
// allow rule. Writes through a link count by their real path.
type executedFileAsk struct{}

func (executedFileAsk) Name() string { return "executed-file-write-ask" }

// executedNames are basenames whose contents build and test tools run.
var executedNames = map[string]bool{
	"package.json": true, "makefile": true, "gnumakefile": true, "justfile": true, "taskfile.yml": true,
	"pyproject.toml": true, "setup.py": true, "setup.cfg": true, "tox.ini": true, "noxfile.py": true, "conftest.py": true,
	"cargo.toml": true, "build.rs": true, "build.gradle": true, "build.gradle.kts": true, "pom.xml": true,
	"rakefile": true, "gemfile": true, ".envrc": true, ".npmrc": true, ".yarnrc.yml": true,
}

func (executedFileAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode == ModeAuto {
		return Verdict{}, nil
	}
	for _, a := range c.FileAccesses() {
		if a.Operation != loop.OpWrite && a.Operation != loop.OpReadWrite {
			continue
		}
		p := strings.ReplaceAll(a.Path, `\`, "/")
		if strings.Contains(p+"/", "/.kimi-code/") {
			return Verdict{Kind: Ask, Reason: map[string]any{"file": "kimigo"}}, nil
		}
		if c.Mode == ModeManual && executedNames[strings.ToLower(path.Base(p))] {
			return Verdict{Kind: Ask, Reason: map[string]any{"file": "executed"}}, nil
		}
	}
	return Verdict{}, nil
}
