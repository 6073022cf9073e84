package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/app/reuse"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
)

// auditTrail writes what serve does into the store's history: it is the
// verifier's Recorder and the reuse acknowledger's.
type auditTrail struct{ st *store.Store }

func (a auditTrail) RecordVerification(ctx context.Context, r verify.Record) error {
	repo := r.Owner + "/" + r.Repo
	v := &store.Verification{Verdict: string(r.Verdict), BodySHA256: r.BodySHA256, CommentURL: r.CommentURL,
		Duration: r.Duration, APICalls: r.APICalls, Rows: historyRows(r.Rows)}
	err := a.st.RecordEvent(ctx, store.Event{Kind: store.KindVerification, Repo: repo, PR: r.Number, SHA: r.HeadSHA,
		SignOffKey: r.Key, Actor: r.Actor, DeliveryID: r.DeliveryID, At: r.At, Verification: v})
	for _, b := range r.Bypasses {
		err = errors.Join(err, a.st.RecordEvent(ctx, store.Event{Kind: store.KindBypass, Repo: repo, PR: r.Number,
			SHA: r.HeadSHA, SignOffKey: r.Key, Actor: b.By, At: r.At,
			Detail: fmt.Sprintf("Check %d: %s (%s)", b.Check, b.Reason, b.URL)}))
	}
	return err
}

func (a auditTrail) RecordUnverified(ctx context.Context, u verify.Unverified) error {
	return a.st.RecordEvent(ctx, store.Event{Kind: store.KindUnverified, Repo: u.Owner + "/" + u.Repo, PR: u.Number,
		SHA: u.HeadSHA, SignOffKey: u.Key, DeliveryID: u.DeliveryID, At: u.At,
		Detail: "could not be verified: " + u.Why + " / 未能验证：" + u.Why})
}

// recordDeferred keeps a verification put off for its installation's rate
// limit, with what was left and when it resets.
func (a auditTrail) recordDeferred(ctx context.Context, j jobs.VerifyArgs, d *retry.RateLimitError) error {
	until := time.Now().Add(d.RetryAfter).UTC().Format("15:04 UTC")
	return a.st.RecordEvent(ctx, store.Event{Kind: store.KindDeferred, Repo: j.FullName(), PR: j.PR,
		SignOffKey: j.SignOff.Key(), DeliveryID: j.DeliveryID,
		Detail: fmt.Sprintf("put off until %s: %v / 推迟到 %s：安装的 API 调用额度不足以完成一次验证", until, d.Err, until)})
}

func (a auditTrail) RecordCommand(ctx context.Context, c reuse.Command) error {
	return a.st.RecordEvent(ctx, store.Event{Kind: store.KindCommand, Repo: c.Owner + "/" + c.Repo, PR: c.PR,
		Actor: c.Actor, DeliveryID: c.DeliveryID, Detail: c.Command + " — " + c.Outcome})
}

// recordRecheck keeps a maintainer's /verdict recheck (a manual
// verification job) with what came of it.
func (a auditTrail) recordRecheck(ctx context.Context, j jobs.VerifyArgs, out verify.Outcome) error {
	detail := "/verdict " + j.Action
	if k := j.SignOff.Key(); k != "" {
		detail += " " + k
	}
	switch out.Status {
	case verify.Verified:
		detail += fmt.Sprintf(" — verified %s: %s / 已验证 %s：%s", out.Verdict.Key, out.Verdict.Overall, out.Verdict.Key, out.Verdict.Overall)
	case verify.NotRequired:
		detail += " — no sign-off required / 无需签核"
	default:
		detail += " — not verified / 未验证: " + out.SkipReason
	}
	return a.st.RecordEvent(ctx, store.Event{Kind: store.KindCommand, Repo: j.FullName(), PR: j.PR,
		SignOffKey: out.Verdict.Key, SHA: out.Verdict.HeadSHA, Actor: j.ActorLogin, DeliveryID: j.DeliveryID, Detail: detail})
}

func historyRows(rows []checks.Outcome) []store.CheckRow {
	out := make([]store.CheckRow, len(rows))
	for i, r := range rows {
		ev := make([]store.Evidence, len(r.Result.Evidence))
		for j, e := range r.Result.Evidence {
			ev[j] = store.Evidence{Label: e.Label, URL: e.URL, Value: e.Value}
		}
		if len(ev) == 0 {
			ev = nil
		}
		out[i] = store.CheckRow{Check: r.Number, NameEN: r.Name.EN, NameZH: r.Name.ZH, Advisory: r.Advisory,
			Status: string(r.Result.Status), ReasonEN: r.Result.Reason.EN, ReasonZH: r.Result.Reason.ZH, Evidence: ev}
	}
	return out
}

var historyRepoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// cmdHistory prints a PR's history from serve's database, newest first.
func cmdHistory(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	dbDefault := env.Getenv("VERDICT_DATABASE_URL")
	if dbDefault == "" {
		dbDefault = config.DefaultDatabaseURL
	}
	repo := fs.String("repo", "", "the repository, OWNER/NAME")
	pr := fs.Int("pr", 0, "the pull request number")
	format := fs.String("format", "text", "text or json")
	limit := fs.Int("limit", 0, "show only the newest N events (0: all)")
	dbURL := fs.String("database-url", dbDefault, "serve's database: sqlite://<file> or postgres://... (VERDICT_DATABASE_URL)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: verdict history --repo OWNER/NAME --pr N [--format text|json] [--limit N] [--database-url URL]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "verdict history: "+format+"\n", a...)
		return code
	}
	switch {
	case fs.NArg() > 0:
		return fail(2, "unexpected argument %q", fs.Arg(0))
	case !historyRepoRE.MatchString(*repo):
		return fail(2, "--repo OWNER/NAME is required (got %q)", *repo)
	case *pr <= 0:
		return fail(2, "--pr N is required (a positive number)")
	case *format != "text" && *format != "json":
		return fail(2, "--format must be text or json, not %q", *format)
	case *limit < 0:
		return fail(2, "--limit must not be negative")
	}
	// A reader of serve's database must not create one: a mistyped path
	// would otherwise answer "0 events" as if the PR had none.
	if p, ok := sqliteFile(*dbURL); ok {
		if _, err := os.Stat(p); err != nil {
			return fail(1, "no database at %s: give serve's with --database-url or VERDICT_DATABASE_URL", p)
		}
	}
	st, err := store.Open(ctx, *dbURL)
	if err != nil {
		return fail(1, "%s", oneLine(err))
	}
	defer st.Close()
	events, err := st.History(ctx, *repo, *pr, *limit)
	if err != nil {
		return fail(1, "%s", oneLine(err))
	}
	if *format == "json" {
		err = writeHistoryJSON(env.Stdout, *repo, *pr, events)
	} else {
		err = writeHistoryText(env.Stdout, *repo, *pr, events)
	}
	if err != nil {
		return fail(1, "writing the history: %s", oneLine(err))
	}
	return 0
}

// historyJSON is the machine-readable history: field names are part of
// the interface, so they are spelled out here.
type historyJSON struct {
	Repo   string      `json:"repo"`
	PR     int         `json:"pr"`
	Events []eventJSON `json:"events"`
}

type eventJSON struct {
	Kind         string            `json:"kind"`
	At           time.Time         `json:"at"`
	SHA          string            `json:"sha,omitempty"`
	SignOffKey   string            `json:"signoff_key,omitempty"`
	Actor        string            `json:"actor,omitempty"`
	Detail       string            `json:"detail,omitempty"`
	DeliveryID   string            `json:"delivery_id,omitempty"`
	Verification *verificationJSON `json:"verification,omitempty"`
}

type verificationJSON struct {
	Verdict    string           `json:"verdict"`
	BodySHA256 string           `json:"body_sha256"`
	CommentURL string           `json:"comment_url"`
	DurationMS int64            `json:"duration_ms"`
	APICalls   int              `json:"api_calls"`
	Rows       []store.CheckRow `json:"rows"`
}

func writeHistoryJSON(w io.Writer, repo string, pr int, events []store.Event) error {
	out := historyJSON{Repo: repo, PR: pr, Events: make([]eventJSON, 0, len(events))}
	for _, e := range events {
		j := eventJSON{Kind: string(e.Kind), At: e.At, SHA: e.SHA, SignOffKey: e.SignOffKey, Actor: e.Actor,
			Detail: e.Detail, DeliveryID: e.DeliveryID}
		if v := e.Verification; v != nil {
			j.Verification = &verificationJSON{Verdict: v.Verdict, BodySHA256: v.BodySHA256, CommentURL: v.CommentURL,
				DurationMS: v.Duration.Milliseconds(), APICalls: v.APICalls, Rows: v.Rows}
		}
		out.Events = append(out.Events, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeHistoryText(w io.Writer, repo string, pr int, events []store.Event) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s#%d: %d events, newest first\n", repo, pr, len(events))
	for _, e := range events {
		fmt.Fprintf(&b, "\n%s  %s", e.At.Format("2006-01-02 15:04:05Z"), e.Kind)
		if e.SignOffKey != "" {
			fmt.Fprintf(&b, "  %s", e.SignOffKey)
		}
		if e.SHA != "" {
			fmt.Fprintf(&b, "  @%s", checks.Short(e.SHA))
		}
		if e.Actor != "" {
			fmt.Fprintf(&b, "  by @%s", e.Actor)
		}
		if e.DeliveryID != "" {
			fmt.Fprintf(&b, "  delivery %s", e.DeliveryID)
		}
		b.WriteString("\n")
		if e.Detail != "" {
			fmt.Fprintf(&b, "  %s\n", e.Detail)
		}
		v := e.Verification
		if v == nil {
			continue
		}
		fmt.Fprintf(&b, "  %s in %s, %d API calls, sign-off body sha256 %s\n", v.Verdict,
			v.Duration.Round(time.Millisecond), v.APICalls, v.BodySHA256)
		if v.CommentURL != "" {
			fmt.Fprintf(&b, "  %s\n", v.CommentURL)
		}
		for _, r := range v.Rows {
			fmt.Fprintf(&b, "  %3s  %-4s  %s: %s\n", strconv.Itoa(r.Check), r.Status, r.NameEN, r.ReasonEN)
			fmt.Fprintf(&b, "           %s：%s\n", r.NameZH, r.ReasonZH)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sqliteFile is the file a sqlite:// URL names (ok false for PostgreSQL
// and in-memory databases).
func sqliteFile(rawURL string) (string, bool) {
	rest, ok := strings.CutPrefix(rawURL, "sqlite://")
	if !ok {
		return "", false
	}
	rest, _, _ = strings.Cut(rest, "?")
	if rest == "" || strings.HasPrefix(rest, ":memory:") {
		return "", false
	}
	return rest, true
}
