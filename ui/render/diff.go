package render

import (
	"fmt"
	"strings"
)

// OpKind is the kind of a diff row.
type OpKind int8

// Diff row kinds.
const (
	Context OpKind = iota
	Add
	Delete
)

// DiffOp is one row of a line diff: its kind, text and line number (the
// new file's for context and added rows, the old file's for deleted
// rows), counted from 1.
type DiffOp struct {
	Kind OpKind
	Text string
	Line int
}

// maxDPCells caps the LCS table; beyond it the common head and tail are
// matched first and what is left, if still too large, is shown as a
// removal followed by an addition.
const maxDPCells = 4_000_000

// LineDiff diffs before and after line by line (spec 06 §5.6.5): an LCS
// table, walked back from the end preferring context on equal lines, then
// an addition when that keeps as long a common subsequence, else a
// deletion. Empty text has no lines.
func LineDiff(before, after string) []DiffOp {
	a, b := splitLines(before), splitLines(after)
	if len(a)*len(b) <= maxDPCells {
		return lcsDiff(a, b, 0, 0)
	}
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []DiffOp
	for i := range head {
		ops = append(ops, DiffOp{Context, b[i], i + 1})
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma)*len(mb) <= maxDPCells {
		ops = append(ops, lcsDiff(ma, mb, head, head)...)
	} else {
		for i, l := range ma {
			ops = append(ops, DiffOp{Delete, l, head + i + 1})
		}
		for i, l := range mb {
			ops = append(ops, DiffOp{Add, l, head + i + 1})
		}
	}
	for i := range tail {
		ops = append(ops, DiffOp{Context, b[len(b)-tail+i], len(b) - tail + i + 1})
	}
	return ops
}

// splitLines splits text into lines; the newline that ends the last
// line does not start another.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lcsDiff diffs a and b whose first lines are line aOff+1 and bOff+1.
func lcsDiff(a, b []string, aOff, bOff int) []DiffOp {
	n, m := len(a), len(b)
	w := m + 1
	dp := make([]int32, (n+1)*w)
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			switch {
			case a[i-1] == b[j-1]:
				dp[i*w+j] = dp[(i-1)*w+j-1] + 1
			case dp[(i-1)*w+j] >= dp[i*w+j-1]:
				dp[i*w+j] = dp[(i-1)*w+j]
			default:
				dp[i*w+j] = dp[i*w+j-1]
			}
		}
	}
	ops := make([]DiffOp, 0, max(n, m))
	i, j := n, m
	for i > 0 || j > 0 {
		switch {
		case i > 0 && j > 0 && a[i-1] == b[j-1]:
			ops = append(ops, DiffOp{Context, b[j-1], bOff + j})
			i--
			j--
		case j > 0 && (i == 0 || dp[i*w+j-1] >= dp[(i-1)*w+j]):
			ops = append(ops, DiffOp{Add, b[j-1], bOff + j})
			j--
		default:
			ops = append(ops, DiffOp{Delete, a[i-1], aOff + i})
			i--
		}
	}
	for l, r := 0, len(ops)-1; l < r; l, r = l+1, r-1 {
		ops[l], ops[r] = ops[r], ops[l]
	}
	return ops
}

// DiffOptions shape a rendered diff.
type DiffOptions struct {
	// Context is how many unchanged lines show around a change; 0 means 3.
	Context int
	// MaxRows caps the rows after the header; 0 means no cap.
	MaxRows int
	// Streaming says the new text is still arriving: trailing deletions
	// are not shown yet.
	Streaming bool
}

// Diff renders the change from before to after of path (spec 06 §5.6.5):
// a header "+<added> -<removed> <path>", then the clustered rows, each
// "<line number right-aligned to 4> " followed by "+ ", "- " or "  " and
// the text.
func Diff(t Theme, path, before, after string, width int, o DiffOptions) []string {
	ops := LineDiff(before, after)
	if o.Streaming {
		for len(ops) > 0 && ops[len(ops)-1].Kind == Delete {
			ops = ops[:len(ops)-1]
		}
	}
	if o.Context <= 0 {
		o.Context = 3
	}
	added, removed := 0, 0
	for _, op := range ops {
		switch op.Kind {
		case Add:
			added++
		case Delete:
			removed++
		}
	}
	if added == 0 && removed == 0 {
		return nil
	}
	var head []string
	if added > 0 {
		head = append(head, t.Added.Bold(true).Render(fmt.Sprintf("+%d", added)))
	}
	if removed > 0 {
		head = append(head, t.Removed.Bold(true).Render(fmt.Sprintf("-%d", removed)))
	}
	head = append(head, path)
	out := []string{strings.Join(head, " ")}

	rows, shownChanges := 0, 0
	for _, c := range clusters(ops, o.Context) {
		if c.gap > 0 {
			out = append(out, t.Dim.Render(fmt.Sprintf("     … %d unchanged %s …", c.gap, plural(c.gap, "line", "lines"))))
		}
		for k := c.from; k < c.to; k++ {
			if o.MaxRows > 0 && rows >= o.MaxRows {
				if hidden := added + removed - shownChanges; hidden > 0 {
					out = append(out, t.Dim.Render(fmt.Sprintf("     … %d more %s hidden (ctrl+o to expand)", hidden, plural(hidden, "change", "changes"))))
				}
				return out
			}
			op := ops[k]
			gutter := t.Muted.Render(fmt.Sprintf("%4d ", op.Line))
			text := Truncate(op.Text, max(width-7, 8))
			switch op.Kind {
			case Add:
				out = append(out, gutter+t.Added.Render("+ "+text))
				shownChanges++
			case Delete:
				out = append(out, gutter+t.Removed.Render("- "+text))
				shownChanges++
			default:
				out = append(out, gutter+"  "+t.Dim.Render(text))
			}
			rows++
		}
	}
	return out
}

// cluster is a run of rows to show: ops[from:to], and how many unchanged
// lines were skipped before it (0 for the first).
type cluster struct{ from, to, gap int }

// clusters groups the changes: changes at most 2×context unchanged lines
// apart share a cluster, and each cluster shows context lines around it.
func clusters(ops []DiffOp, context int) []cluster {
	var out []cluster
	for k := 0; k < len(ops); {
		if ops[k].Kind == Context {
			k++
			continue
		}
		first, last := k, k
		for j := k + 1; j < len(ops); j++ {
			if ops[j].Kind == Context {
				continue
			}
			if j-last-1 > 2*context {
				break
			}
			last = j
		}
		from, to := max(0, first-context), min(len(ops), last+1+context)
		gap := 0
		if len(out) > 0 {
			prev := &out[len(out)-1]
			gap = from - prev.to
		}
		out = append(out, cluster{from, to, gap})
		k = last + 1
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
