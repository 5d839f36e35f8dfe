package main

import (
	"archive/zip"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/ingest"
)

func TestIngestAndResolveCommands(t *testing.T) {
	shared := sharedData(t)
	dir := t.TempDir()
	for _, n := range []string{
		"TRANSMONTAIGNEPARTNERSLLC_03_13_2020-EX-10.9-SERVICES AGREEMENT.txt",
		"BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.txt",
		"XLITECHNOLOGIES,INC_12_02_2015-EX-10.02-STRATEGIC ALLIANCE AGREEMENT.txt",
	} {
		data, err := os.ReadFile(filepath.Join(shared, "data", "cuad", "full_contract_txt", n))
		if err != nil {
			t.Skip(err)
		}
		os.WriteFile(filepath.Join(dir, n), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "scan.pdf"), []byte("%PDF-1.4 broken"), 0o644)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		text := req.ContractText()
		return extracttest.JSON(extracttest.Heuristic(text), extract.EstimateTokens(text), 100)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	db := filepath.Join(t.TempDir(), "g.db")

	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", dir)
	if code != 1 {
		t.Fatalf("exit %d with a failed file, want 1; stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(out, "failed:    "+filepath.Join(dir, "scan.pdf")+": corrupt") || !strings.Contains(out, "ok 3, unchanged 0, failed 1, skipped 0; tokens ") {
		t.Errorf("summary:\n%s", out)
	}
	os.Remove(filepath.Join(dir, "scan.pdf"))
	out, _, code = runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "--json", "ingest", dir)
	var sum ingest.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
		t.Fatalf("second run: code %d, %v, %s", code, err, out)
	}
	// The fake server is on loopback, so it is treated as a local model:
	// each contract took two calls, the facts and then the clauses.
	if sum.Unchanged != 3 || sum.OK != 0 || len(srv.Requests()) != 6 {
		t.Errorf("second run made model calls: %+v, %d requests", sum, len(srv.Requests()))
	}
	schemas := map[string]int{}
	for _, r := range srv.Requests() {
		if r.ResponseFormat != nil {
			schemas[r.ResponseFormat.JSONSchema.Name]++
		}
	}
	if schemas["contract_facts"] != 3 || schemas["contract_clauses"] != 3 {
		t.Errorf("schemas asked for: %v, want facts and clauses for each contract", schemas)
	}

	out, _, code = runContractgraph(t, "", "--db", db, "--json", "tools", "call", "clause_search", `{"query":"governed by the laws of the State of Colorado","limit":1}`)
	if code != 0 || !strings.Contains(out, "TRANSMONTAIGNE") {
		t.Errorf("clause_search over ingested contracts: %d %s", code, out)
	}
	out, _, code = runContractgraph(t, "", "--db", db, "resolve", "--dry-run")
	if code != 0 || !strings.Contains(out, "would merge 0 parties into 0") {
		t.Errorf("resolve --dry-run: %d %s", code, out)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "resolve", "--threshold", "2"); code != 2 || !strings.Contains(errOut, "--threshold") {
		t.Errorf("bad threshold: %d %s", code, errOut)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "ingest", dir); code != 2 || !strings.Contains(errOut, "--model") {
		t.Errorf("ingest without a model: %d %s", code, errOut)
	}
}

func TestRenderIngestBar(t *testing.T) {
	p := ingest.Progress{Done: 2, Total: 4, Elapsed: 10 * 1e9, Last: ingest.FileResult{ContractID: "a-very-long-contract-name-that-will-not-fit"}}
	p.Usage.InputTokens, p.Usage.OutputTokens = 123456, 2048
	got := renderIngestBar(80, p)
	if want := "[==========>         ] 2/4  ETA 10s  tokens 123.5k in 2.0k out  a-very-long-co…"; got != want {
		t.Errorf("bar = %q, want %q", got, want)
	}
	if len([]rune(got)) > 79 {
		t.Errorf("bar is %d columns wide", len([]rune(got)))
	}
}

