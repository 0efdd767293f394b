package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/sandbox"
)

// q quotes s for bash.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fsCase is one command and what it must leave behind.
type fsCase struct {
	name   string
	script string
	ok     bool     // the command must succeed (else fail)
	says   []string // when it fails, its output names one of these
	check  func(t *testing.T)
}

// workspace is a work dir (a git repository), a directory outside it and
// a file there.
type workspace struct {
	work, outside, outsideFile string
}

func newWorkspace(t *testing.T) workspace {
	t.Helper()
	w := workspace{work: t.TempDir(), outside: t.TempDir()}
	// Rules and mounts see resolved paths; so do the checks.
	for _, p := range []*string{&w.work, &w.outside} {
		r, err := filepath.EvalSymlinks(*p)
		if err != nil {
			t.Fatal(err)
		}
		*p = r
	}
	w.outsideFile = filepath.Join(w.outside, "keep.txt")
	writeFile(t, w.outsideFile, "outside\n")
	writeFile(t, filepath.Join(w.work, "main.go"), "package main\n")
	gitRepo(t, w.work)
	return w
}

func runFSCases(t *testing.T, sb *sut, p sandbox.Policy, dir string, cases []fsCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := bash(t, sb, p, dir, c.script)
			t.Logf("exit %d: %s", r.code, r.out)
			if (r.code == 0) != c.ok {
				t.Fatalf("%s: exit %d, want success=%v; output:\n%s", c.script, r.code, c.ok, r.out)
			}
			if !c.ok && len(c.says) > 0 && !containsAny(r.out, c.says...) {
				t.Errorf("%s: output %q names none of %q", c.script, r.out, c.says)
			}
			if c.check != nil {
				c.check(t)
			}
		})
	}
}

const (
	denied   = "Permission denied"
	readOnly = "Read-only file system"
	busy     = "Device or resource busy"
)

func TestWorkspaceWriteFileSystem(t *testing.T) {
	forEachSetup(t, testWorkspaceWriteFileSystem)
}

