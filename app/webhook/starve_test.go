package webhook_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/router"
	"github.com/verdict-bot/verdict/app/webhook"
)

// Outsiders who can reach the port must not be able to starve GitHub's
// deliveries. Measured before this test: two connections that declared
// 25 MiB bodies and sent a byte a second made 12 of 12 signed deliveries
// answer 503 for 55 s, and 820 idle connections did the same.
func TestOutsidersCannotStarveDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("opens hundreds of connections")
	}
	q := &memQueue{}
	h := &webhook.Handler{Secrets: [][]byte{current}, Router: router.Router{}, Queue: q, Logger: quiet,
		BodyGrace: 500 * time.Millisecond}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Config.ReadTimeout = 60 * time.Second
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	open := func(declared string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Event: issue_comment\r\nX-GitHub-Delivery: evil\r\n%s\r\n", declared)
		return c
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Two trickling 25 MiB bodies ...
	stop := make(chan struct{})
	var trickle sync.WaitGroup
	var cut sync.Map
	for i := range 2 {
		c := open(fmt.Sprintf("Content-Length: %d\r\n", webhook.MaxBody))
		conns = append(conns, c)
		c.Write(bytes.Repeat([]byte("x"), 64<<10)) // a head start that holds budget
		trickle.Add(1)
		go func() {
			defer trickle.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := c.Write([]byte("x")); err != nil {
					cut.Store(i, true)
					return
				}
			}
		}()
	}
	// ... and 800 connections that declare bodies and send nothing.
	for i := range 800 {
		declared := fmt.Sprintf("Content-Length: %d\r\n", webhook.MaxBody)
		if i%2 == 1 {
			declared = "Transfer-Encoding: chunked\r\n"
		}
		conns = append(conns, open(declared))
	}
	time.Sleep(100 * time.Millisecond)

	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 12 {
		body := signOffPayload("alice", "User")
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(body))
		req.Header.Set("X-GitHub-Event", "issue_comment")
		req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("genuine-%d", i))
		req.Header.Set("X-Hub-Signature-256", webhook.Sign(current, body))
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted || time.Since(start) > time.Second {
			t.Fatalf("delivery %d answered %d in %v while outsiders held connections", i, resp.StatusCode, time.Since(start))
		}
	}
	// The trickles are cut off once below the minimum rate.
	deadline := time.Now().Add(15 * time.Second)
	for {
		n := 0
		cut.Range(func(any, any) bool { n++; return true })
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 trickling bodies were cut off", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	trickle.Wait()
	// A cut-off connection was answered, not left hanging.
	c := conns[0]
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	if line, err := bufio.NewReader(c).ReadString('\n'); err == nil && !strings.Contains(line, "400") {
		t.Errorf("a trickle was answered %q", line)
	}
}
