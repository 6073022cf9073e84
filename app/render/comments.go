package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// WelcomeMarker is the first line of the recipe reminder. Any comment that
// contains it means the reminder was already posted.
const WelcomeMarker = "<!-- recipe-reminder -->"

// Welcome is the data of the recipe reminder.
type Welcome struct {
	// Author is the PR author's login; "" leaves the greeting unaddressed.
	Author string
	// ShowReview adds the Review bullet; it is set when a changed file has an
	// owner other than a repository admin or the core team.
	ShowReview    bool
	CodeownersURL string
	ChecklistURL  string
	SignOffPhrase string
	// FailFastLabel and ContinueLabel are the sweep labels to recommend
	// (InferenceX: full-sweep-fail-fast and full-sweep-enabled).
	FailFastLabel string
	ContinueLabel string
	RerunDocsURL  string
}

// WelcomeMarkdown renders the recipe reminder: marker line, English bullets,
// Chinese bullets in <details>.
func WelcomeMarkdown(w Welcome) (string, error) {
	if w.Author != "" && !loginRE.MatchString(strings.TrimPrefix(w.Author, "@")) {
		return "", fmt.Errorf("invalid PR author %q", w.Author)
	}
	w.Author = strings.TrimPrefix(w.Author, "@")
	for _, f := range []struct{ name, v string }{
		{"sign-off phrase", w.SignOffPhrase}, {"fail-fast label", w.FailFastLabel},
		{"continue label", w.ContinueLabel},
	} {
		if strings.TrimSpace(f.v) == "" || strings.ContainsAny(f.v, "`\n") {
			return "", fmt.Errorf("welcome comment: invalid %s %q", f.name, f.v)
		}
	}
	urls := []string{w.RerunDocsURL}
	if w.ShowReview {
		urls = append(urls, w.CodeownersURL, w.ChecklistURL)
	}
	for _, u := range urls {
		if !linkURL(u) {
			return "", fmt.Errorf("welcome comment: invalid link %q", u)
		}
	}
	return bilingual(WelcomeMarker, "welcome", w)
}

// linkURL accepts an https URL that cannot break out of a Markdown link.
func linkURL(u string) bool {
	return strings.HasPrefix(u, "https://") && !strings.ContainsAny(u, " \t\n\r()<>[]`")
}

// ReplyMarker keys a command reply to the command comment it answers, so an
// edit of that comment updates the reply in place. All reply kinds share it:
// an edit that turns a usage error into a valid request replaces the reply.
func ReplyMarker(commandCommentID int64) string {
	return "<!-- verdict-reply comment=" + strconv.FormatInt(commandCommentID, 10) + " -->"
}

// ReuseUsage is the syntax shown for an unparsable reuse command.
var ReuseUsage = []string{"/use <run_id>", "/reuse-sweep-run [run_id]"}

// ReuseReply acknowledges a reuse command. The 👍/👎 reaction
// stays the primary signal; the reply says why.
type ReuseReply struct {
	CommentID  int64
	Accepted   bool
	PR         int
	RunID      int64
	Conclusion string      // the source run's conclusion, when accepted
	Reason     checks.Text // why it was rejected
}

// ReuseReplyMarkdown renders the acknowledgement of a reuse command.
func ReuseReplyMarkdown(r ReuseReply) (string, error) {
	if r.CommentID <= 0 {
		return "", fmt.Errorf("reuse reply: invalid command comment id %d", r.CommentID)
	}
	if r.Accepted {
		if r.PR <= 0 || r.RunID <= 0 {
			return "", fmt.Errorf("reuse reply: accepted needs PR and run id, got PR %d run %d", r.PR, r.RunID)
		}
		r.Conclusion = defang(r.Conclusion)
		return bilingual(ReplyMarker(r.CommentID), "reuse.accepted", r)
	}
	if strings.TrimSpace(r.Reason.EN) == "" {
		return "", fmt.Errorf("reuse reply: a rejection needs a reason")
	}
	if r.Reason.ZH == "" {
		r.Reason.ZH = r.Reason.EN
	}
	// The reason can echo what the PR's author chose, such as its branch
	// name ("@org/team" is a valid one).
	r.Reason = checks.Text{EN: defang(r.Reason.EN), ZH: defang(r.Reason.ZH)}
	return bilingual(ReplyMarker(r.CommentID), "reuse.rejected", r)
}

