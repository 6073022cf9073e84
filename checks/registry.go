package checks

import "fmt"

// Registry is an ordered set of checks whose requirements form no cycle.
type Registry struct {
	checks []*Check
	// waits holds, per row number, the registered rows that row needs
	// finished before it starts: those it requires directly or through the
	// facts it requires.
	waits map[int][]int
}

// NewRegistry builds a registry, refusing duplicate numbers and dependency
// cycles (which would otherwise deadlock the runner).
func NewRegistry(cs ...*Check) (*Registry, error) {
	byNumber := map[int]*Check{}
	for _, c := range cs {
		if _, dup := byNumber[c.Number]; dup {
			return nil, fmt.Errorf("duplicate check number %d", c.Number)
		}
		byNumber[c.Number] = c
	}
	g := graph{rows: byNumber, state: map[any]int{}}
	for _, c := range cs {
		if err := g.visit(c.requirement()); err != nil {
			return nil, err
		}
	}
	r := &Registry{checks: cs, waits: map[int][]int{}}
	for _, c := range cs {
		r.waits[c.Number] = g.rowsBehind(c)
	}
	return r, nil
}

// Checks returns the registered checks in registration order.
func (r *Registry) Checks() []*Check { return append([]*Check(nil), r.checks...) }

// Get returns the check with number n.
func (r *Registry) Get(n int) (*Check, bool) {
	for _, c := range r.checks {
		if c.Number == n {
			return c, true
		}
	}
	return nil, false
}

// graph walks requirements: rows by their registered check, facts by
// pointer. Rows required but not registered are leaves: they never run, and
// reading them answers "no result".
type graph struct {
	rows  map[int]*Check
	state map[any]int
}

const (
	unseen = iota
	visiting
	done
)

// resolve maps a requirement to the node the registry runs: a required row
// is the registered row with its number.
func (g *graph) resolve(r Requirement) (node, bool) {
	n := r.requirement()
	if !n.check {
		return n, true
	}
	c, ok := g.rows[n.number]
	if !ok {
		return node{}, false
	}
	return c.requirement(), true
}

func (g *graph) visit(n node) error {
	switch g.state[n.key] {
	case visiting:
		if n.check {
			return fmt.Errorf("check %d is part of a dependency cycle", n.number)
		}
		return fmt.Errorf("%s is part of a dependency cycle", n.name)
	case done:
		return nil
	}
	g.state[n.key] = visiting
	for _, r := range n.requires {
		m, ok := g.resolve(r)
		if !ok {
			continue
		}
		if err := g.visit(m); err != nil {
			return err
		}
	}
	g.state[n.key] = done
	return nil
}

// rowsBehind lists the registered rows c requires, directly or through
// facts, in first-seen order.
func (g *graph) rowsBehind(c *Check) []int {
	var out []int
	seen := map[any]bool{}
	var walk func(reqs []Requirement)
	walk = func(reqs []Requirement) {
		for _, r := range reqs {
			n, ok := g.resolve(r)
			if !ok || seen[n.key] {
				continue
			}
			seen[n.key] = true
			if n.check {
				if n.number != c.Number {
					out = append(out, n.number)
				}
				continue
			}
			walk(n.requires)
		}
	}
	walk(c.Requires)
	return out
}
