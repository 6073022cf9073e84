package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// The README shows a picture of a verdict comment. It is rendered from a
// golden file by headless Chromium, so it shows what Verdict really posts;
// the PNG records which English text it was made from, and a test without
// Chromium fails once the golden file's English part moves on.

var updatePicture = flag.Bool("update-picture", false, "re-render "+pictureFile+" with headless Chromium")

const (
	pictureFile   = "../../testdata/verdict-comment.png"
	pictureGolden = "testdata/rejected.golden"
	pictureKey    = "Source"
	pictureWidth  = 900
)

// pictureSource names the golden file and the hash of its English part,
// the part the picture shows (the Chinese one is collapsed).
func pictureSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(pictureGolden)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(EnglishPart(string(b))))
	return "app/render/" + pictureGolden + " sha256:" + hex.EncodeToString(sum[:])
}

func TestPictureMatchesGolden(t *testing.T) {
	b, err := os.ReadFile(pictureFile)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", pictureFile, err)
	}
	if w := img.Bounds().Dx(); w != pictureWidth || img.Bounds().Dy() < 300 {
		t.Errorf("%s is %v, want %d pixels wide and a full comment tall", pictureFile, img.Bounds().Size(), pictureWidth)
	}
	got, want := pngText(b, pictureKey), pictureSource(t)
	if got != want {
		t.Errorf("%s was rendered from %q, not from the current %q; re-render it with\n"+
			"  go test ./app/render -run TestRenderPicture -update-picture   (needs chromium)", pictureFile, got, want)
	}
}

// TestRenderPicture renders the golden verdict to PNG and checks the
// result; with -update-picture it replaces the committed picture.
func TestRenderPicture(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with a browser")
	}
	browser := findChromium()
	if browser == "" {
		t.Skip("chromium not installed (apt-get install chromium); verdict picture not rendered")
	}
	md, err := os.ReadFile(pictureGolden)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "verdict.html")
	if err := os.WriteFile(page, []byte(commentHTML(t, md)), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--hide-scrollbars", "--force-device-scale-factor=1", fmt.Sprintf("--window-size=%d,3000", pictureWidth),
		"--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, out)
	}
	raw, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("chromium's screenshot: %v", err)
	}
	img = cropBottom(img)
	if h := img.Bounds().Dy(); h < 300 || h >= 3000 {
		t.Fatalf("rendered comment is %d pixels tall; want the whole comment on one screen", h)
	}
	if colours := distinctColours(img); colours < 50 {
		t.Fatalf("rendered picture has %d colours; the page did not render", colours)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	out := withPNGText(buf.Bytes(), pictureKey, pictureSource(t))
	if pngText(out, pictureKey) != pictureSource(t) {
		t.Fatal("PNG text chunk does not read back")
	}
	if *updatePicture {
		if err := os.WriteFile(pictureFile, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func findChromium() string {
	if p := os.Getenv("VERDICT_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// commentHTML lays the Markdown out like a GitHub comment (GFM, raw HTML
// for <details>, system fonts; nothing is fetched).
func commentHTML(t *testing.T, md []byte) string {
	t.Helper()
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert(md, &body); err != nil {
		t.Fatal(err)
	}
	return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 16px; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", "Liberation Sans", Helvetica, Arial, "WenQuanYi Micro Hei", sans-serif, "Noto Color Emoji"; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; border-radius: 6px 6px 0 0; color: #59636e; }
.header b { color: #1f2328; }
.bot { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px; font-size: 12px; margin-left: 4px; }
.body { padding: 0 16px 8px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
code { font: 85% ui-monospace, "Liberation Mono", monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
a { color: #0969da; text-decoration: none; }
details summary { cursor: pointer; }
</style></head><body><div class="comment"><div class="header"><b>verdict</b><span class="bot">bot</span> commented</div><div class="body">` +
		body.String() + `</div></div></body></html>`
}

// cropBottom removes the white space under the comment (the screenshot is
// taller than the page).
func cropBottom(img image.Image) image.Image {
	b := img.Bounds()
	last := b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !white(img.At(x, y)) {
				last = y
				break
			}
		}
	}
	end := min(last+17, b.Max.Y)
	if s, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, end))
	}
	return img
}

func white(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > 0xfe00 && g > 0xfe00 && b > 0xfe00
}

func distinctColours(img image.Image) int {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}] = true
		}
	}
	return len(seen)
}

// withPNGText inserts a tEXt chunk right after IHDR.
func withPNGText(p []byte, key, text string) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, length, type, data, CRC
	data := append(append([]byte(key), 0), text...)
	chunk := make([]byte, 0, 12+len(data))
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := append([]byte(nil), p[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, p[ihdrEnd:]...)
}

// pngText reads the tEXt chunk with key ("" if none).
func pngText(p []byte, key string) string {
	if len(p) < 8 {
		return ""
	}
	for i := 8; i+12 <= len(p); {
		n := int(binary.BigEndian.Uint32(p[i:]))
		typ := string(p[i+4 : i+8])
		if i+12+n > len(p) {
			return ""
		}
		if typ == "tEXt" {
			if k, v, ok := strings.Cut(string(p[i+8:i+8+n]), "\x00"); ok && k == key {
				return v
			}
		}
		i += 12 + n
	}
	return ""
}
