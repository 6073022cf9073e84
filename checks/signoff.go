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
	// DetailLinks are the Links in the Additional detail section.
	DetailLinks []string
	// Links are the http(s) links GitHub renders in the body, outside
	// code, HTML and block quotes (format/signoff says why).
	Links []string
	// Signed is the value of the Signed: line, backticks removed.
	Signed string
	// Unreadable is why the Markdown reader refused the body, "" when it
	// read it. An unreadable sign-off has no items, detail or links, and
	// every row that reads its text fails closed with this reason.
	Unreadable string
}

// ChecklistItem is one task-list item.
type ChecklistItem struct {
	Text    string
	Checked bool
	// Depth is 0 for an item of a top-level list and grows by one per
	// list it is nested in.
	Depth int
	// Line is the 1-based line number in the body.
	Line int
}
