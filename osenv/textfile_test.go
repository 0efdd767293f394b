package osenv_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// naiveLines splits s into lines with terminators, the reference for the
// streaming readers.
func naiveLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func texts(ls []osenv.Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

func TestStreamingReadersMatchNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	fs := osenvtest.NewMemFS("/d")
	for i := range 60 {
		var b strings.Builder
		n := rng.IntN(200)
		for range n {
			b.WriteString(strings.Repeat("x", rng.IntN(3000)))
			switch rng.IntN(4) {
			case 0:
				b.WriteString("\r\n")
			default:
				b.WriteString("\n")
			}
		}
		if rng.IntN(2) == 0 {
			b.WriteString("tail")
		}
		content := b.String()
		name := fmt.Sprintf("f%d", i)
		if err := fs.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		want := naiveLines(content)
		scan, err := osenv.ScanTextFile(fs, name)
		if err != nil || scan.Lines != len(want) || scan.Size != int64(len(content)) || !scan.ValidUTF8 {
			t.Fatalf("%s: scan %+v (%v); want %d lines", name, scan, err, len(want))
		}
		if scan != osenv.ScanBytes([]byte(content)) {
			t.Fatalf("%s: ScanBytes %+v differs from ScanTextFile %+v", name, osenv.ScanBytes([]byte(content)), scan)
		}
		start, max := 1+rng.IntN(len(want)+2), 1+rng.IntN(50)
		got, err := osenv.ReadLineRange(fs, name, start, max, 0)
		if err != nil {
			t.Fatal(err)
		}
		var wantRange []string
		if start <= len(want) {
			wantRange = want[start-1 : min(len(want), start-1+max)]
		}
		if diff := cmp.Diff(wantRange, texts(got)); diff != "" {
			t.Fatalf("%s: ReadLineRange(%d, %d) (-want +got):\n%s", name, start, max, diff)
		}
		if len(got) > 0 && got[0].Number != start {
			t.Fatalf("%s: first number %d; want %d", name, got[0].Number, start)
		}
		count := 1 + rng.IntN(60)
		tail, err := osenv.ReadTailLines(fs, name, count, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want[max0(len(want)-count):], texts(tail)); diff != "" && len(want) > 0 {
			t.Fatalf("%s: ReadTailLines(%d) (-want +got):\n%s", name, count, diff)
		}
	}
}

func max0(n int) int { return max(n, 0) }

func TestScanTextFileFlags(t *testing.T) {
	fs := osenvtest.NewMemFS("/d")
	for _, tt := range []struct {
		name, content string
		want          osenv.TextScan
	}{
		{"empty", "", osenv.TextScan{ValidUTF8: true}},
		{"lf", "a\nb\n", osenv.TextScan{Size: 4, Lines: 2, EndsWithNewline: true, ValidUTF8: true, LF: true}},
		{"crlf no final", "a\r\nb", osenv.TextScan{Size: 4, Lines: 2, ValidUTF8: true, CRLF: true}},
		{"lone cr at end", "a\r", osenv.TextScan{Size: 2, Lines: 1, ValidUTF8: true, LoneCR: true}},
		{"nul and latin1", "\x00\xe9", osenv.TextScan{Size: 2, Lines: 1, HasNUL: true}},
		{"truncated rune at end", "ok\xe2\x82", osenv.TextScan{Size: 4, Lines: 1}},
	} {
		if err := fs.WriteFile(tt.name, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := osenv.ScanTextFile(fs, tt.name)
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
	// A CRLF split across the 64 KiB chunk boundary is one CRLF.
	edge := strings.Repeat("a", 64<<10-1) + "\r\nb\r\n"
	if err := fs.WriteFile("edge", []byte(edge), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := osenv.ScanTextFile(fs, "edge"); !got.CRLF || got.LoneCR || got.LF {
		t.Errorf("split CRLF: %+v", got)
	}
}

func TestReadLinesCutsLongLines(t *testing.T) {
	fs := osenvtest.NewMemFS("/d")
	if err := fs.WriteFile("f", []byte(strings.Repeat("y", 100_000)+"\nshort\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []osenv.Line
	for l, err := range osenv.ReadLines(fs, "f", 10) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	want := []osenv.Line{{Number: 1, Text: "yyyyyyyyyy", Cut: true}, {Number: 2, Text: "short\n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, err := range osenv.ReadLines(fs, "missing", 0) {
		if err == nil {
			t.Error("missing file read without error")
		}
	}
}

// Reading a small file allocates about what it holds, not a 64 KiB buffer
// per pass: the Read tool scans a file and then reads a range of it on
// every call (issue 23, allocations per step). The content is still read
// whole and right.
func TestSmallFileReadsAllocateLittle(t *testing.T) {
	name := filepath.Join(t.TempDir(), "small.txt")
	content := strings.Repeat("a line of text\r\n", 100) // 1,600 bytes
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := osenv.LocalFS{}
	const calls = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range calls {
		scan, err := osenv.ScanTextFile(fs, name)
		if err != nil || scan.Lines != 100 || !scan.CRLF || scan.LF || scan.LoneCR || !scan.EndsWithNewline {
			t.Fatalf("scan %+v (%v)", scan, err)
		}
		got, err := osenv.ReadLineRange(fs, name, 99, 5, 0)
		if err != nil || len(got) != 2 || got[0].Number != 99 || got[1].Text != "a line of text\r\n" {
			t.Fatalf("ReadLineRange(99, 5) = %+v (%v)", got, err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / calls; per > 16<<10 {
		t.Errorf("a scan and a range read of a %d-byte file allocate %d B; want at most 16 KiB", len(content), per)
	}
}
