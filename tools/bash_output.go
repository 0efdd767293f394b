package tools

import (
	"crypto/rand"
	"fmt"
	"os"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/osenv"
)

// outputCapture keeps a command's combined output under a limit. Until the
// limit is reached it keeps everything; past it, it keeps the first 40 %
// and the last 60 % (ERRATA 22) and spills the whole output to a log file,
// so memory stays bounded however much the command prints. It is used by
// one goroutine.
type outputCapture struct {
	env              osenv.Env
	logDir           string
	limit            int
	headMax, tailMax int

	buf   []byte // everything, until the limit is passed
	head  []byte // after: the first headMax bytes
	tail  []byte // after: at least the last tailMax bytes
	total int64

	logFile osenv.File
	logPath string
	logErr  error
	stopLog bool // the output ceiling tripped: nothing more goes to disk
	noLog   bool // someone else keeps the full output
}

func newOutputCapture(env osenv.Env, logDir string, limit int) *outputCapture {
	head := limit * 2 / 5
	return &outputCapture{env: env, logDir: logDir, limit: limit, headMax: head, tailMax: limit - head}
}

func (c *outputCapture) write(p []byte) {
	c.total += int64(len(p))
	if c.head == nil {
		if len(c.buf)+len(p) <= c.limit {
			c.buf = append(c.buf, p...)
			return
		}
		all := append(c.buf, p...)
		if !c.noLog {
			c.openLog()
		}
		c.logWrite(all)
		c.head = append([]byte(nil), all[:c.headMax]...)
		c.tail = append([]byte(nil), all[len(all)-c.tailMax:]...)
		c.buf = nil
		return
	}
	c.logWrite(p)
	c.tail = append(c.tail, p...)
	if len(c.tail) > 4*c.tailMax {
		c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
}

func (c *outputCapture) openLog() {
	if c.logDir == "" {
		c.logDir = c.env.TempDir()
	}
	if err := c.env.MkdirAll(c.logDir, 0o755); err != nil {
		c.logErr = err
		return
	}
	p := path.Join(c.logDir, "bash-"+strings.ToLower(rand.Text()[:8])+".log")
	f, err := c.env.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		c.logErr = err
		return
	}
	c.logFile, c.logPath = f, p
}

func (c *outputCapture) logWrite(p []byte) {
	if c.logFile == nil || c.stopLog {
		return
	}
	if _, err := c.logFile.Write(p); err != nil {
		c.logErr = err
		c.closeLog()
	}
}

// closeLog finishes the log file; the path is kept only if it is whole.
func (c *outputCapture) closeLog() {
	if c.logFile == nil {
		return
	}
	if err := c.logFile.Close(); err != nil && c.logErr == nil {
		c.logErr = err
	}
	c.logFile = nil
	if c.logErr != nil || c.stopLog {
		c.logPath = ""
	}
}

// truncated reports whether the middle of the output was dropped.
func (c *outputCapture) truncated() bool { return c.head != nil }

// text is the kept output: everything, or head, a marker and tail, each
// cut at a line break when one is near and never inside a rune.
func (c *outputCapture) text() string {
	if c.head == nil {
		return string(c.buf)
	}
	head := headCut(c.head)
	tail := tailCut(c.tail[len(c.tail)-c.tailMax:])
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes of output omitted here ...]\n%s", head, omitted, tail)
}

// headCut ends b after its last line break in the second half, or else at
// a rune boundary.
func headCut(b []byte) string {
	if i := strings.LastIndexByte(string(b), '\n'); i >= len(b)/2 {
		return string(b[:i+1])
	}
	if s := lastRuneStart(b); !utf8.FullRune(b[s:]) {
		b = b[:s]
	}
	return string(b)
}

func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return len(b)
}

// tailCut starts b after its first line break in the first half, or else
// at a rune boundary.
func tailCut(b []byte) string {
	if i := strings.IndexByte(string(b), '\n'); i >= 0 && i < len(b)/2 {
		return string(b[i+1:])
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return string(b)
}
