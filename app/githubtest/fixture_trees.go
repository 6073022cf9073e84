package githubtest

// TreeFiles returns a copy of the files of a loaded fixture's tree (its
// base's files, deletions and overrides applied), or nil when the fixture
// has no such tree. Tests that rebuild a fixture outside the fake GitHub
// (for example as a git repository) read trees through it.
func (f *Fixture) TreeFiles(name string) map[string][]byte {
	t, ok := f.Trees[name]
	if !ok || t.resolved == nil {
		return nil
	}
	out := make(map[string][]byte, len(t.resolved))
	for p, d := range t.resolved {
		out[p] = append([]byte(nil), d...)
	}
	return out
}

// CommitTree returns the tree name of a repository's commit (a commit
// name, SHA or branch), "" when the commit has no tree or does not exist.
func (r *Repo) CommitTree(ref string) string {
	if c := r.commit(ref); c != nil {
		return c.Tree
	}
	return ""
}
