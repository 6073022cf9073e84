package checks

import (
	"context"
	"strings"
	"testing"
)

func TestNewRegistryRefusesCycles(t *testing.T) {
	run := func(context.Context, *PR) Result { return PassR(T("ok", "")) }
	_, err := NewRegistry(
		Check{Number: 1, After: []int{2}, Run: run},
		Check{Number: 2, After: []int{1}, Run: run},
	)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("err = %v, want a cycle error", err)
	}
	if _, err := NewRegistry(Check{Number: 1, Run: run}, Check{Number: 1, Run: run}); err == nil {
		t.Fatal("duplicate numbers accepted")
	}
}

func TestFinalizePolicy(t *testing.T) {
	blocking := Check{Number: 3}
	advisory := Check{Number: 14, Advisory: true}
	tests := []struct {
		name   string
		c      Check
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
	reg, err := NewRegistry(
		Check{Number: 2, After: []int{1}, Run: func(ctx context.Context, pr *PR) Result {
			_, sawPrior = pr.Prior(1)
			return PassR(T("ok", ""))
		}},
		Check{Number: 1, Run: func(context.Context, *PR) Result { panic("boom") }},
	)
	if err != nil {
		t.Fatal(err)
	}
	rows := Run(context.Background(), reg, &PR{})
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
