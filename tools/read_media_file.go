package tools

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// MediaMaxFileBytes is the largest file ReadMediaFile accepts.
const MediaMaxFileBytes = 100 << 20

//go:embed read_media_file.md
var readMediaFileMD string

const readMediaFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Image or video file."},
    "region": {
      "type": "object",
      "description": "Image only: rectangle to show, in original pixels.",
      "properties": {
        "x": {"type": "integer", "minimum": 0},
        "y": {"type": "integer", "minimum": 0},
        "width": {"type": "integer", "minimum": 1},
        "height": {"type": "integer", "minimum": 1}
      },
      "required": ["x", "y", "width", "height"],
      "additionalProperties": false
    },
    "full_resolution": {"type": "boolean", "default": false, "description": "Image only: send without downscaling."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

// sendableImages are the image types a model accepts.
var sendableImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// ReadMediaFileOptions configure NewReadMediaFile.
type ReadMediaFileOptions struct {
	Base
	// ImageIn and VideoIn are the model's media capabilities.
	ImageIn, VideoIn bool
	// ReadByteBudget caps a delivered image; 0 means ImageReadBudget.
	ReadByteBudget int
	// MaxEdge caps a delivered image's longest edge; 0 means ImageMaxEdge.
	MaxEdge int
}

// ReadMediaFile is the ReadMediaFile tool.
type ReadMediaFile struct {
	opts ReadMediaFileOptions
	def  llm.Tool
}

// NewReadMediaFile returns the ReadMediaFile tool.
func NewReadMediaFile(opts ReadMediaFileOptions) *ReadMediaFile {
	opts.Base = opts.Base.withDefaults()
	if opts.ReadByteBudget <= 0 {
		opts.ReadByteBudget = ImageReadBudget
	}
	if opts.MaxEdge <= 0 {
		opts.MaxEdge = ImageMaxEdge
	}
	capability := "The current model accepts neither images nor video."
	switch {
	case opts.ImageIn && opts.VideoIn:
		capability = "The current model accepts images and video."
	case opts.ImageIn:
		capability = "The current model accepts images only."
	case opts.VideoIn:
		capability = "The current model accepts video only."
	}
	data := struct {
		Capability                    string
		MaxEdge, BudgetKiB, MaxFileMB int
	}{capability, opts.MaxEdge, opts.ReadByteBudget >> 10, MediaMaxFileBytes >> 20}
	return &ReadMediaFile{opts: opts, def: definition(NameReadMediaFile, readMediaFileMD, data, readMediaFileSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *ReadMediaFile) Definition() llm.Tool { return t.def }

type mediaRegion struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type mediaArgs struct {
	Path           string       `json:"path"`
	Region         *mediaRegion `json:"region"`
	FullResolution bool         `json:"full_resolution"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *ReadMediaFile) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a mediaArgs
	if r := decodeArgs(NameReadMediaFile, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if r := a.Region; r != nil && (r.X < 0 || r.Y < 0 || r.Width < 1 || r.Height < 1) {
		return loop.Execution{}, errorResult("region needs x and y of at least 0 and width and height of at least 1."), nil
	}
	p, err := workspace.ResolvePath(t.opts.Env, t.opts.Workspace, a.Path, workspace.IntentRead)
	if err != nil {
		return loop.Execution{}, nil, err
	}
	return loop.Execution{
		Accesses:     loop.ReadFile(p.Path),
		Description:  "Reading media: " + a.Path,
		Display:      &loop.FileIODisplay{Operation: "read", Path: p.Path},
		ApprovalRule: workspace.ApprovalRule(NameReadMediaFile, p.Path),
		MatchesRule:  workspace.PathRuleMatcher(t.opts.Env, t.opts.Workspace, p),
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			return t.read(p, a), nil
		},
	}, nil, nil
}

func (t *ReadMediaFile) read(p workspace.ResolvedPath, a mediaArgs) loop.ToolResult {
	env := t.opts.Env
	fi, err := env.Stat(p.Path)
	switch {
	case err != nil && notExist(err):
		return loop.ErrorResult(fmt.Sprintf("%q does not exist.", p.Raw))
	case err != nil:
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	case !fi.Mode().IsRegular():
		return loop.ErrorResult(fmt.Sprintf("%q is not a file.", p.Raw))
	}
	head, err := osenv.ReadHead(env, p.Path, SniffLen)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	}
	ft := DetectFileType(p.Path, head, DetectMedia)
	switch {
	case ft.Kind == KindText:
		return loop.ErrorResult(fmt.Sprintf("%q is a text file. Use Read to read text files.", p.Raw))
	case ft.Kind == KindUnknown:
		return loop.ErrorResult(fmt.Sprintf("%q is not a supported image or video file. Use Read for text files, or Bash or an MCP tool for other binary formats.", p.Raw))
	case ft.Kind == KindImage && !t.opts.ImageIn:
		return loop.ErrorResult("The current model cannot take image input. Tell the user that this model cannot look at images.")
	case ft.Kind == KindVideo && !t.opts.VideoIn:
		return loop.ErrorResult("The current model cannot take video input. Tell the user that this model cannot watch videos.")
	case ft.Kind == KindImage && !sendableImages[ft.MIME]:
		return loop.ErrorResult(fmt.Sprintf("%q is a %s image, which cannot be sent to the model. Convert it to PNG or JPEG first (for example `convert in out.png` with ImageMagick, or `heif-convert` for HEIC) and read the copy.", p.Raw, ft.MIME))
	case fi.Size() == 0:
		return loop.ErrorResult(fmt.Sprintf("%q is empty.", p.Raw))
	case fi.Size() > MediaMaxFileBytes:
		return loop.ErrorResult(fmt.Sprintf("%q is %d bytes, which exceeds the maximum %dMB for media files.", p.Raw, fi.Size(), MediaMaxFileBytes>>20))
	case ft.Kind == KindVideo && (a.Region != nil || a.FullResolution):
		return loop.ErrorResult("region and full_resolution apply only to image files.")
	}
	if ft.Kind == KindVideo {
		data, err := env.ReadFile(p.Path)
		if err != nil {
			return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
		}
		// TODO(tools): upload through the provider's video channel when
		// one exists (spec 05 §4.7 step 9); inline is the fallback.
		part := llm.VideoPart(dataURL(ft.MIME, data), "")
		return mediaResult("video", p.Path, part, mediaNote("video", ft.MIME, len(data), nil, ""))
	}
	return t.readImage(p, a, ft.MIME, fi.Size())
}

func (t *ReadMediaFile) readImage(p workspace.ResolvedPath, a mediaArgs, mime string, size int64) loop.ToolResult {
	switch {
	case (a.Region != nil || a.FullResolution) && size > imageDecodeMaxBytes:
		return loop.ErrorResult(fmt.Sprintf("%q is %d bytes, too large to decode for region or full_resolution (limit %d MiB).", p.Raw, size, imageDecodeMaxBytes>>20))
	case a.FullResolution && a.Region == nil && size > imageHardBudget:
		return loop.ErrorResult(fmt.Sprintf("%q is %d bytes, over the %d-byte limit for one image at full resolution. Read a region of it instead.", p.Raw, size, imageHardBudget))
	case a.Region == nil && !a.FullResolution && size > imageDecodeMaxBytes && size > int64(t.opts.ReadByteBudget):
		return t.deliveryError(p, int(size))
	}
	data, err := t.opts.Env.ReadFile(p.Path)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	}
	cfg, err := decodeConfig(data, mime)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, err))
	}
	dims := &image.Point{X: cfg.Width, Y: cfg.Height}
	orig := encodedImage{data: data, mime: mime, width: cfg.Width, height: cfg.Height}
	var out encodedImage
	var how string
	switch {
	case a.Region != nil:
		out, how, err = t.region(data, mime, *a.Region, a.FullResolution, dims)
		if err != nil {
			return loop.ErrorResult(fmt.Sprintf("Cannot read region from %q: %s", p.Raw, err))
		}
	case a.FullResolution, len(data) <= t.opts.ReadByteBudget && max(cfg.Width, cfg.Height) <= t.opts.MaxEdge:
		out, how = orig, "It is shown at its native resolution."
	case mime == "image/gif" || (mime == "image/webp" && animatedWebP(data)):
		if len(data) > t.opts.ReadByteBudget {
			return t.deliveryError(p, len(data))
		}
		out, how = orig, "It is shown as stored (animations are not resized)."
	default:
		img, err := decodeImage(data, mime)
		if err != nil {
			return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, err))
		}
		fit, err := fitImage(img, mime, len(data), t.opts.MaxEdge, t.opts.ReadByteBudget)
		if nf, ok := err.(errNoFit); ok {
			return t.deliveryError(p, nf.best)
		}
		out = fit
		how = fmt.Sprintf("It was downsampled to %dx%d (%s, %d bytes) for delivery.", fit.width, fit.height, fit.mime, len(fit.data))
	}
	part := llm.ImagePart(dataURL(out.mime, out.data))
	return mediaResult("image", p.Path, part, mediaNote("image", mime, len(data), dims, how))
}

func (t *ReadMediaFile) region(data []byte, mime string, r mediaRegion, full bool, dims *image.Point) (encodedImage, string, error) {
	if len(data) > imageDecodeMaxBytes {
		return encodedImage{}, "", fmt.Errorf("the file is over the %d MiB decode limit", imageDecodeMaxBytes>>20)
	}
	img, err := decodeImage(data, mime)
	if err != nil {
		return encodedImage{}, "", err
	}
	rect := image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height)
	crop, got, err := cropImage(img, rect)
	if err != nil {
		return encodedImage{}, "", messageError(fmt.Sprintf("Region (x=%d, y=%d, width=%d, height=%d) lies outside the %dx%d image.", r.X, r.Y, r.Width, r.Height, dims.X, dims.Y))
	}
	how := fmt.Sprintf("Showing the region x=%d, y=%d, %dx%d of the original", got.Min.X, got.Min.Y, got.Dx(), got.Dy())
	if full {
		var enc []byte
		outMime := "image/png"
		if mime == "image/jpeg" {
			enc, err, outMime = mustJPEG(crop, 90), nil, "image/jpeg"
		} else {
			enc, err = encodePNG(crop)
		}
		if err != nil {
			return encodedImage{}, "", err
		}
		if len(enc) > imageHardBudget {
			return encodedImage{}, "", fmt.Errorf("the region is %d bytes at full resolution, over the %d-byte limit; choose a smaller region", len(enc), imageHardBudget)
		}
		return encodedImage{data: enc, mime: outMime, width: got.Dx(), height: got.Dy()}, how + " at full resolution.", nil
	}
	fit, err := fitImage(crop, mime, 0, t.opts.MaxEdge, imageHardBudget)
	if err != nil {
		return encodedImage{}, "", fmt.Errorf("the region does not fit the delivery limits (%s); choose a smaller region", err)
	}
	return fit, fmt.Sprintf("%s, delivered as %dx%d (%s).", how, fit.width, fit.height, fit.mime), nil
}

func mustJPEG(img image.Image, q int) []byte {
	b, err := encodeJPEG(img, q)
	if err != nil {
		return nil
	}
	return b
}

func (t *ReadMediaFile) deliveryError(p workspace.ResolvedPath, best int) loop.ToolResult {
	return loop.ErrorResult(fmt.Sprintf("%q cannot be delivered: the smallest encoding was %d bytes, over the limits of %d bytes and %d px on the longest edge. The original was not sent. Make a smaller copy (crop or downscale it) and read that instead; reading this file again will fail the same way.",
		p.Raw, best, t.opts.ReadByteBudget, t.opts.MaxEdge))
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func mediaResult(kind, path string, part llm.ContentPart, note string) loop.ToolResult {
	open := fmt.Sprintf("<%s path=%q>", kind, path)
	return loop.ToolResult{
		Output: loop.PartsOutput(llm.TextPart(open), part, llm.TextPart("</"+kind+">")),
		Note:   note,
	}
}

func mediaNote(kind, mime string, size int, dims *image.Point, how string) string {
	parts := []string{fmt.Sprintf("Read %s file. Mime type: %s. Size: %d bytes.", kind, mime, size)}
	if dims != nil {
		parts = append(parts, fmt.Sprintf("Original dimensions: %dx%d pixels.", dims.X, dims.Y))
	}
	if how != "" {
		parts = append(parts, how)
	}
	if kind == "image" {
		parts = append(parts, "Coordinates for region always refer to the original pixels.")
	}
	parts = append(parts, "If the file changes, read it again; this copy does not update.")
	return "<system>" + strings.Join(parts, " ") + "</system>"
}
