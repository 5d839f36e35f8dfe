package ingest_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// cuadFiles are three small CUAD contracts with a written date, parties and
// (in the first) a governing-law sentence.
var cuadFiles = []string{
	"TRANSMONTAIGNEPARTNERSLLC_03_13_2020-EX-10.9-SERVICES AGREEMENT.txt",
	"BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.txt",
	"XLITECHNOLOGIES,INC_12_02_2015-EX-10.02-STRATEGIC ALLIANCE AGREEMENT.txt",
}

// copyCUAD copies the named CUAD texts into a fresh directory.
func copyCUAD(t *testing.T, names ...string) string {
	t.Helper()
	src := filepath.Join(sharedtest.Dir(t), "data", "cuad", "full_contract_txt")
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Skipf("CUAD text: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// heuristicServer is a fake OpenAI-compatible model that extracts with
// extracttest.Heuristic from the contract text it is sent.
func heuristicServer(t *testing.T) *extracttest.Server {
	return extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		text := req.ContractText()
		return extracttest.JSON(extracttest.Heuristic(text), extract.EstimateTokens(text)+900, 150)
	})
}

func newPipeline(t *testing.T, m llm.Model, store graph.Store, opts ingest.Options) *ingest.Pipeline {
	t.Helper()
	ext, err := extract.New(m, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Model == "" {
		opts.Model = "openai:gpt-fake"
	}
	return ingest.NewPipeline(ingest.NewLoader(ingest.LoaderOptions{}), ext, store, opts)
}

func TestIngestCUADIsVerifiedAndIdempotent(t *testing.T) {
	dir := copyCUAD(t, cuadFiles...)
	store := openStore(t)
	srv := heuristicServer(t)
	p := newPipeline(t, srv.Model(t), store, ingest.Options{Concurrency: 2, Resolve: true})
	ctx := context.Background()

	sum, err := p.Run(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 3 || sum.Failed != 0 || len(srv.Requests()) != 3 {
		t.Fatalf("first run: %+v, %d requests", sum, len(srv.Requests()))
	}
	if sum.Usage.InputTokens == 0 || sum.Resolve == nil {
		t.Errorf("summary lacks usage or resolution: %+v", sum)
	}
	verified := 0
	for _, name := range cuadFiles {
		id := strings.TrimSuffix(name, ".txt")
		c, err := store.GetContract(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if c.ExtractedBy != "openai:gpt-fake" || c.SHA256 == "" || c.Usage == nil || c.Usage.InputTokens == 0 {
			t.Errorf("%s: provenance %q %q %+v", id, c.ExtractedBy, c.SHA256, c.Usage)
		}
		for _, ev := range c.Evidence {
			if !ev.Verified {
				continue
			}
			verified++
			if got := c.Text[ev.Start:ev.End]; got != ev.Quote {
				t.Errorf("%s %s: text at offsets %q != quote %q", id, ev.Field, got, ev.Quote)
			}
			if ev.Field == "effective_date" {
				if d, err := contract.NormalizeDate(ev.Quote); err != nil || d != ev.Value || d != c.EffectiveDate {
					t.Errorf("%s: effective date %q does not point at its words %q", id, ev.Value, ev.Quote)
				}
			}
		}
		for _, cl := range c.Clauses {
			if !cl.Verified || c.Text[cl.Start:cl.End] != cl.Text {
				t.Errorf("%s: clause %s not verified at its offsets", id, cl.Type)
			}
		}
		if len(c.Chunks) < 2 {
			t.Errorf("%s: %d chunks", id, len(c.Chunks))
		}
		for _, ch := range c.Chunks {
			if c.Text[ch.Start:ch.End] != ch.Text {
				t.Errorf("%s: chunk %d text does not match its offsets", id, ch.Ord)
			}
		}
	}
	if verified < 6 {
		t.Errorf("only %d verified evidence values", verified)
	}
	tm, _ := store.GetContract(ctx, strings.TrimSuffix(cuadFiles[0], ".txt"))
	if tm.ContractType != "Service" || tm.GoverningLaw == nil || tm.GoverningLaw.State != "CO" || tm.EffectiveDate != "" {
		t.Errorf("TransMontaigne: type %q law %+v date %q", tm.ContractType, tm.GoverningLaw, tm.EffectiveDate)
	}
	hits, err := store.SearchClauses(ctx, graph.ClauseQuery{Query: "laws of the State of Colorado", Filter: graph.Filter{ContractIDs: []string{tm.ID}}, Limit: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "Colorado") {
		t.Errorf("clause search over the ingested chunks: %v %+v", err, hits)
	}

	// Second run: same bytes, same model: no model call at all.
	sum, err = p.Run(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 3 || sum.OK != 0 || len(srv.Requests()) != 3 {
		t.Fatalf("second run: %+v, %d requests (want no new ones)", sum, len(srv.Requests()))
	}

	// A changed file is extracted again; the others stay unchanged.
	f := filepath.Join(dir, cuadFiles[1])
	data, _ := os.ReadFile(f)
	if err := os.WriteFile(f, append(data, []byte("\nAmended.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err = p.Run(ctx, []string{dir})
	if err != nil || sum.OK != 1 || sum.Unchanged != 2 || len(srv.Requests()) != 4 {
		t.Fatalf("after a change: %v %+v, %d requests", err, sum, len(srv.Requests()))
	}

	// Another model, or --force, extracts again.
	p2 := newPipeline(t, srv.Model(t), store, ingest.Options{Model: "openai:other", Concurrency: 1})
	if sum, err = p2.Run(ctx, []string{dir}); err != nil || sum.OK != 3 {
		t.Fatalf("new model: %v %+v", err, sum)
	}
	p3 := newPipeline(t, srv.Model(t), store, ingest.Options{Model: "openai:other", Force: true})
	if sum, err = p3.Run(ctx, []string{filepath.Join(dir, cuadFiles[2])}); err != nil || sum.OK != 1 || len(srv.Requests()) != 8 {
		t.Fatalf("force: %v %+v %d", err, sum, len(srv.Requests()))
	}
}

// cancelAfter is a model that serves n calls and then cancels the batch,
// as an interrupt (Ctrl-C) would.
type cancelAfter struct {
	model  llm.Model
	n      int32
	calls  atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelAfter) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if c.calls.Add(1) > c.n {
		c.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return c.model.Generate(ctx, req)
}

func TestInterruptedBatchResumes(t *testing.T) {
	dir := copyCUAD(t, cuadFiles...)
	store := openStore(t)
	srv := heuristicServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &cancelAfter{model: srv.Model(t), n: 1, cancel: cancel}
	sum, err := newPipeline(t, m, store, ingest.Options{Concurrency: 1}).Run(ctx, []string{dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if sum.OK != 1 || sum.Failed != 0 {
		t.Fatalf("interrupted run: %+v", sum)
	}
	st, _ := store.Stats(context.Background())
	if st.Nodes["Contract"] != 1 {
		t.Fatalf("contracts after interrupt = %d, want only the finished one", st.Nodes["Contract"])
	}

	sum, err = newPipeline(t, srv.Model(t), store, ingest.Options{Concurrency: 2}).Run(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 1 || sum.OK != 2 || len(srv.Requests()) != 3 {
		t.Fatalf("resumed run: %+v with %d model requests in all (want 3)", sum, len(srv.Requests()))
	}
}

func TestBadFilesFailAloneAndWriteNothing(t *testing.T) {
	dir := copyCUAD(t, cuadFiles[0], cuadFiles[1])
	for name, data := range map[string][]byte{
		"empty.txt":  []byte("  \n"),
		"broken.pdf": []byte("%PDF-1.4 nonsense"),
		"notes.xlsx": []byte("PK"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The model fails for the hosting agreement with a server error.
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		text := req.ContractText()
		if strings.Contains(text, "Premium Managed Hosting") {
			return extracttest.Reply{Status: http.StatusInternalServerError}
		}
		return extracttest.JSON(extracttest.Heuristic(text), 10, 10)
	})
	store := openStore(t)
	sum, err := newPipeline(t, srv.Model(t), store, ingest.Options{}).Run(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 1 || sum.Failed != 3 || sum.Skipped != 1 {
		t.Fatalf("summary = %+v", sum)
	}
	reasons := map[string]string{}
	for _, f := range sum.Files {
		reasons[filepath.Base(f.Path)] = string(f.Status) + ": " + f.Error
	}
	for name, want := range map[string]string{
		"empty.txt":  "failed: " + filepath.Join(dir, "empty.txt") + ": no text",
		"broken.pdf": "failed: " + filepath.Join(dir, "broken.pdf") + ": corrupt",
		"notes.xlsx": "skipped: unsupported file type",
		cuadFiles[1]: "failed: extract: ",
		cuadFiles[0]: "ok: ",
	} {
		if !strings.HasPrefix(reasons[name], want) {
			t.Errorf("%s: %q, want prefix %q", name, reasons[name], want)
		}
	}
	if _, err := store.GetContract(context.Background(), strings.TrimSuffix(cuadFiles[1], ".txt")); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("failed contract was written: %v", err)
	}
}

func TestDuplicateIDsInOneBatch(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/lease.txt", "b/lease.md"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("LEASE AGREEMENT dated March 1, 2020."), 0o644)
	}
	srv := heuristicServer(t)
	sum, err := newPipeline(t, srv.Model(t), openStore(t), ingest.Options{}).Run(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 1 || sum.Failed != 1 || !strings.Contains(sum.Files[1].Error, `contract id "lease" is already taken`) {
		t.Fatalf("summary = %+v", sum)
	}
}

func TestRateLimitedModel(t *testing.T) {
	srv := heuristicServer(t)
	m := ingest.NewRateLimitedModel(srv.Model(t), 0, 600) // 10 tokens a second
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "<contract>\nx\n</contract>" + strings.Repeat("x", 4000)}}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("first call within the burst: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Generate(ctx, req)
	if err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("second call was not held back: %v, %d requests", err, len(srv.Requests()))
	}
}
