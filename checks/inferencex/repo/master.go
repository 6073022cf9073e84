package repo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// Masters loads the master configs (all *-master.yaml directly in the
// layout's ConfigsDir, so deprecated/ is excluded) of one verification at
// any ref, each ref once. The base, head and default-branch copies of a
// master config differ in a few entries, so each distinct entry text is
// decoded once for all refs.
type Masters struct {
	reader   *Reader
	layout   Layout
	settings *Settings
	chunks   *chunkCache

	mu   sync.Mutex
	refs map[string]*readEntry[masterSet]
	// sets holds each distinct combination of parsed files once: refs
	// whose master files all read the same (base and default branch,
	// usually) share one map.
	sets map[string]masterSet
}

type masterSet struct {
	m  map[string]*ConfigEntry
	ps []InputProblem
}

// MastersFact is the verification's master-config loader.
var MastersFact = checks.NewFact("master configs", []checks.Requirement{ReaderFact, LayoutFact},
	func(ctx context.Context, pr *checks.PR) (*Masters, error) {
		r, err := ReaderFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		l, err := LayoutFact.Of(ctx, pr)
		if err != nil {
			return nil, err
		}
		s := SettingsParam.Get(pr)
		return &Masters{reader: r, layout: l, settings: s, chunks: sharedChunks.For(s), refs: map[string]*readEntry[masterSet]{}}, nil
	})

// Reader is the reader the configs are loaded with, which the change-set
// model reads the rest of the repository through.
func (ms *Masters) Reader() *Reader { return ms.reader }

// Layout is the layout the configs are found with.
func (ms *Masters) Layout() Layout { return ms.layout }

// At returns every entry of the master configs at ref, classified from the
// entry itself. Files that cannot be read or parsed are InputProblems; the
// other files' entries are still returned. The error is set only when the
// configs directory cannot be listed at all.
func (ms *Masters) At(ctx context.Context, ref string) (map[string]*ConfigEntry, []InputProblem, error) {
	ms.mu.Lock()
	e, ok := ms.refs[ref]
	if !ok {
		e = &readEntry[masterSet]{}
		ms.refs[ref] = e
	}
	ms.mu.Unlock()
	e.once.Do(func() {
		var set masterSet
		set.m, set.ps, e.err = ms.load(ctx, ref)
		e.val = set
	})
	return e.val.m, e.val.ps, e.err
}

