package deploy_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/app/config"
)

// The Kubernetes example is checked offline: kubectl and kustomize are not
// needed. Every file the kustomization names is parsed, each database
// component is built into the set it would apply, and the references between
// objects (selectors, ports, Secrets and their keys, volumes, the database
// host, environment names) are resolved the way the API server and kubelet
// would.

type kustomization struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Namespace  string   `yaml:"namespace"`
	Resources  []string `yaml:"resources"`
	Components []string `yaml:"components"`
	Images     []struct {
		Name    string `yaml:"name"`
		NewName string `yaml:"newName"`
		NewTag  string `yaml:"newTag"`
	} `yaml:"images"`
}

// object is one manifest, kept generic; the helpers below read its fields.
type object struct {
	file string
	m    map[string]any
}

func (o object) kind() string { return str(o.m["kind"]) }
func (o object) name() string { return str(get(o.m, "metadata", "name")) }
func (o object) id() string   { return o.kind() + "/" + o.name() }

func str(v any) string { s, _ := v.(string); return s }

func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func list(v any) []any { l, _ := v.([]any); return l }

const root = "kubernetes"

// loadKustomization reads dir's kustomization.yaml, refusing fields the
// check does not understand (so a new feature cannot slip past it).
func loadKustomization(t *testing.T, dir string) kustomization {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", dir, err)
	}
	return k
}

func loadObjects(t *testing.T, file string) []object {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("a kustomization names %s: %v", file, err)
	}
	var out []object
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if m == nil {
			continue
		}
		out = append(out, object{file: file, m: m})
	}
	return out
}

// apiVersions are the kinds the example may use, with their API group.
var apiVersions = map[string]string{
	"Namespace": "v1", "Secret": "v1", "Service": "v1", "Deployment": "apps/v1",
	"StatefulSet": "apps/v1", "PodDisruptionBudget": "policy/v1",
}

// build is what kubectl apply -k would send, with the given components.
func build(t *testing.T, k kustomization, components []string) map[string]object {
	t.Helper()
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Fatalf("kustomization.yaml is %s %s", k.APIVersion, k.Kind)
	}
	set := map[string]object{}
	add := func(dir string, resources []string) {
		for _, r := range resources {
			if path.IsAbs(r) || strings.Contains(r, "..") {
				t.Errorf("%s: resource %s leaves the directory", dir, r)
				continue
			}
			for _, o := range loadObjects(t, filepath.Join(dir, r)) {
				if want, ok := apiVersions[o.kind()]; !ok || str(o.m["apiVersion"]) != want {
					t.Errorf("%s: %s has apiVersion %q, want %q", o.file, o.id(), o.m["apiVersion"], want)
				}
				if o.name() == "" {
					t.Errorf("%s: a %s has no metadata.name", o.file, o.kind())
				}
				if _, dup := set[o.id()]; dup {
					t.Errorf("%s: %s is defined twice", o.file, o.id())
				}
				set[o.id()] = o
			}
		}
	}
	add(root, k.Resources)
	for _, c := range components {
		dir := filepath.Join(root, c)
		ck := loadKustomization(t, dir)
		if ck.APIVersion != "kustomize.config.k8s.io/v1alpha1" || ck.Kind != "Component" {
			t.Fatalf("%s is %s %s, want a kustomize Component", dir, ck.APIVersion, ck.Kind)
		}
		add(dir, ck.Resources)
	}
	return set
}

func TestKustomization(t *testing.T) {
	k := loadKustomization(t, root)
	if len(k.Components) != 1 || k.Components[0] != "postgres" {
		t.Errorf("components = %v; the example ships with the in-cluster postgres component", k.Components)
	}
	for _, db := range []string{"postgres", "external-database"} {
		t.Run(db, func(t *testing.T) { checkSet(t, k, build(t, k, []string{db}), db) })
	}
}

