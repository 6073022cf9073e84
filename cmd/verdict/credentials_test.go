package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// readyz answers /readyz: its status code and body.
func (a *app) readyz() (int, string) {
	a.t.Helper()
	resp, err := http.Get(a.base + "/readyz")
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// /readyz proves the App's credentials: GitHub refusing them (here, an App
// ID it does not know) makes the process not ready, saying why; accepted
// ones leave it ready.
func TestReadyzProvesCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	for _, tc := range []struct {
		name     string
		settings map[string]string
		code     int
		says     string
	}{
		{"accepted", nil, http.StatusOK, "ready"},
		{"refused", map[string]string{"VERDICT_APP_ID": "777001"}, http.StatusServiceUnavailable, "GitHub refused the App's credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := startAppSettings(t, nil, tc.settings)
			var code int
			var body string
			a.waitFor("/readyz to answer "+http.StatusText(tc.code), func() bool {
				code, body = a.readyz()
				return code == tc.code
			})
			if !strings.Contains(body, tc.says) {
				t.Errorf("/readyz: %d %q, want it to say %q", code, body, tc.says)
			}
		})
	}
}
