package sweep

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func fpt(x, y float64) Point { return Point{X: x, Y: y, OK: true} }

func TestUpperRightFrontierWorkedExample(t *testing.T) {
	base := []Point{fpt(1.5, 300), fpt(2.0, 520), fpt(2.0, 480), fpt(2.5, 450), fpt(3.0, 520), fpt(3.0, 520),
		fpt(4.0, 900), fpt(5.0, 880), fpt(6.0, 1250)}
	invalid := []Point{fpt(0, 100), fpt(7.0, math.NaN())}
	tests := []struct {
		name    string
		pts     []Point
		want    []Point
		invalid int
	}{
		{"with invalid", append(append([]Point{}, base...), invalid...),
			[]Point{fpt(1.5, 300), fpt(2.0, 520), fpt(3.0, 520), fpt(4.0, 900), fpt(6.0, 1250)}, 2},
		{"clean", base, []Point{fpt(1.5, 300), fpt(2.0, 520), fpt(3.0, 520), fpt(4.0, 900), fpt(6.0, 1250)}, 0},
		{"drop P9", base[:8], []Point{fpt(1.5, 300), fpt(2.0, 520), fpt(3.0, 520), fpt(4.0, 900)}, 0},
		{"series pooling", []Point{fpt(14, 3700), fpt(18, 2600), fpt(21, 25000), fpt(36, 80000), fpt(45, 110000), fpt(55, 120000), fpt(85, 125000)},
			[]Point{fpt(14, 3700), fpt(21, 25000), fpt(36, 80000), fpt(45, 110000), fpt(55, 120000), fpt(85, 125000)}, 0},
		{"agg alone", []Point{fpt(14, 3700), fpt(18, 2600)}, []Point{fpt(14, 3700)}, 0},
		{"non-real values", []Point{{X: 1, Y: 2}, fpt(math.Inf(1), 3), fpt(2, -1), fpt(3, 4)}, []Point{fpt(3, 4)}, 3},
		{"empty", nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := UpperRightFrontier(tc.pts)
			if f.Invalid != tc.invalid || f.Total != len(tc.pts) {
				t.Errorf("invalid=%d total=%d, want %d %d", f.Invalid, f.Total, tc.invalid, len(tc.pts))
			}
			if len(f.Points) != len(tc.want) {
				t.Fatalf("frontier %v, want %v", f.Points, tc.want)
			}
			for i := range tc.want {
				if f.Points[i].X != tc.want[i].X || f.Points[i].Y != tc.want[i].Y {
					t.Errorf("point %d = %v, want %v", i, f.Points[i], tc.want[i])
				}
			}
		})
	}
}

func TestUpperRightFrontierFlag(t *testing.T) {
	fl := func(x, y float64, v bool) Point { p := fpt(x, y); p.HasFlag, p.Flag = true, v; return p }
	tests := []struct {
		name string
		pts  []Point
		want int
	}{
		{"no flag anywhere", []Point{fpt(1, 1), fpt(2, 2)}, 2},
		{"flag restricts", []Point{fl(1, 1, true), fpt(2, 2), fl(3, 3, false), fl(4, 4, true)}, 2},
		// A dominated point flagged true is never promoted.
		{"never promote", []Point{fl(1, 5, false), fl(2, 4, true)}, 0},
		{"all false", []Point{fl(1, 1, false), fl(2, 2, false)}, 0},
	}
	for _, tc := range tests {
		if got := len(UpperRightFrontier(tc.pts).Points); got != tc.want {
			t.Errorf("%s: %d frontier points, want %d", tc.name, got, tc.want)
		}
	}
}

