package gitsource

import (
	"container/list"
	"sync"
)

// lru keeps values by key up to a byte budget, least recently used out
// first, and makes concurrent callers asking for the same missing key share
// one computation. Errors are not kept: objects are immutable, so the only
// failures are transient (a cancelled context) or final for the process.
type lru[V any] struct {
	mu      sync.Mutex
	max     int64
	size    int64
	order   *list.List // front = most recent
	items   map[string]*list.Element
	flights map[string]*flight[V]
}

type lruItem[V any] struct {
	key  string
	val  V
	cost int64
}

type flight[V any] struct {
	done chan struct{}
	val  V
	err  error
}

func newLRU[V any](max int64) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: map[string]*list.Element{}, flights: map[string]*flight[V]{}}
}

// get returns the value for key, computing it with load (value and its cost
// in bytes) when it is not cached.
func (c *lru[V]) get(key string, load func() (V, int64, error)) (V, error) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		v := el.Value.(*lruItem[V]).val
		c.mu.Unlock()
		return v, nil
	}
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		<-f.done
		return f.val, f.err
	}
	f := &flight[V]{done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()

	v, cost, err := load()
	f.val, f.err = v, err

	c.mu.Lock()
	delete(c.flights, key)
	if err == nil && cost <= c.max {
		c.items[key] = c.order.PushFront(&lruItem[V]{key: key, val: v, cost: cost})
		c.size += cost
		for c.size > c.max {
			last := c.order.Back()
			it := last.Value.(*lruItem[V])
			c.order.Remove(last)
			delete(c.items, it.key)
			c.size -= it.cost
		}
	}
	c.mu.Unlock()
	close(f.done)
	return v, err
}
