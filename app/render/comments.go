package render

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// WelcomeMarker is the first line of the recipe reminder. Any comment that
// contains it means the reminder was already posted.
const WelcomeMarker = "<!-- recipe-reminder -->"

// Welcome is the reminder a preset writes on a new pull request
// (checks.Reminder), with what the app worked out for it.
type Welcome struct {
	checks.ReminderFacts
	// Text writes the reminder; the renderer adds the marker line and
	// wraps the Chinese in <details>.
	Text func(checks.ReminderFacts) checks.Text
}

// WelcomeMarkdown renders the reminder: marker line, English, Chinese in
// <details>. The facts are checked first, since the preset writes them
// into Markdown: a login, https links that cannot break out of a link, and
// a phrase that cannot break out of code.
func WelcomeMarkdown(w Welcome) (string, error) {
	f := w.ReminderFacts
	if f.Author != "" && !loginRE.MatchString(strings.TrimPrefix(f.Author, "@")) {
		return "", fmt.Errorf("invalid PR author %q", f.Author)
	}
	f.Author = strings.TrimPrefix(f.Author, "@")
	if strings.TrimSpace(f.SignOffPhrase) == "" || strings.ContainsAny(f.SignOffPhrase, "`\n") {
		return "", fmt.Errorf("welcome comment: invalid sign-off phrase %q", f.SignOffPhrase)
	}
	if f.ShowReview {
		for _, u := range []string{f.CodeOwnersURL, f.ChecklistURL} {
			if !linkURL(u) {
				return "", fmt.Errorf("welcome comment: invalid link %q", u)
			}
		}
	}
	if w.Text == nil {
		return "", errors.New("welcome comment: the preset writes no text")
	}
	t := w.Text(f)
	if strings.TrimSpace(t.EN) == "" {
		return "", errors.New("welcome comment: the preset wrote an empty reminder")
	}
	if t.ZH == "" {
		t.ZH = t.EN
	}
	block, err := chineseBlock(strings.Trim(t.ZH, "\n"))
	if err != nil {
		return "", err
	}
	return WelcomeMarker + "\n" + strings.Trim(t.EN, "\n") + "\n\n" + block, nil
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
