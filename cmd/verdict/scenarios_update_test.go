package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// scenarioExpect loads dir's expect.json. A fixture without one is an
// error, unless draft is set: then one is written from the current output
// first, and wrote reports it.
func scenarioExpect(dir string, draft bool) (e *expectFile, wrote bool, err error) {
	file := filepath.Join(dir, expectName)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		if !draft {
			return nil, false, fmt.Errorf("%s: no %s: every fixture states what it must produce (see testdata/README.md; "+
				"`go test ./cmd/verdict -run 'TestScenarios/%s$' -update` drafts one from the current output)", dir, expectName, filepath.Base(dir))
		}
		if err := writeDraft(dir, file); err != nil {
			return nil, false, err
		}
		wrote = true
	}
	e, err = loadExpect(file)
	return e, wrote, err
}

// writeDraft writes file from what the fixture at dir produces now (see
// draftExpect). It never overwrites a file.
func writeDraft(dir, file string) error {
	e, _, err := draftExpect(dir)
	if err != nil {
		return fmt.Errorf("drafting %s: %w", file, err)
	}
	b, err := formatExpect(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// draftExpect drafts the expect.json of the fixture at dir from its current
// output, and returns the runs it drafted from: one invocation per pull
// request of its first repository, run in both formats, every row with its
// status and whole English reason. It drafts no opt-out from the rules
// every row meets: a row that breaks one fails until someone decides it may.
func draftExpect(dir string) (*expectFile, []scenarioRun, error) {
	fx, err := fixture.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	e := expectFile{Date: "2026-11-20"}
	if !fx.Now.IsZero() {
		e.Date = fx.Now.UTC().Format(time.DateOnly)
	}
	invs := []invocation{{}}
	if len(fx.Repos) > 0 && len(fx.Repos[0].Pulls) > 1 {
		invs = nil
		for _, p := range fx.Repos[0].Pulls {
			invs = append(invs, invocation{Repo: fx.Repos[0].FullName, PR: p.Number})
		}
	}
	var runs []scenarioRun
	for _, inv := range invs {
		inv.Date, inv.FormatsAgree = e.Date, true
		r, err := inv.run(dir)
		if err != nil {
			return nil, nil, err
		}
		inv.Date = "" // the file's
		code := r.JSON.Code
		inv.Exit = &code
		switch {
		case r.JSON.Stdout == "":
			inv.Verdict = verdictNone
			line, _, _ := strings.Cut(strings.TrimSpace(r.JSON.Stderr), "\n")
			inv.Stderr = []textWant{{Contains: []string{line}}}
		case r.V.Verdict == "NOT_REQUIRED":
			inv.Verdict = r.V.Verdict
			reason, _ := json.Marshal(r.V.Reason)
			inv.JSON = []textWant{{Contains: []string{`"reason":` + string(reason)}}}
		default:
			inv.Verdict, inv.AssessedSHA, inv.VerifiedSignOff = r.V.Verdict, r.V.AssessedSHA, r.V.SignOff
			for _, c := range r.V.Checks {
				inv.Rows = append(inv.Rows, rowWant{Check: c.Number, Status: c.Status, Contains: []string{c.Reason}})
			}
		}
		e.Invocations = append(e.Invocations, inv)
		runs = append(runs, r)
	}
	return &e, runs, nil
}

// formatExpect encodes e in the layout of the committed expect.json files.
func formatExpect(e *expectFile) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return formatJSON(b.Bytes())
}

// formatJSON lays out a JSON document for reading: a row on one line, any
// other value on one line when it fits in 100 columns, HTML
// characters unescaped, key order kept.
func formatJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := parseNode(dec)
	if err != nil {
		return nil, fmt.Errorf("formatting JSON: %w", err)
	}
	var b strings.Builder
	n.write(&b, "", 0)
	b.WriteByte('\n')
	return []byte(b.String()), nil
}

// jsonNode is a parsed JSON value that keeps its object keys in order.
type jsonNode struct {
	scalar string // encoded; "" for objects and arrays
	object bool
	keys   []string
	kids   []*jsonNode
}

func parseNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		s, err := encodeScalar(tok)
		return &jsonNode{scalar: s}, err
	}
	n := &jsonNode{object: d == '{'}
	for dec.More() {
		if n.object {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k.(string))
		}
		kid, err := parseNode(dec)
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, kid)
	}
	_, err = dec.Token() // the closing delimiter
	return n, err
}

func encodeScalar(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func quoteKey(k string) string {
	s, _ := encodeScalar(k) // a string always encodes
	return s
}

func (n *jsonNode) inline() string {
	if n.scalar != "" {
		return n.scalar
	}
	open, close := "[", "]"
	if n.object {
		open, close = "{", "}"
	}
	parts := make([]string, len(n.kids))
	for i, k := range n.kids {
		parts[i] = k.inline()
		if n.object {
			parts[i] = quoteKey(n.keys[i]) + ": " + parts[i]
		}
	}
	return open + strings.Join(parts, ", ") + close
}

// write writes n at indent; col is where it starts on its line.
func (n *jsonNode) write(b *strings.Builder, indent string, col int) {
	if line := n.inline(); n.scalar != "" || len(n.kids) == 0 || col+len(line) <= 100 {
		b.WriteString(line)
		return
	}
	open, close := "[", "]"
	if n.object {
		open, close = "{", "}"
	}
	b.WriteString(open + "\n")
	inner := indent + "  "
	for i, k := range n.kids {
		b.WriteString(inner)
		prefix := ""
		if n.object {
			prefix = quoteKey(n.keys[i]) + ": "
			b.WriteString(prefix)
		}
		// Rows are read one to a line, however long.
		if n.object && n.keys[i] == "rows" && len(k.kids) > 0 {
			b.WriteString("[\n")
			for j, kk := range k.kids {
				b.WriteString(inner + "  " + kk.inline())
				if j < len(k.kids)-1 {
					b.WriteByte(',')
				}
				b.WriteByte('\n')
			}
			b.WriteString(inner + "]")
		} else {
			k.write(b, inner, len(inner)+len(prefix))
		}
		if i < len(n.kids)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + close)
}
