package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// defaultSlug names the bucket of a work dir whose base name has nothing
// usable in it ("/", "…/###").
const defaultSlug = "workspace"

// IDPrefix starts every session id kimigo mints (spec 06 §4.1).
const IDPrefix = "session_"

// The patterns are compiled on first use, not at process start.
var (
	idPattern        = lazyRegexp(`^[A-Za-z0-9._-]+$`)
	slugReplace      = lazyRegexp(`[^a-z0-9._-]+`)
	windowsDrivePath = lazyRegexp(`^[A-Za-z]:[\\/]`)
	windowsUNCPath   = lazyRegexp(`^[\\/]{2}[^\\/]`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// NewID returns a fresh session id: "session_" and a random version 4
// UUID.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%s%x-%x-%x-%x-%x", IDPrefix, b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// ValidateID checks a session id given by a user or a file: letters,
// digits, '.', '_' and '-', and not "." or "..", so that it is always one
// path element (spec 02 §6.15).
func ValidateID(id string) error {
	if !idPattern().MatchString(id) || id == "." || id == ".." {
		return &Error{Code: CodeIDInvalid, ID: id}
	}
	return nil
}

// isWindowsPath reports a drive or UNC path (C:\…, C:/…, \\host\share…,
// //host/share…), which is normalized Windows-style whatever the host.
func isWindowsPath(p string) bool {
	return windowsDrivePath().MatchString(p) || windowsUNCPath().MatchString(p)
}

// NormalizeWorkDir is the form of a work dir that keys, the index and
// comparisons use (spec 02 §6.15): a Windows drive or UNC path is cleaned
// Windows-style and written with '/'; anything else is cleaned. p should
// be absolute: callers resolve relative paths against their own working
// directory first.
func NormalizeWorkDir(p string) string {
	if !isWindowsPath(p) {
		return filepath.Clean(p)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "//") { // UNC: keep the double slash of the host
		return "/" + path.Clean("/"+strings.TrimLeft(s, "/"))
	}
	return s[:2] + path.Clean("/"+s[3:]) // "C:" + the rooted rest
}

// WorkDirKey is the bucket name of a work dir under <root>/sessions:
// "wd_" + slug(base name) + "_" + the first 12 hex digits of the SHA-256 of
// the normalized path (spec 02 §6.15, spec 06 §4.1).
func WorkDirKey(workDir string) string {
	n := NormalizeWorkDir(workDir)
	sum := sha256.Sum256([]byte(n))
	return "wd_" + slug(baseName(n)) + "_" + hex.EncodeToString(sum[:])[:12]
}

// baseName is the last element of a normalized path; a root ("/", "C:/",
// "//host/share" as a whole) has none.
func baseName(n string) string {
	if windowsDrivePath().MatchString(n) && len(n) <= 3 {
		return ""
	}
	i := strings.LastIndexAny(n, `/\`)
	return n[i+1:]
}

func slug(base string) string {
	s := slugReplace().ReplaceAllString(strings.ToLower(base), "-")
	s = strings.Trim(s, "-")
	if len(s) > 40 { // ASCII only after the replacement
		s = strings.Trim(s[:40], "-")
	}
	if s == "" || s == "." || s == ".." {
		return defaultSlug
	}
	return s
}

// SameWorkDir reports whether two work dirs are the same path once
// normalized; Windows paths compare case-insensitively.
func SameWorkDir(a, b string) bool {
	na, nb := NormalizeWorkDir(a), NormalizeWorkDir(b)
	if isWindowsPath(na) && isWindowsPath(nb) {
		return strings.EqualFold(na, nb)
	}
	return na == nb
}
