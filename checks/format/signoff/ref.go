package signoff

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// Ref names one sign-off on GitHub: the kind of object that carries it and
// its ID. Its key form (issuecomment-<id>, pullrequestreview-<id>,
// discussion_r<id>) is what verdict markers, check-run external IDs and
// queued jobs carry; the zero Ref means "the newest sign-off on the PR".
type Ref struct {
	// Kind is checks.KindConversation, KindReview or KindInline.
	Kind string
	ID   int64
}

// keyPrefixes maps each sign-off kind to the prefix of its key, which is
// also the anchor of its URL on GitHub.
var keyPrefixes = []struct{ kind, prefix string }{
	{checks.KindConversation, "issuecomment-"},
	{checks.KindReview, "pullrequestreview-"},
	{checks.KindInline, "discussion_r"},
}

// IsZero reports whether r names no sign-off.
func (r Ref) IsZero() bool { return r == Ref{} }

// Key is r's key form, "" for the zero Ref.
func (r Ref) Key() string {
	for _, p := range keyPrefixes {
		if p.kind == r.Kind && r.ID > 0 {
			return p.prefix + strconv.FormatInt(r.ID, 10)
		}
	}
	return ""
}

// ParseKey reads a sign-off key.
func ParseKey(key string) (Ref, error) {
	if !keyRE.MatchString(key) {
		return Ref{}, fmt.Errorf("invalid sign-off key %q", key)
	}
	for _, p := range keyPrefixes {
		if digits, ok := strings.CutPrefix(key, p.prefix); ok {
			id, err := strconv.ParseInt(digits, 10, 64)
			if err != nil {
				return Ref{}, fmt.Errorf("invalid sign-off key %q", key)
			}
			return Ref{Kind: p.kind, ID: id}, nil
		}
	}
	return Ref{}, fmt.Errorf("invalid sign-off key %q", key)
}

// MarshalText writes the key form, so a Ref is stored as the same string a
// key always was.
func (r Ref) MarshalText() ([]byte, error) {
	if r.IsZero() {
		return nil, nil
	}
	k := r.Key()
	if k == "" {
		return nil, fmt.Errorf("invalid sign-off reference %+v", r)
	}
	return []byte(k), nil
}

// UnmarshalText reads the key form; an empty text is the zero Ref.
func (r *Ref) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = Ref{}
		return nil
	}
	v, err := ParseKey(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Link is a sign-off's address as a browser shows it: the repository and
// pull request it names, and the sign-off.
type Link struct {
	Owner, Repo string
	Number      int
	Ref         Ref
}

// signOffURLRE is a sign-off's URL on any GitHub host (github.com, a GitHub
// Enterprise Server, a <tenant>.ghe.com): the PR conversation or files
// page, anchored at the comment or review.
var signOffURLRE = regexp.MustCompile(`(?i)^https://[^/\s]+/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/pull/([1-9][0-9]*)(?:/files)?#((?:issuecomment-|pullrequestreview-|discussion_r)[1-9][0-9]*)$`)

// ParseURL reads a sign-off URL. Which repository and PR it must name is
// for the caller to check.
func ParseURL(u string) (Link, bool) {
	m := signOffURLRE.FindStringSubmatch(u)
	if m == nil {
		return Link{}, false
	}
	n, err := strconv.Atoi(m[3])
	if err != nil {
		return Link{}, false
	}
	// The anchor is case-insensitive in the URL but not in a key.
	ref, err := ParseKey(strings.ToLower(m[4]))
	if err != nil {
		return Link{}, false
	}
	return Link{Owner: m[1], Repo: m[2], Number: n, Ref: ref}, true
}

// Names reports whether the link names pull request number of owner/repo
// (compared as GitHub does, case-insensitively).
func (l Link) Names(owner, repo string, number int) bool {
	return strings.EqualFold(l.Owner, owner) && strings.EqualFold(l.Repo, repo) && l.Number == number
}
