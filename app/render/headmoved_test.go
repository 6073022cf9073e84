package render

import (
	"strings"
	"testing"
)

const (
	shaA = "0123456789abcdef0123456789abcdef01234567"
	shaB = "89abcdef0123456789abcdef0123456789abcdef"
)

func TestAssessedCommit(t *testing.T) {
	v := verdictFor(baseRows())
	body, err := Markdown(v)
	if err != nil {
		t.Fatal(err)
	}
	invalid, err := InvalidMarkdown(v.Key, shaB)
	if err != nil {
		t.Fatal(err)
	}
	line, err := HeadMovedLine(v.HeadSHA, shaB)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body, want string
	}{
		{"verdict", body, v.HeadSHA},
		{"invalid verdict", invalid, shaB},
		{"marked verdict", WithHeadMoved(body, line), v.HeadSHA},
		{"no footer", Marker(v.Key) + "\nhello\n", ""},
		{"short sha", strings.Replace(body, v.HeadSHA, v.HeadSHA[:12], 1), ""},
		// The Chinese block's footer is not the English one.
		{"footer only in Chinese", strings.Replace(body, "Assessed commit: `", "Assessed: `", 1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := AssessedCommit(tc.body)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("AssessedCommit = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestHeadMovedLine(t *testing.T) {
	line, err := HeadMovedLine(shaA, shaB)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"`0123456`", "`89abcde`", "/verdict recheck", "此结论针对 `0123456`", "PR 头部已移动到 `89abcde`"} {
		if !strings.Contains(line, s) {
			t.Errorf("line lacks %q: %s", s, line)
		}
	}
	if strings.Contains(line, "\n") {
		t.Errorf("not one line: %q", line)
	}
	if _, err := HeadMovedLine("HEAD", shaB); err == nil {
		t.Error("a non-SHA was accepted")
	}
	st, err := SignOffNeededStatus(shaA)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Sign-off needed: the last verdict covered 0123456 / 需要签核：上次结论针对 0123456"; st != want {
		t.Errorf("status = %q, want %q", st, want)
	}
	for _, name := range []string{"headmoved.line", "headmoved.status"} {
		zh, err := text(ZH, name, headMoved{"0123456", "89abcde"})
		if err != nil {
			t.Fatal(err)
		}
		untranslated(t, name, zh)
	}
	if len(st) > 140 {
		t.Errorf("status is %d bytes; GitHub keeps 140", len(st))
	}
}

func TestWithHeadMoved(t *testing.T) {
	body, err := Markdown(verdictFor(baseRows()))
	if err != nil {
		t.Fatal(err)
	}
	one, _ := HeadMovedLine(shaA, shaB)
	two, _ := HeadMovedLine(shaA, strings.Repeat("f", 40))
	marked := WithHeadMoved(body, one)
	if WithHeadMoved(marked, one) != marked {
		t.Error("marking twice changed the body")
	}
	again := WithHeadMoved(marked, two)
	if strings.Count(again, HeadMovedMarker) != 1 || !strings.HasSuffix(again, two+"\n") || !strings.HasPrefix(again, body) {
		t.Errorf("a second line stacked or lost the verdict:\n%s", again)
	}
	if WithHeadMoved(again, "") != body {
		t.Error("removing the line did not restore the verdict")
	}
	if EnglishPart(marked) != EnglishPart(body) {
		t.Error("the line changed the English part")
	}
}

func FuzzAssessedCommit(f *testing.F) {
	body, _ := Markdown(verdictFor(baseRows()))
	f.Add(body)
	f.Add("Assessed commit: `" + shaA + "`")
	f.Fuzz(func(t *testing.T, s string) {
		sha, ok := AssessedCommit(s)
		if ok && (!shaRE.MatchString(sha) || !strings.Contains(s, "`"+sha+"`.")) {
			t.Fatalf("AssessedCommit(%q) = %q", s, sha)
		}
		if WithHeadMoved(WithHeadMoved(s, "x"), "x") != WithHeadMoved(s, "x") {
			t.Fatal("WithHeadMoved is not idempotent")
		}
	})
}
