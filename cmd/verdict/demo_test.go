package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// verdict demo serves the sample for real: the verdict comment is printed,
// the details page it names shows the PASS, and an interrupt stops it.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errs syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"demo", "--fixture", fixtureDir("sample-e2e-agentic"), "--listen", "127.0.0.1:0"},
			Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errs})
	}()
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), "serving until Ctrl-C") {
		select {
		case c := <-code:
			t.Fatalf("demo exited %d:\n%s\n%s", c, out.String(), errs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no verdict in 90 s:\n%s\n%s", out.String(), errs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "## ✅✅✅ **Verdict: PASS** ✅✅✅") {
		t.Errorf("demo output lacks the PASS verdict:\n%s", out.String())
	}
	page := regexp.MustCompile(`details page: (http://\S+)`).FindStringSubmatch(out.String())
	if page == nil {
		t.Fatalf("no details page address:\n%s", out.String())
	}
	var body string
	for time.Now().Before(deadline) && !strings.Contains(body, `data-verdict="PASS"`) {
		resp, err := http.Get(page[1])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		body = string(b)
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(body, `data-now="PASS"`) {
		t.Errorf("the details page does not lead with the PASS:\n%.1500s", body)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("demo exited %d after the interrupt:\n%s", c, errs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not stop after the interrupt")
	}
}
