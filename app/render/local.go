package render

// LocalKey is the sign-off key of a verdict computed by a local check
// (verdict check --repo-dir): no GitHub comment exists to key it to. The
// publisher accepts only GitHub's keys, so a local verdict can never be
// published.
const LocalKey = "local"

// localUnsigned reports a local verdict without a sign-off: there is no
// author to mention on a rejection.
func (v Verdict) localUnsigned() bool { return v.Key == LocalKey && v.Author == "" }
