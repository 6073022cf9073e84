// Package claims reads the checkable claims of a pull request description:
// image references, config keys, concurrency lists, TP sizes, workflow runs
// and acceptance lengths. The body is untrusted: it is only scanned for a few
// token shapes; nothing in it is interpreted as an instruction, and only the
// matched tokens (never free text) reach a reason.
package claims

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Claim kinds.
const (
	Image  = "image"
	Config = "config"
	Conc   = "conc"
	TP     = "tp"
	Run    = "run"
	AL     = "al"
)

// Claim is one checkable statement of the PR body.
type Claim struct {
	Kind string
	// Token is the matched text in canonical form (an image reference, a
	// config key, "2, 6", "8", a run id, "3.50").
	Token string
	Line  int
	// Old is set when the token is labelled as the previous value (old,
	// previous, before, from, was) rather than the new one.
	Old bool
	// Keys are the master config keys named on the same line.
	Keys []string
	Ints []int
	// Run claims: the repository in the URL ("" for a bare id) and whether
	// the line says the run passed.
	RunRepo  string
	RunID    int64
	SaysPass bool
	AL       float64
}

// Label names the claim the way reasons quote it: "image X", "conc 2, 6",
// "TP8", "run N", "AL 3.50", or the config key.
func (c Claim) Label() string {
	switch c.Kind {
	case Image:
		return "image " + c.Token
	case Conc:
		return "conc " + c.Token
	case TP:
		return "TP" + c.Token
	case Run:
		return "run " + c.Token
	case AL:
		return "AL " + c.Token
	}
	return c.Token
}

// maxBodyBytes bounds the part of the body that is scanned.
const maxBodyBytes = 64 << 10

