package checks

import "fmt"

// Small fail-closed helpers shared by Checks 3, 11, 12, 13 and 15.

// specInputsUnread is the fail-closed answer for a check about to say N/A:
// when a master config could not be read, "nothing affected" is not known.
func specInputsUnread(pr *PR, cs *ChangeSet) (Result, bool) {
	ps := cs.ProblemsFor(pr.Layout.ConfigsDir, pr.Layout.Changelog)
	if len(ps) == 0 {
		return Result{}, false
	}
	p := ps[0]
	msg := fmt.Sprintf("%s: %s", p.Path, dcQuote(p.Err, 160))
	return Unverified(T(msg, msg)), true
}

// specErrText prints an error for a reason, "unknown error" for nil.
func specErrText(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
