package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// UploadedFile is one document received by POST /api/ingest.
type UploadedFile struct {
	Name string // the file's base name as the client sent it, e.g. "msa.pdf"
	Data []byte
}

// IngestEvent reports one file's progress. Stage is free-form while the
// file is being worked on (e.g. "loading", "extracting", "storing") and
// ends with one of StageOK, StageSkipped or StageFailed.
type IngestEvent struct {
	File       string `json:"file"`
	Stage      string `json:"stage"`
	ContractID string `json:"contract_id,omitempty"`
	Message    string `json:"message,omitempty"`
}

// Final stages of a file.
const (
	StageOK      = "ok"      // stored (created or updated)
	StageSkipped = "skipped" // unchanged since the last ingestion
	StageFailed  = "failed"  // Message says why
)

// Ingester turns uploaded documents into stored contracts.
type Ingester interface {
	// Ingest processes files, calling progress (never concurrently) as each
	// moves through its stages and ending every file with a final stage.
	// One file's failure does not stop the others; the returned error is for
	// the batch as a whole, such as a cancelled context.
	Ingest(ctx context.Context, files []UploadedFile, progress func(IngestEvent)) error
}

// ingestSummary is the last data event of an ingestion stream.
type ingestSummary struct {
	Files   int `json:"files"`
	OK      int `json:"ok"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
}

// maxUploadFiles bounds the documents of one upload.
const maxUploadFiles = 100

// handleIngest receives a multipart upload (any file fields, typically
// "files") and streams the ingestion as server-sent events: "progress"
// (IngestEvent) per stage of each file, then "summary" (counts), an "error"
// event if the batch failed, and "done".
func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request) {
	if s.ingester == nil {
		writeError(w, http.StatusServiceUnavailable, &apiError{Code: codeNoIngest,
			Message: "document upload is not available: extracting contracts from documents needs a chat model; " +
				"start the server with --model provider:model (or set CONTRACTGRAPH_MODEL), e.g. --model ollama:qwen2.5:7b"})
		return
	}
	files, err := s.readUpload(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}

	ctx, cancel := s.streamContext(r, 0)
	defer cancel()

	sse := startSSE(w)
	stopKeepAlive := make(chan struct{})
	defer close(stopKeepAlive)
	go sse.keepAlive(keepAliveEvery, stopKeepAlive)

	var mu sync.Mutex
	final := map[string]string{}
	progress := func(ev IngestEvent) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Stage {
		case StageOK, StageSkipped, StageFailed:
			final[ev.File] = ev.Stage
		}
		_ = sse.Send("progress", ev)
	}
	err = s.ingester.Ingest(ctx, files, progress)

	mu.Lock()
	defer mu.Unlock()
	sum := ingestSummary{Files: len(files)}
	for _, f := range files {
		switch final[f.Name] {
		case StageOK:
			sum.OK++
		case StageSkipped:
			sum.Skipped++
		default:
			sum.Failed++ // failed, or never finished because the batch stopped
		}
	}
	_ = sse.Send("summary", sum)
	if err != nil {
		_, body := s.errorFor(r, err)
		_ = sse.Send("error", map[string]string{"error": "ingestion stopped: " + body.Message})
	}
	_ = sse.Send("done", struct{}{})
}

// readUpload reads every file part of a multipart/form-data body, within
// the upload size limit.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request) ([]UploadedFile, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, &tools.ArgError{Msg: "send the documents as multipart/form-data"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxUpload)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &tools.ArgError{Msg: "invalid multipart body: " + err.Error()}
	}
	var files []UploadedFile
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, err
			}
			return nil, &tools.ArgError{Msg: "invalid multipart body: " + err.Error()}
		}
		if part.FileName() == "" {
			part.Close()
			continue // a plain form field
		}
		name := path.Base(strings.ReplaceAll(part.FileName(), `\`, "/"))
		if !slices.Contains(uploadAccept, strings.ToLower(path.Ext(name))) {
			return nil, &tools.ArgError{Field: part.FormName(), Msg: fmt.Sprintf("%s: unsupported document type", name), Valid: uploadAccept}
		}
		if seen[name] {
			return nil, &tools.ArgError{Field: part.FormName(), Msg: fmt.Sprintf("%s: uploaded twice", name)}
		}
		seen[name] = true
		if len(files) == maxUploadFiles {
			return nil, &tools.ArgError{Field: part.FormName(), Msg: fmt.Sprintf("more than %d files in one upload", maxUploadFiles)}
		}
		data, err := io.ReadAll(part)
		part.Close()
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, err
			}
			return nil, &tools.ArgError{Field: part.FormName(), Msg: fmt.Sprintf("%s: %v", name, err)}
		}
		if len(data) == 0 {
			return nil, &tools.ArgError{Field: part.FormName(), Msg: fmt.Sprintf("%s: empty file", name)}
		}
		files = append(files, UploadedFile{Name: name, Data: data})
	}
	if len(files) == 0 {
		return nil, &tools.ArgError{Field: "files", Msg: "no documents in the upload"}
	}
	return files, nil
}
