package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/pageproxy"
	"github.com/verdict-bot/verdict/app/webhook"
)

// The tests in this file run `verdict serve` as a real process, built from
// this package, against a fake GitHub in the test process, so that they can
// kill it (SIGKILL) or stop it (SIGTERM) as production does.

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// verdictBinary builds cmd/verdict once per test run.
func verdictBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "verdict-bin-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "verdict")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// appEnv is what a serve process needs to run as the fixture's App.
type appEnv struct {
	gh     *githubtest.Server
	pages  *pageproxy.Proxy
	caFile string
	key    []byte
	db     string
	extra  map[string]string
}

var (
	appKeyOnce sync.Once
	appKeyPEM  []byte
)

// appKey is the test App's private key, made once: RSA key generation is
// slow under the race detector.
func appKey(t *testing.T) []byte {
	t.Helper()
	appKeyOnce.Do(func() {
		if k, err := rsa.GenerateKey(rand.Reader, 2048); err == nil {
			appKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
		}
	})
	if appKeyPEM == nil {
		t.Fatal("generating the App key failed")
	}
	return appKeyPEM
}

func newAppEnv(t *testing.T, gh *githubtest.Server, db string) *appEnv {
	t.Helper()
	pages, err := pageproxy.Start(gh.PageTransport())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pages.Close)
	ca := filepath.Join(t.TempDir(), "page-proxy-ca.pem")
	if err := os.WriteFile(ca, pages.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return &appEnv{gh: gh, pages: pages, caFile: ca, db: db, extra: map[string]string{}, key: appKey(t)}
}

func (e *appEnv) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VERDICT_") && !strings.HasPrefix(kv, "HTTPS_PROXY=") && !strings.HasPrefix(kv, "https_proxy=") {
			env = append(env, kv)
		}
	}
	set := map[string]string{
		"VERDICT_APP_ID":         fmt.Sprint(e.gh.Fixture().App.ID),
		"VERDICT_WEBHOOK_SECRET": e2eSecret,
		"VERDICT_PRIVATE_KEY":    string(e.key),
		"VERDICT_GITHUB_URL":     e.gh.BaseURL(),
		// Off unless a test asks: recovery is TestFlowMissedWebhook's.
		"VERDICT_REDELIVER_INTERVAL": "0",
		"VERDICT_DATABASE_URL":       e.db,
		"VERDICT_LISTEN":             "127.0.0.1:0",
		"VERDICT_GITHUB_BACKOFF":     "20ms",
		"VERDICT_RETRY_DELAY":        "100ms",
		// Documentation pages come from the fixture through the proxy.
		"HTTPS_PROXY":   e.pages.URL,
		"SSL_CERT_FILE": e.caFile,
	}
	for k, v := range e.extra {
		set[k] = v
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// serveProc is one running `verdict serve`.
type serveProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	mu   sync.Mutex
	logs []map[string]any
	raw  bytes.Buffer
	done chan struct{}
	err  error
}

// start runs `verdict serve` and waits until it listens.
func (e *appEnv) start(t *testing.T) *serveProc {
	t.Helper()
	p, addr := e.launch(t)
	p.listening(addr)
	return p
}

// launch starts `verdict serve`; the channel receives its address once it
// listens.
func (e *appEnv) launch(t *testing.T) (*serveProc, <-chan string) {
	t.Helper()
	cmd := exec.Command(verdictBinary(t), "serve")
	cmd.Env = e.environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{t: t, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var rec map[string]any
			p.mu.Lock()
			p.raw.Write(sc.Bytes())
			p.raw.WriteByte('\n')
			if json.Unmarshal(sc.Bytes(), &rec) == nil {
				p.logs = append(p.logs, rec)
				if rec["msg"] == "verdict serving" {
					addr <- fmt.Sprint(rec["addr"])
				}
			}
			p.mu.Unlock()
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("serve log:\n%s", p.log())
		}
	})
	return p, addr
}

// listening waits until the process listens.
func (p *serveProc) listening(addr <-chan string) {
	p.t.Helper()
	select {
	case a := <-addr:
		p.base = "http://" + a
	case <-p.done:
		p.t.Fatalf("verdict serve exited before listening: %v\n%s", p.err, p.log())
	case <-time.After(2 * time.Minute):
		p.t.Fatalf("verdict serve did not listen\n%s", p.log())
	}
}

func (p *serveProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.String()
}

// count is how many log records have msg.
func (p *serveProc) count(msg string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.logs {
		if r["msg"] == msg {
			n++
		}
	}
	return n
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *serveProc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

func (p *serveProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// term sends SIGTERM and returns the exit error once the process ended.
func (p *serveProc) term() error {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err
	case <-time.After(2 * time.Minute):
		p.t.Fatal("verdict serve ignored SIGTERM")
		return nil
	}
}

// deliver posts a signed webhook and returns the status code.
func (p *serveProc) deliver(event, delivery string, payload any) int {
	p.t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		p.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, p.base+"/webhook", bytes.NewReader(body))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(e2eSecret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// published is what GitHub shows for one sign-off on one commit.
type published struct {
	comments int    // verdict comments for the key
	status   string // latest state of the verdict status context
	runs     int    // check runs of ours for the key and commit
	open     int    // of which not completed
	desc     string // latest status description
}

func observe(gh *githubtest.Server, repo string, pr int, sha, key string) published {
	var p published
	for _, c := range gh.Comments(repo, pr) {
		if strings.HasSuffix(c.User, "[bot]") && strings.HasPrefix(c.Body, marker+key+" -->\n") {
			p.comments++
		}
	}
	for _, s := range gh.Statuses(repo, sha) {
		if s.GetContext() == "codeowner-signoff-verify" {
			p.status, p.desc = s.GetState(), s.GetDescription()
			break
		}
	}
	for _, r := range gh.CheckRuns(repo, sha) {
		if r.GetName() == "Verdict / sign-off" && r.GetExternalID() == key+"@"+sha {
			p.runs++
			if r.GetStatus() != "completed" {
				p.open++
			}
		}
	}
	return p
}

// final reports whether exactly one verdict is out: one comment, a final
// status and one completed check run.
func (p published) final() bool {
	return p.comments == 1 && p.status != "" && p.status != "pending" && p.runs == 1 && p.open == 0
}

// waitPublished polls until the sign-off's verdict on the sample PR is
// final or the deadline passes, and returns how long it took.
func waitPublished(t *testing.T, gh *githubtest.Server, sha, key string, within time.Duration, proc *serveProc) time.Duration {
	t.Helper()
	return waitFinal(t, gh, e2eRepo, e2ePR, sha, key, within, proc)
}

func waitFinal(t *testing.T, gh *githubtest.Server, repo string, pr int, sha, key string, within time.Duration, proc *serveProc) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		got := observe(gh, repo, pr, sha, key)
		if got.final() {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("no single final verdict within %s: %+v", within, got)
		}
		if proc != nil && proc.exited() {
			t.Fatalf("verdict serve exited (%v) before publishing: %+v", proc.err, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
