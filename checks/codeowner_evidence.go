package checks

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Evidence and notes of Check 0 (codeowner.go).

// problemNote names the CODEOWNERS lines with errors (ours and GitHub's), so
// a PASS built on a partly broken file says so.
func problemNote(lines []int) Text {
	if len(lines) == 0 {
		return Text{}
	}
	sort.Ints(lines)
	var parts []string
	last := -1
	for _, l := range lines {
		if l != last {
			parts = append(parts, fmt.Sprint(l))
			last = l
		}
	}
	if len(parts) > 5 {
		parts = append(parts[:5], "…")
	}
	ls := strings.Join(parts, ", ")
	return Text{
		EN: fmt.Sprintf("Note: CODEOWNERS has errors on %s %s.", countNoun(len(parts), "line", "lines"), ls),
		ZH: fmt.Sprintf("注意：CODEOWNERS 第 %s 行有错误。", ls),
	}
}

// codeownersErrorsEvidence reports GitHub's own diagnostics at B. They do
// not decide the row (the scope gate refuses such files before Check 0
// runs), but a reviewer must see them.
func codeownersErrorsEvidence(ctx context.Context, pr *PR) ([]Evidence, []int) {
	errs, err := pr.Source.CodeownersErrors(ctx, pr.BaseTip)
	if err != nil {
		return []Evidence{{Label: "GitHub CODEOWNERS errors", Value: "could not be read: " + err.Error()}}, nil
	}
	if len(errs) == 0 {
		return []Evidence{{Label: "GitHub CODEOWNERS errors", Value: "none"}}, nil
	}
	var ev []Evidence
	var lines []int
	for i, e := range errs {
		lines = append(lines, e.Line)
		if i < maxOwnerEvidence {
			v := e.Message
			if e.Kind != "" {
				v = e.Kind + ": " + v
			}
			ev = append(ev, Evidence{Label: fmt.Sprintf("GitHub CODEOWNERS error (line %d)", e.Line), Value: v})
		}
	}
	return ev, lines
}

func ownershipEvidence(owned []pathOwnership) []Evidence {
	var ev []Evidence
	def, unowned := 0, 0
	shown := 0
	for _, po := range owned {
		switch po.kind {
		case "default":
			def++
			continue
		case "unowned":
			unowned++
			continue
		}
		if shown == maxOwnerEvidence {
			continue
		}
		shown++
		verdict := map[string]string{
			"direct":       "signer listed",
			"team":         "signer is a member of " + po.team,
			"unverifiable": "accepted: team membership unverifiable",
			"":             "signer is not an owner",
		}[po.via]
		ev = append(ev, Evidence{Label: po.path, Value: fmt.Sprintf("line %d %s: %s — %s",
			po.rule.Line, po.rule.Pattern, strings.Join(po.rule.Owners, " "), verdict)})
	}
	if def > 0 {
		ev = append(ev, Evidence{Label: "Default paths", Value: fmt.Sprintf("%d (catch-all rule)", def)})
	}
	if unowned > 0 {
		ev = append(ev, Evidence{Label: "Unowned paths", Value: fmt.Sprint(unowned)})
	}
	return ev
}