func TestImportResolvesParties(t *testing.T) {
	ref := filepath.Join(sharedData(t), "data", "legal-tech-chat", "contract_data.json")
	db := filepath.Join(t.TempDir(), "g.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "import", ref)
	if code != 0 || !strings.Contains(out, "\nentity resolution merged 5 duplicate parties into others") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	out, _, _ = runContractgraph(t, "", "--db", db, "--json", "tools", "call", "party_search", `{"name":"wately"}`)
	if !strings.Contains(out, `"name":"A.B. Watley, Inc.","aliases":["AB Wately, Inc."]`) {
		t.Errorf("merged spelling is not an alias of the canonical party: %s", out)
	}
	db2 := filepath.Join(t.TempDir(), "g2.db")
	out, _, code = runContractgraph(t, "", "--db", db2, "import", "--no-resolve", ref)
	if code != 0 || strings.Contains(out, "entity resolution") {
		t.Errorf("--no-resolve: %d %q", code, out)
	}
	// Importing the same file again changes no contract, but resolution
	// still does what was left undone (skipped here, or interrupted).
	out, errOut, code = runContractgraph(t, "", "--db", db2, "import", ref)
	if code != 0 || !strings.Contains(out, "unchanged 510") || !strings.Contains(out, "\nentity resolution merged 5 duplicate parties into others") {
		t.Errorf("import again after --no-resolve: %d %q %q", code, out, errOut)
	}
	out, _, _ = runContractgraph(t, "", "--db", db2, "resolve")
	if !strings.Contains(out, "merged 0 parties into 0") || !strings.Contains(out, " 0 compared") {
		t.Errorf("resolve after a complete resolution: %q", out)
	}
}

func TestExtractOptionsForLocalAndRemoteModels(t *testing.T) {
	tests := []struct {
		model, base string
		flags       ingestFlags
		wantCtx     int
		wantMode    extract.ClauseMode
		wantErr     string
	}{
		{model: "openai:qwen", base: "http://127.0.0.1:18080/v1", wantCtx: extract.LocalContextTokens, wantMode: extract.ClausesSeparate},
		{model: "ollama:qwen2.5:7b", wantCtx: extract.LocalContextTokens, wantMode: extract.ClausesSeparate},
		{model: "openai:gpt-4o-mini", wantCtx: extract.DefaultContextTokens, wantMode: extract.ClausesAuto},
		{model: "openai:gpt-4o-mini", flags: ingestFlags{contextTokens: 16000, clauseCalls: "two"}, wantCtx: 16000, wantMode: extract.ClausesSeparate},
		{model: "ollama:qwen2.5:7b", flags: ingestFlags{clauseCalls: "one"}, wantCtx: extract.LocalContextTokens, wantMode: extract.ClausesAuto},
		{model: "ollama:qwen2.5:7b", flags: ingestFlags{clauseCalls: "three"}, wantErr: "--clause-calls"},
		{model: "ollama:qwen2.5:7b", flags: ingestFlags{contextTokens: -1}, wantErr: "--context-tokens"},
	}
	for _, tt := range tests {
		t.Setenv("OPENAI_BASE_URL", tt.base)
		a := newApp(nil, nil, nil)
		a.cfg.Model = tt.model
		opts, err := a.extractOptions(tt.flags)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s %+v: err = %v, want %s", tt.model, tt.flags, err, tt.wantErr)
			}
			continue
		}
		if err != nil || opts.ContextTokens != tt.wantCtx || opts.Clauses != tt.wantMode {
			t.Errorf("%s at %q %+v: context %d mode %d err %v; want %d and %d", tt.model, tt.base, tt.flags, opts.ContextTokens, opts.Clauses, err, tt.wantCtx, tt.wantMode)
		}
	}
}

func TestExtractingLabel(t *testing.T) {
	if got := extractingLabel(extract.Progress{ContractID: "lease", Step: "clauses", Part: 1, Parts: 1, Bytes: 2150}); got != "lease: clauses 2.1 KB" {
		t.Errorf("label = %q", got)
	}
	if got := extractingLabel(extract.Progress{ContractID: "big", Step: "facts", Part: 2, Parts: 3, Bytes: 300}); got != "big: part 2/3 facts 300 B" {
		t.Errorf("label = %q", got)
	}
}

// writeHugeDOCX writes a DOCX of a few hundred KB whose document holds
// textMiB MiB of text, as a compressed file can: one long paragraph after
// another of the same clause.
func writeHugeDOCX(t *testing.T, path string, textMiB int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	for _, p := range []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
	} {
		w, _ := zw.Create(p.name)
		io.WriteString(w, p.body)
	}
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	clause := strings.Repeat("The Supplier shall deliver the Products to the Customer in accordance with this Agreement. ", 100)
	para := "<w:p><w:r><w:t>" + clause + "</w:t></w:r></w:p>"
	for n := 0; n < textMiB<<20; n += len(clause) {
		io.WriteString(w, para)
	}
	io.WriteString(w, `</w:body></w:document>`)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIngestBoundsText: a small DOCX holding 60 MiB of text fails before
// any model call, naming the file and the flag that raises the limit; a
// text that would need more model calls than --max-model-calls fails the
// same way, before any call.
func TestIngestBoundsText(t *testing.T) {
	dir := t.TempDir()
	docx := filepath.Join(dir, "huge.docx")
	textMiB := 60 // the adversarial run's file
	if raceEnabled {
		textMiB = 8 // still twice the limit, and quicker to compress
	}
	writeHugeDOCX(t, docx, textMiB)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return extracttest.JSON(extracttest.Heuristic(req.ContractText()), 100, 100)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	db := filepath.Join(dir, "g.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", docx)
	fi, _ := os.Stat(docx)
	want := fmt.Sprintf("failed:    %s: too much text: the %.1f KiB file holds more than 4 MiB of text, the limit per file (--max-text-bytes raises it)", docx, float64(fi.Size())/1024)
	if code != 1 || !strings.Contains(out, want) || len(srv.Requests()) != 0 {
		t.Errorf("60 MiB of text in a %d-byte DOCX: exit %d, %d model calls\nstdout %s\nstderr %s\nwant %s", fi.Size(), code, len(srv.Requests()), out, errOut, want)
	}

	txt := filepath.Join(dir, "long.txt")
	if err := os.WriteFile(txt, []byte(strings.Repeat("The Supplier shall deliver the Products on time.\n\n", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--context-tokens", "12000", "--max-model-calls", "5", txt)
	if code != 1 || !strings.Contains(out, "failed:    "+txt+": too many model calls: ") || !strings.Contains(out, "over the limit of 5 per document (--max-model-calls raises it)") || len(srv.Requests()) != 0 {
		t.Errorf("a text needing more calls than --max-model-calls: exit %d, %d model calls\n%s", code, len(srv.Requests()), out)
	}
}
