package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// stdinLimit bounds piped input: past it the run is refused, since a
// prompt that large cannot fit any model's window anyway.
const stdinLimit = 10 << 20

// stdinWait is how long a run whose prompt is on the command line waits
// for the first byte of a piped standard input that nobody writes to (a
// parent that left the pipe open), before it runs without it.
const stdinWait = 3 * time.Second

// stdinSource says how to read the process's standard input: not at all
// (a terminal, or none), or as a pipe or file.
func stdinSource(r io.Reader) (io.Reader, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return r, r != nil
	}
	if _, tty := terminal(f); tty {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 && !fi.Mode().IsRegular() {
		return nil, false // /dev/null and other devices carry no prompt
	}
	return f, true
}

// promptInput assembles a print run's prompt (ERRATA 33): the command
// line's prompt, with piped standard input after it; "-" or no prompt at
// all reads the whole prompt from standard input. It reads nothing from a
// terminal. wait ends the wait for the first piped byte when the command
// line has a prompt; nil waits for ever.
func promptInput(o *options, stdin io.Reader, wait <-chan time.Time) (string, error) {
	arg := o.promptText()
	fromStdin := !o.promptSet && (arg == "" || arg == "-")
	r, piped := stdinSource(stdin)
	switch {
	case fromStdin && !piped:
		return "", usagef("No prompt given: put it after -p, or pipe it on standard input (kimigo -p - < prompt.txt).")
	case !piped:
		return arg, nil
	}
	if fromStdin {
		wait = nil
	}
	in, err := readStdin(r, wait)
	if err != nil {
		return "", err
	}
	switch {
	case fromStdin:
		return in, nil
	case strings.TrimSpace(in) == "":
		return arg, nil
	}
	return arg + "\n\n" + strings.TrimRight(in, "\n"), nil
}

// readStdin reads r to its end: at most stdinLimit bytes of UTF-8 text.
// When wait fires before the first byte, it returns "" and leaves the
// reader to its goroutine.
func readStdin(r io.Reader, wait <-chan time.Time) (string, error) {
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		b := make([]byte, 64<<10)
		n, err := r.Read(b)
		first <- chunk{b[:n], err}
	}()
	var c chunk
	select {
	case c = <-first:
	case <-wait:
		return "", nil
	}
	var buf bytes.Buffer
	buf.Write(c.b)
	err := c.err
	if err == nil {
		_, err = io.Copy(&buf, io.LimitReader(r, int64(stdinLimit+1-buf.Len())))
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	b := buf.Bytes()
	if len(b) > stdinLimit {
		return "", usagef("Standard input is over the %d MiB limit: save it to a file and name the file in the prompt.",
			stdinLimit>>20)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return "", usagef("Standard input is not text (a NUL byte at offset %d): kimigo reads only UTF-8 text; "+
			"name a binary file in the prompt instead.", i)
	}
	if !utf8.Valid(b) {
		return "", usagef("Standard input is not valid UTF-8 (at offset %d): convert it to UTF-8 first.", invalidAt(b))
	}
	return string(bytes.TrimPrefix(b, []byte("\uFEFF"))), nil
}

// invalidAt is the offset of the first byte of b that is not UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkSkillsDirs refuses a --skills-dir that is not an existing
// directory before anything is written.
func checkSkillsDirs(o *options, p proc) error {
	if len(o.skillsDirs) == 0 {
		return nil
	}
	wd, err := p.getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	for _, d := range o.skillsDirs {
		abs := absolute(wd, d)
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return usagef("--skills-dir %s: %s is not an existing directory.", d, abs)
		}
	}
	return nil
}
