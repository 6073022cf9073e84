package repo

import (
	"context"
	"errors"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks"
)

// Detect finds an InferenceX repository on its default branch at ref: a
// configuration that sets the layout or its paths, the e2e layout's
// marker, or the legacy layout's review checklist; failing those (an older
// history, a repository laid out before the checklist was written), the
// root holding the benchmark repository's own files: the perf changelog,
// MODELS.md, or benchmarks/ beside runners/.
func Detect(ctx context.Context, src checks.Source, ref string, config []byte) (bool, error) {
	var keys struct {
		Layout string         `yaml:"layout"`
		Paths  map[string]any `yaml:"paths"`
	}
	if yaml.Unmarshal(config, &keys) == nil && (keys.Layout != "" || len(keys.Paths) > 0) {
		return true, nil
	}
	for _, p := range []string{E2EMarker, LegacyLayout().Checklist} {
		_, err := src.ReadFile(ctx, ref, p)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, checks.ErrNotFound):
			return false, err
		}
	}
	root, err := src.ListDir(ctx, ref, "")
	switch {
	case errors.Is(err, checks.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	has := map[string]string{}
	for _, e := range root {
		has[e.Name] = e.Type
	}
	l := LegacyLayout()
	return has[l.Changelog] == "file" || has[l.Models] == "file" ||
		(has[l.BenchmarksDir] == "dir" && has[l.RunnersDir] == "dir"), nil
}

// TouchesBenchmarks is the reminder's trigger: master configs, benchmark
// files or the perf changelog, in either layout.
func TouchesBenchmarks(l Layout, files []checks.ChangedFile) bool {
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" {
				continue
			}
			if p == l.Changelog || strings.HasPrefix(p, l.BenchmarksDir+"/") ||
				(l.UnderConfigs(p) && strings.HasSuffix(p, "-master.yaml")) {
				return true
			}
		}
	}
	return false
}
