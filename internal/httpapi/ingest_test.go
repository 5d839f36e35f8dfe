package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// textIngester is a small Ingester over a real store: each text file
// becomes a contract whose title is the first line; a file without text
// fails. It reports stages the way a real pipeline does.
type textIngester struct{ store graph.Store }

func (in textIngester) Ingest(ctx context.Context, files []UploadedFile, progress func(IngestEvent)) error {
	for _, f := range files {
		progress(IngestEvent{File: f.Name, Stage: "loading"})
		text := strings.TrimSpace(string(f.Data))
		if text == "" {
			progress(IngestEvent{File: f.Name, Stage: StageFailed, Message: "no text in the document"})
			continue
		}
		title, _, _ := strings.Cut(text, "\n")
		id := strings.TrimSuffix(f.Name, ".txt")
		progress(IngestEvent{File: f.Name, Stage: "storing"})
		out, err := in.store.PutContracts(ctx, []*contract.Contract{{ID: id, Title: title, Text: string(f.Data)}})
		if err != nil {
			return err
		}
		stage := StageOK
		if out[0].Status == graph.PutUnchanged {
			stage = StageSkipped
		}
		progress(IngestEvent{File: f.Name, Stage: stage, ContractID: id})
	}
	return nil
}

func multipartBody(t *testing.T, files map[string]string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("note", "a plain field is ignored")
	for _, name := range []string{"a-lease.txt", "blank.txt", "memo.exe", "big.txt"} {
		content, ok := files[name]
		if !ok {
			continue
		}
		w, err := mw.CreateFormFile("files", name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	mw.Close()
	return mw.FormDataContentType(), &buf
}

func TestIngestStreamsProgress(t *testing.T) {
	s, _ := newTestServer(t, nil)
	s.ingester = textIngester{s.store}
	ct, body := multipartBody(t, map[string]string{"a-lease.txt": "Office Lease\nThe landlord leases the office.", "blank.txt": "   "})
	rec := do(t, s.Handler(), "POST", "/api/ingest", ct, body)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var got []string
	var sum ingestSummary
	for _, e := range readEvents(t, rec.Body) {
		switch e.Name {
		case "progress":
			var ev IngestEvent
			if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
				t.Fatal(err)
			}
			got = append(got, ev.File+" "+ev.Stage)
		case "summary":
			if err := json.Unmarshal([]byte(e.Data), &sum); err != nil {
				t.Fatal(err)
			}
			got = append(got, "summary")
		default:
			got = append(got, e.Name)
		}
	}
	want := []string{"a-lease.txt loading", "a-lease.txt storing", "a-lease.txt ok", "blank.txt loading", "blank.txt failed", "summary", "done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ingestSummary{Files: 2, OK: 1, Failed: 1}, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	c, err := s.store.GetContract(context.Background(), "a-lease")
	if err != nil || c.Title != "Office Lease" {
		t.Errorf("uploaded contract not stored: %+v, %v", c, err)
	}
}

func TestIngestRejectsBadUploads(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.MaxUploadBytes = 4 << 10 })
	s.ingester = textIngester{s.store}
	tests := []struct {
		name   string
		files  map[string]string
		ctype  string
		status int
		code   string
	}{
		{"unsupported type", map[string]string{"memo.exe": "MZ"}, "", 400, codeInvalidArgument},
		{"no files", map[string]string{}, "", 400, codeInvalidArgument},
		{"too large", map[string]string{"big.txt": strings.Repeat("x", 8<<10)}, "", 413, codeTooLarge},
		{"not multipart", nil, "application/json", 400, codeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := multipartBody(t, tt.files)
			if tt.ctype != "" {
				ct = tt.ctype
			}
			rec := do(t, s.Handler(), "POST", "/api/ingest", ct, body)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if e := errorOf(t, rec.Body.Bytes()); e.Code != tt.code {
				t.Errorf("code %q, want %q (%s)", e.Code, tt.code, e.Message)
			}
		})
	}
}