func testWorkspaceWriteFileSystem(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	hooks := filepath.Join(w.work, ".git", "hooks")
	config := filepath.Join(w.work, ".git", "config")
	configBefore := readFile(t, config)
	unchangedConfig := func(t *testing.T) {
		if got := readFile(t, config); got != configBefore {
			t.Errorf(".git/config changed:\n%s", got)
		}
	}
	outsideIntact := func(t *testing.T) {
		if got := readFile(t, w.outsideFile); got != "outside\n" {
			t.Errorf("%s = %q, want it untouched", w.outsideFile, got)
		}
	}
	absent := func(path string) func(t *testing.T) {
		return func(t *testing.T) {
			if exists(path) {
				t.Errorf("%s exists; the sandbox let it be made", path)
			}
		}
	}
	if err := os.Symlink(w.outside, filepath.Join(w.work, "out-link")); err != nil {
		t.Fatal(err)
	}
	runFSCases(t, sb, p, w.work, []fsCase{
		{name: "create, change and remove files in the work dir", ok: true,
			script: "echo a > new.txt && echo b >> main.go && mv new.txt renamed.txt && rm renamed.txt"},
		{name: "files in subdirectories made by the command", ok: true,
			script: "mkdir -p a/b/c && echo x > a/b/c/f && mv a/b/c/f a/g && cat a/g",
			check: func(t *testing.T) {
				if got := readFile(t, filepath.Join(w.work, "a", "g")); got != "x\n" {
					t.Errorf("a/g = %q", got)
				}
			}},
		{name: "git works in the work dir", ok: true,
			script: "git add -A && git -c user.name=t -c user.email=t@example.com commit -qm change && git status --short"},
		{name: "write outside the work dir", script: "echo x > " + q(filepath.Join(w.outside, "new")),
			says: []string{denied}, check: absent(filepath.Join(w.outside, "new"))},
		{name: "overwrite a file outside", script: "echo x > " + q(w.outsideFile), says: []string{denied}, check: outsideIntact},
		{name: "truncate a file outside", script: "truncate -s 0 " + q(w.outsideFile), says: []string{denied}, check: outsideIntact},
		{name: "remove a file outside", script: "rm -f " + q(w.outsideFile), says: []string{denied}, check: outsideIntact},
		{name: "write to the home directory", script: "echo x >> ~/.bashrc-kimigo-sandbox-test",
			says: []string{denied}, check: absent(filepath.Join(os.Getenv("HOME"), ".bashrc-kimigo-sandbox-test"))},
		{name: "a symlink in the work dir that points outside", script: "echo x > out-link/new",
			says: []string{denied}, check: absent(filepath.Join(w.outside, "new"))},
		{name: "a hard link to a file outside", script: "ln " + q(w.outsideFile) + " hard && echo x >> hard",
			says: []string{denied, "Invalid cross-device link"}, check: outsideIntact},
		{name: "a file outside through /proc/self/root", script: "echo x > /proc/self/root" + q(w.outsideFile),
			says: []string{denied}, check: outsideIntact},
		{name: "hooks through the parent's /proc/PID/root", script: "echo x > /proc/$PPID/root" + q(filepath.Join(hooks, "pre-commit")),
			says: []string{denied}, check: absent(filepath.Join(hooks, "pre-commit"))},
		{name: "children inherit the restriction", script: "bash -c 'sh -c \"echo x > " + filepath.Join(w.outside, "child") + "\"'",
			says: []string{denied}, check: absent(filepath.Join(w.outside, "child"))},
		{name: "a background grandchild inherits it", script: "( echo x > " + q(filepath.Join(w.outside, "bg")) + " ) & wait $!",
			says: []string{denied}, check: absent(filepath.Join(w.outside, "bg"))},
		{name: "a new hook", script: "echo 'echo pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
			says: []string{readOnly}, check: absent(filepath.Join(hooks, "pre-commit"))},
		{name: "git config core.fsmonitor", script: "git config core.fsmonitor 'touch pwned'",
			check: unchangedConfig},
		{name: "append to .git/config", script: "echo '[core] fsmonitor = x' >> .git/config", says: []string{readOnly}, check: unchangedConfig},
		{name: "replace .git/config by a rename", script: "cp .git/config c && echo '[core] fsmonitor = x' >> c && mv -f c .git/config",
			says: []string{busy, readOnly, "cross-device"}, check: unchangedConfig},
		{name: "remove the hooks directory", script: "rm -rf .git/hooks", says: []string{busy, readOnly},
			check: func(t *testing.T) {
				if !exists(hooks) {
					t.Error(".git/hooks was removed")
				}
			}},
		{name: "move .git away and make a fresh one", script: "mv .git g && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
			says: []string{busy},
			check: func(t *testing.T) {
				if exists(filepath.Join(w.work, "g")) {
					t.Error(".git was moved")
				}
			}},
		{name: "unmount the read-only hooks", script: "umount .git/hooks; echo x > .git/hooks/post-checkout",
			says: []string{readOnly}, check: absent(filepath.Join(hooks, "post-checkout"))},
		{name: "kimigo's project directory", script: "mkdir -p .kimi-code/agents || echo x > .kimi-code/local.toml",
			says: []string{readOnly}, check: func(t *testing.T) {
				absent(filepath.Join(w.work, ".kimi-code", "local.toml"))(t)
				absent(filepath.Join(w.work, ".kimi-code", "agents"))(t)
				if fi, err := os.Stat(filepath.Join(w.work, ".kimi-code")); err != nil || !fi.IsDir() {
					t.Errorf(".kimi-code should exist as a directory, made empty by the sandbox: %v", err)
				}
			}},
		{name: "the private temporary directory", ok: true,
			script: "echo x > \"$TMPDIR/scratch\" && test \"$(cat \"$TMPDIR/scratch\")\" = x && mktemp"},
		{name: "the bit bucket and standard output", ok: true, script: "echo x > /dev/null && echo y > /dev/stdout && echo z >&2"},
	})

	t.Run("mounts stay inside the sandbox", func(t *testing.T) {
		// This side sees ordinary directories: the hooks directory the
		// sandbox kept read-only is writable here.
		f := filepath.Join(hooks, "outside-write")
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatalf("write %s outside the sandbox: %v", f, err)
		}
		mounts, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(mounts), w.work) {
			t.Errorf("a mount under %s shows outside the sandbox", w.work)
		}
	})
}

func TestMountsStayInsideUnderSharedPropagation(t *testing.T) {
	// Where / is a shared mount (systemd makes it so), a mount namespace
	// root unshares would send the read-only mounts back out unless the
	// trampoline makes its copy a slave first. Run a sandboxed command
	// from a mount namespace whose mounts are all shared.
	if os.Getuid() != 0 {
		t.Skip("needs root to make a mount namespace with shared mounts for the caller")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not installed")
	}
	w := newWorkspace(t)
	r := direct(append([]string{"unshare", "--mount", "--propagation", "shared"}, helperCmd(t, "leakcheck", w.work)...))
	if r.code != 0 || strings.TrimSpace(r.out) != "ok" {
		t.Errorf("exit %d: %s", r.code, r.out)
	}
}

func TestWorkspaceWriteWorkingDirectoryInsideReadOnlyEntry(t *testing.T) {
	forEachSetup(t, testWorkspaceWriteWorkingDirectoryInsideReadOnlyEntry)
}

