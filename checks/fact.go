package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Requirement is something a check or a fact reads besides the PR and its
// Source: another row's finalized result (a *Check) or a shared fact (a
// *Fact[T]). Only those two types implement it.
type Requirement interface {
	requirement() node
}

// node is a requirement as the runner sees it: a key that identifies it
// within one verification, a name for messages, what it requires in turn,
// and the row number when it is a check.
type node struct {
	key      any
	name     string
	requires []Requirement
	check    bool
	number   int
}

// rowKey identifies a row by number: a requirement on a check is a
// requirement on whichever registered row carries that number, so a test can
// stand a stub row in for a real one.
type rowKey int

func (c *Check) requirement() node {
	return node{key: rowKey(c.Number), name: fmt.Sprintf("the result of check %d", c.Number),
		requires: c.Requires, check: true, number: c.Number}
}

// ErrUndeclared is wrapped by the error a fact read returns when the running
// check or fact did not list the fact in its Requires.
var ErrUndeclared = errors.New("read of an undeclared requirement")

// Fact is a value derived once per PR and shared by every check that
// declares it, such as a preset's change-set model. It is memoized per PR by
// the Fact pointer: every caller, concurrent ones included, gets the same
// value and error.
type Fact[T any] struct {
	name     string
	requires []Requirement
	compute  func(ctx context.Context, pr *PR) (T, error)
}

// NewFact declares a fact. compute may read the requirements listed in
// requires and nothing else (besides the PR, its Source and parameters).
func NewFact[T any](name string, requires []Requirement, compute func(ctx context.Context, pr *PR) (T, error)) *Fact[T] {
	return &Fact[T]{name: name, requires: requires, compute: compute}
}

func (f *Fact[T]) requirement() node {
	return node{key: f, name: fmt.Sprintf("fact %q", f.name), requires: f.requires}
}

// String is the fact's name.
func (f *Fact[T]) String() string { return f.name }

// factEntry is one fact's memoized value on one PR.
type factEntry struct {
	once sync.Once
	// done is set once val and err hold the outcome.
	done atomic.Bool
	val  any
	err  error
	// undeclared is set when the computation read something its fact does
	// not declare; every reader of the fact inherits the violation.
	undeclared firstError
}

// firstError keeps the first error recorded, safely for concurrent use.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) record(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *firstError) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Of returns the fact for pr, computing it on first use. Inside a check or
// fact that does not declare f it returns an error wrapping ErrUndeclared
// and the running row fails closed. A computation that panics passes the
// panic to the caller that ran it; later callers get it as an error.
func (f *Fact[T]) Of(ctx context.Context, pr *PR) (T, error) {
	var zero T
	caller := frameOf(ctx)
	if err := caller.reading(f); err != nil {
		return zero, err
	}
	e := pr.fact(f)
	var panicked any
	e.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				panicked = p
				e.err = fmt.Errorf("computing %s: panic: %v", f.name, p)
			}
		}()
		defer e.done.Store(true)
		fr := caller.enter(f.requirement(), e)
		e.val, e.err = f.compute(context.WithValue(ctx, frameKey{}, fr), pr)
	})
	if panicked != nil {
		panic(panicked)
	}
	if err := e.undeclared.get(); err != nil {
		caller.violate(err)
		return zero, fmt.Errorf("%w: %v", ErrUndeclared, err)
	}
	v, _ := e.val.(T)
	return v, e.err
}

// Provide fixes the fact's value and error for pr as if they had been
// computed. It is meant for tests, which inject a hand-built model or a
// failure (checkstest.Fact and checkstest.FactError do it through the PR
// builder); it must run before anything reads the fact, and has no effect
// after that.
func (f *Fact[T]) Provide(pr *PR, v T, err error) {
	e := pr.fact(f)
	e.once.Do(func() { e.val, e.err = v, err; e.done.Store(true) })
}

// Peek returns the fact's value for pr when a run has already computed it
// without error; it never computes it. It is for reporting, once the rows
// have run, what they judged from (such as the configs a preset assessed).
func (f *Fact[T]) Peek(pr *PR) (T, bool) {
	var zero T
	pr.mu.Lock()
	e, ok := pr.facts[f]
	pr.mu.Unlock()
	if !ok || !e.done.Load() || e.err != nil || e.undeclared.get() != nil {
		return zero, false
	}
	v, ok := e.val.(T)
	return v, ok
}

// Param is a per-repository input that is not evidence, such as a preset's
// settings: the caller sets it on the PR before the run, checks read it.
type Param[T any] struct {
	name string
}

// NewParam declares a parameter.
func NewParam[T any](name string) *Param[T] { return &Param[T]{name: name} }

// String is the parameter's name.
func (p *Param[T]) String() string { return p.name }

// Set stores v for pr.
func (p *Param[T]) Set(pr *PR, v T) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.params == nil {
		pr.params = map[any]any{}
	}
	pr.params[p] = v
}

// Get returns the value set for pr, or the zero value when none was.
func (p *Param[T]) Get(pr *PR) T {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	v, _ := pr.params[p].(T)
	return v
}

// frame is the check or fact whose code is running: what it declared, and
// where a read it did not declare is recorded.
type frame struct {
	owner    string
	declared map[any]bool
	// row collects the first undeclared read of the check run that
	// (directly or through facts) is running; nil outside the runner, where
	// nothing is enforced.
	row *firstError
	// fact is set while a fact computes.
	fact *factEntry
}

type frameKey struct{}

func frameOf(ctx context.Context) *frame {
	fr, _ := ctx.Value(frameKey{}).(*frame)
	return fr
}

func declaredSet(reqs []Requirement) map[any]bool {
	m := make(map[any]bool, len(reqs))
	for _, r := range reqs {
		m[r.requirement().key] = true
	}
	return m
}

// enter is the frame of a fact computing on behalf of fr (nil outside the
// runner).
func (fr *frame) enter(n node, e *factEntry) *frame {
	out := &frame{owner: n.name, declared: declaredSet(n.requires), fact: e}
	if fr != nil {
		out.row = fr.row
	}
	return out
}

// reading checks that the running code declared r. Outside the runner every
// read is allowed.
func (fr *frame) reading(r Requirement) error {
	if fr == nil || fr.row == nil {
		return nil
	}
	n := r.requirement()
	if fr.declared[n.key] {
		return nil
	}
	err := fmt.Errorf("%s read %s without declaring it in Requires", fr.owner, n.name)
	fr.violate(err)
	return fmt.Errorf("%w: %v", ErrUndeclared, err)
}

func (fr *frame) violate(err error) {
	if fr == nil {
		return
	}
	if fr.fact != nil {
		fr.fact.undeclared.record(err)
	}
	if fr.row != nil {
		fr.row.record(err)
	}
}
