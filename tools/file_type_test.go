package tools_test

import (
	"testing"

	"github.com/kimigo/kimigo/tools"
)

func TestDetectFileType(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n....")
	for _, tt := range []struct {
		name, path string
		head       []byte
		mode       tools.DetectMode
		want       tools.FileType
	}{
		{"png magic", "a.png", png, tools.DetectText, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"text named png", "a.png", []byte("hello"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"png magic named txt in text mode", "a.txt", png, tools.DetectText, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"png magic named jpg, media mode", "a.jpg", png, tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"png magic named mp4, text mode", "a.mp4", png, tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"video extension, media mode", "a.mkv", []byte("??"), tools.DetectMedia, tools.FileType{Kind: tools.KindVideo, MIME: "video/x-matroska"}},
		{"svg is text", "a.svg", []byte("<svg>"), tools.DetectText, tools.FileType{Kind: tools.KindText}},
		{"NUL", "a.dat", []byte("ab\x00c"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"pdf suffix", "a.PDF", []byte("%PDF"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"dot file", ".bashrc", []byte("x"), tools.DetectText, tools.FileType{Kind: tools.KindText}},
		{"webp", "x", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/webp"}},
		{"heic brand", "x", []byte("\x00\x00\x00\x18ftypheic"), tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/heic"}},
		{"webm", "x", []byte("\x1a\x45\xdf\xa3....webm"), tools.DetectMedia, tools.FileType{Kind: tools.KindVideo, MIME: "video/webm"}},
	} {
		if got := tools.DetectFileType(tt.path, tt.head, tt.mode); got != tt.want {
			t.Errorf("%s: DetectFileType = %+v; want %+v", tt.name, got, tt.want)
		}
	}
}