// FuzzFrontier checks the frontier's invariants on arbitrary points: it is
// strictly increasing in x, non-decreasing in y, made of eligible input
// points, and no eligible point strictly dominates a frontier point.
func FuzzFrontier(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		var pts []Point
		for i := 0; i+1 < len(b); i += 2 {
			x, y := float64(b[i]%16)-1, float64(b[i+1]%16)-1
			p := fpt(x, y)
			if b[i] > 240 {
				p.X = math.NaN()
			}
			if b[i+1] > 200 {
				p.HasFlag, p.Flag = true, b[i+1]%2 == 0
			}
			pts = append(pts, p)
		}
		fr := UpperRightFrontier(pts)
		if fr.Invalid < 0 || fr.Invalid > len(pts) || len(fr.Points) > len(pts)-fr.Invalid {
			t.Fatalf("bad counts %+v", fr)
		}
		for i, p := range fr.Points {
			if !p.eligible() {
				t.Fatalf("ineligible frontier point %v", p)
			}
			if i > 0 && (p.X <= fr.Points[i-1].X || p.Y < fr.Points[i-1].Y) {
				t.Fatalf("frontier not monotone: %v", fr.Points)
			}
			for _, q := range pts {
				if q.eligible() && q.X <= p.X && q.Y > p.Y {
					t.Fatalf("%v dominated by %v", p, q)
				}
			}
		}
	})
}

func BenchmarkFrontier1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	pts := make([]Point, 1_000_000)
	for i := range pts {
		pts[i] = fpt(r.Float64()*100, r.Float64()*10000)
	}
	b.ReportAllocs()
	for b.Loop() {
		UpperRightFrontier(pts)
	}
}

// refFrontier is the frontier walk written out literally (stable sort, the walk with
// same-x replacement), to check the optimized implementation against.
func refFrontier(pts []Point) []Point {
	var e []Point
	for _, p := range pts {
		if p.eligible() {
			e = append(e, p)
		}
	}
	sort.SliceStable(e, func(i, j int) bool {
		if e[i].X != e[j].X {
			return e[i].X < e[j].X
		}
		return e[i].Y > e[j].Y
	})
	var f []Point
	maxY := math.Inf(-1)
	for _, p := range e {
		n := len(f)
		if p.Y > maxY || (n > 0 && p.Y == maxY && p.X > f[n-1].X) {
			if n > 0 && p.X == f[n-1].X {
				f[n-1] = p
			} else {
				f = append(f, p)
			}
			maxY = p.Y
		}
	}
	return f
}

// FuzzFrontierLarge compares the optimized frontier (radix sort and the
// sampled pre-filter, which only engage on large inputs) with the literal
// algorithm on large random curves with ties, plateaus and invalid points.
func FuzzFrontierLarge(f *testing.F) {
	f.Add(uint64(1), uint16(20000), uint8(50))
	f.Add(uint64(7), uint16(40000), uint8(3))
	f.Add(uint64(9), uint16(17000), uint8(255))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, grid uint8) {
		r := rand.New(rand.NewPCG(seed, 99))
		g := float64(grid) + 1
		pts := make([]Point, int(n))
		for i := range pts {
			pts[i] = fpt(math.Floor(r.Float64()*g)/4, math.Floor(r.Float64()*g*r.Float64()))
			switch r.IntN(50) {
			case 0:
				pts[i].X = math.NaN()
			case 1:
				pts[i].Y = -1
			case 2:
				pts[i].OK = false
			}
		}
		got, want := UpperRightFrontier(pts).Points, refFrontier(pts)
		if len(got) != len(want) {
			t.Fatalf("%d frontier points, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].X != want[i].X || got[i].Y != want[i].Y {
				t.Fatalf("point %d = %v, want %v", i, got[i], want[i])
			}
		}
	})
}

// BenchmarkFrontier1MAllOnFrontier is the pre-filter's worst case: every
// point is on the frontier (shuffled), so all of them are sorted.
func BenchmarkFrontier1MAllOnFrontier(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	pts := make([]Point, 1_000_000)
	for i := range pts {
		pts[i] = fpt(float64(i+1), float64(i+1))
	}
	r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	b.ReportAllocs()
	for b.Loop() {
		if n := len(UpperRightFrontier(pts).Points); n != len(pts) {
			b.Fatalf("%d frontier points", n)
		}
	}
}
