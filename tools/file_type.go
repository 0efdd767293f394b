package tools

import (
	"bytes"
	"path"
	"strings"
	"sync"
)

// FileKind is what a file holds, as far as the tools care.
type FileKind string

// File kinds.
const (
	KindText    FileKind = "text"
	KindImage   FileKind = "image"
	KindVideo   FileKind = "video"
	KindUnknown FileKind = "unknown"
)

// FileType is a detected kind and, for media, its MIME type.
type FileType struct {
	Kind FileKind
	MIME string
}

// DetectMode says who asks: Read (text) or ReadMediaFile (media).
type DetectMode int

// Detection modes.
const (
	DetectText DetectMode = iota
	DetectMedia
)

// SniffLen is how much of a file DetectFileType wants to see.
const SniffLen = 512

var imageExts = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".bmp": "image/bmp", ".tif": "image/tiff", ".tiff": "image/tiff", ".webp": "image/webp",
	".ico": "image/x-icon", ".heic": "image/heic", ".heif": "image/heif", ".avif": "image/avif",
	".svgz": "image/svg+xml",
}

var videoExts = map[string]string{
	".mp4": "video/mp4", ".mpg": "video/mpeg", ".mpeg": "video/mpeg", ".mkv": "video/x-matroska",
	".avi": "video/x-msvideo", ".mov": "video/quicktime", ".ogv": "video/ogg", ".wmv": "video/x-ms-wmv",
	".webm": "video/webm", ".m4v": "video/x-m4v", ".flv": "video/x-flv", ".3gp": "video/3gpp",
	".3g2": "video/3gpp2",
}

// nonTextExts are suffixes of binary formats that are neither image nor
// video (documents, archives, audio, fonts, executables, databases). The
// set is built on first use.
var nonTextExts = sync.OnceValue(func() map[string]bool {
	return toSet(strings.Fields(`.icns .psd .ai .eps .pdf .doc .docx .dot .dotx .rtf .odt
	.xls .xlsx .xlsm .xlt .xltx .xltm .ods .ppt .pptx .pptm .pps .ppsx .odp .pages .numbers .key
	.zip .rar .7z .tar .gz .tgz .bz2 .xz .zst .lz .lz4 .br .cab .ar .deb .rpm .mp3 .wav .flac .ogg
	.oga .opus .aac .m4a .wma .ttf .otf .woff .woff2 .exe .dll .so .dylib .bin .apk .ipa .jar
	.class .pyc .pyo .wasm .dmg .iso .img .sqlite .sqlite3 .db .db3`))
})

func toSet(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// extension is the lower-cased last suffix; a dot-file has none.
func extension(p string) string {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return ""
	}
	return strings.ToLower(base[i:])
}

// DetectFileType classifies a file from its name and the first bytes of
// its content (up to SniffLen; nil when unread), following spec 05 §3.3:
// magic numbers beat extensions in media mode, an image extension is never
// trusted without its magic, a NUL byte means binary, and a name with no
// hint is text unless its suffix is a known binary format.
func DetectFileType(name string, header []byte, mode DetectMode) FileType {
	ext := extension(name)
	var hint FileType
	if m, ok := imageExts[ext]; ok {
		hint = FileType{KindImage, m}
	} else if m, ok := videoExts[ext]; ok {
		hint = FileType{KindVideo, m}
	}
	if header != nil {
		if s, ok := sniff(header); ok {
			if mode == DetectMedia {
				return s
			}
			if hint.Kind != "" && hint.Kind != s.Kind {
				return FileType{Kind: KindUnknown}
			}
			if hint.Kind != "" {
				return hint
			}
			return s
		}
		if hint.Kind == KindImage {
			return FileType{Kind: KindUnknown}
		}
		if mode == DetectMedia && hint.Kind == KindVideo {
			return hint
		}
		if bytes.IndexByte(header, 0) >= 0 {
			return FileType{Kind: KindUnknown}
		}
	}
	if hint.Kind != "" {
		return hint
	}
	if ext == ".svg" {
		return FileType{Kind: KindText}
	}
	if nonTextExts()[ext] {
		return FileType{Kind: KindUnknown}
	}
	return FileType{Kind: KindText}
}

// ftypBrands maps ISO-BMFF brands to their kind.
var ftypBrands = map[string]FileType{
	"avif": {KindImage, "image/avif"}, "avis": {KindImage, "image/avif"},
	"heic": {KindImage, "image/heic"}, "heif": {KindImage, "image/heif"}, "heix": {KindImage, "image/heic"},
	"hevc": {KindImage, "image/heic"}, "mif1": {KindImage, "image/heif"}, "msf1": {KindImage, "image/heif"},
	"isom": {KindVideo, "video/mp4"}, "iso2": {KindVideo, "video/mp4"}, "iso5": {KindVideo, "video/mp4"},
	"mp41": {KindVideo, "video/mp4"}, "mp42": {KindVideo, "video/mp4"}, "avc1": {KindVideo, "video/mp4"},
	"mp4v": {KindVideo, "video/mp4"}, "m4v ": {KindVideo, "video/x-m4v"}, "qt  ": {KindVideo, "video/quicktime"},
	"3gp4": {KindVideo, "video/3gpp"}, "3gp5": {KindVideo, "video/3gpp"}, "3gp6": {KindVideo, "video/3gpp"},
	"3gp7": {KindVideo, "video/3gpp"}, "3g2a": {KindVideo, "video/3gpp2"},
}

// sniff recognises image and video magic numbers.
func sniff(h []byte) (FileType, bool) {
	has := func(off int, magic string) bool {
		return len(h) >= off+len(magic) && string(h[off:off+len(magic)]) == magic
	}
	switch {
	case has(0, "\x89PNG\r\n\x1a\n"):
		return FileType{KindImage, "image/png"}, true
	case has(0, "\xff\xd8\xff"):
		return FileType{KindImage, "image/jpeg"}, true
	case has(0, "GIF87a"), has(0, "GIF89a"):
		return FileType{KindImage, "image/gif"}, true
	case has(0, "BM"):
		return FileType{KindImage, "image/bmp"}, true
	case has(0, "II*\x00"), has(0, "MM\x00*"):
		return FileType{KindImage, "image/tiff"}, true
	case has(0, "\x00\x00\x01\x00"):
		return FileType{KindImage, "image/x-icon"}, true
	case has(0, "RIFF") && has(8, "WEBP"):
		return FileType{KindImage, "image/webp"}, true
	case has(0, "RIFF") && has(8, "AVI "):
		return FileType{KindVideo, "video/x-msvideo"}, true
	case has(0, "FLV"):
		return FileType{KindVideo, "video/x-flv"}, true
	case has(0, "\x30\x26\xb2\x75\x8e\x66\xcf\x11"):
		return FileType{KindVideo, "video/x-ms-wmv"}, true
	case has(0, "\x1a\x45\xdf\xa3"):
		switch {
		case bytes.Contains(h, []byte("webm")):
			return FileType{KindVideo, "video/webm"}, true
		case bytes.Contains(h, []byte("matroska")):
			return FileType{KindVideo, "video/x-matroska"}, true
		}
	case has(4, "ftyp") && len(h) >= 12:
		if t, ok := ftypBrands[string(h[8:12])]; ok {
			return t, true
		}
	}
	return FileType{}, false
}
