package codeowners

import (
	pathpkg "path"
	"reflect"
	"strings"
	"testing"
)

func TestCodeownersMatch(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		path    string
		want    string // pattern of the deciding rule, "" for no match
		owners  string // space-joined owners of the deciding rule
		catch   bool
		wantHit bool
	}{
		{"star matches everything", "* @org/core", "a/b/c.go", "*", "@org/core", true, true},
		{"double star alone is catch-all", "** @org/core", "x.md", "**", "@org/core", true, true},
		{"slash double star is catch-all", "/** @org/core", "deep/x/y.md", "/**", "@org/core", true, true},
		{"slash star is root files only", "/* @a", "docs/x.md", "", "", false, false},
		{"slash star matches root file", "/* @a", "README.md", "/*", "@a", false, true},
		{"extension at any depth", "*.js @js", "src/app/main.js", "*.js", "@js", false, true},
		{"extension no cross match", "*.js @js", "src/app/main.ts", "", "", false, false},
		{"dir star does not cross slash", "docs/* @d", "docs/build/x.md", "", "", false, false},
		{"dir star one level", "docs/* @d", "docs/x.md", "docs/*", "@d", false, true},
		{"double star crosses", "docs/** @d", "docs/a/b/c.md", "docs/**", "@d", false, true},
		{"inner double star", "a/**/z.txt @d", "a/b/c/z.txt", "a/**/z.txt", "@d", false, true},
		{"inner double star zero dirs", "a/**/z.txt @d", "a/z.txt", "a/**/z.txt", "@d", false, true},
		{"leading double star", "**/logs @l", "x/y/logs/a.log", "**/logs", "@l", false, true},
		{"anchored literal", "/build/ @b", "build/out/x", "/build/", "@b", false, true},
		{"anchored literal not nested", "/build/ @b", "src/build/x", "", "", false, false},
		{"trailing slash any depth", "apps/ @o", "x/apps/y/z.go", "apps/", "@o", false, true},
		{"trailing slash needs dir", "apps/ @o", "apps", "", "", false, false},
		{"no slash matches any depth", "MODELS.md @m", "sub/MODELS.md", "MODELS.md", "@m", false, true},
		{"middle slash anchors to root", "configs/amd-master.yaml @a", "x/configs/amd-master.yaml", "", "", false, false},
		{"full path exact", "inferencex-e2e/configs/amd-master.yaml @a", "inferencex-e2e/configs/amd-master.yaml", "inferencex-e2e/configs/amd-master.yaml", "@a", false, true},
		{"prefix is not a match", "configs/amd @a", "configs/amd-master.yaml", "", "", false, false},
		{"question mark", "file?.txt @q", "file1.txt", "file?.txt", "@q", false, true},
		{"leading slash path input", "/docs/ @d", "/docs/a.md", "/docs/", "@d", false, true},
		{"last match wins", "* @core\ndocs/ @docs\ndocs/*.md @md", "docs/a.md", "docs/*.md", "@md", false, true},
		{"earlier rule when later misses", "* @core\ndocs/ @docs\ndocs/*.md @md", "docs/a.txt", "docs/", "@docs", false, true},
		{"owners do not accumulate", "* @core\nx.go @a @b", "x.go", "x.go", "@a @b", false, true},
		{"no owners un-owns", "* @core\ngenerated/", "generated/a.go", "generated/", "", false, true},
		{"team user email owners", "* @org/team @user dev@example.com", "a", "*", "@org/team @user dev@example.com", true, true},
		{"inline comment", "x.go @a # owned by a", "x.go", "x.go", "@a", false, true},
		{"escaped space in pattern", `my\ file.txt @a`, "my file.txt", `my\ file.txt`, "@a", false, true},
		{"crlf", "* @core\r\nx.go @a\r\n", "x.go", "x.go", "@a", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			co := Parse(tc.file)
			if len(co.Problems) != 0 {
				t.Fatalf("problems: %+v", co.Problems)
			}
			r, ok := co.Match(tc.path)
			if ok != tc.wantHit {
				t.Fatalf("Match(%q) hit = %v, want %v (rule %+v)", tc.path, ok, tc.wantHit, r)
			}
			if !ok {
				return
			}
			if r.Pattern != tc.want || strings.Join(r.Owners, " ") != tc.owners || r.CatchAll != tc.catch {
				t.Errorf("Match(%q) = {%q %q catch=%v}, want {%q %q catch=%v}", tc.path, r.Pattern, strings.Join(r.Owners, " "), r.CatchAll, tc.want, tc.owners, tc.catch)
			}
		})
	}
}

