package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	healthy := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !healthy {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	run := func(args ...string) int {
		return cmdHealthcheck(context.Background(), args, Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: io.Discard})
	}
	if code := run("--listen", addr); code != 0 {
		t.Errorf("healthy server: exit %d", code)
	}
	healthy = false
	if code := run("--listen", addr); code != 1 {
		t.Errorf("unhealthy server: exit %d", code)
	}
	srv.Close()
	if code := run("--listen", addr); code != 1 {
		t.Errorf("no server: exit %d", code)
	}
	if code := run("--listen", "nonsense"); code != 2 {
		t.Errorf("bad address: exit %d", code)
	}
}