var (
	imageRE    = regexp.MustCompile(`(?i)\b((?:docker\.io/)?(?:nvcr\.io/[a-z0-9._-]+/[a-z0-9._/-]+|(?:vllm|lmsysorg|rocm)/[a-z0-9._-]+):[a-z0-9][a-z0-9._-]*)`)
	concRE     = regexp.MustCompile(`(?i)\bconc(?:urrency|urrencies)?(?:[ -]?list)?\s*[:=]?\s*\[?\s*(\d{1,5}(?:\s*(?:,|/|and|&)\s*\d{1,5})*)`)
	tpRE       = regexp.MustCompile(`(?i)\btp\s*[=:]?\s*(\d{1,3})\b`)
	runURLRE   = regexp.MustCompile(`https?://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/actions/runs/(\d{1,20})`)
	runIDRE    = regexp.MustCompile(`(?i)\b(?:run|run id|workflow run)\s*#?\s*(\d{6,20})\b`)
	alRE       = regexp.MustCompile(`(?i)(?:\bAL\b|acceptance[ _-]length|SIMULATE_ACC_LEN)\s*(?:=|:|of|is|to|at)?\s*\(?\s*(\d\.\d{1,4})\b`)
	passRE     = regexp.MustCompile(`(?i)\b(pass|passed|passes|passing|green|success|successful|succeeded)\b|✅`)
	markRE     = regexp.MustCompile(`(?i)\b(old|previous|previously|before|from|was)\b|\b(to|now|new|after)\b|->|→`)
	keyTokenRE = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._-]{2,}`)
	intRE      = regexp.MustCompile(`\d+`)
	urlRE      = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)
	commentRE  = regexp.MustCompile(`(?s)<!--.*?(?:-->|$)`)
)

// Extract scans body for claims. isKey reports whether a token is a
// master config key (at head or base). The result is deterministic and in
// body order.
func Extract(body string, isKey func(string) bool) []Claim {
	if len(body) > maxBodyBytes {
		body = body[:maxBodyBytes]
	}
	// Hidden HTML comments are not part of what readers see.
	body = commentRE.ReplaceAllString(body, " ")
	body = strings.ReplaceAll(body, "\r\n", "\n")
	var out []Claim
	seenRun := map[int64]bool{}
	seenKey := map[string]bool{}
	for i, line := range strings.Split(body, "\n") {
		ln := i + 1
		var keys []string
		if isKey != nil {
			for _, tok := range keyTokenRE.FindAllString(line, -1) {
				tok = strings.TrimRight(tok, ".-_")
				if isKey(tok) && !contains(keys, tok) {
					keys = append(keys, tok)
				}
			}
		}
		for _, k := range keys {
			if !seenKey[k] {
				seenKey[k] = true
				old := isOld(line[:strings.Index(line, k)])
				out = append(out, Claim{Kind: Config, Token: k, Line: ln, Keys: keys, Old: old})
			}
		}
		runLine := line
		// Numbers and tags inside URLs are not claims (run links are read from
		// runLine below).
		line = urlRE.ReplaceAllStringFunc(line, func(u string) string { return strings.Repeat(" ", len(u)) })
		prev := 0
		for _, m := range imageRE.FindAllStringSubmatchIndex(line, -1) {
			img := strings.TrimRight(line[m[2]:m[3]], ".-_")
			out = append(out, Claim{Kind: Image, Token: img, Line: ln, Old: isOld(line[prev:m[2]]), Keys: keys})
			prev = m[1]
		}
		prev = 0
		for _, m := range concRE.FindAllStringSubmatchIndex(line, -1) {
			ints := parseInts(line[m[2]:m[3]])
			out = append(out, Claim{Kind: Conc, Token: JoinInts(ints), Line: ln, Old: isOld(line[prev:m[0]]), Keys: keys, Ints: ints})
			prev = m[1]
		}
		prev = 0
		for _, m := range tpRE.FindAllStringSubmatchIndex(line, -1) {
			ints := parseInts(line[m[2]:m[3]])
			out = append(out, Claim{Kind: TP, Token: JoinInts(ints), Line: ln, Old: isOld(line[prev:m[0]]), Keys: keys, Ints: ints})
			prev = m[1]
		}
		pass := passRE.MatchString(runLine)
		for _, m := range runURLRE.FindAllStringSubmatch(runLine, -1) {
			id, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil || seenRun[id] {
				continue
			}
			seenRun[id] = true
			out = append(out, Claim{Kind: Run, Token: m[2], Line: ln, RunRepo: m[1], RunID: id, SaysPass: pass})
		}
		for _, m := range runIDRE.FindAllStringSubmatch(line, -1) {
			id, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil || seenRun[id] {
				continue
			}
			seenRun[id] = true
			out = append(out, Claim{Kind: Run, Token: m[1], Line: ln, RunID: id, SaysPass: pass})
		}
		prev = 0
		for _, m := range alRE.FindAllStringSubmatchIndex(line, -1) {
			f, err := strconv.ParseFloat(line[m[2]:m[3]], 64)
			if err != nil {
				continue
			}
			out = append(out, Claim{Kind: AL, Token: strconv.FormatFloat(f, 'f', 2, 64), Line: ln, Old: isOld(line[prev:m[0]]), Keys: keys, AL: f})
			prev = m[1]
		}
	}
	return out
}

// isOld reports whether the text before a token labels it as the previous
// value: the last marker before it is old/previous/before/from/was rather
// than to/now/new/after/→.
func isOld(prefix string) bool {
	// Only the clause right before the token counts: in "from A to B" the
	// label "from" belongs to A, not B.
	if len(prefix) > 32 {
		prefix = prefix[len(prefix)-32:]
	}
	ms := markRE.FindAllStringSubmatch(prefix, -1)
	if len(ms) == 0 {
		return false
	}
	return ms[len(ms)-1][1] != ""
}

func parseInts(s string) []int {
	var out []int
	for _, t := range intRE.FindAllString(s, -1) {
		if n, err := strconv.Atoi(t); err == nil {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// JoinInts prints numbers as claims carry them: "2, 6, 12".
func JoinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
