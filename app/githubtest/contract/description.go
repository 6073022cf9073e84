// Package contract holds the fake GitHub (app/githubtest) to GitHub's own
// API descriptions: every response a fake serves in a test binary is
// validated against the REST description that @octokit/openapi republishes,
// and webhook deliveries against @octokit/openapi-webhooks. It is for tests
// only; nothing in the binary imports it.
//
// The descriptions are not in the repository: .ci/run installs the npm
// packages into a cache directory and names it in VERDICT_GITHUB_DESCRIPTIONS.
// Without it the validation is skipped with one line.
package contract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// EnvDir names the directory the npm packages are installed in (the
// --prefix of npm install: it holds node_modules/@octokit/...).
const EnvDir = "VERDICT_GITHUB_DESCRIPTIONS"

// The description files used: OpenAPI 3.0 with $refs, which kin-openapi
// reads (the package also ships dereferenced copies, 5x larger).
const (
	restFile     = "node_modules/@octokit/openapi/generated/api.github.com.json"
	webhooksFile = "node_modules/@octokit/openapi-webhooks/generated/api.github.com.json"
)

// ErrAbsent is returned when the descriptions are not installed.
var ErrAbsent = errors.New("GitHub's API descriptions are not installed")

// internalRoutes stand for hosts other than the REST API: raw file
// downloads, the artifact blob storage GitHub redirects to, the web form
// of the App manifest flow and the OAuth web flow (pages on github.com).
var internalRoutes = map[string]bool{
	"GET /repos/{owner}/{repo}/_raw/{sha}/{path...}": true,
	"GET /_blob/{owner}/{repo}/artifacts/{file}":     true,
	"POST /settings/apps/new":                        true,
	"POST /organizations/{org}/settings/apps/new":    true,
	"GET /login/oauth/authorize":                     true,
	"POST /login/oauth/access_token":                 true,
	// GraphQL is not part of the REST description.
	"POST /graphql":     true,
	"POST /api/graphql": true,
}

// Dir returns the descriptions' directory from the environment, or
// ErrAbsent saying what is missing.
func Dir() (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return "", fmt.Errorf("%w: %s is not set", ErrAbsent, EnvDir)
	}
	for _, f := range []string{restFile, webhooksFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return "", fmt.Errorf("%w: %v", ErrAbsent, err)
		}
	}
	return dir, nil
}

// REST is GitHub's REST description, with the fake's routes matched to
// its operations.
type REST struct {
	doc    *openapi3.T
	routes map[string]*route // by the fake's route name

	mu   sync.Mutex
	seen map[[32]byte]bool // exchanges already validated
}

type route struct {
	r *routers.Route
	// names are the description's path parameters, in the order of the
	// fake's; literal are values the fake's template spells out (the
	// artifact download's {archive_format} is always zip).
	names   []string
	literal []string
}

var paramRE = regexp.MustCompile(`\{[^}]*\}`)

// LoadREST reads the REST description and maps every fake route to its
// operation. A route with no operation is an error: the fake would be
// serving something GitHub does not have.
func LoadREST(dir string) (*REST, error) {
	raw, err := os.ReadFile(filepath.Join(dir, restFile))
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", restFile, err)
	}
	shapes := fakeShapes()
	keep := func(p string) bool { return shapes[paramRE.ReplaceAllString(p, "{}")] }
	if raw, err = prune(raw, "paths", keep); err != nil {
		return nil, fmt.Errorf("loading %s: %w", restFile, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", restFile, err)
	}
	byShape := map[string]string{}
	for _, p := range doc.Paths.InMatchingOrder() {
		byShape[paramRE.ReplaceAllString(p, "{}")] = p
	}
	d := &REST{doc: doc, routes: map[string]*route{}, seen: map[[32]byte]bool{}}
	for _, name := range githubtest.Routes() {
		if internalRoutes[name] {
			continue
		}
		method, tmpl, _ := strings.Cut(name, " ")
		shape := paramRE.ReplaceAllString(tmpl, "{}")
		if tmpl == "/repos/{owner}/{repo}/contents" {
			shape += "/{}" // the root directory: an empty path
		}
		if strings.HasSuffix(tmpl, "/artifacts/{id}/zip") {
			shape = strings.TrimSuffix(shape, "/zip") + "/{}" // {archive_format}
		}
		p, ok := byShape[shape]
		if !ok {
			return nil, fmt.Errorf("the fake serves %s, which GitHub's REST description does not have", name)
		}
		item := doc.Paths.Value(p)
		op := item.GetOperation(method)
		if op == nil {
			return nil, fmt.Errorf("the fake serves %s; GitHub's REST description has %s but not for %s", name, p, method)
		}
		var names []string
		for _, m := range paramRE.FindAllString(p, -1) {
			names = append(names, strings.Trim(m, "{}"))
		}
		rt := &route{r: &routers.Route{Spec: doc, Path: p, PathItem: item, Method: method, Operation: op}, names: names}
		if strings.HasSuffix(tmpl, "/zip") {
			rt.literal = []string{"zip"}
		}
		d.routes[name] = rt
	}
	return d, nil
}

