package retrieve_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

var (
	cuadAll   = flag.Bool("cuad-recall", false, "measure clause-search recall@5 on all shared CUAD contracts (slow)")
	cuadChunk = flag.Int("cuad-chunk", retrieve.DefaultMaxChunkBytes, "max chunk bytes for the CUAD recall measurement")
)

type span struct{ start, end int }

// cuadSpans reads the derived span offsets: file -> category -> spans.
func cuadSpans(t testing.TB, path string) map[string]map[string][]span {
	f, err := os.Open(path)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	out := map[string]map[string][]span{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			File      string `json:"file"`
			Category  string `json:"category"`
			ByteStart int    `json:"byte_start"`
			ByteEnd   int    `json:"byte_end"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if out[r.File] == nil {
			out[r.File] = map[string][]span{}
		}
		out[r.File][r.Category] = append(out[r.File][r.Category], span{r.ByteStart, r.ByteEnd})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// cuadQueries builds one query per category from its CUAD description:
// "Governing Law: Which state/country's law governs the interpretation of
// the contract?"
func cuadQueries(t testing.TB, path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(data), "\ufeff")))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, rec := range recs[1:] {
		cat := strings.TrimSpace(strings.TrimPrefix(rec[0], "Category:"))
		desc := strings.TrimSpace(strings.TrimPrefix(rec[1], "Description:"))
		// The descriptions and the spans spell some names differently
		// ("Cap on Liability", "Cap On Liability"): key by the canonical name.
		typ, _, err := contract.ParseClauseType(cat)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[typ] = cat + ": " + desc
	}
	return out
}

// TestCUADClauseSearchRecall measures recall@5 of BM25 clause search: for
// each CUAD contract and each category annotated in it, the query built
// from the category's description, restricted to that contract, must
// return among its first five passages one that overlaps an annotated span
// of that category. The contracts are stored with text and chunks only (no
// clauses), as raw ingested documents are. By default a sample of 8
// contracts is measured (3 under -race); -cuad-recall measures all of
// them.
func TestCUADClauseSearchRecall(t *testing.T) {
	shared := sharedtest.Dir(t)
	cuad := filepath.Join(shared, "data", "cuad")
	spans := cuadSpans(t, filepath.Join(cuad, "cuad_spans_derived.jsonl"))
	queries := cuadQueries(t, filepath.Join(cuad, "category_descriptions.csv"))
	if len(queries) != 41 {
		t.Fatalf("%d category descriptions, want 41", len(queries))
	}
	files := make([]string, 0, len(spans))
	for f := range spans {
		files = append(files, f)
	}
	sort.Strings(files)
	sample := 8
	if raceEnabled {
		sample = 3
	}
	if !*cuadAll && len(files) > sample {
		files = files[:sample]
	}
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "cuad.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var batch []*contract.Contract
	chunks := 0
	started := time.Now()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(cuad, "full_contract_txt", f))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		c := &contract.Contract{ID: cuadID(f), Text: text, Chunks: retrieve.Chunk(text, retrieve.ChunkOptions{Max: *cuadChunk})}
		chunks += len(c.Chunks)
		batch = append(batch, c)
		if len(batch) == 50 {
			putBatch(t, store, batch)
			batch = nil
		}
	}
	putBatch(t, store, batch)
	stored := time.Since(started)
	started = time.Now()

	type tally struct{ hits, total int }
	perCat := map[string]*tally{}
	var all tally
	for _, f := range files {
		id := cuadID(f)
		for cat, ss := range spans[f] {
			typ, _, err := contract.ParseClauseType(cat)
			if err != nil {
				t.Fatalf("span category: %v", err)
			}
			q, ok := queries[typ]
			if !ok {
				t.Fatalf("span category %q has no description", cat)
			}
			hits, err := store.SearchClauses(ctx, graph.ClauseQuery{Query: q, Filter: graph.Filter{ContractIDs: []string{id}}, Limit: 5})
			if err != nil {
				t.Fatalf("%s / %s: %v", id, cat, err)
			}
			hit := false
			for _, h := range hits {
				for _, s := range ss {
					if h.Start < s.end && s.start < h.End {
						hit = true
					}
				}
			}
			if perCat[cat] == nil {
				perCat[cat] = &tally{}
			}
			perCat[cat].total++
			all.total++
			if hit {
				perCat[cat].hits++
				all.hits++
			}
		}
	}
	cats := make([]string, 0, len(perCat))
	for c := range perCat {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var table strings.Builder
	fmt.Fprintf(&table, "| category | queries | recall@5 |\n|---|---:|---:|\n")
	for _, c := range cats {
		fmt.Fprintf(&table, "| %s | %d | %.3f |\n", c, perCat[c].total, float64(perCat[c].hits)/float64(perCat[c].total))
	}
	recall := float64(all.hits) / float64(all.total)
	t.Logf("BM25 clause search on %d CUAD contracts (%d chunks, max %d bytes): %d queries, recall@5 = %.3f (stored in %s, queried in %s)\n%s",
		len(files), chunks, *cuadChunk, all.total, recall, stored.Round(time.Millisecond), time.Since(started).Round(time.Millisecond), table.String())
	if recall < 0.5 {
		t.Errorf("recall@5 = %.3f, below 0.5", recall)
	}
}

func putBatch(t *testing.T, s graph.Store, cs []*contract.Contract) {
	t.Helper()
	if len(cs) == 0 {
		return
	}
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status == graph.PutFailed {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
}

// cuadID is the contract id of a CUAD file, as ingest derives it.
func cuadID(file string) string { return strings.TrimSpace(strings.TrimSuffix(file, ".txt")) }
