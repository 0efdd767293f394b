package openai

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
)

// fileServer is a loopback stand-in for Kimi's POST /v1/files.
type fileServer struct {
	status  int
	body    string
	form    map[string]string
	auth    string
	fileCT  string
	fileLen int
}

func (f *fileServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/files" {
			http.NotFound(w, r)
			return
		}
		f.auth = r.Header.Get("Authorization")
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		mr := multipart.NewReader(r.Body, params["boundary"])
		f.form = map[string]string{}
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			data, _ := io.ReadAll(part)
			if part.FormName() == "file" {
				f.form["filename"] = part.FileName()
				f.fileCT, f.fileLen = part.Header.Get("Content-Type"), len(data)
				continue
			}
			f.form[part.FormName()] = string(data)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		_, _ = io.WriteString(w, f.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestUploadVideo(t *testing.T) {
	fs := &fileServer{status: 200, body: `{"id":"file-123","object":"file","purpose":"video"}`}
	p := New(Options{BaseURL: fs.start(t), APIKey: "k"})
	got, err := p.UploadVideo(t.Context(), Video{Data: []byte("0123456789"), MIMEType: "video/quicktime"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(llm.VideoPart("ms://file-123", "file-123"), got); d != "" {
		t.Errorf("part (-want +got):\n%s", d)
	}
	want := map[string]string{"filename": "upload.mov", "purpose": "video"}
	if d := cmp.Diff(want, fs.form); d != "" || fs.fileCT != "video/quicktime" || fs.fileLen != 10 || fs.auth != "Bearer k" {
		t.Errorf("form (-want +got):\n%s\nfile %s %d bytes, auth %q", d, fs.fileCT, fs.fileLen, fs.auth)
	}
}

func TestUploadVideoErrors(t *testing.T) {
	fs := &fileServer{status: 429, body: `{"error":{"type":"exceeded_current_quota_error","message":"insufficient balance"}}`}
	p := New(Options{BaseURL: fs.start(t), APIKey: "k"})
	if _, err := p.UploadVideo(t.Context(), Video{Data: []byte("x"), MIMEType: "video/mp4"}, nil); !llm.IsQuotaExhausted(err) {
		t.Errorf("quota: err = %v; want quota exhausted", err)
	}
	if _, err := p.UploadVideo(t.Context(), Video{Data: []byte("x"), MIMEType: "image/png"}, nil); !llm.IsInvalidRequest(err) {
		t.Errorf("image: err = %v; want invalid request", err)
	}
	o := New(Options{Flavour: OpenAI, APIKey: "k"})
	if _, err := o.UploadVideo(t.Context(), Video{Data: []byte("x"), MIMEType: "video/mp4"}, nil); !llm.IsInvalidRequest(err) {
		t.Errorf("openai: err = %v; want invalid request", err)
	}
	fs.status, fs.body = 200, `{}`
	if _, err := p.UploadVideo(t.Context(), Video{Data: []byte("x"), MIMEType: "video/mp4"}, nil); !llm.IsProviderError(err) {
		t.Errorf("no id: err = %v; want a provider error", err)
	}
}

func TestVideoMIMEType(t *testing.T) {
	for name, want := range map[string]string{"a.MP4": "video/mp4", "b.mkv": "video/x-matroska", "c.3gp": "video/3gpp", "d.txt": ""} {
		if got, _ := VideoMIMEType(name); got != want {
			t.Errorf("VideoMIMEType(%q) = %q; want %q", name, got, want)
		}
	}
}
