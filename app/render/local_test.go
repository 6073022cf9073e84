package render

import (
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

// A local verdict is keyed "local"; without a sign-off a rejection
// mentions nobody, and a GitHub verdict still needs a valid author.
func TestLocalVerdict(t *testing.T) {
	v := verdictFor(with(baseRows(), 1, checks.Fail, "could not be verified: check runs: not available in a local check", ""))
	v.Overall = checks.VerdictRejected
	v.Key, v.Author = LocalKey, ""
	md, err := Markdown(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md, "<!-- codeowner-signoff-verify signoff=local -->\n## ❌❌❌ **REJECTED** ❌❌❌\n\n❌ Check 1") {
		t.Errorf("unsigned local verdict:\n%s", md)
	}
	if strings.Contains(md, "this sign-off is rejected") || strings.Contains(md, "此签核被驳回") {
		t.Error("an unsigned local verdict mentions an author")
	}
	if _, err := JSON(v); err != nil {
		t.Errorf("JSON: %v", err)
	}
	v.Author = "amd-owner-a"
	if md, err := Markdown(v); err != nil || !strings.Contains(md, "@amd-owner-a this sign-off is rejected") {
		t.Errorf("signed local verdict: %v\n%s", err, md)
	}
	v.Key, v.Author = "issuecomment-1", ""
	if _, err := Markdown(v); err == nil {
		t.Error("a GitHub verdict without an author rendered")
	}
	if signoff.ValidKey(LocalKey) {
		t.Error("LocalKey is a GitHub sign-off key: the publisher would accept it")
	}
}
