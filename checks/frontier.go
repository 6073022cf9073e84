package checks

import "math"

// FrontierFlagKey is the canonical per-point flag of INFERENCEX.md §6.1 step 4.
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

// Frontier is the result of the §6.1 walk over one curve.
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

// UpperRightFrontier computes the `upper_right` frontier of §6.1: sort by x
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
	recs := make([]xyRec, 0, len(pts))
	flagged := false
	for i, p := range pts {
		flagged = flagged || p.HasFlag
		if p.eligible() {
			recs = append(recs, xyRec{k: math.Float64bits(p.X), y: p.Y, i: int32(i)})
		}
	}
	f.Invalid = len(pts) - len(recs)
	recs = sortByX(recs)

	var out []Point
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
		if y := recs[best].y; y > maxY || (len(out) > 0 && y == maxY) {
			out = append(out, pts[recs[best].i])
			maxY = y
		}
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
