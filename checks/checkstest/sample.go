package checkstest

import (
	"errors"
	"os"
	"path/filepath"
)

// ReadSample reads a file of the benchmark repository's real sample, which
// lives in shared/ beside the repository (read in place, never copied):
// $VERDICT_SAMPLE_DIR, else shared/inferencex-sample next to the module
// root, else /work/shared/inferencex-sample. Tests skip when it is not
// there, as on a fresh laptop.
func ReadSample(rel string) ([]byte, error) {
	err := errors.New("no sample directory")
	for _, dir := range []string{os.Getenv("VERDICT_SAMPLE_DIR"), besideModule("shared", "inferencex-sample"), "/work/shared/inferencex-sample"} {
		if dir == "" {
			continue
		}
		var data []byte
		if data, err = os.ReadFile(filepath.Join(dir, rel)); err == nil {
			return data, nil
		}
	}
	return nil, err
}

// besideModule joins elem onto the parent of the directory holding go.mod
// above the working directory (a test's package directory); "" when there
// is none.
func besideModule(elem ...string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{filepath.Dir(dir)}, elem...)...)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
