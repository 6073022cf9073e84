package verify_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// paths describes a traced verification: how deep its requests went one
// after another (observed) and how deep they had to go (bound).
type paths struct {
	// Observed is the longest chain of requests each started after the
	// previous one's answer was complete; ObservedPath names it.
	Observed     int
	ObservedPath []string
	// Bound is the dependency bound: the longest chain of requests each
	// needing a value (a SHA, an ID, a path, a login, a page number, a
	// redirect target) that first appears in the previous one's answer.
	// A value appearing in several answers is charged to the shallowest,
	// and a value no answer holds is an input, so the bound is a lower
	// bound: no schedule can issue the requests in fewer rounds. A request
	// repeated verbatim is a deliberate re-read (the PR, after the
	// evidence) and depends on everything answered before it.
	Bound     int
	BoundPath []string
}

type node struct {
	t        githubtest.Traced
	content  string
	obs, dep int
	obsFrom  int
	depFrom  int
	name     string
}

// analyze computes paths of trace. inputs are the values the request
// itself carries (owner, repo, PR number), never dependencies.
func analyze(trace []githubtest.Traced, inputs ...string) paths {
	in := map[string]bool{}
	for _, v := range inputs {
		in[strings.ToLower(v)] = true
	}
	ns := make([]*node, len(trace))
	seen := map[string]bool{}
	for i, t := range trace {
		n := &node{t: t, content: content(t), obsFrom: -1, depFrom: -1, name: t.Method + " " + withQ(t.Path, t.Query)}
		ns[i] = n
		// Observed: any earlier answer complete before this one started.
		for j := 0; j < i; j++ {
			if !ns[j].t.End.After(t.Start) && ns[j].obs+1 > n.obs {
				n.obs, n.obsFrom = ns[j].obs+1, j
			}
		}
		if n.obsFrom < 0 {
			n.obs = 1
		}
		if seen[n.name] {
			for j := 0; j < i; j++ {
				if !ns[j].t.End.After(t.Start) && ns[j].dep+1 > n.dep {
					n.dep, n.depFrom = ns[j].dep+1, j
				}
			}
		} else {
			n.dep = 1
			for _, v := range values(t, in) {
				d, from := source(ns[:i], t.Start, v)
				if d+1 > n.dep {
					n.dep, n.depFrom = d+1, from
				}
			}
		}
		seen[n.name] = true
	}
	var p paths
	var ob, db *node
	for _, n := range ns {
		if ob == nil || n.obs > ob.obs {
			ob = n
		}
		if db == nil || n.dep > db.dep {
			db = n
		}
	}
	if ob == nil {
		return p
	}
	p.Observed, p.Bound = ob.obs, db.dep
	for n := ob; ; n = ns[n.obsFrom] {
		p.ObservedPath = append([]string{n.name}, p.ObservedPath...)
		if n.obsFrom < 0 {
			break
		}
	}
	for n := db; ; n = ns[n.depFrom] {
		p.BoundPath = append([]string{n.name}, p.BoundPath...)
		if n.depFrom < 0 {
			break
		}
	}
	return p
}

// source is the shallowest answer among done (complete before start) that
// holds v, or depth 0 when none does.
func source(done []*node, start time.Time, v value) (int, int) {
	best, from := 0, -1
	for _, cand := range v.forms {
		for j, n := range done {
			if n.t.End.After(start) || !strings.Contains(n.content, cand) {
				continue
			}
			if from < 0 || n.dep < best {
				best, from = n.dep, j
			}
		}
		if from >= 0 {
			return best, from
		}
	}
	return 0, -1
}

// value is one datum a request carries, with the forms it may appear in
// (a path also by its trailing segments: code joins directories to names).
type value struct{ forms []string }

func values(t githubtest.Traced, in map[string]bool) []value {
	var out []value
	add := func(v string) {
		if v == "" || in[strings.ToLower(v)] {
			return
		}
		forms := []string{v}
		segs := strings.Split(v, "/")
		for i := 1; i < len(segs); i++ {
			forms = append(forms, strings.Join(segs[i:], "/"))
		}
		out = append(out, value{forms: forms})
	}
	for k, v := range t.Params {
		if k != "owner" && k != "repo" {
			add(v)
		}
	}
	q, _ := url.ParseQuery(t.Query)
	for _, k := range []string{"ref", "sha", "branch"} {
		add(q.Get(k))
	}
	if pg := q.Get("page"); pg != "" && pg != "1" {
		// A later page needs the first page's Link or the PR's count.
		out = append(out, value{forms: []string{fmt.Sprintf("page=%s", pg)}})
	}
	return out
}

// content is what an answer tells a client: its body (contents API files
// decoded) and the headers that point onwards.
func content(t githubtest.Traced) string {
	var b strings.Builder
	b.Write(t.Body)
	var fc struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if json.Unmarshal(t.Body, &fc) == nil && fc.Encoding == "base64" {
		if d, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(fc.Content, "\n", "")); err == nil {
			b.WriteString("\n")
			b.Write(d)
		}
	}
	for _, h := range []string{"Location", "Link"} {
		b.WriteString("\n" + t.Header.Get(h))
	}
	if t.Route == "GET /repos/{owner}/{repo}/pulls/{number}" {
		// changed_files says how many pages the file list has.
		var pr struct {
			ChangedFiles int `json:"changed_files"`
		}
		if json.Unmarshal(t.Body, &pr) == nil {
			for pg := 2; pg <= (pr.ChangedFiles+99)/100; pg++ {
				fmt.Fprintf(&b, "\npage=%d", pg)
			}
		}
	}
	return b.String()
}

func withQ(p, q string) string {
	if q == "" {
		return p
	}
	return p + "?" + q
}

// writeTrace writes p's paths and trace's timeline to file, for reading.
func writeTrace(b testing.TB, file string, trace []githubtest.Traced, p paths) {
	var w strings.Builder
	fmt.Fprintf(&w, "observed depth %d:\n  %s\n", p.Observed, strings.Join(p.ObservedPath, "\n  "))
	fmt.Fprintf(&w, "dependency bound %d:\n  %s\ntimeline:\n", p.Bound, strings.Join(p.BoundPath, "\n  "))
	for _, t := range trace {
		fmt.Fprintf(&w, "%6.1fms %6.1fms %d %s\n", ms(t.Start.Sub(trace[0].Start)), ms(t.End.Sub(trace[0].Start)), t.Status, t.Method+" "+withQ(t.Path, t.Query))
	}
	if err := os.WriteFile(file, []byte(w.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
