package main

import (
	"fmt"
	"path/filepath"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/session"
)

// checkTrust reports the workspace trust store (ERRATA 38): the trusted
// project directories, and whether the one doctor runs in is.
func checkTrust(home, cwd string) doctorResult {
	r := doctorResult{label: "trust", path: filepath.Join(home, session.TrustFileName), status: string(config.CheckOK)}
	dirs, err := session.TrustedDirs(osenv.LocalFS{}, home)
	if err != nil {
		r.status, r.messages = string(config.CheckError), []string{err.Error()}
		return r
	}
	root := config.ProjectRoot(osenv.LocalFS{}, cwd)
	trusted := false
	for _, d := range dirs {
		r.messages = append(r.messages, "trusted: "+d)
		trusted = trusted || d == root
	}
	if !trusted {
		r.messages = append(r.messages, fmt.Sprintf("%s is not trusted: its .kimi-code/local.toml may not add "+
			"directories outside it (`kimigo trust` trusts it).", root))
	}
	return r
}

// checkSandbox reports what the command sandbox can enforce here.
func checkSandbox() doctorResult {
	st := sandbox.Probe()
	r := doctorResult{label: "sandbox", path: "(kernel)", status: string(config.CheckOK), messages: []string{st.String()}}
	if err := st.Check(sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: "/"}); err != nil {
		r.status = "WARN"
		r.messages = append(r.messages, err.Error()+"; print mode then denies every command (--sandbox off runs them unconfined).")
	}
	return r
}
