package tools

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Image delivery limits (spec 05 §4.7).
const (
	ImageReadBudget      = 256 << 10
	ImageMaxEdge         = 2000
	imageHardBudget      = 3840 << 10 // 3.75 MiB
	imageDecodeMaxBytes  = 64 << 20
	imageDecodeMaxPixels = 100_000_000
	imageMinFitEdge      = 1000
)

// encodedImage is an image ready to send.
type encodedImage struct {
	data          []byte
	mime          string
	width, height int
}

// decodeImage decodes PNG, JPEG, GIF (first frame) or WebP after checking
// the declared size against the decode guard.
func decodeImage(data []byte, mime string) (image.Image, error) {
	cfg, err := decodeConfig(data, mime)
	if err != nil {
		return nil, err
	}
	if cfg.Width*cfg.Height > imageDecodeMaxPixels {
		return nil, fmt.Errorf("the image has %d pixels, more than the %d that can be decoded", cfg.Width*cfg.Height, imageDecodeMaxPixels)
	}
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		return png.Decode(r)
	case "image/jpeg":
		return jpeg.Decode(r)
	case "image/gif":
		return gif.Decode(r)
	case "image/webp":
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("cannot decode %s", mime)
}

func decodeConfig(data []byte, mime string) (image.Config, error) {
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		return png.DecodeConfig(r)
	case "image/jpeg":
		return jpeg.DecodeConfig(r)
	case "image/gif":
		return gif.DecodeConfig(r)
	case "image/webp":
		return webp.DecodeConfig(r)
	}
	return image.Config{}, fmt.Errorf("cannot decode %s", mime)
}

// animatedWebP reports a WebP with an animation chunk.
func animatedWebP(data []byte) bool {
	return len(data) > 30 && bytes.Contains(data[:min(len(data), 64)], []byte("ANIM"))
}

// scaleToEdge resizes img so its longest edge is at most edge, with a
// bilinear kernel whose support widens when shrinking (no aliasing, and
// half the cost of Catmull-Rom on multi-megapixel screenshots).
func scaleToEdge(img image.Image, edge int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= edge {
		return img
	}
	if w >= h {
		w, h = edge, max(1, h*edge/w)
	} else {
		w, h = max(1, w*edge/h), edge
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

func encodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	err := enc.Encode(&b, img)
	return b.Bytes(), err
}

// encodeJPEG encodes img, flattening transparency onto white.
func encodeJPEG(img image.Image, quality int) ([]byte, error) {
	flat := image.NewRGBA(img.Bounds())
	stddraw.Draw(flat, flat.Bounds(), &image.Uniform{C: color.White}, image.Point{}, stddraw.Src)
	stddraw.Draw(flat, flat.Bounds(), img, img.Bounds().Min, stddraw.Over)
	var b bytes.Buffer
	err := jpeg.Encode(&b, flat, &jpeg.Options{Quality: quality})
	return b.Bytes(), err
}

var jpegQualities = []int{80, 60, 40, 20}

// errNoFit means no encoding met the limits; best is the smallest tried.
type errNoFit struct{ best int }

func (e errNoFit) Error() string { return fmt.Sprintf("the smallest encoding was %d bytes", e.best) }

// fitImage encodes img (decoded from a source of mime) so that its longest
// edge is at most maxEdge and it is at most budget bytes, trying lossless
// PNG first for PNG and WebP sources, then a JPEG quality ladder at
// shrinking sizes. It returns errNoFit when nothing fits.
//
// srcBytes is the size of the source file; for a PNG source it seeds the
// estimate that skips PNG sizes which cannot fit.
func fitImage(img image.Image, mime string, srcBytes, maxEdge, budget int) (encodedImage, error) {
	b := img.Bounds()
	longest := max(b.Dx(), b.Dy())
	fitted := min(longest, maxEdge)
	var edgesPNG, edgesJPEG []int
	if mime == "image/jpeg" {
		edgesJPEG = uniqueEdges(fitted, []int{2000, 1000, 768, 512, 384, 256})
	} else {
		edgesPNG = uniqueEdges(fitted, []int{1600, 1280, imageMinFitEdge})
		edgesJPEG = uniqueEdges(min(fitted, imageMinFitEdge), []int{768, 512, 384, 256})
	}
	best := -1
	scaled := map[int]image.Image{}
	scale := func(edge int) image.Image {
		if s, ok := scaled[edge]; ok {
			return s
		}
		// Scale from the smallest cached image still larger than edge:
		// much cheaper than from the original, and the kernel still
		// filters every step.
		src, srcEdge := img, longest
		for e, c := range scaled {
			if e > edge && e < srcEdge {
				src, srcEdge = c, e
			}
		}
		s := scaleToEdge(src, edge)
		scaled[edge] = s
		return s
	}
	lastPNG, lastPNGEdge := 0, 0
	if mime == "image/png" {
		lastPNG, lastPNGEdge = srcBytes, longest
	}
	try := func(edge int, encode func(image.Image) ([]byte, error), mt string) (encodedImage, bool) {
		scaled := scale(edge)
		data, err := encode(scaled)
		if err != nil {
			return encodedImage{}, false
		}
		if best < 0 || len(data) < best {
			best = len(data)
		}
		if len(data) > budget {
			return encodedImage{}, false
		}
		return encodedImage{data: data, mime: mt, width: scaled.Bounds().Dx(), height: scaled.Bounds().Dy()}, true
	}
	for _, e := range edgesPNG {
		// PNG size grows with the pixel count, and a resampled image packs
		// worse than its source; skip edges that cannot fit, since each
		// lossless attempt on a large screenshot costs a second.
		if lastPNG > 0 && lastPNG*e*e*3/2 > budget*lastPNGEdge*lastPNGEdge {
			continue
		}
		r, ok := try(e, encodePNG, "image/png")
		if ok {
			return r, nil
		}
		lastPNG, lastPNGEdge = best*2/3, e // undo the resampling factor: best is a resampled size
	}
	for _, e := range edgesJPEG {
		for _, q := range jpegQualities {
			if r, ok := try(e, func(i image.Image) ([]byte, error) { return encodeJPEG(i, q) }, "image/jpeg"); ok {
				return r, nil
			}
		}
	}
	return encodedImage{}, errNoFit{best: best}
}

// uniqueEdges is first followed by the smaller of rest, descending.
func uniqueEdges(first int, rest []int) []int {
	out := []int{first}
	for _, e := range rest {
		if e < out[len(out)-1] {
			out = append(out, e)
		}
	}
	return out
}

// cropImage returns the part of img inside r (clamped to the image).
func cropImage(img image.Image, r image.Rectangle) (image.Image, image.Rectangle, error) {
	b := img.Bounds()
	r = r.Add(b.Min)
	if !r.Min.In(b) {
		return nil, image.Rectangle{}, errors.New("outside")
	}
	r = r.Intersect(b)
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	stddraw.Draw(dst, dst.Bounds(), img, r.Min, stddraw.Src)
	return dst, r.Sub(b.Min), nil
}
