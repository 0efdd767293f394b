package sandbox

import (
	"testing"
)

func TestServerStopsWhenTheThreadThatStartedItEnds(t *testing.T) {
	// The socket's end stops a server when kimigo dies; the parent-death
	// signal is the second line, tied to the thread that started it. Here
	// the socket stays open and only that thread ends.
	for _, opts := range []Options{{}, WithUserNamespace(Options{})} {
		sb := New(opts)
		t.Cleanup(func() { _ = sb.Close() }) // this test's server ends on its own
		p := Policy{Mode: ModeWorkspaceWrite, WorkDir: t.TempDir()}
		st := sb.Status()
		if err := st.Check(p); err != nil {
			t.Skipf("this system cannot sandbox: %v", err)
		}
		t.Run(string(st.NamespaceMethod), func(t *testing.T) {
			sp, err := sb.prepare(p)
			if err != nil {
				t.Fatal(err)
			}
			thread := newLockedThread()
			srv, err := startServer(sp, thread)
			if err != nil {
				thread.stop()
				t.Fatal(err)
			}
			<-srv.ready // set up, its signal handlers installed
			if srv.setupErr != nil {
				t.Fatal(srv.setupErr)
			}
			thread.stop()
			<-srv.done
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if srv.exitErr != nil {
				t.Errorf("the server ended with %v; want a clean stop on its parent-death signal", srv.exitErr)
			}
		})
	}
}
