package shell

import (
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxValues bounds the combinations one word expands to, maxValueLen the
// length of one value.
const (
	maxValues   = 32
	maxValueLen = 16 << 10
	// maxCandidates bounds the assignments one expansion follows.
	maxCandidates = 256
)

// Values returns the assignments of name that may be in effect at site at,
// in source order, and whether the environment (or the caller) may supply
// the value instead because none of them surely ran first.
//
// The reading is static and in source order: an assignment is in effect
// when it comes before at in the same process (or anywhere outside the
// function at sits in, since the function may be called later), is not a
// local of another function, is not in a branch that excludes at's, and is
// not replaced by a later assignment that runs whenever it runs. Prefix
// assignments (X=1 cmd) only reach their command's environment and are not
// returned.
func (sc *Script) Values(name string, at *Site) (as []*Assign, fromEnv bool) {
	return sc.values(name, at, 0)
}

// values is Values collecting at most limit assignments when limit > 0
// (the caller then gives up on more than limit-1).
func (sc *Script) values(name string, at *Site, limit int) (as []*Assign, fromEnv bool) {
	if sc.over() {
		return nil, true
	}
	sure := false
	for _, g := range sc.groups[name] {
		sc.spend(1)
		if !isPrefix(g.iso, g.key.iso, at.iso) {
			continue
		}
		list := g.list
		cut := sort.Search(len(list), func(i int) bool { return list[i].off > at.start })
		if at.fn != nil && g.key.fn != at.fn {
			// The function may be called after any of these ran.
			for _, a := range list[cut:] {
				sc.spend(1)
				if candidate(a) && visible(a, at) {
					as = append(as, a)
				}
				if limit > 0 && len(as) >= limit {
					break
				}
			}
		}
		// Backwards, so each assignment meets the later ones that replace
		// it, indexed by the innermost condition they run under (a
		// condition stands for the whole stack up to it).
		killers := map[*Cond][]int{}
		for i := cut - 1; i >= 0; i-- {
			sc.spend(1)
			a := list[i]
			if !candidate(a) || !visible(a, at) {
				continue
			}
			if !replaced(killers, a) {
				as = append(as, a)
				sure = sure || surely(a, at)
				if limit > 0 && len(as) >= limit {
					break
				}
			}
			if a.Kind == AssignDefault || a.Index != "" {
				continue
			}
			c := lastCond(a.Conds)
			if c == nil && a.group == 0 {
				break // it replaces everything before it in this group
			}
			if gs := killers[c]; len(gs) < 2 && (len(gs) == 0 || gs[0] != a.group) {
				killers[c] = append(gs, a.group)
			}
		}
	}
	sort.SliceStable(as, func(i, j int) bool { return as[i].off < as[j].off })
	return as, !sure && !sc.covered(as, at)
}

func candidate(a *Assign) bool { return a.Kind != AssignPrefix && !a.Naked }

// group holds the assignments of one name made in one function and process:
// only they can replace one another.
type group struct {
	key  groupKey
	iso  []int
	list []*Assign // ordered by where they take effect
}

type groupKey struct {
	fn  *Function
	iso string
}

func (sc *Script) spend(n int) {
	if sc.limit > 0 {
		sc.steps += n
	}
}

func (sc *Script) over() bool { return sc.limit > 0 && sc.steps > sc.limit }

func isoKey(iso []int) string {
	b := make([]byte, 0, len(iso)*4)
	for _, x := range iso {
		b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	return string(b)
}

func lastCond(cs []*Cond) *Cond {
	if len(cs) == 0 {
		return nil
	}
	return cs[len(cs)-1]
}

// replaced reports whether a later assignment of the same group runs
// whenever a ran: its conditions are a prefix of a's and it is not another
// item of the same for loop.
func replaced(killers map[*Cond][]int, a *Assign) bool {
	for i := 0; i <= len(a.Conds); i++ {
		var c *Cond
		if i > 0 {
			c = a.Conds[i-1]
		}
		for _, g := range killers[c] {
			if g == 0 || g != a.group {
				return true
			}
		}
	}
	return false
}

// covered reports whether the assignments cover every branch of a complete
// if chain or case (one with an else or a * arm) that at follows.
func (sc *Script) covered(as []*Assign, at *Site) bool {
	byChain := map[int]map[*Cond]bool{}
	for _, a := range as {
		n := len(a.Conds)
		if n == 0 || a.off > at.start || a.Kind == AssignDefault || a.fn != at.fn && a.fn != nil || !isPrefix(a.iso, a.isoK, at.iso) {
			continue
		}
		c := a.Conds[n-1]
		if c.chain == 0 || !isPrefixConds(a.Conds[:n-1], at.Conds) {
			continue
		}
		if byChain[c.chain] == nil {
			byChain[c.chain] = map[*Cond]bool{}
		}
		byChain[c.chain][c] = true
	}
	for id, set := range byChain {
		if ch := sc.chains[id]; ch.complete && len(set) == ch.branches {
			return true
		}
	}
	return false
}

// Exported reports whether name is exported at site at: by export,
// declare -x, or set -a before the assignment.
func (sc *Script) Exported(name string, at *Site) bool {
	for _, a := range sc.byName[name] {
		if a.Exported && a.Kind != AssignPrefix && visible(a, at) {
			return true
		}
	}
	return false
}

func visible(a *Assign, at *Site) bool {
	if !isPrefix(a.iso, a.isoK, at.iso) || a.Local && a.fn != at.fn || exclusive(a.Conds, at.Conds) {
		return false
	}
	if a.off <= at.start {
		return true
	}
	return at.fn != nil && a.fn != at.fn
}

// surely reports whether a certainly ran before at.
func surely(a *Assign, at *Site) bool {
	return a.off <= at.start && a.Kind != AssignDefault && (a.fn == at.fn || a.fn == nil) && isPrefixConds(a.Conds, at.Conds)
}

func exclusive(a, b []*Cond) bool {
	for _, x := range a {
		for _, y := range b {
			if x != y && x.chain != 0 && x.chain == y.chain {
				return true
			}
		}
	}
	return false
}

func isPrefix(a []int, aKey string, b []int) bool {
	return aKey == "" || len(a) <= len(b) && sameInts(a, b[:len(a)])
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func isPrefixConds(a, b []*Cond) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// expansion is the memoized value set of one assignment.
type expansion struct {
	vals     []string
	env, ok  bool
	inFlight bool
}

type memoKey struct {
	a   *Assign
	idx string
}

// expandWord returns the values a word may take at site at.
func (sc *Script) expandWord(w *syntax.Word, at *Site, depth int) (vals []string, env, ok bool) {
	if w == nil {
		return []string{""}, false, true
	}
	return sc.expandParts(w.Parts, false, at, depth)
}

func (sc *Script) expandParts(ps []syntax.WordPart, dq bool, at *Site, depth int) ([]string, bool, bool) {
	acc := []string{""}
	env := false
	for i, p := range ps {
		var pv []string
		var penv, pok bool
		switch x := p.(type) {
		case *syntax.Lit:
			if i == 0 && !dq && strings.HasPrefix(x.Value, "~") {
				return nil, env, false
			}
			pv, pok = []string{unescape(x.Value, dq)}, true
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				v = ansiC(v)
			}
			pv, pok = []string{v}, true
		case *syntax.DblQuoted:
			pv, penv, pok = sc.expandParts(x.Parts, true, at, depth)
		case *syntax.ParamExp:
			pv, penv, pok = sc.expandParam(x, at, depth)
		}
		env = env || penv
		if !pok || len(pv) == 0 {
			return nil, env, false
		}
		acc = sc.product(acc, pv)
		if acc == nil || len(acc) > maxValues {
			return nil, env, false
		}
	}
	return acc, env, true
}

// product concatenates every value of a with every value of b, once each,
// charging the bytes made to the Parse budget. A value longer than
// maxValueLen is not kept: the caller gets nil and reads the word as not
// statically known.
func (sc *Script) product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	seen := map[string]bool{}
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxValueLen {
				return nil
			}
			sc.spend(len(x) + len(y))
			if v := x + y; !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func (sc *Script) expandParam(p *syntax.ParamExp, at *Site, depth int) ([]string, bool, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return nil, false, false
	}
	name := p.Param.Value
	if !syntax.ValidName(name) {
		return nil, true, false // positional and special parameters
	}
	idx := ""
	if p.Index != nil {
		t, ok := sc.index[p]
		if !ok {
			return nil, false, false
		}
		idx = keyValue(t)
		if strings.ContainsAny(idx, "$`") {
			idx = anyElem
		}
	}
	vals, env, ok, none := sc.varValues(name, idx, at, depth)
	if p.Exp == nil {
		return vals, env, ok && !none
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		dv, denv, dok := sc.expandWord(p.Exp.Word, at, depth+1)
		if !dok || len(dv) == 0 {
			return nil, env || denv, false
		}
		if none {
			return dv, true, true
		}
		if !ok {
			return nil, env, false
		}
		colon := p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.AssignUnsetOrNull
		if env || idx == anyElem || colon && contains(vals, "") {
			var kept []string
			for _, v := range vals {
				if v != "" || !colon {
					kept = append(kept, v)
				}
			}
			return sc.product([]string{""}, append(kept, dv...)), env || denv, true
		}
		return vals, false, true
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return vals, env, ok && !none
	}
	return nil, env, false
}

func contains(vs []string, s string) bool {
	for _, v := range vs {
		if v == s {
			return true
		}
	}
	return false
}

// varValues expands variable name (element idx) at site at. none is set
// when no assignment is in effect at all.
func (sc *Script) varValues(name, idx string, at *Site, depth int) (vals []string, env, ok, none bool) {
	if depth > maxDepth {
		return nil, false, false, false
	}
	as, env := sc.values(name, at, maxCandidates+1)
	if len(as) == 0 {
		return nil, true, false, true
	}
	if len(as) > maxCandidates {
		return nil, env, false, false
	}
	sc.spend(len(as))
	seen := map[string]bool{}
	for _, a := range as {
		av, aenv, aok := sc.assignValues(a, idx, depth+1)
		env = env || aenv
		if !aok {
			return nil, env, false, false
		}
		for _, v := range av {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		}
		if len(vals) > maxValues {
			return nil, env, false, false
		}
	}
	return vals, env, true, false
}

// assignValues is what variable a.Name (element idx) holds after a.
func (sc *Script) assignValues(a *Assign, idx string, depth int) ([]string, bool, bool) {
	key := memoKey{a, idx}
	if m, ok := sc.memo[key]; ok {
		if m.inFlight {
			return nil, false, false
		}
		return m.vals, m.env, m.ok
	}
	m := &expansion{inFlight: true}
	sc.memo[key] = m
	m.vals, m.env, m.ok = sc.computeAssign(a, idx, depth)
	m.ok = m.ok && len(m.vals) > 0
	m.inFlight = false
	return m.vals, m.env, m.ok
}

func (sc *Script) computeAssign(a *Assign, idx string, depth int) ([]string, bool, bool) {
	at := a.Site
	at.off = at.start
	if a.Kind == AssignRead {
		return nil, false, false
	}
	if a.Index != "" && a.Index != idx {
		return nil, false, false
	}
	var vals []string
	var env, ok bool
	switch {
	case a.IsArray && a.Kind != AssignFor:
		vals, env, ok = sc.arrayValues(a, idx, &at, depth)
	case idx != "" && idx != "0" && idx != "@" && idx != "*" && idx != anyElem && a.Index == "":
		return nil, false, false
	default:
		vals, env, ok = sc.expandWord(a.Value.syn, &at, depth)
		if a.Value.syn == nil && a.Kind == AssignFor {
			return nil, true, false // for x; do: the positional arguments
		}
	}
	if !ok || !a.Append {
		return vals, env, ok
	}
	prior, penv, pok, none := sc.varValues(a.Name, idx, &at, depth+1)
	if none {
		return vals, true, true
	}
	if !pok {
		return nil, penv, false
	}
	switch {
	case !a.IsArray:
		return sc.product(prior, vals), env || penv, len(prior)*len(vals) <= maxValues
	case idx == "@" || idx == "*":
		return sc.product(sc.product(prior, []string{" "}), vals), env || penv, len(prior)*len(vals) <= maxValues
	case idx == anyElem:
		return sc.product([]string{""}, append(append([]string(nil), prior...), vals...)), env || penv, true
	case idx == "" || idx == "0":
		return prior, penv, true // the first element comes from the array appended to
	}
	return nil, env, false
}

// anyElem stands for a subscript computed at run time: the value may be any
// element.
const anyElem = "\x00any"

// keyValue is a subscript as a key: one pair of surrounding quotes removed.
func keyValue(t string) string {
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		return t[1 : len(t)-1]
	}
	return t
}

