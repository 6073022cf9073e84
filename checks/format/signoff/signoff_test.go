package signoff

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSignOff(t *testing.T) {
	body := strings.Join([]string{
		"As a PR reviewer and CODEOWNER, I have reviewed this and have:",   // 1
		"- [x] Verified the latest [checklist](https://example.com/c.md).", // 2
		"* [X] Verified evals: https://github.com/o/r/actions/runs/1,",     // 3
		"+ [ ] Unchecked item",                              // 4
		"  - [ ] nested item",                               // 5
		"\t- [x] tab-nested item",                           // 6
		"-[x] not an item (no space)",                       // 7
		"- [y] not an item (bad mark)",                      // 8
		"- [x]    ",                                         // 9: no text
		"### Additional detail section:",                    // 10
		"- Sweep: https://github.com/o/r/actions/runs/1",    // 11
		"- [x] an item inside the detail section is detail", // 12
		"Signed: `amd-owner-a`",                             // 13
	}, "\r\n")
	s := Parse(body)
	type it struct {
		Text    string
		Checked bool
		Depth   int
		Line    int
	}
	var got []it
	for _, i := range s.Items {
		got = append(got, it{i.Text, i.Checked, i.Depth, i.Line})
	}
	want := []it{
		{"Verified the latest [checklist](https://example.com/c.md).", true, 0, 2},
		{"Verified evals: https://github.com/o/r/actions/runs/1,", true, 0, 3},
		{"Unchecked item", false, 0, 4},
		{"nested item", false, 1, 5},
		{"tab-nested item", true, 2, 6},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items\n got %+v\nwant %+v", got, want)
	}
	if s.Signed != "amd-owner-a" {
		t.Errorf("Signed = %q", s.Signed)
	}
	if s.DetailEmpty || !strings.HasPrefix(s.Detail, "- Sweep:") || !strings.Contains(s.Detail, "inside the detail") {
		t.Errorf("detail = %q empty=%v", s.Detail, s.DetailEmpty)
	}
	if want := []string{"https://github.com/o/r/actions/runs/1"}; !reflect.DeepEqual(s.DetailLinks, want) {
		t.Errorf("DetailLinks = %q", s.DetailLinks)
	}
	if want := []string{"https://example.com/c.md", "https://github.com/o/r/actions/runs/1"}; !reflect.DeepEqual(s.Links, want) {
		t.Errorf("Links = %q", s.Links)
	}
}

func TestParseSignOffDetail(t *testing.T) {
	for name, tc := range map[string]struct {
		body   string
		empty  bool
		detail string
	}{
		"placeholder only":   {"- [x] a\n### Additional detail section:\n- insert any additional info here\n\nSigned: `x`", true, "- insert any additional info here"},
		"no detail section":  {"- [x] a\nSigned: x", true, ""},
		"heading variants":   {"- [x] a\n## additional DETAIL section\nreason here", false, "reason here"},
		"text after signed":  {"### Additional detail section:\nSigned: `x`\nlater text", true, ""},
		"placeholder + text": {"#### Additional detail section:\n* insert any additional info here\n* Recipe: merged", false, "* insert any additional info here\n* Recipe: merged"},
	} {
		s := Parse(tc.body)
		if s.DetailEmpty != tc.empty || s.Detail != tc.detail {
			t.Errorf("%s: detail %q empty=%v, want %q empty=%v", name, s.Detail, s.DetailEmpty, tc.detail, tc.empty)
		}
	}
}

