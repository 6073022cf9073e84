package ghsource

import (
	"container/list"
	"sync"
)

// Cache is a least-recently-used cache bounded by bytes, for evidence that
// never changes: file contents and directory listings at a commit SHA, and
// entries extracted from an artifact (artifacts are immutable). Share one
// Cache between the Sources of many verifications. It is safe for
// concurrent use.
type Cache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	ll      *list.List
	items   map[string]*list.Element
	hits    int64
	misses  int64
	evicted int64
}

type cacheEntry struct {
	key  string
	val  any
	size int64
}

// NewCache returns a cache holding at most maxBytes of values.
func NewCache(maxBytes int64) *Cache {
	return &Cache{max: maxBytes, ll: list.New(), items: map[string]*list.Element{}}
}

func (c *Cache) get(key string) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		c.hits++
		return e.Value.(*cacheEntry).val, true
	}
	c.misses++
	return nil, false
}

// put stores val; size is its approximate footprint in bytes. Values larger
// than the whole cache are not stored.
func (c *Cache) put(key string, val any, size int64) {
	if c == nil {
		return
	}
	size += int64(len(key)) + 64 // bookkeeping overhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max {
		return
	}
	if e, ok := c.items[key]; ok {
		old := e.Value.(*cacheEntry)
		c.size += size - old.size
		old.val, old.size = val, size
		c.ll.MoveToFront(e)
	} else {
		c.items[key] = c.ll.PushFront(&cacheEntry{key: key, val: val, size: size})
		c.size += size
	}
	for c.size > c.max {
		e := c.ll.Back()
		ce := e.Value.(*cacheEntry)
		c.ll.Remove(e)
		delete(c.items, ce.key)
		c.size -= ce.size
		c.evicted++
	}
}

// CacheStats describe a cache's use.
type CacheStats struct {
	Hits, Misses, Evicted int64
	Bytes                 int64
	Entries               int
}

// Stats returns counters for logs, metrics and tests.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Evicted: c.evicted, Bytes: c.size, Entries: c.ll.Len()}
}