func testWorkspaceWriteWorkingDirectoryInsideReadOnlyEntry(t *testing.T, s setup) {
	// The trampoline starts in the hooks directory, which it then mounts
	// over (a server's command starts there after the mount): relative
	// writes must still meet the read-only mount.
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	hooks := filepath.Join(w.work, ".git", "hooks")
	r := bash(t, sb, p, hooks, "echo x > pre-push")
	if r.code == 0 || !strings.Contains(r.out, readOnly) {
		t.Fatalf("write in the working directory .git/hooks: exit %d, output %q; want %q", r.code, r.out, readOnly)
	}
	if exists(filepath.Join(hooks, "pre-push")) {
		t.Error("pre-push was written")
	}
}

func TestWorkspaceWriteGitFileAndExtraDirs(t *testing.T) {
	forEachLauncher(t, sandbox.Options{}, testWorkspaceWriteGitFileAndExtraDirs)
}

func testWorkspaceWriteGitFileAndExtraDirs(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	extra := t.TempDir()
	extra, _ = filepath.EvalSymlinks(extra)
	gitRepo(t, extra)
	// A linked work tree's .git is a file naming the git directory;
	// rewritten, it would point git at hooks the command wrote.
	linked := filepath.Join(t.TempDir(), "linked")
	writeFile(t, filepath.Join(linked, ".git"), "gitdir: "+filepath.Join(w.work, ".git")+"\n")
	linked, _ = filepath.EvalSymlinks(linked)
	writeFile(t, filepath.Join(extra, "docs", "spec.md"), "spec\n")
	p := sandbox.Policy{
		Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work,
		WritableDirs: []string{extra, linked},
		ReadOnly:     []string{"docs/", "missing.txt", w.outside},
	}
	requireSandbox(t, sb, p)
	runFSCases(t, sb, p, w.work, []fsCase{
		{name: "an extra writable dir", ok: true, script: "echo x > " + q(filepath.Join(extra, "new")) + " && mkdir " + q(filepath.Join(extra, "d"))},
		{name: "the extra dir's hooks", script: "echo x > " + q(filepath.Join(extra, ".git", "hooks", "pre-commit")), says: []string{readOnly}},
		{name: "the extra dir's git config", script: "echo x >> " + q(filepath.Join(extra, ".git", "config")), says: []string{readOnly}},
		{name: "a .git file", script: "echo 'gitdir: /tmp/evil' > " + q(filepath.Join(linked, ".git")), says: []string{readOnly},
			check: func(t *testing.T) {
				if got := readFile(t, filepath.Join(linked, ".git")); !strings.Contains(got, w.work) {
					t.Errorf(".git file = %q", got)
				}
			}},
		{name: "a relative read-only entry of the policy", script: "echo x >> " + q(filepath.Join(extra, "docs", "spec.md")), says: []string{readOnly}},
		{name: "the same entry in the work dir, made by the sandbox", script: "echo x > docs/new", says: []string{readOnly}},
		{name: "a missing file entry is skipped", ok: true, script: "echo x > missing.txt"},
		{name: "an absolute entry outside every writable dir", script: "echo x > " + q(filepath.Join(w.outside, "x")), says: []string{denied}},
	})
}

func TestReadOnly(t *testing.T) {
	forEachLauncher(t, sandbox.Options{}, testReadOnly)
}

func testReadOnly(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeReadOnly, WorkDir: w.work, Network: true}
	requireSandbox(t, sb, p)
	runFSCases(t, sb, p, w.work, []fsCase{
		{name: "read the work dir and the system", ok: true, script: "cat main.go && ls / >/dev/null && git log --oneline"},
		{name: "write in the work dir", script: "echo x > new", says: []string{denied}, check: func(t *testing.T) {
			if exists(filepath.Join(w.work, "new")) {
				t.Error("new was written")
			}
		}},
		{name: "change a file in the work dir", script: "echo x >> main.go", says: []string{denied}},
		{name: "write outside", script: "echo x > " + q(w.outsideFile), says: []string{denied}},
		{name: "the private temporary directory", ok: true, script: "echo x > \"$TMPDIR/f\" && cat \"$TMPDIR/f\""},
	})
	dir, err := sb.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	if r := bash(t, sb, p, w.work, `printf %s "$TMPDIR"`); r.out != dir {
		t.Errorf("TMPDIR = %q, want the sandbox's private directory %q", r.out, dir)
	}
}

