package term

import (
	"io"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/ui/term/termtest"
)

func TestTTYEnterAndRestore(t *testing.T) {
	ctl, tt, err := termtest.OpenPTY(40, 10)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ctl.Close()
	defer tt.Close()
	vt := termtest.New(40, 10)
	done := make(chan struct{})
	go func() { io.Copy(vt, ctl); close(done) }()

	tty, err := OpenTTY(tt, tt)
	if err != nil {
		t.Fatal(err)
	}
	if err := tty.Restore(); err != nil { // before Enter: nothing to do
		t.Fatal(err)
	}
	if err := tty.Enter(); err != nil {
		t.Fatal(err)
	}
	if raw, err := termtest.Raw(tt); err != nil || !raw {
		t.Fatalf("after Enter raw = %v, %v", raw, err)
	}
	// A crash path: several goroutines restore at once.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := tty.Restore(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if raw, err := termtest.Raw(tt); err != nil || raw {
		t.Fatalf("after Restore raw = %v, %v", raw, err)
	}
	tt.Close()
	<-done
	if !vt.CursorVisible || vt.BracketedPaste || vt.KittyDepth != 0 || vt.ModifyOtherKeys != 0 || vt.Synchronized {
		t.Errorf("terminal left with cursor visible=%v paste=%v kitty=%d modifyOtherKeys=%d sync=%v",
			vt.CursorVisible, vt.BracketedPaste, vt.KittyDepth, vt.ModifyOtherKeys, vt.Synchronized)
	}
}

func TestOpenTTYNeedsATerminal(t *testing.T) {
	if _, err := OpenTTY(nil, nil); err != ErrNotTerminal {
		t.Errorf("OpenTTY(nil, nil) = %v", err)
	}
}