func (ms *Masters) load(ctx context.Context, ref string) (map[string]*ConfigEntry, []InputProblem, error) {
	dir := ms.layout.ConfigsDir
	es, err := ms.reader.List(ctx, ref, dir)
	if errors.Is(err, checks.ErrNotFound) && ms.layout.EarlierConfigsDir != "" {
		// A commit from before the configs moved.
		if earlier, eerr := ms.reader.List(ctx, ref, ms.layout.EarlierConfigsDir); eerr == nil {
			dir, es, err = ms.layout.EarlierConfigsDir, earlier, nil
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("loading master configs: %w", err)
	}
	var files []string
	for _, e := range es {
		if e.Type != "dir" && strings.HasSuffix(e.Name, "-master.yaml") {
			files = append(files, path.Join(dir, e.Name))
		}
	}
	sort.Strings(files)
	parsed := make([]*parsedFile, len(files))
	ms.reader.ReadEach(ctx, ref, files, func(i int, b []byte, err error) {
		if err != nil {
			parsed[i] = &parsedFile{ps: []InputProblem{{Path: files[i], Err: err.Error()}}}
			return
		}
		parsed[i] = ms.chunks.file(files[i], b)
	})
	var key strings.Builder
	for i, p := range parsed {
		fmt.Fprintf(&key, "%s\x00%p\x00", files[i], p)
	}
	ms.mu.Lock()
	set, ok := ms.sets[key.String()]
	ms.mu.Unlock()
	if ok {
		return set.m, set.ps, nil
	}
	n := 0
	for _, p := range parsed {
		n += len(p.es)
	}
	m := make(map[string]*ConfigEntry, n)
	var ps []InputProblem
	for i, f := range files {
		ps = append(ps, parsed[i].ps...)
		for _, e := range parsed[i].es {
			if prev, dup := m[e.Key]; dup {
				ps = append(ps, InputProblem{Path: f, Err: fmt.Sprintf("duplicate master key %s (also in %s:%d)", e.Key, prev.File, prev.Line)})
				continue
			}
			m[e.Key] = e
		}
	}
	ms.mu.Lock()
	if ms.sets == nil {
		ms.sets = map[string]masterSet{}
	}
	ms.sets[key.String()] = masterSet{m, ps}
	ms.mu.Unlock()
	return m, ps, nil
}

// ParseMasterConfig parses one master-config file into entries (not yet
// classified). Problems are malformed YAML and duplicate keys.
func ParseMasterConfig(file string, data []byte) ([]*ConfigEntry, []InputProblem) {
	p := parseMaster(file, string(data), nil)
	return p.es, p.ps
}

// parsedFile is one master file's entries and problems.
type parsedFile struct {
	es []*ConfigEntry
	ps []InputProblem
}

func parseMaster(file, text string, cache *chunkCache) *parsedFile {
	chunks, err := yamlx.SplitTopLevel(text)
	if err != nil {
		return parseMasterWhole(file, text, cache)
	}
	// Claim the chunks no other reading decodes, decode them, then collect
	// the rest: the base and head readings of one config run concurrently
	// and share the work instead of waiting on each other chunk by chunk.
	slots := make([]*chunkSlot, len(chunks))
	cache.reserve(len(chunks))
	var ps yamlx.Parser
	for i, c := range chunks {
		s, mine := cache.claim(c.Text)
		if mine {
			if s.e, s.err = decodeEntry(&ps, c.Key, c.Text, cache); s.err == nil {
				s.e.File, s.e.Line = file, c.Line
			}
			s.wg.Done()
		}
		slots[i] = s
	}
	out := &parsedFile{es: make([]*ConfigEntry, 0, len(chunks))}
	seen := make(map[string]int, len(chunks))
	for i, c := range chunks {
		if l, dup := seen[c.Key]; dup {
			out.ps = append(out.ps, InputProblem{Path: file, Err: fmt.Sprintf("line %d: duplicate key %q (first at line %d)", c.Line, c.Key, l)})
			continue
		}
		seen[c.Key] = c.Line
		s := slots[i]
		s.wg.Wait()
		if s.err != nil {
			out.ps = append(out.ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", c.Key, c.Line, yamlx.ShiftLines(s.err, c.Line-1))})
			continue
		}
		e := s.e
		if e.File != file || e.Line != c.Line {
			// The same text at another place: a reading of its own.
			e = new(ConfigEntry)
			*e = *s.e
			e.File, e.Line = file, c.Line
		}
		out.es = append(out.es, e)
	}
	return out
}

// decodeEntry reads one entry chunk: typed straight from the fast parser's
// tree when the chunk is in its subset, through yaml.v3's generic decoding
// otherwise. Entries are classified when the cache knows the settings.
func decodeEntry(ps *yamlx.Parser, key, text string, cache *chunkCache) (*ConfigEntry, error) {
	var e *ConfigEntry
	var err error
	if v, ok := ps.Entry(text); ok {
		e, err = entryFromNode(key, v, &entryText{text: text})
	} else {
		var raw any
		if raw, err = yamlx.DecodeEntrySlow(text); err == nil {
			e, err = entryFromRaw(key, raw)
		}
	}
	if err != nil {
		return nil, err
	}
	if cache != nil {
		classify(e, cache.settings)
	}
	return e, nil
}

// entryFromRaw builds the typed view of one master entry from its generic
// decoding. The scenario and search-space views are derived from Raw and
// never mutate it.
func entryFromRaw(key string, v any) (*ConfigEntry, error) {
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("entry is not a mapping")
	}
	e := &ConfigEntry{
		Key:         key,
		Raw:         FieldsOf(raw),
		Image:       cfgStr(raw["image"]),
		Model:       cfgStr(raw["model"]),
		ModelPrefix: cfgStr(raw["model-prefix"]),
		Runner:      cfgStr(raw["runner"]),
		Precision:   cfgStr(raw["precision"]),
		Framework:   cfgStr(raw["framework"]),
		MultiNode:   cfgTruthy(raw["multinode"]),
		Disagg:      cfgTruthy(raw["disagg"]),
	}
	sc, _ := raw["scenarios"].(map[string]any)
	types := make([]string, 0, len(sc))
	for t := range sc {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		items, _ := sc[t].([]any)
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			s := Scenario{Type: t, ISL: AsInt(m["isl"]), OSL: AsInt(m["osl"]), Fields: FieldsOf(m)}
			ss, _ := m["search-space"].([]any)
			for _, x := range ss {
				if sm, ok := x.(map[string]any); ok {
					s.Search = append(s.Search, searchSpace(sm))
				}
			}
			e.Scenarios = append(e.Scenarios, s)
		}
	}
	return e, nil
}

