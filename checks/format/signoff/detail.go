package signoff

import (
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Keyword tests of the Additional detail section, for the rows that accept
// a reviewer's statement there (RULES.md, Checks 6, 11 and 13). They look for
// a statement; whether it is true is for the row (or a human) to judge.

var imageExceptionRE = regexp.MustCompile(`(?i)\b(exception|new hardware|new model architecture|not supported upstream)\b`)

// ImageException returns the words of a documented image exception (an
// exception, new hardware, a new model architecture, not supported
// upstream), or "" when the section claims none.
func ImageException(s checks.SignOff) string {
	if s.DetailEmpty {
		return ""
	}
	return imageExceptionRE.FindString(s.Detail)
}

var (
	alWordRE        = regexp.MustCompile(`(?i)\bAL\b|acceptance`)
	exceptionWordRE = regexp.MustCompile(`(?i)\bexception\b`)
	syntheticWordRE = regexp.MustCompile(`(?i)synthetic|simulat|acceptance`)
)

// StatesALSource reports whether the section says where an acceptance length
// comes from: it mentions AL or acceptance and carries a link.
func StatesALSource(s checks.SignOff) bool {
	return !s.DetailEmpty && alWordRE.MatchString(s.Detail) && len(s.DetailLinks) > 0
}

// ClaimsSyntheticException reports whether the section claims an exception
// for synthetic acceptance.
func ClaimsSyntheticException(s checks.SignOff) bool {
	return !s.DetailEmpty && exceptionWordRE.MatchString(s.Detail) && syntheticWordRE.MatchString(s.Detail)
}

var (
	draftWordRE     = regexp.MustCompile(`(?i)\b(draft|mtp|eagle3?|dspark|nextn)\b`)
	precisionWordRE = regexp.MustCompile(`(?i)\b(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	storedRE        = regexp.MustCompile(`(?i)\bstored\s*(?:as|in|:|=)?\s*(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	servedRE        = regexp.MustCompile(`(?i)\b(?:effective|served|serves|runs|running)\s*(?:as|in|at|:|=)?\s*(bf16|fp16|fp8|fp4|nvfp4|mxfp4|int4|int8)\b`)
	storedServedRE  = regexp.MustCompile(`(?i)\b(stored|effective)\b`)
)

// DraftPrecision reports whether the section records the draft's precision:
// it names the draft (draft, MTP, EAGLE, DSpark, NextN) and a precision,
// stated twice (stored and effective) or with the words stored or
// effective. It also returns the stored and served precisions when they are
// written out.
func DraftPrecision(s checks.SignOff) (stored, served string, ok bool) {
	if s.DetailEmpty {
		return "", "", false
	}
	d := s.Detail
	if !draftWordRE.MatchString(d) {
		return "", "", false
	}
	precs := precisionWordRE.FindAllString(d, -1)
	if len(precs) == 0 || len(precs) < 2 && !storedServedRE.MatchString(d) {
		return "", "", false
	}
	if m := storedRE.FindStringSubmatch(d); m != nil {
		stored = strings.ToUpper(m[1])
	}
	if m := servedRE.FindStringSubmatch(d); m != nil {
		served = strings.ToUpper(m[1])
	}
	return stored, served, true
}
