package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping of /proc/self/smaps holds %#x", addr)
	return nil
}

func hasFlag(flags []string, f string) bool {
	for _, g := range flags {
		if g == f {
			return true
		}
	}
	return false
}

// The heap mapping made before init is advised for huge pages, and the
// environment variable turns the advice off (checked in a child process:
// init has run in this one).
func TestFirstHeapMappingIsAdvised(t *testing.T) {
	if os.Getenv("HUGEHEAP_CHILD") != "" {
		if first != nil || advisedStart != 0 {
			fmt.Println("advised")
		}
		if hasFlag(vmFlags(t, uintptr(unsafe.Pointer(new([16]byte)))), "hg") {
			fmt.Println("hg")
		}
		return
	}
	if err != nil {
		t.Fatalf("madvise: %v", err)
	}
	p := uintptr(unsafe.Pointer(first))
	if p < advisedStart || p >= advisedEnd {
		t.Fatalf("advised %#x–%#x, which does not hold the first object at %#x", advisedStart, advisedEnd, p)
	}
	if flags := vmFlags(t, p); !hasFlag(flags, "hg") {
		t.Errorf("the heap mapping of %#x has VmFlags %v, want hg (MADV_HUGEPAGE)", p, flags)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFirstHeapMappingIsAdvised$")
	cmd.Env = append(os.Environ(), "HUGEHEAP_CHILD=1", "KIMIGO_NO_HUGEPAGES=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "advised") || strings.Contains(string(out), "hg\n") {
		t.Errorf("with KIMIGO_NO_HUGEPAGES set the child reported:\n%s\nwant no advice", out)
	}
}
