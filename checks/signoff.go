package checks

import "time"

// Sign-off kinds, as logs and reasons name them.
const (
	KindConversation = "conversation comment"
	KindReview       = "review summary"
	KindInline       = "inline review comment"
)

// SignOff is a parsed checklist sign-off (format/signoff parses the body).
type SignOff struct {
	// Key is issuecomment-<id>, pullrequestreview-<id> or discussion_r<id>.
	Key       string
	Kind      string
	ID        int64
	Author    string
	Body      string
	URL       string
	CreatedAt time.Time
	UpdatedAt time.Time

	Items []ChecklistItem
	// Detail is the text of the Additional detail section (without its
	// heading); DetailEmpty is set when it holds only the template
	// placeholder or nothing.
	Detail      string
	DetailEmpty bool
	DetailLinks []string
	// Links are all http(s) URLs in the body.
	Links []string
	// Signed is the value of the Signed: line, backticks removed.
	Signed string
}

// ChecklistItem is one checkbox line.
type ChecklistItem struct {
	Text    string
	Checked bool
	// Depth is 0 for top-level items and grows with indentation.
	Depth int
	// Line is the 1-based line number in the body.
	Line int
}
