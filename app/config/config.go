// Package config reads the server's settings from flags and the
// environment (flags win). Repository-level behaviour is configured in each
// repository's .github/verdict.yml, not here.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Server is what `verdict serve` needs to run.
type Server struct {
	Listen string
	AppID  int64
	// AppSlug is the App's slug; its bot account is ignored (optional).
	AppSlug string
	// PrivateKey is the App's PEM key, read from PrivateKeyFile or
	// VERDICT_PRIVATE_KEY.
	PrivateKey     []byte
	PrivateKeyFile string
	// WebhookSecrets accepts several secrets so one can be rotated.
	WebhookSecrets [][]byte
	DatabaseURL    string
	GitHubURL      string
	// Workers is how many jobs run at once.
	Workers int
	// ArtifactDownloads bounds the artifact archives one verification
	// downloads at once.
	ArtifactDownloads int
	// WritesPerMinute and WriteBurst pace each installation's
	// content-creating GitHub requests across every replica (the
	// database's token bucket); MaxInFlight bounds this process's GitHub
	// requests in flight (VERDICT_WRITES_PER_MINUTE, VERDICT_WRITE_BURST,
	// VERDICT_GITHUB_MAX_IN_FLIGHT).
	WritesPerMinute int
	WriteBurst      int
	MaxInFlight     int
	// MemoryBudget bounds what this process's concurrent verifications
	// build from their large reads, in bytes (VERDICT_MEMORY_BUDGET):
	// MemoryAuto derives it from the container's limit, 0 turns it off.
	MemoryBudget int64
	// Phrase is the sign-off phrase intake looks for; repositories may
	// narrow it but intake must see the candidates first.
	Phrase   string
	LogLevel string

	// PublicURL is where browsers reach this deployment (no trailing
	// slash); when set, check runs link to its details page.
	PublicURL string
	// OAuthClientID and OAuthClientSecret are the App's OAuth client, with
	// which the details page of a private repository signs readers in.
	OAuthClientID     string
	OAuthClientSecret string

	// Reliability tuning; the defaults suit GitHub, tests shorten them.
	// GitHubTimeout bounds one GitHub request attempt: the wait for the
	// response headers, and any stall of the body (VERDICT_GITHUB_TIMEOUT).
	GitHubTimeout time.Duration
	// GitHubBackoff is the first pause before a failed GitHub request is
	// sent again, doubling per retry (VERDICT_GITHUB_BACKOFF).
	GitHubBackoff time.Duration
	// JobTimeout cancels a job running longer (VERDICT_JOB_TIMEOUT).
	JobTimeout time.Duration
	// RetryDelay is the unit of a failed job's backoff: the n-th retry
	// waits n⁴ times it (VERDICT_RETRY_DELAY).
	RetryDelay time.Duration
	// ShutdownGrace is how long running jobs may finish after SIGTERM
	// (VERDICT_SHUTDOWN_GRACE).
	ShutdownGrace time.Duration
	// RedeliverEvery is how often missed webhooks are looked for and
	// redelivered, once at start too; 0 turns recovery off
	// (VERDICT_REDELIVER_INTERVAL).
	RedeliverEvery time.Duration

	// HTTP server limits: a client that sends its headers, or its whole
	// request, slower than this, or keeps an idle connection longer, is
	// disconnected (VERDICT_READ_HEADER_TIMEOUT, VERDICT_READ_TIMEOUT,
	// VERDICT_IDLE_TIMEOUT). They bound how long an unauthenticated sender
	// can hold a connection and the webhook body budget.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
}

// Defaults.
const (
	DefaultListen      = ":8080"
	DefaultDatabaseURL = "sqlite://verdict.db"
	DefaultGitHubURL   = "https://api.github.com/"

	// GitHub's guidance for its secondary limits: at most 80
	// content-creating requests a minute and 100 concurrent requests. A
	// steady 60 writes a minute plus a burst of 20 is at most 80 in any
	// minute; 48 in flight keeps two replicas under 100 together.
	DefaultWritesPerMinute = 60
	DefaultWriteBurst      = 20
	DefaultMaxInFlight     = 48

	DefaultGitHubTimeout = 10 * time.Second
	DefaultGitHubBackoff = 500 * time.Millisecond
	DefaultJobTimeout    = 5 * time.Minute
	DefaultRetryDelay    = time.Second
	DefaultShutdownGrace = 25 * time.Second
	// DefaultRedeliverEvery is often enough that a missed sign-off is
	// verified within minutes, rare enough to cost GitHub little.
	DefaultRedeliverEvery = 10 * time.Minute

	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
)

