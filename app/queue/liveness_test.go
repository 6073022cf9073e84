package queue_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/queue"
	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// netCut forwards TCP to target until cut: then it forwards nothing more,
// either way, and keeps every connection open, as a host that died leaves
// them (no FIN, no RST): the database still holds that host's sessions and
// their advisory locks.
type netCut struct {
	ln     net.Listener
	target string
	cutc   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	conns  []net.Conn
}

func newNetCut(t *testing.T, target string) *netCut {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &netCut{ln: ln, target: target, cutc: make(chan struct{})}
	go n.accept()
	t.Cleanup(n.close)
	return n
}

func (n *netCut) accept() {
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return
		}
		n.track(c)
		select {
		case <-n.cutc:
			continue // a dead host answers nothing
		default:
		}
		up, err := net.Dial("tcp", n.target)
		if err != nil {
			c.Close()
			continue
		}
		n.track(up)
		go n.pipe(up, c)
		go n.pipe(c, up)
	}
}

func (n *netCut) track(c net.Conn) {
	n.mu.Lock()
	n.conns = append(n.conns, c)
	n.mu.Unlock()
}

// pipe copies until the cut; after it, what arrives is dropped.
func (n *netCut) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		select {
		case <-n.cutc:
			if err != nil {
				return
			}
			continue
		default:
		}
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
			}
			return
		}
	}
}

func (n *netCut) cut() { n.once.Do(func() { close(n.cutc) }) }

func (n *netCut) close() {
	n.cut()
	n.ln.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.conns {
		c.Close()
	}
}

// through is url with its host replaced by the cut's address.
func (n *netCut) through(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = n.ln.Addr().String()
	return u.String()
}

func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if u.Port() == "" {
		return u.Hostname() + ":5432"
	}
	return u.Host
}

// cutOffVerifier verifies until its context ends, as a job on a host that
// lost its network does: it recorded when it stopped.
type cutOffVerifier struct {
	started chan jobs.VerifyArgs
	stopped atomic.Int64
}

func (v *cutOffVerifier) Verify(ctx context.Context, a jobs.VerifyArgs, _ jobs.Attempt) error {
	v.started <- a
	<-ctx.Done()
	v.stopped.Store(time.Now().UnixNano())
	return ctx.Err()
}