// UsageReply answers a command that did not parse.
type UsageReply struct {
	CommentID int64
	Actor     string
	Usage     []string // accepted syntaxes, shown as code
}

// UsageReplyMarkdown renders a usage error.
func UsageReplyMarkdown(r UsageReply) (string, error) {
	if err := replyBasics(r.CommentID, &r.Actor); err != nil {
		return "", err
	}
	if len(r.Usage) == 0 {
		return "", fmt.Errorf("usage reply: no syntax to show")
	}
	for _, u := range r.Usage {
		if strings.ContainsAny(u, "`\n") || strings.TrimSpace(u) == "" {
			return "", fmt.Errorf("usage reply: invalid syntax %q", u)
		}
	}
	return bilingual(ReplyMarker(r.CommentID), "usage", r)
}

// UnauthorizedReply answers a command from someone not allowed to run it.
type UnauthorizedReply struct {
	CommentID int64
	Actor     string
	Command   string // e.g. "/verdict recheck"
	// Need is "admin", "write" or "association" (then Associations lists the
	// accepted author associations).
	Need         string
	Associations []string
}

// UnauthorizedReplyMarkdown renders a refusal for lack of authorization.
func UnauthorizedReplyMarkdown(r UnauthorizedReply) (string, error) {
	if err := replyBasics(r.CommentID, &r.Actor); err != nil {
		return "", err
	}
	switch r.Need {
	case "admin", "write":
	case "association":
		if len(r.Associations) == 0 {
			return "", fmt.Errorf("unauthorized reply: no associations listed")
		}
	default:
		return "", fmt.Errorf("unauthorized reply: unknown requirement %q", r.Need)
	}
	if strings.TrimSpace(r.Command) == "" || strings.ContainsAny(r.Command, "`\n") {
		return "", fmt.Errorf("unauthorized reply: invalid command %q", r.Command)
	}
	return bilingual(ReplyMarker(r.CommentID), "unauthorized", r)
}

// BypassReply confirms that an admin bypass was recorded.
type BypassReply struct {
	CommentID int64
	Actor     string
	SHA       string // the commit the bypass applies to (full or abbreviated)
	Reason    string // the admin's own words; neutralized before rendering
}

var shaPrefixRE = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// BypassReplyMarkdown renders the bypass confirmation.
func BypassReplyMarkdown(r BypassReply) (string, error) {
	if err := replyBasics(r.CommentID, &r.Actor); err != nil {
		return "", err
	}
	if !shaPrefixRE.MatchString(r.SHA) {
		return "", fmt.Errorf("bypass reply: invalid commit %q", r.SHA)
	}
	r.Reason = defang(r.Reason)
	return bilingual(ReplyMarker(r.CommentID), "bypass", r)
}

func replyBasics(id int64, actor *string) error {
	if id <= 0 {
		return fmt.Errorf("reply: invalid command comment id %d", id)
	}
	*actor = strings.TrimPrefix(*actor, "@")
	if !loginRE.MatchString(*actor) {
		return fmt.Errorf("reply: invalid actor %q", *actor)
	}
	return nil
}

// bilingual renders template name in both languages under marker: English
// first, Chinese in the collapsed block, like the verdict.
func bilingual(marker, name string, data any) (string, error) {
	en, err := text(EN, name, data)
	if err != nil {
		return "", err
	}
	zh, err := text(ZH, name, data)
	if err != nil {
		return "", err
	}
	block, err := chineseBlock(zh)
	if err != nil {
		return "", err
	}
	return marker + "\n" + en + "\n\n" + block, nil
}
