package tools_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// screenshot makes a w×h PNG with gradients and some noise, so it
// compresses like a real screenshot rather than like a flat fill.
func screenshot(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	// A band of distinct rows, repeated: whole-row copies keep the fixture
	// cheap under -race, and rows 97 apart are too far for PNG's deflate
	// window, so it still compresses like a screenshot.
	const band = 97
	for y := 0; y < min(band, h); y++ {
		for x := 0; x < w; x++ {
			n := uint8(0)
			if (x/40+y/40)%7 == 0 {
				n = uint8(rng.IntN(64))
			}
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x*255/w), uint8(y*255/band), uint8((x^y)&0x3f)^n, 255
		}
	}
	for y := band; y < h; y++ {
		copy(img.Pix[y*img.Stride:(y+1)*img.Stride], img.Pix[(y%band)*img.Stride:])
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func mediaTool(w *workspace) *tools.ReadMediaFile {
	return tools.NewReadMediaFile(tools.ReadMediaFileOptions{Base: w.base, ImageIn: true, VideoIn: true})
}

func decodeDataURL(t *testing.T, url string) (string, []byte) {
	t.Helper()
	head, payload, ok := strings.Cut(url, ";base64,")
	if !ok {
		t.Fatalf("not a data URL: %.60s", url)
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(head, "data:"), data
}

func TestS90ReadMediaFile(t *testing.T) {
	w := newWorkspace(t)
	shot := screenshot(t, 3000, 2000)
	if len(shot) <= tools.ImageReadBudget {
		t.Fatalf("fixture is only %d bytes", len(shot))
	}
	p := w.write(t, "shot.png", string(shot))
	r := call(t, mediaTool(w), fmt.Sprintf(`{"path":%q}`, p))
	if r.IsError {
		t.Fatalf("error: %s", text(r))
	}
	parts := r.Output.Parts()
	if len(parts) != 3 || parts[0].Text != fmt.Sprintf("<image path=%q>", p) || parts[1].Type != llm.PartImageURL || parts[2].Text != "</image>" {
		t.Fatalf("parts = %v", parts)
	}
	mime, data := decodeDataURL(t, parts[1].Media.URL)
	if len(data) > tools.ImageReadBudget {
		t.Errorf("payload is %d bytes; budget %d", len(data), tools.ImageReadBudget)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || max(cfg.Width, cfg.Height) > tools.ImageMaxEdge {
		t.Errorf("delivered %s %dx%d (%v)", mime, cfg.Width, cfg.Height, err)
	}
	if !strings.Contains(r.Note, "Original dimensions: 3000x2000 pixels.") || !strings.Contains(r.Note, "downsampled to") {
		t.Errorf("note = %q", r.Note)
	}

	wantError(t, call(t, mediaTool(w), fmt.Sprintf(`{"path":%q}`, w.write(t, "a.txt", "hi\n"))),
		fmt.Sprintf("%q is a text file. Use Read to read text files.", w.path("a.txt")))
	bmp := w.write(t, "pic.bmp", "BM"+strings.Repeat("\x00", 60))
	if r := call(t, mediaTool(w), fmt.Sprintf(`{"path":%q}`, bmp)); !r.IsError || !strings.Contains(text(r), "Convert it to PNG or JPEG") {
		t.Errorf("bmp = %q", text(r))
	}
	mp4 := w.write(t, "clip.mp4", "\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
	wantError(t, call(t, mediaTool(w), fmt.Sprintf(`{"path":%q,"region":{"x":0,"y":0,"width":1,"height":1}}`, mp4)),
		"region and full_resolution apply only to image files.")
}

func TestReadMediaFileSmallImagePassesThrough(t *testing.T) {
	w := newWorkspace(t)
	small := screenshot(t, 40, 30)
	p := w.write(t, "small.png", string(small))
	r := call(t, mediaTool(w), fmt.Sprintf(`{"path":%q}`, p))
	mime, data := decodeDataURL(t, r.Output.Parts()[1].Media.URL)
	if mime != "image/png" || !bytes.Equal(data, small) || !strings.Contains(r.Note, "native resolution") {
		t.Errorf("small image changed: %s, %d bytes, note %q", mime, len(data), r.Note)
	}
}

func TestReadMediaFileRegion(t *testing.T) {
	w := newWorkspace(t)
	p := w.write(t, "shot.png", string(screenshot(t, 300, 200)))
	r := call(t, mediaTool(w), fmt.Sprintf(`{"path":%q,"region":{"x":250,"y":150,"width":100,"height":100},"full_resolution":true}`, p))
	if r.IsError {
		t.Fatal(text(r))
	}
	_, data := decodeDataURL(t, r.Output.Parts()[1].Media.URL)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 50 || cfg.Height != 50 {
		t.Errorf("clamped region is %dx%d (%v); want 50x50", cfg.Width, cfg.Height, err)
	}
	wantError(t, call(t, mediaTool(w), fmt.Sprintf(`{"path":%q,"region":{"x":300,"y":0,"width":10,"height":10}}`, p)),
		fmt.Sprintf("Cannot read region from %q: Region (x=300, y=0, width=10, height=10) lies outside the 300x200 image.", p))
}

func TestReadMediaFileBadInput(t *testing.T) {
	w := newWorkspace(t)
	noVision := tools.NewReadMediaFile(tools.ReadMediaFileOptions{Base: w.base})
	p := w.write(t, "small.png", string(screenshot(t, 4, 4)))
	if r := call(t, noVision, fmt.Sprintf(`{"path":%q}`, p)); !r.IsError || !strings.Contains(text(r), "cannot take image input") {
		t.Errorf("no vision = %q", text(r))
	}
	empty := w.write(t, "empty.png", "")
	if r := call(t, mediaTool(w), fmt.Sprintf(`{"path":%q}`, empty)); !r.IsError {
		t.Errorf("empty png = %q", text(r))
	}
	wantError(t, call(t, mediaTool(w), `{"path":"missing.png"}`), `"missing.png" does not exist.`)
	wantError(t, call(t, mediaTool(w), `{"path":"../x.png"}`),
		`"../x.png" is not an absolute path. You must provide an absolute path to read a file outside the working directory.`)
	if err := os.Mkdir(w.path("dir.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, mediaTool(w), `{"path":"dir.png"}`), `"dir.png" is not a file.`)
}