func TestParseCodeownersBrokenLinesStayLocal(t *testing.T) {
	file := strings.Join([]string{
		"# comment",                   // 1
		"",                            // 2
		"* @org/core",                 // 3
		"docs/[abc].md @d",            // 4: invalid pattern character
		"configs/a.yaml @a not-owner", // 5: one invalid owner, rule kept
		"configs/b.yaml bad",          // 6: every owner invalid, line skipped
		"/ @root",                     // 7: matches nothing
		"a#b @x",                      // 8: unsupported
		"configs/c.yaml @c",           // 9
	}, "\n")
	co := Parse(file)
	var lines []int
	for _, p := range co.Problems {
		lines = append(lines, p.Line)
	}
	if want := []int{4, 5, 6, 7, 8}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("problem lines = %v, want %v (%+v)", lines, want, co.Problems)
	}
	var rules []int
	for _, r := range co.Rules {
		rules = append(rules, r.Line)
	}
	if want := []int{3, 5, 9}; !reflect.DeepEqual(rules, want) {
		t.Fatalf("rule lines = %v, want %v", rules, want)
	}
	if r, _ := co.Match("configs/a.yaml"); strings.Join(r.Owners, " ") != "@a" {
		t.Errorf("configs/a.yaml owners = %v, want [@a]", r.Owners)
	}
	if r, _ := co.Match("configs/b.yaml"); !r.CatchAll {
		t.Errorf("configs/b.yaml should fall back to the catch-all, got %+v", r)
	}
	if r, _ := co.Match("configs/c.yaml"); r.Line != 9 {
		t.Errorf("rule after broken lines lost: %+v", r)
	}
}

func TestCodeownersListedAndTeams(t *testing.T) {
	co := Parse("* @SemiAnalysisAI/core\nx @Amd-Owner-A @semianalysisai/CORE @vendor/team\ny dev@example.com")
	for login, want := range map[string]bool{"amd-owner-a": true, "@AMD-OWNER-A": true, "amd-owner": false, "dev": false, "": false} {
		if got := co.Listed(login); got != want {
			t.Errorf("Listed(%q) = %v, want %v", login, got, want)
		}
	}
	if got, want := co.Teams(), []string{"@SemiAnalysisAI/core", "@vendor/team"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Teams() = %v, want %v", got, want)
	}
	if org, slug, ok := SplitTeam("@vendor/team"); !ok || org != "vendor" || slug != "team" {
		t.Errorf("SplitTeam = %q %q %v", org, slug, ok)
	}
	if _, _, ok := SplitTeam("@user"); ok {
		t.Error("SplitTeam(@user) ok")
	}
}

func FuzzParseCodeowners(f *testing.F) {
	f.Add("* @org/core\ndocs/ @d # c\n/build/** @b\n", "docs/a.md")
	f.Add("/ @x\n\\#x @y\na\\ b @z\n", "a b")
	f.Add("***  @a\n[x] @b\n!neg @c\n", "x")
	f.Add("/docs @a\n", "docs")
	f.Fuzz(func(t *testing.T, text, path string) {
		co := Parse(text)
		for _, r := range co.Rules {
			if r.Line < 1 || r.Pattern == "" {
				t.Fatalf("bad rule %+v", r)
			}
			for _, o := range r.Owners {
				if o == "" || strings.ContainsAny(o, " \t#") {
					t.Fatalf("bad owner %q in %+v", o, r)
				}
			}
		}
		for _, p := range co.Problems {
			if p.Line < 1 || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
		r, ok := co.Match(path)
		if ok && r.Line == 0 {
			t.Fatalf("match without a rule: %+v", r)
		}
		// A catch-all rule matches every clean repository path.
		if path != "" && pathpkg.Clean(path) == path && !strings.HasPrefix(path, "/") && path != "." && !strings.HasPrefix(path, "../") && path != ".." {
			for _, rr := range co.Rules {
				if rr.CatchAll {
					if _, ok := co.Match(path); !ok {
						t.Fatalf("catch-all line %d did not match %q", rr.Line, path)
					}
				}
			}
		}
		co.Listed("x")
		co.Teams()
	})
}
