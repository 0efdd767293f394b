package records

import (
	"container/list"
	"sync"
)

// blobCache keeps recently used blob payloads (base64 text) up to a byte
// budget, evicting the least recently used. A payload larger than the whole
// budget is not cached. Safe for concurrent use.
type blobCache struct {
	max int64

	mu    sync.Mutex
	size  int64                    // guarded by mu
	order *list.List               // guarded by mu; front = most recent, values *cacheEntry
	byKey map[string]*list.Element // guarded by mu
}

type cacheEntry struct {
	hash    string
	payload string
}

func newBlobCache(max int64) *blobCache {
	return &blobCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *blobCache) get(hash string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[hash]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).payload, true
}

func (c *blobCache) put(hash, payload string) {
	n := int64(len(payload))
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[hash]; ok {
		c.order.MoveToFront(el)
		return // same hash, same payload
	}
	for c.size+n > c.max {
		last := c.order.Back()
		e := c.order.Remove(last).(*cacheEntry)
		delete(c.byKey, e.hash)
		c.size -= int64(len(e.payload))
	}
	c.byKey[hash] = c.order.PushFront(&cacheEntry{hash: hash, payload: payload})
	c.size += n
}
