package main

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/httpapi"
)

// TestUploadsExtractAsIngestDoes: a document uploaded to serve is
// extracted with the settings `ingest` gives the same model. For a local
// server (the fake listens on 127.0.0.1) that is the facts and the clauses
// in calls of their own.
func TestUploadsExtractAsIngestDoes(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return extracttest.JSON(extracttest.Heuristic(req.ContractText()), 100, 50)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")
	dir := t.TempDir()
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	a.cfg.Model = "openai:gpt-fake"
	a.cfg.DB = filepath.Join(dir, "cg.db")
	store, err := sqlite.Open(a.cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	model, err := a.openModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ing, err := a.newUploadIngester(ctx, store, model, filepath.Join(dir, "uploads"))
	if err != nil {
		t.Fatal(err)
	}
	text := "SUPPLY AGREEMENT\n\nThis Supply Agreement is made on March 1, 2019 between Acme Corp, a Delaware corporation, and Beta LLC, a New York company.\n\n" +
		"1. Governing Law. This Agreement shall be governed by the laws of the State of New York.\n"
	var last httpapi.IngestEvent
	if err := ing.Ingest(ctx, []httpapi.UploadedFile{{Name: "supply.txt", Data: []byte(text)}}, func(e httpapi.IngestEvent) { last = e }); err != nil {
		t.Fatal(err)
	}
	if last.Stage != httpapi.StageOK {
		t.Fatalf("last event %+v, want the file stored", last)
	}
	var schemas []string
	for _, r := range srv.Requests() {
		if r.ResponseFormat != nil {
			schemas = append(schemas, r.ResponseFormat.JSONSchema.Name)
		}
	}
	if strings.Join(schemas, ",") != "contract_facts,contract_clauses" {
		t.Errorf("extraction calls %q, want the facts, then the clauses (as ingest does for a local server)", schemas)
	}

	// Uploading it again (unchanged) with a corrupt PDF keeps neither: only
	// the first upload's copy, which the contract points at, stays.
	stages := map[string]string{}
	err = ing.Ingest(ctx, []httpapi.UploadedFile{{Name: "supply.txt", Data: []byte(text)}, {Name: "scan.pdf", Data: []byte("%PDF-1.4 broken")}},
		func(e httpapi.IngestEvent) { stages[e.File] = e.Stage })
	if err != nil || stages["supply.txt"] != httpapi.StageSkipped || stages["scan.pdf"] != httpapi.StageFailed {
		t.Fatalf("second upload: %v, stages %v", err, stages)
	}
	var left []string
	filepath.WalkDir(filepath.Join(dir, "uploads"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, filepath.Base(p))
		}
		return nil
	})
	dirs, _ := os.ReadDir(filepath.Join(dir, "uploads"))
	if strings.Join(left, ",") != "supply.txt" || len(dirs) != 1 {
		t.Errorf("uploads kept: %v in %d directories, want the first supply.txt alone", left, len(dirs))
	}
	c, err := store.GetContract(ctx, "supply")
	if err != nil || !strings.HasPrefix(c.SourcePath, filepath.Join(dir, "uploads", dirs[0].Name())) {
		t.Errorf("stored source path %q (%v), want the kept upload", c.SourcePath, err)
	}
}