// arrayValues reads element idx of an array literal: "" and "0" the first
// element, "@" and "*" all of them joined by spaces, a number by position,
// a key by its subscript, a run-time subscript any element.
func (sc *Script) arrayValues(a *Assign, idx string, at *Site, depth int) ([]string, bool, bool) {
	expand := func(e Elem) ([]string, bool, bool) { return sc.expandWord(e.Value.syn, at, depth) }
	switch idx {
	case anyElem:
		var out []string
		env := false
		for _, e := range a.Elems {
			v, eenv, ok := expand(e)
			env = env || eenv
			if !ok {
				return nil, env, false
			}
			out = append(out, v...)
		}
		return sc.product([]string{""}, out), env, len(out) <= maxValues
	case "@", "*":
		acc, env := []string{""}, false
		for i, e := range a.Elems {
			v, eenv, ok := expand(e)
			env = env || eenv
			if !ok {
				return nil, env, false
			}
			if i > 0 {
				acc = sc.product(acc, []string{" "})
			}
			if acc = sc.product(acc, v); len(acc) > maxValues {
				return nil, env, false
			}
		}
		return acc, env, true
	}
	for i, e := range a.Elems {
		if keyValue(e.Key) == idx && idx != "" || e.Key == "" && strconv.Itoa(i) == orZero(idx) {
			return expand(e)
		}
	}
	return nil, false, false
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}
