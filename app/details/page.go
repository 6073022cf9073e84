package details

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/store"
)

//go:embed page.html.tmpl
var files embed.FS

var pageTmpl = template.Must(template.New("page.html.tmpl").ParseFS(files, "page.html.tmpl"))

// text is one line in both languages.
type text struct{ EN, ZH string }

// The page's messages for what went wrong.
var (
	msgNotFound = text{"There is no such page: Verdict is not installed on this repository, or the address is wrong.",
		"没有这个页面：此仓库未安装 Verdict，或地址有误。"}
	msgUnavailable = text{"The history cannot be read right now. Try again in a minute.",
		"暂时无法读取历史记录，请稍后再试。"}
	msgNoLogin = text{"This repository is private, and this Verdict deployment has no GitHub sign-in configured (VERDICT_OAUTH_CLIENT_ID), so its pages cannot be shown.",
		"此仓库为私有仓库，而此 Verdict 部署未配置 GitHub 登录（VERDICT_OAUTH_CLIENT_ID），因此无法显示其页面。"}
	msgBadState = text{"This sign-in did not start here or has expired. Open the page again to sign in.",
		"此次登录并非从本页发起或已过期。请重新打开页面登录。"}
	msgCancelled = text{"GitHub sign-in was cancelled; the page of a private repository needs it.",
		"GitHub 登录已取消；私有仓库的页面需要登录。"}
	msgSignInFailed = text{"GitHub sign-in did not complete. Open the page again to retry.",
		"GitHub 登录未完成。请重新打开页面重试。"}
	msgSignedOut = text{"You are signed out of Verdict's pages.", "您已退出 Verdict 页面的登录。"}
	msgTooMany   = text{"Too many pages were asked for from this address. Try again in a few seconds.",
		"此地址请求的页面过多，请几秒后再试。"}
)

func msgNoAccess(login, repo string) text {
	return text{fmt.Sprintf("@%s cannot read %s on GitHub, so its page is not shown.", login, repo),
		fmt.Sprintf("@%s 在 GitHub 上无权读取 %s，因此不显示其页面。", login, repo)}
}

// kinds names the event kinds in both languages.
var kinds = map[store.EventKind]text{
	store.KindVerification: {"Verification", "验证"},
	store.KindCommand:      {"Command", "命令"},
	store.KindBypass:       {"Admin bypass", "管理员豁免"},
	store.KindTamper:       {"Tamper mark", "篡改标记"},
	store.KindWithdrawal:   {"Withdrawal", "撤回"},
	store.KindUnverified:   {"Not verified", "未能验证"},
	store.KindDeferred:     {"Deferred", "已推迟"},
}

// pageView is what the template shows.
type pageView struct {
	Repo    string
	PR      int
	PRURL   string
	Private bool
	Viewer  string
	// Path is the page's own path, where signing out returns to.
	Path  string
	Error *text
	// Now is the verdict that stands (nil when nothing is kept of the
	// PR's sign-offs); Withdrawn says every sign-off kept was withdrawn.
	Now       *nowView
	Withdrawn bool
	// Items is the timeline, newest first: verifications with what
	// concerns them, and the other events.
	Items []item
	Count int
}

// nowView is the verdict that stands: the one the PR's status shows.
type nowView struct {
	Verdict, Class  string
	Key, SHA, Short string
	CommentURL      string
}

type item struct {
	Verification *verificationView
	Event        *eventView
}

type verificationView struct {
	eventView
	Verdict    string
	Class      string
	CommentURL string
	BodySHA256 string
	Duration   string
	APICalls   int
	Rows       []rowView
	Bypasses   []eventView
	Marks      []eventView // tamper marks and withdrawals of this verdict
	// Current marks the verification whose verdict stands; Superseded
	// one that a newer verdict (another sign-off's, or a newer head's)
	// replaced.
	Current, Superseded bool
}

type eventView struct {
	Kind     text
	KindID   string
	At       string
	Key      string
	SHA      string
	Short    string
	Actor    string
	Detail   string
	Delivery string
}

type rowView struct {
	store.CheckRow
	Class              string
	ReasonHTML, ZHHTML template.HTML // the reason's Markdown, rendered
	Evidence           []evidenceView
}

// rowOrder puts what needs attention first: failing rows, then those that
// warn or need review, then passing and not applicable ones.
func rowOrder(status string) int {
	switch status {
	case "FAIL":
		return 0
	case "WARN":
		return 1
	case "PASS":
		return 2
	}
	return 3
}

type evidenceView struct {
	Label, Value string
	URL          string // only http(s) links are kept
}