// fakeShapes are the fake's routes with their parameters blanked
// ("/repos/{}/{}/pulls/{}"), as they appear among the description's paths.
func fakeShapes() map[string]bool {
	out := map[string]bool{}
	for _, name := range githubtest.Routes() {
		if internalRoutes[name] {
			continue
		}
		_, tmpl, _ := strings.Cut(name, " ")
		shape := paramRE.ReplaceAllString(tmpl, "{}")
		switch {
		case tmpl == "/repos/{owner}/{repo}/contents":
			shape += "/{}"
		case strings.HasSuffix(tmpl, "/artifacts/{id}/zip"):
			shape = strings.TrimSuffix(shape, "/zip") + "/{}"
		}
		out[shape] = true
	}
	return out
}

var refRE = regexp.MustCompile(`"\$ref":\s*"#/components/([A-Za-z]+)/([^"]+)"`)

// prune keeps of a description only the entries of section ("paths" or
// "webhooks") that keep accepts and the components they reach: for the
// fake, a tenth of the document, which the loader then reads in a fraction
// of the time (it matters under the race detector).
func prune(raw []byte, section string, keep func(string) bool) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var paths map[string]json.RawMessage
	var comps map[string]map[string]json.RawMessage
	if err := json.Unmarshal(doc[section], &paths); err != nil {
		return nil, fmt.Errorf("%s: %w", section, err)
	}
	if err := json.Unmarshal(doc["components"], &comps); err != nil {
		return nil, fmt.Errorf("components: %w", err)
	}
	keptPaths := map[string]json.RawMessage{}
	keptComps := map[string]map[string]json.RawMessage{}
	var queue []json.RawMessage
	for p, item := range paths {
		if keep(p) {
			keptPaths[p] = item
			queue = append(queue, item)
		}
	}
	for len(queue) > 0 {
		item := queue[0]
		queue = queue[1:]
		for _, m := range refRE.FindAllSubmatch(item, -1) {
			kind, name := string(m[1]), string(m[2])
			if keptComps[kind] == nil {
				keptComps[kind] = map[string]json.RawMessage{}
			}
			if _, done := keptComps[kind][name]; done {
				continue
			}
			c, ok := comps[kind][name]
			if !ok {
				return nil, fmt.Errorf("$ref to missing #/components/%s/%s", kind, name)
			}
			keptComps[kind][name] = c
			queue = append(queue, c)
		}
	}
	out := map[string]any{"openapi": doc["openapi"], "info": doc["info"], section: keptPaths, "components": keptComps}
	return json.Marshal(out)
}

