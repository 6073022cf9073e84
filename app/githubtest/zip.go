package githubtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// zipTime is the fixed modification time of generated entries, so archives
// are byte-identical across runs.
var zipTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// artifactZip returns the artifact's archive, building and caching it.
func (s *Server) artifactZip(a *Artifact) ([]byte, error) {
	s.zipMu.Lock()
	defer s.zipMu.Unlock()
	if b, ok := s.zips[a.ID]; ok {
		return b, nil
	}
	b, err := BuildZip(s.fx.Dir, a)
	if err != nil {
		return nil, err
	}
	s.zips[a.ID] = b
	return b, nil
}

// artifactSize is the archive size advertised in size_in_bytes.
func (s *Server) artifactSize(rs *repoState, a *Artifact) int64 {
	if a.Zip != "" {
		zp := a.Zip
		if !filepath.IsAbs(zp) {
			zp = filepath.Join(s.fx.Dir, filepath.FromSlash(zp))
		}
		if st, err := os.Stat(zp); err == nil {
			return st.Size()
		}
		return 0
	}
	b, err := s.artifactZip(a)
	if err != nil {
		return 0
	}
	return int64(len(b))
}

// BuildZip builds an artifact archive: RawZip verbatim, otherwise the files
// under dir/a.Dir plus a.Files (inline files win), sorted by name.
func BuildZip(dir string, a *Artifact) ([]byte, error) {
	if a.RawZip != nil {
		return a.RawZip, nil
	}
	files := map[string][]byte{}
	if a.Dir != "" {
		root := filepath.Join(dir, filepath.FromSlash(a.Dir))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("artifact %s: reading %s: %w", a.Name, a.Dir, err)
		}
	}
	for name, c := range a.Files {
		files[name] = []byte(c)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(files[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