// MissingError names a required setting that was not given, and every
// other one missing with it, so one start says all that is wrong.
type MissingError struct {
	Setting string // e.g. VERDICT_WEBHOOK_SECRET
	Flag    string
	// Also are the other missing settings, as "SETTING (or flag -F)".
	Also []string
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("missing required setting %s (or flag -%s)", e.Setting, e.Flag)
	if len(e.Also) > 0 {
		msg += "; also missing: " + strings.Join(e.Also, ", ")
	}
	return msg
}

// missing collects the required settings not given.
type missing struct{ first *MissingError }

func (m *missing) add(setting, flag string) {
	if m.first == nil {
		m.first = &MissingError{Setting: setting, Flag: flag}
		return
	}
	m.first.Also = append(m.first.Also, fmt.Sprintf("%s (or flag -%s)", setting, flag))
}

// ErrHelp is returned when -h was asked for (usage already printed).
var ErrHelp = flag.ErrHelp

// LoadServer parses args (without the subcommand) over the environment
// read through getenv. Usage and flag errors go to out.
func LoadServer(args []string, getenv func(string) string, out io.Writer) (Server, error) {
	env := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(out)
	var (
		s       Server
		appID   = fs.String("app-id", env("VERDICT_APP_ID", ""), "GitHub App ID (VERDICT_APP_ID)")
		secrets = fs.String("webhook-secret", env("VERDICT_WEBHOOK_SECRET", ""), "webhook secret(s), comma-separated during rotation (VERDICT_WEBHOOK_SECRET)")
		keyPEM  = env("VERDICT_PRIVATE_KEY", "")
		workers = fs.String("workers", env("VERDICT_WORKERS", "8"), "jobs run at once (VERDICT_WORKERS)")
		dls     = fs.String("artifact-downloads", env("VERDICT_ARTIFACT_DOWNLOADS", "16"), "artifact archives one verification downloads at once (VERDICT_ARTIFACT_DOWNLOADS)")
		writes  = fs.String("writes-per-minute", env("VERDICT_WRITES_PER_MINUTE", strconv.Itoa(DefaultWritesPerMinute)), "content-creating GitHub requests a minute per installation, across replicas (VERDICT_WRITES_PER_MINUTE)")
		burst   = fs.String("write-burst", env("VERDICT_WRITE_BURST", strconv.Itoa(DefaultWriteBurst)), "writes an installation may send at once before the pace applies (VERDICT_WRITE_BURST)")
		memory  = fs.String("memory-budget", env("VERDICT_MEMORY_BUDGET", "auto"), "bytes (or NNNMiB, NGiB) this process's verifications may build from large reads; auto: half the container's memory limit; off (VERDICT_MEMORY_BUDGET)")
		flight  = fs.String("github-max-in-flight", env("VERDICT_GITHUB_MAX_IN_FLIGHT", strconv.Itoa(DefaultMaxInFlight)), "GitHub requests this process has in flight at most (VERDICT_GITHUB_MAX_IN_FLIGHT)")
	)
	fs.StringVar(&s.Listen, "listen", env("VERDICT_LISTEN", DefaultListen), "HTTP listen address (VERDICT_LISTEN)")
	fs.StringVar(&s.PrivateKeyFile, "private-key-file", env("VERDICT_PRIVATE_KEY_FILE", ""), "App private key PEM file (VERDICT_PRIVATE_KEY_FILE; or the PEM itself in VERDICT_PRIVATE_KEY)")
	fs.StringVar(&s.DatabaseURL, "database-url", env("VERDICT_DATABASE_URL", DefaultDatabaseURL), "sqlite://<file> or postgres://... (VERDICT_DATABASE_URL)")
	fs.StringVar(&s.GitHubURL, "github-url", env("VERDICT_GITHUB_URL", DefaultGitHubURL), "GitHub REST API base URL (VERDICT_GITHUB_URL)")
	fs.StringVar(&s.AppSlug, "app-slug", env("VERDICT_APP_SLUG", ""), "App slug, to ignore the App's own events (VERDICT_APP_SLUG)")
	fs.StringVar(&s.Phrase, "signoff-phrase", env("VERDICT_SIGNOFF_PHRASE", signoff.DefaultPhrase), "sign-off phrase (VERDICT_SIGNOFF_PHRASE)")
	fs.StringVar(&s.LogLevel, "log-level", env("VERDICT_LOG_LEVEL", "info"), "debug, info, warn or error (VERDICT_LOG_LEVEL)")
	fs.StringVar(&s.PublicURL, "public-url", env("VERDICT_PUBLIC_URL", ""), "where browsers reach this deployment, e.g. https://verdict.example.com; check runs link to its details pages (VERDICT_PUBLIC_URL)")
	fs.StringVar(&s.OAuthClientID, "oauth-client-id", env("VERDICT_OAUTH_CLIENT_ID", ""), "the App's OAuth client ID, for signing readers of private repositories in (VERDICT_OAUTH_CLIENT_ID)")
	fs.StringVar(&s.OAuthClientSecret, "oauth-client-secret", env("VERDICT_OAUTH_CLIENT_SECRET", ""), "the App's OAuth client secret (VERDICT_OAUTH_CLIENT_SECRET)")
	durations := []struct {
		dst          *time.Duration
		flag, envKey string
		def          time.Duration
		usage        string
	}{
		{&s.GitHubTimeout, "github-timeout", "VERDICT_GITHUB_TIMEOUT", DefaultGitHubTimeout, "give up on a GitHub request attempt that sends nothing for this long"},
		{&s.GitHubBackoff, "github-backoff", "VERDICT_GITHUB_BACKOFF", DefaultGitHubBackoff, "first pause before a failed GitHub request is sent again (doubles per retry)"},
		{&s.JobTimeout, "job-timeout", "VERDICT_JOB_TIMEOUT", DefaultJobTimeout, "cancel a job running longer"},
		{&s.RetryDelay, "retry-delay", "VERDICT_RETRY_DELAY", DefaultRetryDelay, "backoff unit: the n-th retry of a failed job waits n⁴ times this"},
		{&s.ShutdownGrace, "shutdown-grace", "VERDICT_SHUTDOWN_GRACE", DefaultShutdownGrace, "how long running jobs may finish after SIGTERM"},
		{&s.ReadHeaderTimeout, "read-header-timeout", "VERDICT_READ_HEADER_TIMEOUT", DefaultReadHeaderTimeout, "disconnect a client whose request headers take longer"},
		{&s.ReadTimeout, "read-timeout", "VERDICT_READ_TIMEOUT", DefaultReadTimeout, "disconnect a client whose whole request (headers and body) takes longer"},
		{&s.IdleTimeout, "idle-timeout", "VERDICT_IDLE_TIMEOUT", DefaultIdleTimeout, "close a keep-alive connection idle for longer"},
	}
	redeliver := fs.String("redeliver-interval", env("VERDICT_REDELIVER_INTERVAL", DefaultRedeliverEvery.String()),
		"how often failed webhook deliveries are redelivered, 0 for never (VERDICT_REDELIVER_INTERVAL)")
	raw := make([]*string, len(durations))
	for i, d := range durations {
		raw[i] = fs.String(d.flag, env(d.envKey, d.def.String()), d.usage+" ("+d.envKey+")")
	}
	if err := fs.Parse(args); err != nil {
		return Server{}, err
	}
	for i, d := range durations {
		v, err := time.ParseDuration(*raw[i])
		if err != nil || v <= 0 {
			return Server{}, fmt.Errorf("invalid setting %s %q: want a positive duration such as %s", d.envKey, *raw[i], d.def)
		}
		*d.dst = v
	}
	if v, err := time.ParseDuration(*redeliver); err == nil && v >= 0 {
		s.RedeliverEvery = v
	} else {
		return Server{}, fmt.Errorf("invalid setting VERDICT_REDELIVER_INTERVAL %q: want a duration such as %s, or 0 for never", *redeliver, DefaultRedeliverEvery)
	}
	if fs.NArg() > 0 {
		return Server{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}

	for _, part := range strings.Split(*secrets, ",") {
		if part = strings.TrimSpace(part); part != "" {
			s.WebhookSecrets = append(s.WebhookSecrets, []byte(part))
		}
	}
	var miss missing
	if len(s.WebhookSecrets) == 0 {
		miss.add("VERDICT_WEBHOOK_SECRET", "webhook-secret")
	}
	if *appID == "" {
		miss.add("VERDICT_APP_ID", "app-id")
	}
	if s.PrivateKeyFile == "" && keyPEM == "" {
		miss.add("VERDICT_PRIVATE_KEY_FILE or VERDICT_PRIVATE_KEY", "private-key-file")
	}
	if miss.first != nil {
		return Server{}, miss.first
	}
	id, err := strconv.ParseInt(*appID, 10, 64)
	if err != nil || id <= 0 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_APP_ID %q: want a positive integer", *appID)
	}
	s.AppID = id
	switch {
	case s.PrivateKeyFile != "":
		b, err := os.ReadFile(s.PrivateKeyFile)
		if err != nil {
			return Server{}, fmt.Errorf("invalid setting VERDICT_PRIVATE_KEY_FILE: %w", err)
		}
		s.PrivateKey = b
	default: // one of the two is set (checked above)
		s.PrivateKey = []byte(keyPEM)
	}
	if !strings.Contains(string(s.PrivateKey), "PRIVATE KEY-----") {
		return Server{}, errors.New("invalid setting VERDICT_PRIVATE_KEY(_FILE): not a PEM private key")
	}
	if s.Workers, err = strconv.Atoi(*workers); err != nil || s.Workers <= 0 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_WORKERS %q: want a positive integer", *workers)
	}
	if s.ArtifactDownloads, err = strconv.Atoi(*dls); err != nil || s.ArtifactDownloads <= 0 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_ARTIFACT_DOWNLOADS %q: want a positive integer", *dls)
	}
	if s.WritesPerMinute, err = strconv.Atoi(*writes); err != nil || s.WritesPerMinute <= 0 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_WRITES_PER_MINUTE %q: want a positive integer", *writes)
	}
	if s.WriteBurst, err = strconv.Atoi(*burst); err != nil || s.WriteBurst <= 0 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_WRITE_BURST %q: want a positive integer", *burst)
	}
	if s.WritesPerMinute+s.WriteBurst > 80 {
		// GitHub's secondary limit: 80 content-creating requests a minute.
		return Server{}, fmt.Errorf("invalid settings VERDICT_WRITES_PER_MINUTE %d + VERDICT_WRITE_BURST %d: a minute could hold %d writes, over GitHub's 80", s.WritesPerMinute, s.WriteBurst, s.WritesPerMinute+s.WriteBurst)
	}
	if s.MaxInFlight, err = strconv.Atoi(*flight); err != nil || s.MaxInFlight <= 0 || s.MaxInFlight >= 100 {
		return Server{}, fmt.Errorf("invalid setting VERDICT_GITHUB_MAX_IN_FLIGHT %q: want a positive integer under GitHub's 100", *flight)
	}
	if s.MemoryBudget, err = parseMemory(*memory); err != nil {
		return Server{}, fmt.Errorf("invalid setting VERDICT_MEMORY_BUDGET %q: %w", *memory, err)
	}
	u, err := url.Parse(s.GitHubURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Server{}, fmt.Errorf("invalid setting VERDICT_GITHUB_URL %q: want an http(s) URL", s.GitHubURL)
	}
	if !strings.HasSuffix(s.GitHubURL, "/") {
		s.GitHubURL += "/"
	}
	if !strings.HasPrefix(s.DatabaseURL, "sqlite:") && !strings.HasPrefix(s.DatabaseURL, "postgres://") && !strings.HasPrefix(s.DatabaseURL, "postgresql://") {
		return Server{}, fmt.Errorf("invalid setting VERDICT_DATABASE_URL: want sqlite://<file> or postgres://...")
	}
	if s.PublicURL != "" {
		u, err := url.Parse(s.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return Server{}, fmt.Errorf("invalid setting VERDICT_PUBLIC_URL %q: want an http(s) URL such as https://verdict.example.com", s.PublicURL)
		}
		s.PublicURL = strings.TrimRight(s.PublicURL, "/")
	}
	if (s.OAuthClientID == "") != (s.OAuthClientSecret == "") {
		return Server{}, errors.New("invalid settings: VERDICT_OAUTH_CLIENT_ID and VERDICT_OAUTH_CLIENT_SECRET go together")
	}
	switch s.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return Server{}, fmt.Errorf("invalid setting VERDICT_LOG_LEVEL %q: want debug, info, warn or error", s.LogLevel)
	}
	return s, nil
}

// MemoryAuto asks for the memory budget to be derived from the container's
// memory limit (none without one).
const MemoryAuto = -1

// parseMemory reads a memory budget: auto, off, a byte count, or a count
// of MiB or GiB.
func parseMemory(v string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "auto", "":
		return MemoryAuto, nil
	case "off", "0":
		return 0, nil
	}
	num, unit := v, int64(1)
	for suffix, u := range map[string]int64{"MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			num, unit = strings.TrimSpace(n), u
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/unit {
		return 0, errors.New("want auto, off, a number of bytes, or NNNMiB / NGiB")
	}
	if n*unit < 64<<20 {
		return 0, errors.New("under 64 MiB, no verification of a large config could run")
	}
	return n * unit, nil
}
