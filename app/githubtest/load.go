package githubtest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

const maxFixtureYAML = 4 << 20

var (
	hexSHA   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
)

// LoadFixture reads and validates a fixture directory: fixture.yaml plus
// trees/<name>/... (see testdata/README.md). Errors name the offending
// entry.
func LoadFixture(dir string) (*Fixture, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "fixture.yaml"))
	if err != nil {
		return nil, fmt.Errorf("loading fixture: %w", err)
	}
	if len(raw) > maxFixtureYAML {
		return nil, fmt.Errorf("loading fixture %s: fixture.yaml is %d bytes, over the %d limit", dir, len(raw), maxFixtureYAML)
	}
	f := &Fixture{}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("loading fixture %s: fixture.yaml: %w", dir, err)
	}
	f.Dir = dir
	if err := f.loadTreeDirs(); err != nil {
		return nil, fmt.Errorf("loading fixture %s: %w", dir, err)
	}
	if err := f.normalize(); err != nil {
		return nil, fmt.Errorf("loading fixture %s: %w", dir, err)
	}
	return f, nil
}

// loadTreeDirs adds files under trees/<name>/ to the named trees.
func (f *Fixture) loadTreeDirs() error {
	root := filepath.Join(f.Dir, "trees")
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading trees: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			return fmt.Errorf("trees/%s: expected a directory per tree", e.Name())
		}
		t := f.Tree(e.Name())
		t.disk = map[string][]byte{}
		base := filepath.Join(root, e.Name())
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("%s: only regular files are allowed in trees", p)
			}
			rel, _ := filepath.Rel(base, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			t.disk[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			return fmt.Errorf("reading tree %s: %w", e.Name(), err)
		}
	}
	return nil
}

// normalize fills defaults, resolves trees and commit references, generates
// PR files and assigns IDs. It is idempotent.
func (f *Fixture) normalize() error {
	if err := f.checkNoNils(); err != nil {
		return err
	}
	if f.Now.IsZero() {
		f.Now = DefaultNow
	}
	if f.App.Slug == "" {
		f.App.Slug = "verdict"
	}
	if f.App.ID == 0 {
		f.App.ID = 1
	}
	if f.App.InstallationID == 0 {
		f.App.InstallationID = 1
	}
	if f.App.BotLogin == "" {
		f.App.BotLogin = f.App.Slug + "[bot]"
	}
	if err := f.resolveTrees(); err != nil {
		return err
	}
	ids := newIDs()
	seen := map[string]bool{}
	for i, r := range f.Repos {
		if !repoName.MatchString(r.FullName) {
			return fmt.Errorf("repos[%d]: name %q is not owner/repo", i, r.FullName)
		}
		if seen[strings.ToLower(r.FullName)] {
			return fmt.Errorf("repos[%d]: %s declared twice", i, r.FullName)
		}
		seen[strings.ToLower(r.FullName)] = true
		if err := f.normalizeRepo(r, ids); err != nil {
			return fmt.Errorf("repo %s: %w", r.FullName, err)
		}
	}
	for i, t := range f.Teams {
		if t.Org == "" || t.Slug == "" {
			return fmt.Errorf("teams[%d]: org and slug are required", i)
		}
		for login, st := range t.Members {
			if st != "active" && st != "pending" {
				return fmt.Errorf("team %s/%s: member %s has state %q, want active or pending", t.Org, t.Slug, login, st)
			}
		}
	}
	for _, u := range sortedKeys(f.Pages) {
		p := f.Pages[u]
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("page %q: URL must be absolute http(s)", u)
		}
		if p.Status == 0 {
			p.Status = 200
		}
		if p.File != "" {
			data, err := f.readRel(p.File)
			if err != nil {
				return fmt.Errorf("page %s: %w", u, err)
			}
			p.Body = string(data)
			p.File = ""
		}
	}
	return nil
}

func (f *Fixture) readRel(p string) ([]byte, error) {
	if f.Dir == "" {
		return nil, fmt.Errorf("%s: fixture built in code has no directory", p)
	}
	if path.IsAbs(p) || strings.Contains(p, "..") {
		return nil, fmt.Errorf("%s: path must stay inside the fixture directory", p)
	}
	return os.ReadFile(filepath.Join(f.Dir, filepath.FromSlash(p)))
}

