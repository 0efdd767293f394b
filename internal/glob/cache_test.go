package glob_test

import (
	"sync"
	"testing"

	"github.com/kimigo/kimigo/internal/glob"
)

func TestCacheReturnsSameGlob(t *testing.T) {
	c := glob.NewCache(2)
	a, err := c.Compile("a*", glob.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Compile("a*", glob.Options{})
	if a != b {
		t.Error("a second Compile of the same pattern compiled it again")
	}
	folded, _ := c.Compile("a*", glob.Options{NoCase: true})
	if folded == a {
		t.Error("options are not part of the cache key")
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := glob.NewCache(2)
	first, _ := c.Compile("one", glob.Options{})
	c.Compile("two", glob.Options{})
	c.Compile("one", glob.Options{}) // "two" is now the least recent
	c.Compile("three", glob.Options{})
	if c.Len() != 2 {
		t.Fatalf("Len() = %d; want 2", c.Len())
	}
	if again, _ := c.Compile("one", glob.Options{}); again != first {
		t.Error(`"one" was evicted although it was used more recently than "two"`)
	}
}

func TestCacheKeepsErrors(t *testing.T) {
	c := glob.NewCache(0)
	if _, err := c.Match("", "x", glob.Options{}); err == nil {
		t.Error("Match with an empty pattern succeeded")
	}
	if ok, err := c.Match("x*", "xy", glob.Options{}); err != nil || !ok {
		t.Errorf(`Match("x*", "xy") = %v, %v`, ok, err)
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := glob.NewCache(4)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				p := []string{"a*", "b*", "c*", "d*", "e*", "f*"}[(i+j)%6]
				if ok, err := c.Match(p, p[:1]+"x", glob.Options{}); err != nil || !ok {
					t.Errorf("Match(%q) = %v, %v", p, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 4 {
		t.Errorf("Len() = %d; want at most 4", c.Len())
	}
}
