package records

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// blobStore moves large base64 media out of records into
// <agentHome>/blobs/<sha256> and back (spec 02 §6.6). Offloading runs on
// the writer goroutine just before a record is encoded; rehydration runs on
// whoever replays. The cache is the only state shared between the two.
type blobStore struct {
	fs        osenv.FS
	dir       string
	logPath   string // wire.jsonl, named in warnings
	threshold int
	logger    *slog.Logger
	cache     *blobCache
}

func newBlobStore(fsys osenv.FS, dir, logPath string, threshold int, cacheBytes int64, logger *slog.Logger) *blobStore {
	return &blobStore{fs: fsys, dir: dir, logPath: logPath, threshold: threshold, logger: logger, cache: newBlobCache(cacheBytes)}
}

// offload returns rec with every data URL whose base64 payload reaches the
// threshold replaced by "blobref:<mime>;<hash>", and whether a new blob
// file was written (so the caller syncs the directory). rec itself is
// never modified.
func (s *blobStore) offload(rec Record) (Record, bool, error) {
	// Only the records media sits in are looked at (rewriteMedia leaves
	// the others as they are), and a data URL can only be in their
	// payload, so their bytes are searched without encoding them first.
	if !mediaCarrier(rec.Type) || !bytes.Contains(rec.payload(), []byte(dataURLBase64Marker)) {
		return rec, false, nil
	}
	wrote := false
	out, _, err := rewriteMedia(rec, func(url string) (string, bool, error) {
		mime, payload, ok := splitDataURL(url)
		if !ok || len(payload) < s.threshold {
			return url, false, nil
		}
		data, err := base64.StdEncoding.Strict().DecodeString(payload)
		if err != nil || base64.StdEncoding.EncodeToString(data) != payload {
			// Storing decoded bytes would not give this exact text back.
			s.logger.Debug("media payload kept inline: not canonical base64", "type", string(rec.Type))
			return url, false, nil
		}
		sum := sha256.Sum256([]byte(payload))
		hash := hex.EncodeToString(sum[:])
		created, err := s.write(hash, data)
		if err != nil {
			return url, false, err
		}
		wrote = wrote || created
		// Not cached here: the live history holds this media already, and
		// the cache is for reading blobs back (resume), so caching on write
		// would keep every image twice.
		return blobRefScheme + mime + ";" + hash, true, nil
	})
	return out, wrote, err
}

// splitDataURL matches ^data:([^;]+);base64, and returns the mime type and
// the payload after the header.
func splitDataURL(url string) (mime, payload string, ok bool) {
	if !strings.HasPrefix(url, dataURLScheme) {
		return "", "", false
	}
	rest := url[len(dataURLScheme):]
	semi := strings.IndexByte(rest, ';')
	if semi < 1 || !strings.HasPrefix(rest[semi:], dataURLBase64Marker) {
		return "", "", false
	}
	return rest[:semi], rest[semi+len(dataURLBase64Marker):], true
}

// write stores data as blobs/<hash> unless that file exists (same payload:
// dedupe). The file appears under its final name only when complete: it is
// written to a temporary name, synced and renamed.
func (s *blobStore) write(hash string, data []byte) (created bool, err error) {
	name := filepath.Join(s.dir, hash)
	if _, err := s.fs.Stat(name); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("write blob %s: %w", name, err)
	}
	if err := osenv.MkdirBelow(s.fs, filepath.Dir(s.dir), s.dir, 0o700); err != nil { // a deleted home stays deleted
		return false, fmt.Errorf("write blob %s: %w", name, err)
	}
	tmp := name + ".tmp"
	f, err := s.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, fmt.Errorf("write blob %s: %w", name, err)
	}
	err = osenv.WriteSyncClose(f, data)
	if err == nil {
		err = s.fs.Rename(tmp, name)
	}
	if err != nil {
		_ = s.fs.Remove(tmp) // best effort; a stale temp file is overwritten next time
		return false, fmt.Errorf("write blob %s: %w", name, err)
	}
	return true, nil
}

// rehydrate returns rec with every blob reference replaced by its data URL,
// or by MediaMissing when the reference is malformed or the blob is gone.
func (s *blobStore) rehydrate(rec Record) Record {
	if !bytes.Contains(rec.encode(), []byte(blobRefScheme)) {
		return rec
	}
	out, _, err := rewriteMedia(rec, func(url string) (string, bool, error) {
		if !strings.HasPrefix(url, blobRefScheme) {
			return url, false, nil
		}
		return s.resolve(rec, url), true, nil
	})
	if err != nil { // the callback never fails
		return rec
	}
	return out
}

func (s *blobStore) resolve(rec Record, url string) string {
	mime, hash, ok := strings.Cut(url[len(blobRefScheme):], ";")
	if !ok || !isHash(hash) {
		s.logger.Warn("malformed media reference", "path", s.logPath, "line", rec.lineNo, "url", url)
		return MediaMissing
	}
	payload, err := s.read(hash)
	if err != nil {
		s.logger.Warn("media blob unreadable", "path", s.logPath, "line", rec.lineNo, "err", err)
		return MediaMissing
	}
	return dataURLScheme + mime + dataURLBase64Marker + payload
}

// read returns the base64 payload of blob hash. A blob holds the decoded
// bytes; a file that is itself the base64 text (older writers stored it
// that way) is recognised by its hash. Anything else is corrupt.
func (s *blobStore) read(hash string) (string, error) {
	if p, ok := s.cache.get(hash); ok {
		return p, nil
	}
	name := filepath.Join(s.dir, hash)
	b, err := s.fs.ReadFile(name)
	if err != nil {
		return "", err
	}
	var payload string
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) == hash {
		payload = string(b)
	} else {
		payload = base64.StdEncoding.EncodeToString(b)
		if sum := sha256.Sum256([]byte(payload)); hex.EncodeToString(sum[:]) != hash {
			return "", fmt.Errorf("blob %s: content does not match its hash", name)
		}
	}
	s.cache.put(hash, payload)
	return payload, nil
}

func isHash(h string) bool {
	if len(h) != sha256.Size*2 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