// TestDeadHostLosesItsPR: a process whose network to PostgreSQL is cut
// without a FIN (its sessions, advisory locks and all, live on in the
// server) loses its running job and its PR within the lease: another
// process verifies both the sign-off it was verifying and a newer one on
// the same PR, and never while the cut-off process still works on it.
func TestDeadHostLosesItsPR(t *testing.T) {
	direct := storetest.PostgresURL(t)
	cut := newNetCut(t, hostOf(t, direct))
	lease := 2 * time.Second
	if s := os.Getenv("VERDICT_DEADHOST_LEASE"); s != "" {
		// The production lease, for BENCHMARKS.md: VERDICT_DEADHOST_LEASE=30s.
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		lease = d
	}
	check := min(lease/20, 5*time.Second)
	opt := queue.Options{Lease: lease, LockCheck: check, OrphanCheck: check,
		BusyRetry: 50 * time.Millisecond, FetchPollInterval: 20 * time.Millisecond, Logger: quiet, RetryPolicy: fastRetry{}}

	deadSt, err := store.Open(context.Background(), cut.through(t, direct))
	if err != nil {
		t.Fatal(err)
	}
	dv := &cutOffVerifier{started: make(chan jobs.VerifyArgs, 1)}
	dopt := opt
	dopt.Verifier = dv
	dead, err := queue.New(context.Background(), deadSt, dopt)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cut.close() // the sessions end at last, so the dead process can be stopped
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		dead.Stop(ctx)
		deadSt.Close()
	})
	if _, err := dead.Enqueue(context.Background(), verifyDelivery("before-cut", 5, "issuecomment-51")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-dv.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the first process never began the verification")
	}

	var mu sync.Mutex
	var starts []time.Time
	rec := &recorder{verify: func(int, jobs.VerifyArgs) error {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		return nil
	}}
	live := startQueue(t, openStore(t, direct), rec, opt)
	cutAt := time.Now()
	cut.cut()
	if _, err := live.Enqueue(context.Background(), verifyDelivery("after-cut", 5, "issuecomment-52")); err != nil {
		t.Fatal(err)
	}
	for v, _, _ := rec.calls(); v < 2; v, _, _ = rec.calls() {
		if time.Since(cutAt) > 3*lease+10*time.Second {
			t.Fatalf("%d of 2 sign-offs verified %v after the cut", v, time.Since(cutAt).Round(time.Second))
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(cutAt)
	t.Logf("PR freed and both sign-offs verified %v after the cut (lease %v)", took.Round(10*time.Millisecond), lease)
	if took > 3*lease {
		t.Errorf("took %v after the cut; want within the lease and a few checks", took)
	}
	stopped := dv.stopped.Load()
	if stopped == 0 {
		t.Fatal("the cut-off process's job never stopped")
	}
	mu.Lock()
	defer mu.Unlock()
	if first := starts[0]; first.UnixNano() < stopped {
		t.Errorf("the live process began on the PR %v before the cut-off one stopped", time.Unix(0, stopped).Sub(first))
	}
}

// TestStrandedFetchIsRequeued: a job a fetch marked running for this very
// process but whose answer never reached a worker (the database committed
// the fetch after the client gave up waiting, as in a freeze) runs within
// seconds, not after River's stuck-job rescue.
func TestStrandedFetchIsRequeued(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		st := openStore(t, url)
		release := make(chan struct{})
		rec := &recorder{verify: func(n int, _ jobs.VerifyArgs) error {
			if n == 1 {
				<-release
			}
			return nil
		}}
		q := startQueue(t, st, rec, queue.Options{Workers: 1, OrphanCheck: 50 * time.Millisecond})
		ctx := context.Background()
		if _, err := q.Enqueue(ctx, verifyDelivery("busy", 1, "issuecomment-1")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the only worker busy", func() bool { v, _, _ := rec.calls(); return v == 1 })
		if _, err := q.Enqueue(ctx, verifyDelivery("stranded", 2, "issuecomment-2")); err != nil {
			t.Fatal(err)
		}
		// What the lost fetch left: running, attempted by this process a
		// while ago.
		mark := `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - interval '1 minute',
			attempted_by = ARRAY[$1] WHERE state = 'available'`
		if st.Dialect() == store.SQLite {
			mark = `UPDATE river_job SET state = 'running', attempt = 1,
				attempted_at = strftime('%Y-%m-%d %H:%M:%f', 'now', '-1 minute'), attempted_by = jsonb_array($1)
				WHERE state = 'available'`
		}
		if n, err := st.DB().Exec(ctx, mark, queue.ClientIDOf(q)); err != nil || n != 1 {
			t.Fatalf("stranding the job: %d rows, %v", n, err)
		}
		close(release)
		start := time.Now()
		waitFor(t, "the stranded job run", func() bool { v, _, _ := rec.calls(); return v == 2 })
		t.Logf("stranded job ran %v after the worker freed", time.Since(start).Round(time.Millisecond))
	})
}

// TestSlowVerificationCompletesOnALaterAttempt: a verification that needs
// longer than the job timeout to decide is cut on its first attempt and
// completes on a later one, whose budget doubled; publishing goes on past
// the assessment deadline.
func TestSlowVerificationCompletesOnALaterAttempt(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		const timeout = 300 * time.Millisecond
		var publishedLate atomic.Bool
		slow := &budgetVerifier{need: 450 * time.Millisecond, publishedLate: &publishedLate}
		st := openStore(t, url)
		q, err := queue.New(context.Background(), st, queue.Options{Verifier: slow, Logger: quiet, RetryPolicy: fastRetry{},
			JobTimeout: timeout, FetchPollInterval: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Stop(context.Background()) })
		if _, err := q.Enqueue(context.Background(), verifyDelivery("slow", 3, "issuecomment-3")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a completed verification", func() bool { return slow.done.Load() })
		if got := slow.attempts.Load(); got != 2 {
			t.Errorf("completed on attempt %d; want the second (budget %v, then %v)", got, timeout, 2*timeout)
		}
		if !publishedLate.Load() {
			t.Error("publishing after the assessment deadline was cut")
		}
	})
}

// budgetVerifier needs need to decide within the attempt's assessment
// budget, then publishes past it.
type budgetVerifier struct {
	need          time.Duration
	attempts      atomic.Int32
	done          atomic.Bool
	publishedLate *atomic.Bool
}

func (b *budgetVerifier) Verify(ctx context.Context, _ jobs.VerifyArgs, at jobs.Attempt) error {
	b.attempts.Store(int32(at.Number))
	actx, cancel := context.WithDeadline(ctx, at.AssessBy)
	defer cancel()
	select {
	case <-time.After(b.need):
	case <-actx.Done():
		return actx.Err()
	}
	time.Sleep(time.Until(at.AssessBy) + 50*time.Millisecond)
	b.publishedLate.Store(ctx.Err() == nil)
	b.done.Store(true)
	return nil
}
