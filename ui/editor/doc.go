// Package editor is the interactive interface's input (spec 06 §5.3):
// a multi-line editor and the input history of a work dir.
//
// The Editor keeps the text as lines and moves its cursor by grapheme
// cluster, so East Asian wide characters, emoji and ZWJ sequences are
// one character each and take the cells the terminal gives them. It wraps
// by cells at the width it is drawn at and shows only the rows around
// the cursor; plain ASCII lines wrap by arithmetic and any other line is
// wrapped once and cached until it changes, so a keystroke after a
// megabyte paste costs well under a millisecond
// (BenchmarkKeystrokeAfterMegabytePaste). Every change goes through one
// replace primitive that logs its inverse for undo (Ctrl--); typing
// within a word is one undo step. Enter, Esc, Tab, completion and the
// history keys at the first and last row are left to the caller.
//
// History is <root>/user-history/<md5 of the work dir>.jsonl: appended,
// never rewritten; empty entries and repeats of the newest are not
// written; corrupt lines are skipped; shell commands are stored with a
// leading "!" and browsed only in shell mode.
//
// Tests: editor_test.go (TestTypingAndNewlines — spec 06 §10 scenario 39's
// editing part —, TestWideCharacters, TestMegabytePaste, TestHistoryFile).
package editor
