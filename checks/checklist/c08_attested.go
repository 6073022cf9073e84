package checklist

import (
	"context"
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Attested is row 8: the items no verifier can check. They are shown as
// the signer's word, never as verified: the row is N/A and names them.
var Attested = &checks.Check{
	Number:   8,
	Name:     checks.T("Attested only", "仅由签核者确认"),
	Advisory: true,
	SignOff:  checks.SignOffRead,
	Run:      runAttested,
}

func runAttested(_ context.Context, pr *checks.PR) checks.Result {
	items := bound(pr, KindAttested)
	if len(items) == 0 {
		return checks.NAR(checks.T("no item is bound as attested only", "没有仅由签核者确认的项"))
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = quoteItem(it)
	}
	who, whoZH := "the signer", "签核者"
	if a := strings.TrimPrefix(pr.SignOff.Author, "@"); a != "" {
		who, whoZH = "@"+a, " @"+a+" "
	}
	return checks.NAR(checks.T(
		fmt.Sprintf("not verified by Verdict, attested by %s: %s", who, strings.Join(names, ", ")),
		fmt.Sprintf("未经 Verdict 验证，由%s确认：%s", whoZH, strings.Join(names, "、"))))
}
