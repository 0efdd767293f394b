package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"path/filepath"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// Video is a video to upload to Kimi's file store. The caller reads the
// file; the provider never touches the file system.
type Video struct {
	Data []byte
	// MIMEType must start with "video/"; see VideoMIMEType.
	MIMEType string
	// Filename defaults to upload.<ext> for the MIME type.
	Filename string
}

// videoTypes maps file extensions to the video MIME types Kimi accepts.
var videoTypes = []struct{ ext, mime string }{
	{"mp4", "video/mp4"},
	{"mpeg", "video/mpeg"},
	{"mov", "video/quicktime"},
	{"webm", "video/webm"},
	{"mkv", "video/x-matroska"},
	{"avi", "video/x-msvideo"},
	{"flv", "video/x-flv"},
	{"3gp", "video/3gpp"},
}

// VideoMIMEType returns the MIME type for a video file name by its
// extension, and false when the extension is not a supported video.
func VideoMIMEType(name string) (string, bool) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	for _, t := range videoTypes {
		if t.ext == ext {
			return t.mime, true
		}
	}
	return "", false
}

// filePurposeVideo is the purpose field of a video upload.
const filePurposeVideo = "video"

// UploadVideo stores v in Kimi's file store and returns a video part that
// refers to it (ms://<file-id>). Only the Kimi flavour supports it. Errors
// are classified like chat errors, Kimi's quota hook included.
func (p *Provider) UploadVideo(ctx context.Context, v Video, auth *llm.Auth) (llm.ContentPart, error) {
	if p.flavour != Kimi {
		return llm.ContentPart{}, &llm.Error{Kind: llm.KindInvalidRequest,
			Message: fmt.Sprintf("%s: video upload is not supported by this provider", p.Name())}
	}
	if !strings.HasPrefix(v.MIMEType, "video/") {
		return llm.ContentPart{}, &llm.Error{Kind: llm.KindInvalidRequest,
			Message: fmt.Sprintf("kimi: upload video: %q is not a video MIME type", v.MIMEType)}
	}
	name := v.Filename
	if name == "" {
		name = "upload.bin"
		for _, t := range videoTypes {
			if t.mime == v.MIMEType {
				name = "upload." + t.ext
			}
		}
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", v.MIMEType)
	fw, err := mw.CreatePart(h)
	if err == nil {
		_, err = fw.Write(v.Data)
	}
	if err == nil {
		err = mw.WriteField("purpose", filePurposeVideo)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return llm.ContentPart{}, &llm.Error{Kind: llm.KindInvalidRequest, Cause: err,
			Message: "kimi: upload video: build form: " + err.Error()}
	}
	hr, err := p.newHTTPRequest(ctx, "/files", &body, auth)
	if err != nil {
		return llm.ContentPart{}, err
	}
	hr.Header.Set("Content-Type", mw.FormDataContentType())
	hr.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(hr)
	if err != nil {
		return llm.ContentPart{}, llm.ClassifyTransport(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return llm.ContentPart{}, p.statusError(ctx, resp)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return llm.ContentPart{}, llm.ClassifyTransport(ctx, err)
	}
	var file struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &file) != nil || file.ID == "" {
		return llm.ContentPart{}, &llm.Error{Kind: llm.KindGeneric,
			Message: fmt.Sprintf("Error: kimi: upload video: response without a file id: %.200s", data)}
	}
	return llm.VideoPart("ms://"+file.ID, file.ID), nil
}
