package checks

import (
	"math"
	"math/rand/v2"
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
