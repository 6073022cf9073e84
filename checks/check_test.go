package checks

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestNewRegistryRefusesCycles(t *testing.T) {
	run := func(context.Context, *PR) Result { return PassR(T("ok", "")) }
	one := &Check{Number: 1, Run: run}
	two := &Check{Number: 2, Requires: []Requirement{one}, Run: run}
	one.Requires = []Requirement{two}
	_, err := NewRegistry(one, two)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("err = %v, want a cycle error", err)
	}
	if _, err := NewRegistry(&Check{Number: 1, Run: run}, &Check{Number: 1, Run: run}); err == nil {
		t.Fatal("duplicate numbers accepted")
	}
}

func TestNewRegistryRefusesCyclesThroughFacts(t *testing.T) {
	run := func(context.Context, *PR) Result { return PassR(T("ok", "")) }
	first := &Check{Number: 1, Run: run}
	f := NewFact("first's view", []Requirement{first}, func(context.Context, *PR) (int, error) { return 0, nil })
	first.Requires = []Requirement{f}
	if _, err := NewRegistry(first); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("err = %v, want a cycle error", err)
	}
}

func TestFinalizePolicy(t *testing.T) {
	blocking := &Check{Number: 3}
	advisory := &Check{Number: 14, Advisory: true}
	tests := []struct {
		name   string
		c      *Check
		in     Result
		status Status
		prefix string
	}{
		{"needs review blocks", blocking, ReviewR(T("x", "y")), Fail, "Needs human review: x"},
		{"needs review warns on advisory", advisory, ReviewR(T("x", "y")), Warn, "Needs human review: x"},
		{"advisory never fails", advisory, FailR(T("x", "y")), Warn, "x"},
		{"blocking never warns", blocking, WarnR(T("x", "y")), Fail, "x"},
		{"empty reason is not a pass", blocking, PassR(T("", "")), Fail, "could not be verified"},
		{"multi-line reason folded", blocking, PassR(T("a\nb", "")), Pass, "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.Finalize(tt.in)
			if got.Status != tt.status || !strings.HasPrefix(got.Reason.EN, tt.prefix) {
				t.Errorf("got %s %q, want %s %q…", got.Status, got.Reason.EN, tt.status, tt.prefix)
			}
			if got.Reason.ZH == "" {
				t.Error("no Chinese reason")
			}
		})
	}
}

func TestRunRecoversPanicsAndOrders(t *testing.T) {
	var sawPrior bool
	one := &Check{Number: 1, Run: func(context.Context, *PR) Result { panic("boom") }}
	two := &Check{Number: 2, Requires: []Requirement{one}, Run: func(ctx context.Context, pr *PR) Result {
		_, sawPrior = pr.ResultOf(ctx, one)
		return PassR(T("ok", ""))
	}}
	reg, err := NewRegistry(two, one)
	if err != nil {
		t.Fatal(err)
	}
	rows := Run(context.Background(), reg, &PR{}, nil)
	if rows[0].Number != 1 || rows[0].Result.Status != Fail || !strings.Contains(rows[0].Result.Reason.EN, "boom") {
		t.Errorf("panic row = %+v", rows[0])
	}
	if !sawPrior {
		t.Error("check 2 ran before check 1 finished")
	}
	if Decide(rows) != VerdictRejected {
		t.Error("a FAIL row must reject")
	}
}

// A row that a check reaches only through a fact still finishes first.
func TestRunOrdersThroughFacts(t *testing.T) {
	one := &Check{Number: 1, Run: func(context.Context, *PR) Result { return PassR(T("one", "")) }}
	seen := NewFact("seen", []Requirement{one}, func(ctx context.Context, pr *PR) (bool, error) {
		_, ok := pr.ResultOf(ctx, one)
		return ok, nil
	})
	two := &Check{Number: 2, Requires: []Requirement{seen}, Run: func(ctx context.Context, pr *PR) Result {
		if ok, err := seen.Of(ctx, pr); err != nil || !ok {
			return FailR(T("check 1 had not finished", ""))
		}
		return PassR(T("ok", ""))
	}}
	reg, err := NewRegistry(two, one)
	if err != nil {
		t.Fatal(err)
	}
	if rows := Run(context.Background(), reg, &PR{}, nil); rows[1].Result.Status != Pass {
		t.Fatalf("row 2 = %+v", rows[1].Result)
	}
}

func TestUndeclaredReadsFailClosed(t *testing.T) {
	one := &Check{Number: 1, Run: func(context.Context, *PR) Result { return PassR(T("one", "")) }}
	secret := NewFact("secret", nil, func(context.Context, *PR) (string, error) { return "s", nil })
	// A fact that reads another fact without declaring it taints every
	// reader of it.
	leaky := NewFact("leaky", nil, func(ctx context.Context, pr *PR) (string, error) { return secret.Of(ctx, pr) })
	pass := func(context.Context, *PR) Result { return PassR(T("looked fine", "")) }
	tests := []struct {
		name string
		c    *Check
		want string
	}{
		{"undeclared fact", &Check{Number: 2, Run: func(ctx context.Context, pr *PR) Result {
			secret.Of(ctx, pr) // the error is ignored: the runner still fails the row
			return pass(ctx, pr)
		}}, `check 2 read fact "secret" without declaring it in Requires`},
		{"undeclared result", &Check{Number: 2, Run: func(ctx context.Context, pr *PR) Result {
			if _, ok := pr.ResultOf(ctx, one); ok {
				return FailR(T("an undeclared result was handed out", ""))
			}
			return pass(ctx, pr)
		}}, "check 2 read the result of check 1 without declaring it in Requires"},
		{"fact reading undeclared", &Check{Number: 2, Requires: []Requirement{leaky}, Run: func(ctx context.Context, pr *PR) Result {
			if _, err := leaky.Of(ctx, pr); !errors.Is(err, ErrUndeclared) {
				return FailR(T("no error from a tainted fact", ""))
			}
			return pass(ctx, pr)
		}}, `fact "leaky" read fact "secret" without declaring it in Requires`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := NewRegistry(one, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			rows := Run(context.Background(), reg, &PR{}, nil)
			got := rows[1].Result
			if got.Status != Fail || !strings.HasPrefix(got.Reason.EN, "could not be verified: internal error: ") ||
				!strings.Contains(got.Reason.EN, tt.want) {
				t.Fatalf("row = %s %q, want a fail-closed row naming %q", got.Status, got.Reason.EN, tt.want)
			}
			if rows[0].Result.Status != Pass {
				t.Errorf("the declared-clean row was affected: %+v", rows[0].Result)
			}
		})
	}
	// Outside the runner (the application preparing a PR) nothing is enforced.
	if v, err := secret.Of(context.Background(), &PR{}); err != nil || v != "s" {
		t.Errorf("outside the runner: %q %v", v, err)
	}
}