func (f *Fixture) resolveTrees() error {
	state := map[string]int{} // 0 new, 1 visiting, 2 done
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		t, ok := f.Trees[name]
		if !ok {
			return fmt.Errorf("tree %q is referenced (%s) but not declared", name, strings.Join(chain, " -> "))
		}
		switch state[name] {
		case 1:
			return fmt.Errorf("trees form a cycle: %s -> %s", strings.Join(chain, " -> "), name)
		case 2:
			return nil
		}
		state[name] = 1
		out := map[string][]byte{}
		if t.Base != "" {
			if err := visit(t.Base, append(chain, name)); err != nil {
				return err
			}
			for p, d := range f.Trees[t.Base].resolved {
				out[p] = d
			}
		}
		for _, del := range t.Delete {
			del = strings.Trim(del, "/")
			n := 0
			for p := range out {
				if p == del || strings.HasPrefix(p, del+"/") {
					delete(out, p)
					n++
				}
			}
			if n == 0 {
				return fmt.Errorf("tree %s: delete %q matches nothing inherited from %q", name, del, t.Base)
			}
		}
		for p, c := range t.Files {
			out[p] = []byte(c)
		}
		for p, d := range t.disk { // files on disk win over inline ones
			out[p] = d
		}
		for p := range out {
			if err := checkTreePath(p); err != nil {
				return fmt.Errorf("tree %s: %w", name, err)
			}
		}
		t.resolved = out
		state[name] = 2
		return nil
	}
	for _, t := range f.Trees {
		t.resolved = nil
	}
	for _, name := range sortedKeys(f.Trees) {
		if err := visit(name, nil); err != nil {
			return err
		}
	}
	return nil
}

func checkTreePath(p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "../") || strings.Contains(p, "\\") {
		return fmt.Errorf("bad file path %q (want a clean relative path)", p)
	}
	return nil
}

type idGen struct{ next map[string]int64 }

func newIDs() *idGen {
	return &idGen{next: map[string]int64{
		"comment": 1000000001, "review": 2000000001, "reviewcomment": 3000000001,
		"reaction": 4000000001, "checkrun": 5000000001, "artifact": 6000000001, "run": 7000000001,
	}}
}

func (g *idGen) take(kind string, have int64) int64 {
	if have != 0 {
		if have >= g.next[kind] {
			g.next[kind] = have + 1
		}
		return have
	}
	id := g.next[kind]
	g.next[kind]++
	return id
}

