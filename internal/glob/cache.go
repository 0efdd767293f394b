package glob

import (
	"container/list"
	"sync"
)

// DefaultCacheSize is the capacity New gives a Cache when asked for none.
const DefaultCacheSize = 512

// Cache keeps the most recently used compiled patterns, keyed by pattern and
// options. Errors are cached too, so a bad pattern is parsed once. It is safe
// for concurrent use.
type Cache struct {
	size int

	mu      sync.Mutex // guards the fields below
	order   *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*list.Element
}

type cacheKey struct {
	pattern string
	opts    Options
}

type cacheEntry struct {
	key cacheKey
	g   *Glob
	err error
}

// NewCache returns a cache holding up to size patterns; size <= 0 means
// DefaultCacheSize.
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{size: size, order: list.New(), entries: map[cacheKey]*list.Element{}}
}

// Compile returns the compiled pattern, compiling it on a miss.
func (c *Cache) Compile(pattern string, opts Options) (*Glob, error) {
	k := cacheKey{pattern, opts}
	c.mu.Lock()
	if el, ok := c.entries[k]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.mu.Unlock()
		return e.g, e.err
	}
	c.mu.Unlock()

	g, err := Compile(pattern, opts) // outside the lock: patterns may be long

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok { // another goroutine compiled it meanwhile
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		return e.g, e.err
	}
	c.entries[k] = c.order.PushFront(&cacheEntry{key: k, g: g, err: err})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*cacheEntry).key)
	}
	return g, err
}

// Match matches value against pattern, compiled through the cache.
func (c *Cache) Match(pattern, value string, opts Options) (bool, error) {
	g, err := c.Compile(pattern, opts)
	if err != nil {
		return false, err
	}
	return g.Match(value), nil
}

// Len is the number of cached patterns.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
