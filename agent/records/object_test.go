package records

import (
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"1.4", "1.4", 0},
		{"1.4.0", "1.4", 0},
		{"1.10", "1.9", 1},
		{"0.9", "1.4", -1},
		{"01.4", "1.4", 0},
		{"2", "1.4", 1},
		{"99999999999999999999999", "1.4", 1},
	} {
		if got := compareVersions(tt.a, tt.b); sign(got) != tt.want {
			t.Errorf("compareVersions(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
	for v, want := range map[string]bool{"1.4": true, "1": true, "1.2.3": true, "": false, "1.": false, ".1": false, "1.x": false, "v1": false, "1..2": false, "-1": false} {
		if validVersion(v) != want {
			t.Errorf("validVersion(%q) = %v", v, !want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func TestObjectEdits(t *testing.T) {
	o, ok := parseObject([]byte(` { "a" : 1 , "b":{"c":[1,"x\"y"]}, "a":2 } `))
	if !ok {
		t.Fatal("parse failed")
	}
	if v, _ := o.get("a"); string(v) != "2" {
		t.Errorf("get(a) = %s, want the last duplicate", v)
	}
	o.set("a", []byte(`3`))
	o.set("z", []byte(`true`))
	o.del("b")
	if got := string(o.bytes()); got != `{"a":3,"z":true}` {
		t.Errorf("bytes = %s", got)
	}
	if _, ok := parseObject([]byte(`{"a":1} x`)); ok {
		t.Error("trailing garbage accepted")
	}
	elems, ok := parseArray([]byte(`[ {"a":"]"}, 2 ,"s"]`))
	if !ok || len(elems) != 3 || string(elems[0]) != `{"a":"]"}` {
		t.Errorf("parseArray = %q, %v", elems, ok)
	}
}

func TestBlobCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newBlobCache(10)
	c.put("a", "1234")
	c.put("b", "1234")
	c.get("a") // a is now the most recent
	c.put("c", "1234")
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	c.put("big", "12345678901")
	if _, ok := c.get("big"); ok {
		t.Error("a payload larger than the cache was cached")
	}
}
