package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"

func TestLoadServer(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(pem), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"VERDICT_APP_ID": "123", "VERDICT_WEBHOOK_SECRET": "s1", "VERDICT_PRIVATE_KEY": pem}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string // substring; "" means success
		check   func(t *testing.T, s Server)
	}{
		{"defaults", base, nil, "", func(t *testing.T, s Server) {
			if s.Listen != ":8080" || s.DatabaseURL != "sqlite://verdict.db" || s.GitHubURL != "https://api.github.com/" || s.AppID != 123 || s.Workers != 8 {
				t.Fatalf("defaults: %+v", s)
			}
		}},
		{"rotation secrets", with("VERDICT_WEBHOOK_SECRET", "new, old ,"), nil, "", func(t *testing.T, s Server) {
			if len(s.WebhookSecrets) != 2 || string(s.WebhookSecrets[0]) != "new" || string(s.WebhookSecrets[1]) != "old" {
				t.Fatalf("secrets: %q", s.WebhookSecrets)
			}
		}},
		{"flags win", base, []string{"-listen", "127.0.0.1:9", "-database-url", "postgres://x/y", "-github-url", "http://127.0.0.1:1/api/v3"}, "", func(t *testing.T, s Server) {
			if s.Listen != "127.0.0.1:9" || s.DatabaseURL != "postgres://x/y" || s.GitHubURL != "http://127.0.0.1:1/api/v3/" {
				t.Fatalf("flags: %+v", s)
			}
		}},
		{"key file", with("VERDICT_PRIVATE_KEY", "", "VERDICT_PRIVATE_KEY_FILE", keyFile), nil, "", func(t *testing.T, s Server) {
			if string(s.PrivateKey) != pem {
				t.Fatal("key not read")
			}
		}},
		{"recovery on by default", base, nil, "", func(t *testing.T, s Server) {
			if s.RedeliverEvery != DefaultRedeliverEvery {
				t.Fatalf("redeliver interval %v", s.RedeliverEvery)
			}
		}},
		{"recovery off", with("VERDICT_REDELIVER_INTERVAL", "0"), nil, "", func(t *testing.T, s Server) {
			if s.RedeliverEvery != 0 {
				t.Fatalf("redeliver interval %v", s.RedeliverEvery)
			}
		}},
		{"recovery flag", base, []string{"-redeliver-interval", "90s"}, "", func(t *testing.T, s Server) {
			if s.RedeliverEvery != 90*time.Second {
				t.Fatalf("redeliver interval %v", s.RedeliverEvery)
			}
		}},
		{"recovery interval negative", with("VERDICT_REDELIVER_INTERVAL", "-1m"), nil, "VERDICT_REDELIVER_INTERVAL", nil},
		{"recovery interval garbage", with("VERDICT_REDELIVER_INTERVAL", "often"), nil, "VERDICT_REDELIVER_INTERVAL", nil},
		{"reliability defaults", base, nil, "", func(t *testing.T, s Server) {
			if s.GitHubTimeout != DefaultGitHubTimeout || s.JobTimeout != DefaultJobTimeout || s.RetryDelay != DefaultRetryDelay || s.ShutdownGrace != DefaultShutdownGrace {
				t.Fatalf("tuning: %+v", s)
			}
		}},
		{"reliability tuning", with("VERDICT_GITHUB_TIMEOUT", "250ms", "VERDICT_SHUTDOWN_GRACE", "3s"), []string{"-job-timeout", "1m", "-retry-delay", "10ms"}, "", func(t *testing.T, s Server) {
			if s.GitHubTimeout.Milliseconds() != 250 || s.ShutdownGrace.Seconds() != 3 || s.JobTimeout.Minutes() != 1 || s.RetryDelay.Milliseconds() != 10 {
				t.Fatalf("tuning: %+v", s)
			}
		}},
		{"http timeouts default", base, nil, "", func(t *testing.T, s Server) {
			if s.ReadHeaderTimeout != DefaultReadHeaderTimeout || s.ReadTimeout != DefaultReadTimeout || s.IdleTimeout != DefaultIdleTimeout {
				t.Fatalf("http timeouts: %v %v %v", s.ReadHeaderTimeout, s.ReadTimeout, s.IdleTimeout)
			}
		}},
		{"http timeouts set", with("VERDICT_READ_HEADER_TIMEOUT", "2s"), []string{"-read-timeout", "30s", "-idle-timeout", "1m"}, "", func(t *testing.T, s Server) {
			if s.ReadHeaderTimeout.Seconds() != 2 || s.ReadTimeout.Seconds() != 30 || s.IdleTimeout.Minutes() != 1 {
				t.Fatalf("http timeouts: %v %v %v", s.ReadHeaderTimeout, s.ReadTimeout, s.IdleTimeout)
			}
		}},
		{"zero http timeout", with("VERDICT_READ_HEADER_TIMEOUT", "0s"), nil, "VERDICT_READ_HEADER_TIMEOUT", nil},
		{"bad duration", with("VERDICT_GITHUB_TIMEOUT", "10"), nil, "VERDICT_GITHUB_TIMEOUT", nil},
		{"zero duration", with("VERDICT_SHUTDOWN_GRACE", "0s"), nil, "VERDICT_SHUTDOWN_GRACE", nil},
		{"no secret", with("VERDICT_WEBHOOK_SECRET", ""), nil, "VERDICT_WEBHOOK_SECRET", nil},
		{"only commas", with("VERDICT_WEBHOOK_SECRET", " , "), nil, "VERDICT_WEBHOOK_SECRET", nil},
		{"no app id", with("VERDICT_APP_ID", ""), nil, "VERDICT_APP_ID", nil},
		{"bad app id", with("VERDICT_APP_ID", "x1"), nil, "VERDICT_APP_ID", nil},
		{"no key", with("VERDICT_PRIVATE_KEY", ""), nil, "VERDICT_PRIVATE_KEY_FILE", nil},
		{"missing key file", with("VERDICT_PRIVATE_KEY_FILE", "/nonexistent/key.pem"), nil, "VERDICT_PRIVATE_KEY_FILE", nil},
		{"not a key", with("VERDICT_PRIVATE_KEY", "hello"), nil, "not a PEM", nil},
		{"bad database", with("VERDICT_DATABASE_URL", "mysql://x"), nil, "VERDICT_DATABASE_URL", nil},
		{"bad github url", with("VERDICT_GITHUB_URL", "api.github.com"), nil, "VERDICT_GITHUB_URL", nil},
		{"bad workers", with("VERDICT_WORKERS", "0"), nil, "VERDICT_WORKERS", nil},
		{"writes over GitHub's 80 a minute", with("VERDICT_WRITES_PER_MINUTE", "70"), nil, "over GitHub's 80", nil},
		{"bad write burst", with("VERDICT_WRITE_BURST", "0"), nil, "VERDICT_WRITE_BURST", nil},
		{"100 in flight", with("VERDICT_GITHUB_MAX_IN_FLIGHT", "100"), nil, "under GitHub's 100", nil},
		{"paced writes", with("VERDICT_WRITES_PER_MINUTE", "40", "VERDICT_WRITE_BURST", "10"), nil, "", func(t *testing.T, s Server) {
			if s.WritesPerMinute != 40 || s.WriteBurst != 10 || s.MaxInFlight != DefaultMaxInFlight {
				t.Fatalf("%+v", s)
			}
		}},
		{"stray argument", base, []string{"extra"}, "unexpected argument", nil},
		{"details page and login", with("VERDICT_PUBLIC_URL", "https://verdict.example.com/", "VERDICT_OAUTH_CLIENT_ID", "Iv1.x"),
			[]string{"-oauth-client-secret", "s"}, "", func(t *testing.T, s Server) {
				if s.PublicURL != "https://verdict.example.com" || s.OAuthClientID != "Iv1.x" || s.OAuthClientSecret != "s" {
					t.Fatalf("public URL and OAuth client: %+v", s)
				}
			}},
		{"bad public url", with("VERDICT_PUBLIC_URL", "verdict.example.com"), nil, "VERDICT_PUBLIC_URL", nil},
		{"client id without secret", with("VERDICT_PUBLIC_URL", "https://v.example", "VERDICT_OAUTH_CLIENT_ID", "Iv1.x"), nil, "go together", nil},
		// verdict setup writes the OAuth client; it waits for a public URL.
		{"login without public url", with("VERDICT_OAUTH_CLIENT_ID", "Iv1.x", "VERDICT_OAUTH_CLIENT_SECRET", "s"), nil, "", func(t *testing.T, s Server) {
			if s.PublicURL != "" || s.OAuthClientID != "Iv1.x" {
				t.Fatalf("%+v", s)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadServer(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line mentioning %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s)
		})
	}
}

func TestMissingErrorNamesSetting(t *testing.T) {
	_, err := LoadServer(nil, func(string) string { return "" }, io.Discard)
	var m *MissingError
	if !errors.As(err, &m) || m.Setting != "VERDICT_WEBHOOK_SECRET" {
		t.Fatalf("err = %v", err)
	}
	// One start names every missing setting, not one per attempt.
	for _, want := range []string{"VERDICT_APP_ID (or flag -app-id)", "VERDICT_PRIVATE_KEY_FILE or VERDICT_PRIVATE_KEY"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
}

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"auto", MemoryAuto, false},
		{"", MemoryAuto, false},
		{"off", 0, false},
		{"0", 0, false},
		{"512MiB", 512 << 20, false},
		{"2GiB", 2 << 30, false},
		{"134217728", 128 << 20, false},
		{"16MiB", 0, true},
		{"-5", 0, true},
		{"lots", 0, true},
		{"9999999999GiB", 0, true},
	} {
		got, err := parseMemory(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("parseMemory(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}