// maxConcPoints bounds the expansion of a conc-start/conc-end range.
const maxConcPoints = 64

// concRange expands conc-start..conc-end (lo > 0, hi >= lo) as the sweep
// generator does: doubling from start to end, end included.
func concRange(lo, hi int) []int {
	var out []int
	for c := lo; c <= hi && len(out) < maxConcPoints; c *= 2 {
		out = append(out, c)
	}
	if out[len(out)-1] != hi && len(out) < maxConcPoints {
		out = append(out, hi)
	}
	return out
}

func searchSpace(m map[string]any) SearchSpace {
	s := SearchSpace{
		Fields:       FieldsOf(m),
		TP:           AsInt(m["tp"]),
		EP:           AsInt(m["ep"]),
		PP:           AsInt(m["pp"]),
		SpecDecoding: cfgStr(m["spec-decoding"]),
		SrtRecipe:    cfgStr(m["srt-recipe"]),
		KVOffloading: cfgStr(m["kv-offloading"]),
	}
	if l, ok := m["conc-list"].([]any); ok {
		for _, c := range l {
			s.Conc = append(s.Conc, AsInt(c))
		}
	} else if lo, hi := AsInt(m["conc-start"]), AsInt(m["conc-end"]); lo > 0 && hi >= lo {
		s.Conc = concRange(lo, hi)
	}
	// An aggregated multi-node element has one worker block instead of
	// prefill and decode.
	for _, role := range []string{"prefill", "decode", "worker"} {
		rm, _ := m[role].(map[string]any)
		as, _ := rm["additional-settings"].([]any)
		for _, a := range as {
			if v, ok := strings.CutPrefix(strings.TrimSpace(cfgStr(a)), "CONFIG_FILE="); ok {
				s.ConfigFiles = append(s.ConfigFiles, strings.Trim(v, `"'`))
			}
		}
	}
	return s
}

// classify fills the classifications the entry itself decides (RULES.md,
// "The change-set model").
// Recipe-based spec-decode detection is added by the change-set builder for
// affected configs, whose recipes it reads.
func classify(e *ConfigEntry, s *Settings) {
	e.SKU = NormalizeSKU(e.Runner)
	k := strings.ToLower(e.Key)
	for _, sc := range e.Scenarios {
		if sc.Type == "agentic-coding" {
			e.Agentic = true
		}
		for _, ss := range sc.Search {
			if d := strings.ToLower(ss.SpecDecoding); d != "" && d != "none" {
				e.SpecDecode = true
			}
			if p := strings.ToLower(ss.SrtRecipe); strings.Contains(p, "agentic") || strings.Contains(p, "agentx") {
				e.Agentic = true
			}
		}
	}
	if strings.Contains(k, "agentic") || strings.Contains(k, "agentx") {
		e.Agentic = true
	}
	if strings.HasSuffix(k, "-mtp") || strings.Contains(k, "eagle") || strings.Contains(k, "dspark") {
		e.SpecDecode = true
	}
	if s != nil {
		e.OpenSource = s.IsOpenSource(e.Framework)
	}
}

// NormalizeSKU turns a runner into its SKU: drop a "cluster:" prefix,
// lowercase, keep the text before the first "-".
func NormalizeSKU(runner string) string {
	r := strings.ToLower(strings.TrimSpace(runner))
	r = strings.TrimPrefix(r, "cluster:")
	r, _, _ = strings.Cut(r, "-")
	return r
}

// DiffKeys compares two master maps: keys only in head, keys in both whose
// decoded values differ, keys only in base. All sorted.
func DiffKeys(base, head map[string]*ConfigEntry) (added, changed, removed []string) {
	for k, h := range head {
		b, ok := base[k]
		switch {
		case !ok:
			added = append(added, k)
		case !sameValue(b, h):
			changed = append(changed, k)
		}
	}
	for k := range base {
		if _, ok := head[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(changed)
	sort.Strings(removed)
	return
}

func cfgStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func cfgTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(x) {
		case "true", "yes", "1":
			return true
		}
	case int:
		return x != 0
	}
	return false
}

// AsInt reads a decoded YAML value as an integer (0 when it is none).
func AsInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case uint64:
		return int(x)
	case float64:
		return int(x)
	case string:
		var n int
		if _, err := fmt.Sscanf(x, "%d", &n); err == nil {
			return n
		}
	}
	return 0
}

