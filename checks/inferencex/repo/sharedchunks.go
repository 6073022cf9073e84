package repo

import (
	"encoding/json"
	"sync"
)

// sharedChunkBytes bounds the master-config text the shared chunk caches
// hold, all settings together. Decoded entries take about 18 times their
// text on the heap, so 4 MiB of text (InferenceX's active master configs
// are under 0.5 MiB, a few versions of them fit) keeps the shared entries
// near 72 MiB.
const sharedChunkBytes = 4 << 20

// sharedChunks are the process's chunk caches, one per settings value
// (classification reads the settings), so that the PRs of one base, and a
// PR verified again, decode each master-config entry once. Entries are
// never modified after decoding (parseMaster copies one read at another
// place), which is what lets concurrent verifications share them.
var sharedChunks = &chunkCaches{m: map[string]*chunkCache{}}

type chunkCaches struct {
	mu sync.Mutex
	m  map[string]*chunkCache
}

// For returns the shared cache of settings s. When the caches hold more
// text than sharedChunkBytes they are all dropped for fresh ones: the
// verifications holding the old ones keep them until they end.
func (cs *chunkCaches) For(s *Settings) *chunkCache {
	key, err := json.Marshal(s)
	if err != nil {
		return newChunkCache(s) // unshareable: this verification's own
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	total := 0
	for _, c := range cs.m {
		total += c.held()
	}
	if total > sharedChunkBytes {
		clear(cs.m)
	}
	c := cs.m[string(key)]
	if c == nil {
		c = newChunkCache(s)
		cs.m[string(key)] = c
	}
	return c
}

func (c *chunkCache) held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