func (f *Fixture) normalizeRepo(r *Repo, ids *idGen) error {
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	names := map[string]bool{}
	for i, c := range r.Commits {
		if c.Name == "" && c.SHA == "" {
			return fmt.Errorf("commits[%d]: name or sha is required", i)
		}
		if c.SHA == "" {
			c.SHA = CommitSHA(r.FullName, c.Name)
		}
		if !hexSHA.MatchString(c.SHA) {
			return fmt.Errorf("commit %q: sha %q is not 40 lowercase hex digits", c.Name, c.SHA)
		}
		if c.Name == "" {
			c.Name = c.SHA
		}
		if names[c.Name] || names[c.SHA] {
			return fmt.Errorf("commit %q declared twice", c.Name)
		}
		names[c.Name], names[c.SHA] = true, true
		if c.Tree != "" {
			if _, ok := f.Trees[c.Tree]; !ok {
				return fmt.Errorf("commit %q: tree %q does not exist (declare it under trees: or create trees/%s/)", c.Name, c.Tree, c.Tree)
			}
		}
		if c.Message == "" {
			c.Message = "commit " + c.Name
		}
		if c.Date.IsZero() {
			c.Date = f.Now.Add(-time.Duration(len(r.Commits)-i) * time.Hour)
		}
	}
	for b, ref := range r.Branches {
		if r.commit(ref) == nil {
			return fmt.Errorf("branch %s: commit %q is not declared", b, ref)
		}
	}
	if len(r.Commits) > 0 {
		if _, ok := r.Branches[r.DefaultBranch]; !ok {
			return fmt.Errorf("default branch %q has no entry under branches", r.DefaultBranch)
		}
	}
	for ref := range r.CodeownersErrors {
		if r.commit(ref) == nil {
			return fmt.Errorf("codeowners_errors: commit %q is not declared", ref)
		}
	}
	for _, ref := range sortedKeys(r.CheckRuns) {
		c := r.commit(ref)
		if c == nil {
			return fmt.Errorf("check_runs: commit %q is not declared", ref)
		}
		for i, cr := range r.CheckRuns[ref] {
			if cr.Name == "" {
				return fmt.Errorf("check_runs[%s][%d]: name is required", ref, i)
			}
			cr.ID = ids.take("checkrun", cr.ID)
			if cr.Status == "" {
				cr.Status = "completed"
			}
			if cr.Status == "completed" && cr.Conclusion == "" {
				cr.Conclusion = "success"
			}
			if cr.AppSlug == "" {
				cr.AppSlug = "github-actions"
			}
			if cr.StartedAt.IsZero() {
				cr.StartedAt = c.Date.Add(time.Minute)
			}
			if cr.CompletedAt.IsZero() && cr.Status == "completed" {
				cr.CompletedAt = cr.StartedAt.Add(10 * time.Minute)
			}
			if cr.DetailsURL == "" && cr.Run != 0 {
				cr.DetailsURL = fmt.Sprintf("https://github.com/%s/actions/runs/%d/job/%d", r.FullName, cr.Run, cr.Job)
			}
		}
	}
	runIDs := map[int64]bool{}
	for i, w := range r.WorkflowRuns {
		w.ID = ids.take("run", w.ID)
		if runIDs[w.ID] {
			return fmt.Errorf("workflow run %d declared twice", w.ID)
		}
		runIDs[w.ID] = true
		if w.HeadCommit == "" {
			return fmt.Errorf("workflow_runs[%d] (id %d): head_commit is required", i, w.ID)
		}
		if !hexSHA.MatchString(w.HeadCommit) && r.commit(w.HeadCommit) == nil {
			return fmt.Errorf("workflow run %d: head_commit %q is neither a declared commit nor a SHA", w.ID, w.HeadCommit)
		}
		if w.Path == "" {
			w.Path = ".github/workflows/run-sweep.yml"
		}
		if w.Name == "" {
			w.Name = strings.TrimSuffix(path.Base(w.Path), path.Ext(w.Path))
		}
		if w.Event == "" {
			w.Event = "pull_request"
		}
		if w.Status == "" {
			w.Status = "completed"
		}
		if w.Status == "completed" && w.Conclusion == "" {
			w.Conclusion = "success"
		}
		if w.RunAttempt == 0 {
			w.RunAttempt = 1
		}
		if w.CreatedAt.IsZero() {
			w.CreatedAt = f.Now.Add(-time.Duration(len(r.WorkflowRuns)-i) * time.Hour)
		}
		for j, a := range w.Artifacts {
			if a.Name == "" {
				return fmt.Errorf("workflow run %d: artifacts[%d]: name is required", w.ID, j)
			}
			a.ID = ids.take("artifact", a.ID)
			for _, p := range sortedKeys(a.Files) {
				if err := checkTreePath(p); err != nil {
					return fmt.Errorf("artifact %s: %w", a.Name, err)
				}
			}
			if a.Dir != "" {
				if st, err := os.Stat(filepath.Join(f.Dir, filepath.FromSlash(a.Dir))); err != nil || !st.IsDir() {
					return fmt.Errorf("artifact %s: dir %q is not a directory of the fixture", a.Name, a.Dir)
				}
			}
			if a.Zip != "" && !filepath.IsAbs(a.Zip) {
				if _, err := os.Stat(filepath.Join(f.Dir, filepath.FromSlash(a.Zip))); err != nil {
					return fmt.Errorf("artifact %s: zip %q: %w", a.Name, a.Zip, err)
				}
			}
		}
	}
	for i, p := range r.Pulls {
		if p.Number <= 0 {
			return fmt.Errorf("pulls[%d]: number must be positive", i)
		}
		if err := f.normalizePull(r, p, ids); err != nil {
			return fmt.Errorf("pull #%d: %w", p.Number, err)
		}
	}
	sort.SliceStable(r.Pulls, func(i, j int) bool { return r.Pulls[i].Number < r.Pulls[j].Number })
	for i := 1; i < len(r.Pulls); i++ {
		if r.Pulls[i].Number == r.Pulls[i-1].Number {
			return fmt.Errorf("pull #%d declared twice", r.Pulls[i].Number)
		}
	}
	return nil
}