func TestOffIsNoSandbox(t *testing.T) {
	sb := newSandbox(t, setup{})
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeOff}
	cmd, err := sb.Command(p, "bash", "-c", "echo x > "+q(filepath.Join(w.outside, "off"))+" && echo y > .git/hooks/off")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmd.Args) != 3 || cmd.Args[0] != "bash" || cmd.SysProcAttr != nil {
		t.Errorf("off changed the command: %q %+v", cmd.Args, cmd.SysProcAttr)
	}
	// Through osenv, off is no Starter: osenv starts the process itself.
	if st, err := sb.Starter(p); st != nil || err != nil {
		t.Errorf("Starter(off) = %v, %v; want nil, nil", st, err)
	}
	cmd.Dir = w.work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("off: %v\n%s", err, out)
	}
	for _, f := range []string{filepath.Join(w.outside, "off"), filepath.Join(w.work, ".git", "hooks", "off")} {
		if !exists(f) {
			t.Errorf("%s missing: off must not restrict", f)
		}
	}
}

func TestNoCapabilitiesNoDevicesNoTerminal(t *testing.T) {
	forEachSetup(t, testNoCapabilitiesNoDevicesNoTerminal)
}

func testNoCapabilitiesNoDevicesNoTerminal(t *testing.T, s setup) {
	// Whatever the caller's privileges and whichever namespaces the
	// policy needs, the command starts with no capability, cannot make
	// device nodes and cannot open a terminal; the bit buckets work.
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	for _, p := range []sandbox.Policy{
		{Mode: sandbox.ModeReadOnly, Network: true}, // Landlock alone: no namespace
		{Mode: sandbox.ModeReadOnly},
		{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work},
	} {
		t.Run(fmt.Sprintf("%s network %v", p.Mode, p.Network), func(t *testing.T) {
			requireSandbox(t, sb, p)
			runFSCases(t, sb, p, w.work, []fsCase{
				{name: "no capability", ok: true,
					script: `for c in CapInh CapPrm CapEff CapAmb; do grep -q "^$c:[[:space:]]*0*$" /proc/self/status || { grep ^Cap /proc/self/status; exit 1; }; done`},
				{name: "no device node", script: `mknod "$TMPDIR/disk" b 7 0`, says: []string{denied, "Operation not permitted"}},
				// Opening is denied before the write, which would only
				// fail with EINVAL: 0 is no valid value.
				{name: "no kernel knob", script: "echo 0 > /proc/sys/vm/drop_caches", says: []string{denied}},
				{name: "no new terminal", script: "exec 3<>/dev/ptmx", says: []string{denied}},
				{name: "no controlling terminal", script: "exec 3</dev/tty", says: []string{denied, "No such device"}},
				{name: "bit buckets and random sources", ok: true,
					script: "echo x > /dev/null && head -c 4 /dev/urandom > /dev/null && head -c 4 /dev/zero > /dev/null && ls / /dev > /dev/null"},
			})
		})
	}
}

func TestSignalsStayInside(t *testing.T) {
	forEachLauncher(t, sandbox.Options{}, testSignalsStayInside)
}

func testSignalsStayInside(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	if !sb.Status().Scopes() {
		t.Skipf("Landlock ABI %d has no scopes (needs 6)", sb.Status().LandlockABI)
	}
	r := run(t, sb, p, w.work, helperCmd(t, "signal", fmt.Sprint(os.Getpid()))...)
	if r.code == 0 || !strings.Contains(r.out, "operation not permitted") {
		t.Errorf("signal to kimigo from inside: exit %d, %q; want operation not permitted", r.code, r.out)
	}
	// Its own children are inside: bash may signal them.
	if r := bash(t, sb, p, w.work, "sleep 10 & kill $! && wait $!; test $? = 143"); r.code != 0 {
		t.Errorf("signal to its own child: exit %d, %s", r.code, r.out)
	}
}

func TestPlantedGitLinkMakesNothingOutside(t *testing.T) {
	forEachLauncher(t, sandbox.Options{}, testPlantedGitLinkMakesNothingOutside)
}

func testPlantedGitLinkMakesNothingOutside(t *testing.T, s setup) {
	// A command makes .git a link to a directory outside; setting the next
	// command up must not create .git/hooks there (as root, it could).
	sb := newSandbox(t, s)
	w := workspace{work: t.TempDir(), outside: t.TempDir()}
	w.work, _ = filepath.EvalSymlinks(w.work)
	w.outside, _ = filepath.EvalSymlinks(w.outside)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	if r := bash(t, sb, p, w.work, "ln -s "+q(w.outside)+" .git"); r.code != 0 {
		t.Fatalf("plant the link: %+v", r)
	}
	if r := bash(t, sb, p, w.work, "true"); r.code != 0 {
		t.Fatalf("the next command: %+v", r)
	}
	if exists(filepath.Join(w.outside, "hooks")) {
		t.Errorf("the sandbox made %s/hooks through the planted .git link", w.outside)
	}
}
