package pageproxy_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/pageproxy"
)

// TestPageProxyServesFixturePages: a client that only knows the proxy and
// its CA (as a child process would, through HTTPS_PROXY and SSL_CERT_FILE)
// gets the fixture's pages over HTTPS and a 404 for anything else.
func TestPageProxyServesFixturePages(t *testing.T) {
	fx := fixture.New("verdict")
	fx.Page("https://docs.example.org/recipes/qwen", 200, "<h1>Qwen</h1>")
	s := githubtest.New(t, fx)
	p, err := pageproxy.Start(s.PageTransport())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(p.CAPEM) {
		t.Fatal("CA PEM not parsed")
	}
	proxy, _ := url.Parse(p.URL)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	for u, want := range map[string]int{"https://docs.example.org/recipes/qwen": 200, "https://docs.example.org/missing": 404} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want == 200 && string(body) != "<h1>Qwen</h1>") {
			t.Errorf("GET %s: %d %q", u, resp.StatusCode, body)
		}
	}
	if n := s.PageCalls("https://docs.example.org/recipes/qwen"); n != 1 {
		t.Errorf("page served %d times through the proxy", n)
	}
}
