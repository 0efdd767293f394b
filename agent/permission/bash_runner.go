package permission

import "strings"

// hiddenRunners run a command given in their arguments in ways the
// analysis does not model (issue 16 item 3): a script using them is
// opaque, so allow rules never approve it and, while a Bash deny or ask
// rule exists, every mode asks about it.
var hiddenRunners = map[string]bool{
	"flock": true, "strace": true, "ltrace": true, "chroot": true, "unshare": true, "nsenter": true,
	"firejail": true, "runuser": true, "chrt": true, "taskset": true, "prlimit": true, "systemd-run": true,
	"script": true, "expect": true, "parallel": true, "catchsegv": true, "valgrind": true, "gdb": true,
}

// awkCommands are the awk variants; their programs run commands through
// system(), pipes and getline.
var awkCommands = map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true}

// gitRunningKeys are git configuration keys whose values git runs.
var gitRunningKeys = []string{"alias.", "fsmonitor", "sshcommand", "pager", "editor", "hookspath", "external",
	"textconv", "filter.", "askpass", "credential.helper", "gpg.program", "proxycommand"}

// hiddenRunner says why the command runs commands the analysis cannot
// see, or "".
func hiddenRunner(name string, words []word) string {
	switch {
	case hiddenRunners[name]:
		return name + " runs a command the analysis does not follow"
	case awkCommands[name]:
		for _, w := range words[1:] {
			t := w.text
			if strings.Contains(t, "system") || strings.Contains(t, "|") || strings.Contains(t, "getline") {
				return name + " program that runs commands"
			}
		}
	case name == "git":
		for i, w := range words[1:] {
			t := strings.ToLower(w.text)
			if t == "-c" && i+2 < len(words) {
				t = strings.ToLower(words[i+2].text)
			} else if !strings.HasPrefix(t, "-c") && !strings.HasPrefix(t, "--config-env") {
				continue
			}
			for _, k := range gitRunningKeys {
				if strings.Contains(t, k) {
					return "git configuration that runs commands"
				}
			}
		}
	}
	return ""
}
