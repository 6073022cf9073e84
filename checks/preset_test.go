package checks_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestAuthored(t *testing.T) {
	pass := checks.Result{Status: checks.Pass, Reason: checks.T("@a owns x", "@a 拥有 x"), Evidence: []checks.Evidence{{Label: "CODEOWNERS"}}}
	for _, tt := range []struct {
		name       string
		in         checks.Authorship
		err        error
		status     checks.Status
		en, zh     string
		unmodified bool
	}{
		{"authentic", checks.Authorship{}, nil, checks.Pass, "@a owns x", "@a 拥有 x", true},
		{"tampered", checks.Authorship{Tampered: true, Editor: "x"}, nil, checks.Fail,
			"the sign-off was edited by @x, not by its author @a; the author must re-confirm by editing or posting it again",
			"签核由 @x 编辑，而非其作者 @a；作者必须再次编辑或重新发布签核以重新确认", false},
		{"tampered, editor unknown", checks.Authorship{Tampered: true, Unknown: "no GraphQL"}, nil, checks.Fail,
			"editor could not be determined (no GraphQL)", "无法确定编辑者（`no GraphQL`）", false},
		{"given for an older head", checks.Authorship{GivenFor: "0123456789abcdef0123456789abcdef01234567"}, nil, checks.Fail,
			"given for commit `0123456789ab` and the head has moved since", "签核针对的是提交 `0123456789ab`", false},
		{"noted", checks.Authorship{Unknown: "no GraphQL"}, nil, checks.Pass,
			"@a owns x (Whether the sign-off was edited, and by whom, could not be determined: no GraphQL.)", "无法确定签核是否被编辑", false},
		{"unreadable", checks.Authorship{}, errors.New("ledger down"), checks.Fail, "could not be verified: who wrote the sign-off: ledger down", "无法验证", false},
	} {
		pr := &checks.PR{SignOff: checks.SignOff{Author: "a"}}
		pr.Authorship = func(context.Context) (checks.Authorship, error) { return tt.in, tt.err }
		got := checks.Authored(t.Context(), pr, pass)
		if got.Status != tt.status || !strings.Contains(got.Reason.EN, tt.en) || !strings.Contains(got.Reason.ZH, tt.zh) {
			t.Errorf("%s: %+v", tt.name, got)
		}
		if words := checkstest.EnglishInChinese(got.Reason.ZH); len(words) > 0 && tt.err == nil {
			t.Errorf("%s: untranslated %q", tt.name, words)
		}
		if tt.unmodified && !reflect.DeepEqual(got, pass) {
			t.Errorf("%s: an authentic sign-off's row changed", tt.name)
		}
	}
	// Without a reader (a local check) nothing is judged.
	if got := checks.Authored(t.Context(), &checks.PR{}, pass); !reflect.DeepEqual(got, pass) {
		t.Errorf("no reader: %+v", got)
	}
}