func TestFactComputedOnceAndProvided(t *testing.T) {
	var calls atomic.Int32
	f := NewFact("counted", nil, func(context.Context, *PR) (int, error) { return int(calls.Add(1)), nil })
	var cs []*Check
	for n := range 8 {
		cs = append(cs, &Check{Number: n, Requires: []Requirement{f}, Run: func(ctx context.Context, pr *PR) Result {
			if v, err := f.Of(ctx, pr); err != nil || v != 1 {
				return FailR(T("got another value", ""))
			}
			return PassR(T("same value", ""))
		}})
	}
	reg, err := NewRegistry(cs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Run(context.Background(), reg, &PR{}, nil) {
		if o.Result.Status != Pass {
			t.Errorf("row %d: %q", o.Number, o.Result.Reason.EN)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("computed %d times, want once", calls.Load())
	}
	pr := &PR{}
	f.Provide(pr, 42, nil)
	if v, _ := f.Of(context.Background(), pr); v != 42 || calls.Load() != 1 {
		t.Errorf("provided value = %d (computed %d times)", v, calls.Load())
	}
}

func TestFactPeek(t *testing.T) {
	f := NewFact("peeked", nil, func(context.Context, *PR) (int, error) { return 7, nil })
	failing := NewFact("failing", nil, func(context.Context, *PR) (int, error) { return 0, errors.New("unreadable") })
	pr := &PR{}
	if _, ok := f.Peek(pr); ok {
		t.Fatal("a fact nothing computed was peeked")
	}
	if _, ok := f.Peek(pr); ok {
		t.Fatal("peeking computed the fact")
	}
	if v, _ := f.Of(context.Background(), pr); v != 7 {
		t.Fatalf("Of = %d", v)
	}
	if v, ok := f.Peek(pr); !ok || v != 7 {
		t.Fatalf("Peek = %d, %v after the fact was computed", v, ok)
	}
	_, _ = failing.Of(context.Background(), pr)
	if _, ok := failing.Peek(pr); ok {
		t.Fatal("a failed fact was peeked")
	}
	other := &PR{}
	f.Provide(other, 9, nil)
	if v, ok := f.Peek(other); !ok || v != 9 {
		t.Fatalf("Peek of a provided fact = %d, %v", v, ok)
	}
}

func TestParamAndDisabledRows(t *testing.T) {
	p := NewParam[string]("greeting")
	pr := &PR{}
	if got := p.Get(pr); got != "" {
		t.Fatalf("unset param = %q", got)
	}
	p.Set(pr, "hello")
	c := &Check{Number: 3, Run: func(ctx context.Context, pr *PR) Result { return PassR(T(p.Get(pr), "")) }}
	reg, err := NewRegistry(c)
	if err != nil {
		t.Fatal(err)
	}
	if rows := Run(context.Background(), reg, pr, nil); rows[0].Result.Reason.EN != "hello" {
		t.Errorf("row = %+v", rows[0].Result)
	}
	rows := Run(context.Background(), reg, &PR{}, func(n int) bool { return n != 3 })
	if rows[0].Result.Status != NA || !strings.Contains(rows[0].Result.Reason.EN, "Disabled") {
		t.Errorf("disabled row = %+v", rows[0].Result)
	}
}

// A fact that panics fails the row that computed it as a panicking check
// does; later readers get the panic as an error.
func TestPanickingFact(t *testing.T) {
	f := NewFact("fragile", nil, func(context.Context, *PR) (int, error) { panic("boom") })
	first := &Check{Number: 1, Requires: []Requirement{f}, Run: func(ctx context.Context, pr *PR) Result {
		f.Of(ctx, pr)
		return PassR(T("unreachable", ""))
	}}
	second := &Check{Number: 2, Requires: []Requirement{f, first}, Run: func(ctx context.Context, pr *PR) Result {
		if _, err := f.Of(ctx, pr); err == nil || !strings.Contains(err.Error(), "panic: boom") {
			return PassR(T("no error after a panic", ""))
		}
		return FailR(T("fact unavailable", ""))
	}}
	reg, err := NewRegistry(first, second)
	if err != nil {
		t.Fatal(err)
	}
	rows := Run(context.Background(), reg, &PR{}, nil)
	if r := rows[0].Result; r.Status != Fail || !strings.Contains(r.Reason.EN, "internal error in check 1: boom") {
		t.Errorf("row 1 = %s %q", r.Status, r.Reason.EN)
	}
	if r := rows[1].Result; r.Status != Fail || r.Reason.EN != "fact unavailable" {
		t.Errorf("row 2 = %s %q", r.Status, r.Reason.EN)
	}
}
