package main

import (
	"encoding/json"
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

	out, _, code = runContractgraph(t, "", "--db", db, "tools", "call", "clause_search", `{"query":"governed by the laws of the State of Colorado","limit":1}`)
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
	out, _, _ = runContractgraph(t, "", "--db", db, "tools", "call", "party_search", `{"name":"wately"}`)
	if !strings.Contains(out, `"name":"A.B. Watley, Inc.","aliases":["AB Wately, Inc."]`) {
		t.Errorf("merged spelling is not an alias of the canonical party: %s", out)
	}
	db2 := filepath.Join(t.TempDir(), "g2.db")
	out, _, code = runContractgraph(t, "", "--db", db2, "import", "--no-resolve", ref)
	if code != 0 || strings.Contains(out, "entity resolution") {
		t.Errorf("--no-resolve: %d %q", code, out)
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