func checkSet(t *testing.T, k kustomization, set map[string]object, db string) {
	ns := set["Namespace/"+k.Namespace]
	if k.Namespace == "" || ns.m == nil {
		t.Errorf("kustomization namespace %q has no Namespace object", k.Namespace)
	}
	dep, ok := set["Deployment/verdict"]
	if !ok {
		t.Fatal("no Deployment verdict")
	}
	if n, _ := get(dep.m, "spec", "replicas").(int); n != 2 {
		t.Errorf("verdict replicas = %v, want 2", get(dep.m, "spec", "replicas"))
	}
	pod := get(dep.m, "spec", "template")
	labels := checkWorkload(t, set, dep)
	c := list(get(pod, "spec", "containers"))[0]

	// The image reference is the placeholder the images transformer rewrites.
	if len(k.Images) != 1 || k.Images[0].Name != str(get(c, "image")) || k.Images[0].NewName == "" || k.Images[0].NewTag == "" {
		t.Errorf("container image %q is not rewritten by the kustomization's images entry %+v", get(c, "image"), k.Images)
	}
	if args := list(get(c, "args")); len(args) != 1 || args[0] != "serve" {
		t.Errorf("container args %v, want [serve]", args)
	}
	for probe, p := range map[string]string{"readinessProbe": "/readyz", "livenessProbe": "/healthz", "startupProbe": "/healthz"} {
		if got := str(get(c, probe, "httpGet", "path")); got != p {
			t.Errorf("%s path %q, want %s", probe, got, p)
		}
	}
	for _, r := range []string{"requests/cpu", "requests/memory", "limits/memory"} {
		a, b, _ := strings.Cut(r, "/")
		if str(get(c, "resources", a, b)) == "" {
			t.Errorf("container has no resources.%s.%s", a, b)
		}
	}
	if get(dep.m, "spec", "template", "spec", "securityContext", "runAsNonRoot") != true || get(c, "securityContext", "readOnlyRootFilesystem") != true {
		t.Errorf("verdict must run as non-root on a read-only root filesystem")
	}

	// Every variable is one verdict serve reads (a typo would be ignored).
	read := map[string]bool{"PGPASSWORD": true} // pgx reads it for the database
	config.LoadServer(nil, func(k string) string { read[k] = true; return "" }, io.Discard)
	env := map[string]any{}
	for _, e := range list(get(c, "env")) {
		name := str(get(e, "name"))
		env[name] = e
		if !read[name] {
			t.Errorf("env %s is not a setting of verdict serve", name)
		}
	}
	for _, need := range []string{"VERDICT_APP_ID", "VERDICT_WEBHOOK_SECRET", "VERDICT_PRIVATE_KEY_FILE", "VERDICT_DATABASE_URL"} {
		if env[need] == nil {
			t.Errorf("env %s is not set", need)
		}
	}
	// The key file is where the Secret volume puts it.
	keyFile := str(get(env["VERDICT_PRIVATE_KEY_FILE"], "value"))
	if !mountedFromSecret(pod, c, keyFile, "verdict-app", "private-key.pem") {
		t.Errorf("VERDICT_PRIVATE_KEY_FILE %s is not the private-key.pem of Secret verdict-app as mounted", keyFile)
	}

	svc := set["Service/verdict"]
	checkService(t, svc, labels, c)
	pdb := set["PodDisruptionBudget/verdict"]
	if pdb.m == nil || !subset(get(pdb.m, "spec", "selector", "matchLabels"), labels) {
		t.Errorf("the PodDisruptionBudget does not select the verdict pods")
	}
	if n, _ := get(pdb.m, "spec", "minAvailable").(int); n < 1 || n >= 2 {
		t.Errorf("PodDisruptionBudget minAvailable %v: want at least 1 and below the 2 replicas", get(pdb.m, "spec", "minAvailable"))
	}

	// Credentials in the repository are placeholders, never real ones.
	for id, o := range set {
		if o.kind() != "Secret" {
			continue
		}
		data, _ := get(o.m, "stringData").(map[string]any)
		for key, v := range data {
			s := str(v)
			if strings.Contains(s, "PRIVATE KEY-----") || !strings.Contains(s, "REPLACE") && !(db == "postgres" && key == "url") {
				t.Errorf("%s %s: %q is not a REPLACE placeholder", id, key, s)
			}
		}
	}

	dbURL := str(get(set["Secret/verdict-database"].m, "stringData", "url"))
	u, err := url.Parse(dbURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("verdict-database url %q is not a postgres:// URL", dbURL)
	}
	if db == "postgres" {
		sts, ok := set["StatefulSet/verdict-postgres"]
		if !ok {
			t.Fatal("no StatefulSet verdict-postgres")
		}
		pgLabels := checkWorkload(t, set, sts)
		pgSvc := set["Service/"+u.Hostname()]
		if pgSvc.m == nil {
			t.Fatalf("database host %s is no Service of the example", u.Hostname())
		}
		if str(get(sts.m, "spec", "serviceName")) != pgSvc.name() {
			t.Errorf("StatefulSet serviceName %v, want %s", get(sts.m, "spec", "serviceName"), pgSvc.name())
		}
		pc := list(get(sts.m, "spec", "template", "spec", "containers"))[0]
		checkService(t, pgSvc, pgLabels, pc)
		if fmt.Sprint(get(list(get(pgSvc.m, "spec", "ports"))[0], "port")) != u.Port() {
			t.Errorf("database URL port %s is not the Service's", u.Port())
		}
		if len(list(get(sts.m, "spec", "volumeClaimTemplates"))) == 0 {
			t.Errorf("PostgreSQL keeps its data on no persistent volume")
		}
	}
}

