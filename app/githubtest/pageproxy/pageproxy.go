// Package pageproxy lets a separate process fetch documentation pages from
// a test's fake instead of the internet: an HTTPS proxy that intercepts
// CONNECT tunnels with certificates it signs itself and answers every
// request inside them through a RoundTripper (the fake GitHub's
// PageTransport, which serves the fixture's pages).
package pageproxy

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync"
	"time"
)

// Proxy answers a separate process's page fetches through a RoundTripper,
// so a `verdict serve` started by a test never reaches the internet: point
// the process's HTTPS_PROXY at URL and its SSL_CERT_FILE at a file holding
// CAPEM.
type Proxy struct {
	URL   string
	CAPEM []byte

	ln     net.Listener
	rt     http.RoundTripper
	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	mu     sync.Mutex
	certs  map[string]*tls.Certificate
	conns  map[net.Conn]bool
	closed chan struct{}
	wg     sync.WaitGroup
}

// Start starts a Proxy that answers through rt; Close stops it.
func Start(rt http.RoundTripper) (*Proxy, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "githubtest page proxy CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		ln: ln, rt: rt, ca: ca, caKey: key, certs: map[string]*tls.Certificate{}, conns: map[net.Conn]bool{}, closed: make(chan struct{})}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Close stops the proxy and ends its connections.
func (p *Proxy) Close() {
	close(p.closed)
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns[c] = true
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer func() {
				c.Close()
				p.mu.Lock()
				delete(p.conns, c)
				p.mu.Unlock()
			}()
			p.tunnel(c)
		}()
	}
}

// tunnel reads one CONNECT, then serves HTTP over TLS inside it.
func (p *Proxy) tunnel(c net.Conn) {
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		fmt.Fprint(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	host, _, _ := net.SplitHostPort(req.Host)
	fmt.Fprint(c, "HTTP/1.1 200 Connection Established\r\n\r\n")
	tc := tls.Server(c, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return p.cert(host) }})
	defer tc.Close()
	tr := bufio.NewReader(tc)
	for {
		select {
		case <-p.closed:
			return
		default:
		}
		tc.SetReadDeadline(time.Now().Add(30 * time.Second))
		r, err := http.ReadRequest(tr)
		if err != nil {
			return
		}
		r.URL.Scheme, r.URL.Host = "https", req.Host
		if h, port, err := net.SplitHostPort(req.Host); err == nil && port == "443" {
			r.URL.Host = h
		}
		resp, err := p.rt.RoundTrip(r)
		if err != nil {
			return
		}
		resp.Write(tc)
		resp.Body.Close()
	}
}

func (p *Proxy) cert(host string) (*tls.Certificate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.certs[host]; ok {
		return c, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.caKey)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	p.certs[host] = c
	return c, nil
}