// Check validates one exchange: the request against its operation's
// parameters and body, the response against the operation's responses
// (status included). Exchanges a test's Fault answered are the test's
// business, and routes for other hosts have no description.
func (d *REST) Check(ex githubtest.Exchange) error {
	if ex.Fault || ex.Route == "" || internalRoutes[ex.Route] {
		return nil
	}
	rt := d.routes[ex.Route]
	if rt == nil {
		return fmt.Errorf("%s %s: route %q has no operation", ex.Method, ex.Path, ex.Route)
	}
	if ex.Status == http.StatusNotModified {
		// GitHub answers any conditional GET this way (its REST
		// conditional-requests rules); the description lists 304 for some
		// operations only. It must answer a conditional request, with the
		// ETag and no body.
		switch {
		case ex.Method != http.MethodGet || ex.RequestHeader.Get("If-None-Match") == "":
			return fmt.Errorf("%s %s: 304 without a conditional request", ex.Method, ex.Path)
		case ex.Header.Get("ETag") == "" || len(ex.Body) > 0:
			return fmt.Errorf("%s %s: 304 needs an ETag and no body", ex.Method, ex.Path)
		}
		return nil
	}
	if ex.BodyTruncated || ex.Status == 0 {
		// Too large to keep, or the client left before any answer.
		return nil
	}
	key := sha256.Sum256(bytes.Join([][]byte{[]byte(ex.Route), []byte(ex.Query), ex.RequestBody,
		[]byte(fmt.Sprint(ex.Status)), []byte(ex.Header.Get("Content-Type")), ex.Body}, []byte{0}))
	d.mu.Lock()
	defer d.mu.Unlock() // kin-openapi's lazy caches are not documented as safe for concurrent use
	if d.seen[key] {
		return nil
	}
	d.seen[key] = true

	params := map[string]string{}
	values := append(paramValues(ex.Route, ex.Params), rt.literal...)
	for i, n := range rt.names {
		if i < len(values) {
			params[n] = values[i]
		}
	}
	u := &url.URL{Scheme: "https", Host: "api.github.com", Path: ex.Path, RawQuery: ex.Query}
	body := ex.RequestBody
	if string(bytes.TrimSpace(body)) == "null" {
		// ghinstallation sends a JSON null for "no token options", which
		// GitHub takes as no body.
		body = nil
	}
	req, err := http.NewRequest(ex.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = ex.RequestHeader.Clone()
	opts := &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	var problems []string
	if ex.Status >= 400 && rt.r.Operation.Responses.Status(ex.Status) == nil && rt.r.Operation.Responses.Default() == nil {
		// The description lists only some of the errors an operation can
		// answer (a 404 for a comment deleted meanwhile, for one); an
		// unlisted one must still be GitHub's error object.
		opts.IncludeResponseStatus, opts.ExcludeResponseBody = false, true
		if err := checkErrorBody(ex.Body); err != nil {
			problems = append(problems, "response: "+err.Error())
		}
	}
	// GitHub's custom media types (raw file bytes, diffs) are described in
	// prose only: their bodies are not JSON the description could check.
	if custom(ex.RequestHeader.Get("Accept")) || (ex.Status >= 300 && ex.Status < 400) {
		opts.ExcludeResponseBody = true
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt.r, Options: opts}
	// A request GitHub would refuse is fine when the fake refused it too.
	refused := ex.Status == http.StatusBadRequest || ex.Status == http.StatusUnprocessableEntity
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && !refused {
		for _, d := range describe(err) {
			problems = append(problems, "request: "+d)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: ex.Status, Header: ex.Header, Options: opts}
	out.SetBodyBytes(ex.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		for _, d := range describe(err) {
			problems = append(problems, "response: "+d)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return fmt.Errorf("%s %s → %d (%s):\n    %s", ex.Method, withQuery(ex.Path, ex.Query), ex.Status, rt.r.Operation.OperationID,
		strings.Join(problems, "\n    "))
}

// checkErrorBody requires GitHub's error object: a JSON object with a
// message.
func checkErrorBody(body []byte) error {
	var e struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Message == nil {
		return fmt.Errorf("an error answer is not GitHub's {\"message\": ...} object: %.80q", body)
	}
	return nil
}

// paramValues returns the route's path parameter values in template order.
func paramValues(route string, ps map[string]string) []string {
	var out []string
	for _, m := range paramRE.FindAllString(route, -1) {
		out = append(out, ps[strings.TrimSuffix(strings.Trim(m, "{}"), "...")])
	}
	return out
}

func custom(accept string) bool {
	for _, t := range []string{".raw", ".diff", ".patch", ".html"} {
		if strings.Contains(accept, "application/vnd.github") && strings.Contains(accept, t) {
			return true
		}
	}
	return false
}

func withQuery(p, q string) string {
	if q == "" {
		return p
	}
	return p + "?" + q
}

// describe flattens kin-openapi's errors to one short line each: where in
// the document, and what is wrong, without the schema dumps.
func describe(err error) []string {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		var out []string
		for _, e := range me {
			out = append(out, describe(e)...)
		}
		return out
	}
	var re *openapi3filter.ResponseError
	if errors.As(err, &re) && re.Err != nil {
		if sub := describe(re.Err); len(sub) > 0 && sub[0] != re.Err.Error() {
			return sub
		}
		return []string{re.Reason + ": " + firstLine(re.Err.Error())}
	}
	var qe *openapi3filter.RequestError
	if errors.As(err, &qe) && qe.Err != nil {
		prefix := qe.Reason
		if qe.Parameter != nil {
			prefix = "parameter " + qe.Parameter.Name
		}
		sub := describe(qe.Err)
		for i := range sub {
			sub[i] = prefix + ": " + sub[i]
		}
		return sub
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		where := "/" + strings.Join(se.JSONPointer(), "/")
		return []string{fmt.Sprintf("%s: %s", where, se.Reason)}
	}
	return []string{firstLine(err.Error())}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
