package bug

import "testing"

func TestReportfPanicsUnderTest(t *testing.T) {
	defer func() {
		if r := recover(); r != "bug: broken 7" {
			t.Fatalf("recover() = %v, want bug panic", r)
		}
	}()
	Reportf("broken %d", 7)
}

func TestQuietDoesNotPanic(t *testing.T) {
	restore := Quiet()
	defer restore()
	Reportf("tolerated")
}