// checkWorkload checks a Deployment or StatefulSet: its selector matches its
// pod labels, and every Secret it reads (env, volumes) exists with the key.
// It returns the pod labels.
func checkWorkload(t *testing.T, set map[string]object, w object) map[string]any {
	t.Helper()
	pod := get(w.m, "spec", "template")
	labels, _ := get(pod, "metadata", "labels").(map[string]any)
	if !subset(get(w.m, "spec", "selector", "matchLabels"), labels) {
		t.Errorf("%s: selector does not match its pod labels", w.id())
	}
	secretKey := func(where, name, key string, optional bool) {
		s, ok := set["Secret/"+name]
		if !ok {
			if !optional {
				t.Errorf("%s: %s reads Secret %s, which the example does not define", w.id(), where, name)
			}
			return
		}
		if get(s.m, "stringData", key) == nil && get(s.m, "data", key) == nil && !optional {
			t.Errorf("%s: %s reads key %s, which Secret %s lacks", w.id(), where, key, name)
		}
	}
	vols := map[string]any{}
	for _, v := range list(get(pod, "spec", "volumes")) {
		vols[str(get(v, "name"))] = v
		if sn := str(get(v, "secret", "secretName")); sn != "" {
			for _, it := range list(get(v, "secret", "items")) {
				secretKey("volume "+str(get(v, "name")), sn, str(get(it, "key")), false)
			}
		}
	}
	for _, c := range list(get(pod, "spec", "containers")) {
		for _, e := range list(get(c, "env")) {
			if ref := get(e, "valueFrom", "secretKeyRef"); ref != nil {
				secretKey("env "+str(get(e, "name")), str(get(ref, "name")), str(get(ref, "key")), get(ref, "optional") == true)
			}
		}
		for _, m := range list(get(c, "volumeMounts")) {
			if vols[str(get(m, "name"))] == nil && !claimTemplate(w, str(get(m, "name"))) {
				t.Errorf("%s: mount %s names no volume", w.id(), get(m, "name"))
			}
		}
		if str(get(c, "image")) == "" {
			t.Errorf("%s: container %s has no image", w.id(), get(c, "name"))
		}
	}
	return labels
}

func claimTemplate(w object, name string) bool {
	for _, vc := range list(get(w.m, "spec", "volumeClaimTemplates")) {
		if str(get(vc, "metadata", "name")) == name {
			return true
		}
	}
	return false
}

// checkService: the Service selects the pods and targets a container port.
func checkService(t *testing.T, svc object, labels map[string]any, c any) {
	t.Helper()
	if svc.m == nil {
		t.Errorf("missing Service")
		return
	}
	if !subset(get(svc.m, "spec", "selector"), labels) {
		t.Errorf("%s does not select its pods", svc.id())
	}
	for _, p := range list(get(svc.m, "spec", "ports")) {
		target := fmt.Sprint(get(p, "targetPort"))
		found := false
		for _, cp := range list(get(c, "ports")) {
			found = found || fmt.Sprint(get(cp, "name")) == target || fmt.Sprint(get(cp, "containerPort")) == target
		}
		if !found {
			t.Errorf("%s targets port %s, which the container does not expose", svc.id(), target)
		}
	}
	// The probes' named ports exist too.
	for _, probe := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
		if port := get(c, probe, "httpGet", "port"); port != nil {
			found := false
			for _, cp := range list(get(c, "ports")) {
				found = found || fmt.Sprint(get(cp, "name")) == fmt.Sprint(port) || fmt.Sprint(get(cp, "containerPort")) == fmt.Sprint(port)
			}
			if !found {
				t.Errorf("%s probes port %v, which the container does not expose", probe, port)
			}
		}
	}
}

// mountedFromSecret reports whether file is key of Secret secret as the
// pod mounts it into container c.
func mountedFromSecret(pod, c any, file, secret, key string) bool {
	for _, m := range list(get(c, "volumeMounts")) {
		dir := str(get(m, "mountPath"))
		rel, ok := strings.CutPrefix(file, strings.TrimSuffix(dir, "/")+"/")
		if !ok {
			continue
		}
		for _, v := range list(get(pod, "spec", "volumes")) {
			if get(v, "name") != get(m, "name") || str(get(v, "secret", "secretName")) != secret {
				continue
			}
			items := list(get(v, "secret", "items"))
			if len(items) == 0 {
				return rel == key
			}
			for _, it := range items {
				if get(it, "key") == key && get(it, "path") == rel {
					return true
				}
			}
		}
	}
	return false
}

// subset reports whether every label of sel is in labels (and sel has one).
func subset(sel any, labels map[string]any) bool {
	m, _ := sel.(map[string]any)
	if len(m) == 0 {
		return false
	}
	for k, v := range m {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestEveryManifestIsReferenced: no file under kubernetes/ is left out of
// the kustomization (a forgotten file would silently not be applied).
func TestEveryManifestIsReferenced(t *testing.T) {
	referenced := map[string]bool{}
	k := loadKustomization(t, root)
	for _, r := range k.Resources {
		referenced[filepath.Join(root, r)] = true
	}
	for _, c := range []string{"postgres", "external-database"} {
		referenced[filepath.Join(root, c, "kustomization.yaml")] = true
		for _, r := range loadKustomization(t, filepath.Join(root, c)).Resources {
			referenced[filepath.Join(root, c, r)] = true
		}
	}
	referenced[filepath.Join(root, "kustomization.yaml")] = true
	var orphans []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !referenced[p] {
			orphans = append(orphans, p)
		}
		return nil
	})
	sort.Strings(orphans)
	if len(orphans) > 0 {
		t.Errorf("files no kustomization names: %v", orphans)
	}
}