// chunkCache shares decoded entries: the base, head and default-branch
// copies of a big master config cost one decode per distinct entry text,
// and identical file contents are parsed once, within one verification and
// across the verifications that share its settings (sharedChunks: the PRs
// of one base read the same files). A nil cache decodes every time.
type chunkCache struct {
	settings *Settings

	mu     sync.Mutex
	chunks map[string]*chunkSlot
	files  map[string]*fileSlot
	// bytes are the distinct file texts held (the chunks are substrings).
	bytes int
}

func newChunkCache(s *Settings) *chunkCache {
	return &chunkCache{settings: s, chunks: map[string]*chunkSlot{}, files: map[string]*fileSlot{}}
}

// chunkSlot is one distinct entry text; wg is done once e and err are set.
// e is classified, shared by every reading and never modified; its File and
// Line are those of the reading that decoded it.
type chunkSlot struct {
	wg  sync.WaitGroup
	e   *ConfigEntry
	err error
}

// reserve sizes an empty cache for n entries, sparing the rehashes of a
// map growing to thousands of them.
func (c *chunkCache) reserve(n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if len(c.chunks) == 0 {
		c.chunks = make(map[string]*chunkSlot, n)
	}
	c.mu.Unlock()
}

// claim returns text's slot, and whether the caller must fill it.
func (c *chunkCache) claim(text string) (*chunkSlot, bool) {
	if c == nil {
		s := new(chunkSlot)
		s.wg.Add(1)
		return s, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.chunks[text]; ok {
		return s, false
	}
	s := new(chunkSlot)
	s.wg.Add(1)
	c.chunks[text] = s
	return s, true
}

type fileSlot struct {
	path, text string
	once       sync.Once
	p          *parsedFile
}

// file parses a master file, once for every reading of the same content at
// the same path (the base and the default branch usually agree).
func (c *chunkCache) file(path string, data []byte) *parsedFile {
	c.mu.Lock()
	s, ok := c.files[string(data)]
	if !ok {
		// The key and the text the entries point into are one copy.
		s = &fileSlot{path: path, text: string(data)}
		c.files[s.text] = s
		c.bytes += len(s.text)
	}
	c.mu.Unlock()
	if s.path != path {
		return parseMaster(path, s.text, c)
	}
	s.once.Do(func() { s.p = parseMaster(path, s.text, c) })
	return s.p
}

// parseMasterWhole decodes a master file as one document (anchors and
// aliases resolved by yaml.v3, bounded by yamlx.DecodeNode).
func parseMasterWhole(file, text string, cache *chunkCache) *parsedFile {
	root, err := yamlx.DecodeNode([]byte(text))
	if err != nil {
		return &parsedFile{ps: []InputProblem{{Path: file, Err: err.Error()}}}
	}
	if root == nil {
		return &parsedFile{}
	}
	if root.Kind != yaml.MappingNode {
		return &parsedFile{ps: []InputProblem{{Path: file, Err: "root is not a mapping"}}}
	}
	var out []*ConfigEntry
	var ps []InputProblem
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if l, dup := seen[k.Value]; dup {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("line %d: duplicate key %q (first at line %d)", k.Line, k.Value, l)})
			continue
		}
		seen[k.Value] = k.Line
		var raw any
		if err := v.Decode(&raw); err != nil {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", k.Value, k.Line, err)})
			continue
		}
		e, err := entryFromRaw(k.Value, raw)
		if err != nil {
			ps = append(ps, InputProblem{Path: file, Err: fmt.Sprintf("entry %s at line %d: %v", k.Value, k.Line, err)})
			continue
		}
		e.File, e.Line = file, k.Line
		if cache != nil {
			classify(e, cache.settings)
		}
		out = append(out, e)
	}
	return &parsedFile{es: out, ps: ps}
}

// TPs lists the tensor-parallel sizes of one search-space element:
// its own tp and, for multi-node elements, the tp of its prefill and
// decode blocks or of its aggregated worker block (where multi-node entries
// carry it).
func (ss SearchSpace) TPs() []int {
	var out []int
	if ss.TP > 0 {
		out = append(out, ss.TP)
	}
	for _, role := range []string{"prefill", "decode", "worker"} {
		v, _ := ss.Fields.Get(role)
		rm, _ := v.(map[string]any)
		if tp := AsInt(rm["tp"]); tp > 0 {
			out = append(out, tp)
		}
	}
	return out
}
