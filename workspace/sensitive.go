package workspace

import (
	"path"
	"strings"
)

// Sensitive-file rules (spec 05 §3.2). Matching is case-insensitive.
var (
	// sensitiveKeyNames are private-key and credential basenames.
	sensitiveKeyNames = []string{"id_rsa", "id_ed25519", "id_ecdsa", "credentials"}
	// sensitiveSuffixes turn a key name into a sensitive copy of it.
	sensitiveSuffixes = []string{".bak", ".backup", ".copy", ".disabled", ".key", ".old", ".orig", ".pem", ".save", ".tmp"}
	// sensitiveExempt are templates and public keys, readable as usual.
	sensitiveExempt = []string{".env.example", ".env.sample", ".env.template", "id_rsa.pub", "id_ed25519.pub", "id_ecdsa.pub"}
	// sensitiveDirs are credential files of cloud CLIs and the common
	// token stores (git, curl, npm, gh, kubectl, docker), matched as whole
	// path components.
	sensitiveDirs = []string{"/.aws/credentials", "/.gcp/credentials", "/.git-credentials", "/.netrc", "/.npmrc",
		"/.config/gh/hosts.yml", "/.kube/config", "/.docker/config.json"}
)

// IsSensitive reports whether path names a file that may hold secrets:
// .env files (not their templates), SSH private keys and their copies,
// credentials files, and the AWS and GCP credential stores. It looks at
// the basename, plus the whole path for the cloud stores. Search results
// are filtered with it; Read, Write, Edit and ReadMediaFile refuse such
// paths.
func IsSensitive(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	for _, d := range sensitiveDirs {
		if strings.HasSuffix(p, d) || strings.Contains(p, d+"/") {
			return true
		}
	}
	base := path.Base(p)
	for _, e := range sensitiveExempt {
		if base == e {
			return false
		}
	}
	if base == ".env" || strings.HasPrefix(base, ".env.") {
		return true
	}
	for _, k := range sensitiveKeyNames {
		rest, ok := strings.CutPrefix(base, k)
		if !ok {
			continue
		}
		if rest == "" || rest[0] == '-' || rest[0] == '_' {
			return true
		}
		for _, s := range sensitiveSuffixes {
			if rest == s {
				return true
			}
		}
	}
	return false
}

// SensitiveExcludeGlobs are doublestar globs a search walk may use to skip
// the common sensitive files silently, before IsSensitive filters (and
// counts) the rest: "**/.env", the key names with their "-"/"_" and suffix
// variants, and the cloud credential stores with their contents.
func SensitiveExcludeGlobs() []string {
	globs := []string{"**/.env"}
	for _, k := range sensitiveKeyNames {
		globs = append(globs, "**/"+k, "**/"+k+"[-_]*")
		for _, s := range sensitiveSuffixes {
			globs = append(globs, "**/"+k+s)
		}
	}
	for _, d := range sensitiveDirs {
		globs = append(globs, "**"+d, "**"+d+"/**")
	}
	return globs
}