func TestParseSignOffSigned(t *testing.T) {
	for in, want := range map[string]string{
		"Signed: `amd-owner-a`":             "amd-owner-a",
		"Signed:amd-owner-a":                "amd-owner-a",
		"  Signed: `` amd-a `` ":            "amd-a",
		"Signed:":                           "",
		"Signed: `FILL_IN_GITHUB_USERNAME`": "FILL_IN_GITHUB_USERNAME",
	} {
		if got := Parse(in).Signed; got != want {
			t.Errorf("Signed(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseSignOffLineEndings(t *testing.T) {
	for name, body := range map[string]string{
		"lf":   "- [x] a\n- [ ] b",
		"crlf": "- [x] a\r\n- [ ] b",
		"cr":   "- [x] a\r- [ ] b",
	} {
		s := Parse(body)
		if len(s.Items) != 2 || s.Items[0].Text != "a" || s.Items[1].Text != "b" || s.Items[1].Line != 2 {
			t.Errorf("%s: items %+v", name, s.Items)
		}
	}
}

func FuzzParseSignOff(f *testing.F) {
	f.Add("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] a https://x.y/z\n  - [ ] b\n### Additional detail section:\n- insert any additional info here\nSigned: `u`\n")
	f.Add("- [x] \t\n- [ ]  \r\n* [X] c\r")
	f.Add("## Additional detail section\nhttps://a.b/(c)., http://d.e/f_*\nSigned: ``")
	f.Add("```\n- [x] hidden\n```\n<!--\n- [x] hidden\n-->\n> - [x] quoted\n- [ ] real")
	f.Add(strings.Repeat(">", 70) + " deep\n- [x] a")
	f.Fuzz(func(t *testing.T, body string) {
		s := Parse(body)
		if s.Body != body {
			t.Fatal("Body not preserved")
		}
		if s.Unreadable != "" {
			if len(s.Items) != 0 || s.Detail != "" || !s.DetailEmpty || len(s.Links) != 0 || s.Signed != "" {
				t.Fatalf("unreadable body read as %+v", s)
			}
		}
		lines := len(strings.Split(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"), "\n"))
		prev := 0
		for _, it := range s.Items {
			if it.Text == "" || it.Text != strings.TrimSpace(it.Text) || strings.ContainsAny(it.Text, "\r\n") {
				t.Fatalf("bad item text %q", it.Text)
			}
			if it.Line <= prev || it.Line > lines || it.Depth < 0 {
				t.Fatalf("bad item position %+v (lines %d, prev %d)", it, lines, prev)
			}
			prev = it.Line
		}
		links := map[string]bool{}
		for _, l := range s.Links {
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") || links[l] {
				t.Fatalf("bad or duplicate link %q", l)
			}
			links[l] = true
		}
		for _, l := range s.DetailLinks {
			if !links[l] {
				t.Fatalf("detail link %q not among body links %q", l, s.Links)
			}
		}
		if s.Detail == "" && !s.DetailEmpty {
			t.Fatal("empty detail not reported empty")
		}
		if strings.Contains(s.Signed, "\n") || strings.HasPrefix(s.Signed, "`") || strings.HasSuffix(s.Signed, "`") {
			t.Fatalf("bad Signed %q", s.Signed)
		}
		// Parsing is deterministic.
		if !reflect.DeepEqual(Parse(body), s) {
			t.Fatal("non-deterministic parse")
		}
	})
}

// FuzzHiddenSignOff: whatever a body holds, inside an HTML comment or a
// fenced code block it carries no item, detail, link or Signed: line, and
// does not make a candidate.
func FuzzHiddenSignOff(f *testing.F) {
	f.Add("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] a https://x.y/z\n### Additional detail section:\nexception\nSigned: `u`")
	f.Add("-->\n- [x] a\n```\n- [x] b\n~~~")
	f.Fuzz(func(t *testing.T, body string) {
		norm := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n")
		fence := strings.Repeat("`", longestRun(norm, '`')+3)
		for _, hidden := range []string{
			"<!--\n" + strings.ReplaceAll(norm, "-->", "") + "\n-->",
			fence + "\n" + norm + "\n" + fence,
		} {
			s := Parse(hidden)
			if s.Unreadable != "" {
				continue // refused as a whole: nothing is read either
			}
			if len(s.Items) != 0 || s.Detail != "" || len(s.Links) != 0 || s.Signed != "" {
				t.Fatalf("read from hidden text %q: %+v", hidden, s)
			}
			if IsCandidate(hidden, "As a PR reviewer and CODEOWNER") {
				t.Fatalf("hidden phrase makes a candidate: %q", hidden)
			}
		}
	})
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