func statusClass(s string) string {
	switch s {
	case "PASS":
		return "pass"
	case "FAIL", "REJECTED":
		return "fail"
	case "WARN":
		return "warn"
	}
	return "na"
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func viewOf(e store.Event) eventView {
	return eventView{Kind: kinds[e.Kind], KindID: string(e.Kind), At: e.At.UTC().Format("2006-01-02 15:04:05 UTC"),
		Key: e.SignOffKey, SHA: e.SHA, Short: short(e.SHA), Actor: e.Actor, Detail: e.Detail, Delivery: e.DeliveryID}
}

func webLink(u string) string {
	if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
		return u
	}
	return ""
}

// buildPage lays out events (newest first): a bypass belongs to every
// verification of its commit and sign-off from the one that counted it on;
// a tamper mark or withdrawal to the newest verification of its sign-off
// before it; commands, and marks of verdicts not recorded, stand alone.
func buildPage(repo string, pr int, events []store.Event, signoffs []store.SignOff) pageView {
	v := pageView{Repo: repo, PR: pr, Count: len(events)}
	now, ok := store.Standing(signoffs)
	if ok {
		v.Now = &nowView{Verdict: now.Verdict, Class: statusClass(now.Verdict), Key: now.Key, SHA: now.AssessedSHA,
			Short: short(now.AssessedSHA), CommentURL: webLink(now.CommentURL)}
	}
	v.Withdrawn = !ok && len(signoffs) > 0
	var vers []*verificationView
	var verAt []time.Time
	current := false
	for _, e := range events {
		if e.Kind != store.KindVerification || e.Verification == nil {
			continue
		}
		r := e.Verification
		vv := &verificationView{eventView: viewOf(e), Verdict: r.Verdict, Class: statusClass(r.Verdict),
			CommentURL: webLink(r.CommentURL), BodySHA256: r.BodySHA256, Duration: r.Duration.Round(time.Millisecond).String(), APICalls: r.APICalls}
		for _, row := range r.Rows {
			rv := rowView{CheckRow: row, Class: statusClass(row.Status), ReasonHTML: markdown(row.ReasonEN), ZHHTML: markdown(row.ReasonZH)}
			for _, ev := range row.Evidence {
				rv.Evidence = append(rv.Evidence, evidenceView{Label: ev.Label, Value: ev.Value, URL: webLink(ev.URL)})
			}
			vv.Rows = append(vv.Rows, rv)
		}
		slices.SortStableFunc(vv.Rows, func(a, b rowView) int { return rowOrder(a.Status) - rowOrder(b.Status) })
		if v.Now != nil {
			// Newest first: the first verification of the standing
			// sign-off on the commit it assessed is the one that stands.
			vv.Current = !current && vv.Key == v.Now.Key && vv.SHA == v.Now.SHA
			current = current || vv.Current
			vv.Superseded = !vv.Current
		}
		vers = append(vers, vv)
		verAt = append(verAt, e.At)
	}
	vi := 0
	for _, e := range events {
		switch e.Kind {
		case store.KindVerification:
			if e.Verification != nil {
				v.Items = append(v.Items, item{Verification: vers[vi]})
				vi++
			}
			continue
		case store.KindBypass:
			attached := false
			for i, vv := range vers {
				if vv.SHA == e.SHA && vv.Key == e.SignOffKey && !verAt[i].Before(e.At) {
					vv.Bypasses = append(vv.Bypasses, viewOf(e))
					attached = true
				}
			}
			if attached {
				continue
			}
		case store.KindTamper, store.KindWithdrawal:
			attached := false
			for i, vv := range vers { // newest first: the first match is the newest before e
				if vv.Key == e.SignOffKey && !verAt[i].After(e.At) {
					vv.Marks = append(vv.Marks, viewOf(e))
					attached = true
					break
				}
			}
			if attached {
				continue
			}
		}
		ev := viewOf(e)
		if ev.Kind.EN == "" {
			ev.Kind = text{string(e.Kind), string(e.Kind)}
		}
		v.Items = append(v.Items, item{Event: &ev})
	}
	return v
}

func (h *Handler) render(w http.ResponseWriter, code int, v pageView) {
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, v); err != nil {
		h.opt.Logger.Error("details page: rendering", "repo", v.Repo, "pr", v.PR, "err", err)
		http.Error(w, "rendering the page failed / 页面渲染失败", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

func (h *Handler) fail(w http.ResponseWriter, code int, msg text) {
	h.render(w, code, pageView{Error: &msg})
}
