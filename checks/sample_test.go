package checks

import (
	"os"
	"path/filepath"
)

// ReadSample reads a file of the benchmark repository's real sample, which
// lives in shared/ beside the repository (read in place, never copied).
// Tests skip when it is not there, as on a fresh laptop.
func ReadSample(rel string) ([]byte, error) {
	var err error
	for _, dir := range []string{os.Getenv("VERDICT_SAMPLE_DIR"), "../../shared/inferencex-sample", "/work/shared/inferencex-sample"} {
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
