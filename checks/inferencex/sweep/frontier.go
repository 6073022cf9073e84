package sweep

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// FrontierFlagKey is the per-point flag the InferenceX app sets on points of
// the normalized interactivity frontier (RULES.md, Check 14).
const FrontierFlagKey = "isOnNormalizedInteractivityFrontier"

// Point is one measurement on a Pareto curve: X is end-to-end latency in
// seconds, Y throughput per GPU. OK is false when the raw value was not a real
// number (missing, a boolean, a string, NaN); such a point only counts as
// invalid.
type Point struct {
	X, Y float64
	OK   bool
	// HasFlag is set when the raw row carried FrontierFlagKey at all; Flag is
	// true only when its value was literally true.
	HasFlag bool
	Flag    bool
}

// Frontier is the result of the frontier walk over one curve.
type Frontier struct {
	Points  []Point // frontier points, x ascending
	Invalid int     // points that were not eligible
	Total   int
}

// eligible reports whether p takes part in the frontier: real, finite, > 0.
func (p Point) eligible() bool {
	return p.OK && p.X > 0 && p.Y > 0 && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0) &&
		!math.IsNaN(p.X) && !math.IsNaN(p.Y)
}

// UpperRightFrontier computes the `upper_right` frontier: sort by x
// ascending then y descending, keep a point when it raises the best y seen so
// far or extends an equal-y plateau to a larger x (a later point at an equal
// x never survives: it has a lower or equal y). When any input point carries
// the canonical flag, only frontier points whose flag is true survive; the
// intersection is taken after the walk so a dominated point is never promoted.
//
// Exact duplicates keep the first in input order (the reference
// implementation's sort is stable), so the result does not depend on
// sorting internals.
func UpperRightFrontier(pts []Point) Frontier {
	f := Frontier{Total: len(pts)}
	flagged := false
	eligible := 0
	for _, p := range pts {
		flagged = flagged || p.HasFlag
		if p.eligible() {
			eligible++
		}
	}
	f.Invalid = len(pts) - eligible
	dominated := sampleStaircase(pts, eligible)
	recs := make([]xyRec, 0, eligible)
	for i, p := range pts {
		if p.eligible() && !dominated(p) {
			recs = append(recs, xyRec{k: math.Float64bits(p.X), y: p.Y, i: int32(i)})
		}
	}
	recs = sortByX(recs)

	// The walk compacts the kept records to the front of recs (it never
	// writes ahead of where it reads), so the result is allocated once.
	kept := 0
	maxY := math.Inf(-1)
	for g := 0; g < len(recs); {
		// One group of equal x: the walk only ever keeps its highest y, the
		// first such point in input order (the sort is stable).
		best := g
		e := g + 1
		for ; e < len(recs) && recs[e].k == recs[g].k; e++ {
			if recs[e].y > recs[best].y {
				best = e
			}
		}
		g = e
		if y := recs[best].y; y > maxY || (kept > 0 && y == maxY) {
			recs[kept] = recs[best]
			kept++
			maxY = y
		}
	}
	out := make([]Point, kept)
	for i, r := range recs[:kept] {
		out[i] = pts[r.i]
	}
	if flagged {
		kept := out[:0]
		for _, p := range out {
			if p.HasFlag && p.Flag {
				kept = append(kept, p)
			}
		}
		out = kept
	}
	f.Points = out
	return f
}

// sampleStaircase returns a cheap test that rejects points which cannot be
// on the frontier, so large inputs sort far fewer records. It takes an evenly
// spaced sample of eligible points and records, on a uniform grid over x, the
// best sampled y at or left of each cell's left edge. A point with a sampled
// point at a smaller-or-equal x and a strictly higher y is skipped by the
// walk whatever else the curve holds, so dropping it early cannot change the
// result; the grid only ever under-states that best y.
func sampleStaircase(pts []Point, eligible int) func(Point) bool {
	const sampleSize, cells = 4096, 1 << 15
	none := func(Point) bool { return false }
	if eligible < 4*sampleSize {
		return none
	}
	type xy struct{ x, y float64 }
	sample := make([]xy, 0, sampleSize+1)
	for i := 0; i < len(pts); i += max(1, len(pts)/sampleSize) {
		if p := pts[i]; p.eligible() {
			sample = append(sample, xy{p.X, p.Y})
		}
	}
	if len(sample) < 2 {
		return none
	}
	slices.SortFunc(sample, func(a, b xy) int { return cmp.Compare(a.x, b.x) })
	lo, hi := sample[0].x, sample[len(sample)-1].x
	w := (hi - lo) / cells
	if !(w > 0) || math.IsInf(w, 0) {
		return none
	}
	edge := func(c int) float64 { return lo + float64(c)*w }
	grid := make([]float64, cells)
	best, j := math.Inf(-1), 0
	for c := range grid {
		for ; j < len(sample) && sample[j].x <= edge(c); j++ {
			best = max(best, sample[j].y)
		}
		grid[c] = best
	}
	return func(p Point) bool {
		if p.X < lo {
			return false
		}
		c := min(int((p.X-lo)/w), cells-1)
		for c > 0 && edge(c) > p.X {
			c--
		}
		return grid[c] > p.Y
	}
}

// xyRec is an eligible point in sort order: k is the bit pattern of x, i its
// index in the input. Carrying y keeps the walk sequential in memory.
type xyRec struct {
	k uint64
	y float64
	i int32
}

// sortByX stably sorts records by x. All x are finite and positive, so their
// IEEE-754 bit patterns order like the numbers; an LSD radix sort keeps a
// million points well inside the latency budget where a comparison sort
// does not.
func sortByX(recs []xyRec) []xyRec {
	n := len(recs)
	if n < 2 {
		return recs
	}
	const bits = 11
	const buckets = 1 << bits
	tmp := make([]xyRec, n)
	count := make([]int, buckets+1)
	for shift := uint(0); shift < 64; shift += bits {
		clear(count)
		for _, r := range recs {
			count[(r.k>>shift)&(buckets-1)+1]++
		}
		if count[(recs[0].k>>shift)&(buckets-1)+1] == n {
			continue // every key shares this digit
		}
		for b := 1; b <= buckets; b++ {
			count[b] += count[b-1]
		}
		for _, r := range recs {
			b := (r.k >> shift) & (buckets - 1)
			tmp[count[b]] = r
			count[b]++
		}
		recs, tmp = tmp, recs
	}
	return recs
}

// CurveCount is one curve's frontier: its series key, its frontier points
// and its invalid measurements.
type CurveCount struct {
	Key      string
	Frontier int
	Invalid  int
}

// CountCurves groups rows by app series and counts each curve's frontier,
// in key order. unkeyed counts rows that cannot be placed on any curve.
func CountCurves(rows []BenchRow, run int64) (curves []CurveCount, unkeyed int) {
	pts := map[string][]Point{}
	for _, r := range rows {
		if !r.SeriesComplete() {
			unkeyed++
			continue
		}
		k := r.CurveKey(run)
		pts[k] = append(pts[k], r.Point)
	}
	keys := make([]string, 0, len(pts))
	for k := range pts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := UpperRightFrontier(pts[k])
		curves = append(curves, CurveCount{Key: k, Frontier: len(f.Points), Invalid: f.Invalid})
	}
	return curves, unkeyed
}
