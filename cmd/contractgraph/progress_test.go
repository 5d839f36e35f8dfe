package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
)

func TestMain(m *testing.M) {
	// Commands under test write stderr to files, where a progress bar
	// prints a line every logEvery: keep what they print independent of
	// how long they take on a loaded machine.
	logEvery = time.Hour
	os.Exit(m.Run())
}

// TestProgressBarLogsToFile checks the plain lines a bar prints to a file
// (a log or a pipe): none for a phase shorter than its interval, then one per
// interval and a last one at 100%, never a carriage return.
func TestProgressBarLogsToFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := newProgressBar(f, false)
	p.every = 10 * time.Second
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return clock }

	p.start("quick")
	p.update(1, 2, 1)
	clock = clock.Add(p.every / 2)
	p.update(2, 2, 2)
	p.clear()

	p.startUnit("slow", "parties")
	for i := int64(1); i <= 30; i++ {
		clock = clock.Add(time.Second)
		p.update(i, 30, int(i))
	}
	p.update(30, 30, 30)
	p.clear()

	p.start("quiet")
	p2 := newProgressBar(f, true)
	p2.start("json")
	clock = clock.Add(time.Minute)
	p2.update(1, 1, 1)

	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := "slow:  33% (10 parties)\nslow:  66% (20 parties)\nslow: 100% (30 parties)\n"
	if string(got) != want {
		t.Errorf("log lines = %q, want %q", got, want)
	}
}

// batchCounter is a real store that records the size of each batch the
// import writes.
type batchCounter struct {
	graph.Store
	sizes []int
}

func (b *batchCounter) PutContracts(ctx context.Context, cs []*contract.Contract) ([]graph.PutOutcome, error) {
	b.sizes = append(b.sizes, len(cs))
	return b.Store.PutContracts(ctx, cs)
}

// TestImportBatchesBoundedByText checks that a batch ends at
// importBatchBytes of text even when it holds fewer than importBatch
// contracts, and that every contract is still written.
func TestImportBatchesBoundedByText(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "long.jsonl")
	var b strings.Builder
	text := strings.Repeat("The Licensee shall pay the fees within thirty days. ", 400) // ~20 KB
	for i := range 50 {
		line, err := json.Marshal(map[string]any{"id": fmt.Sprintf("long-%02d", i), "title": "Long agreement", "text": text})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { importBatchBytes = n }(importBatchBytes)
	importBatchBytes = 10 * len(text) // chunks double each text: ~5 contracts a batch

	st, err := sqlite.Open(filepath.Join(dir, "cg.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	store := &batchCounter{Store: st}
	errs, err := newErrorLog(10, "")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runImport(context.Background(), store, []string{src}, importer.Options{}, errs, newProgressBar(io.Discard, true), func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 50 || sum.Failed != 0 {
		t.Fatalf("imported %d, failed %d (%v); want 50, 0", sum.Imported, sum.Failed, sum.Failures)
	}
	total := 0
	for _, n := range store.sizes {
		total += n
		if n > 6 {
			t.Errorf("a batch of %d contracts of ~%d KB each: the text bound %d did not end it", n, 2*len(text)/1000, importBatchBytes)
		}
	}
	if total != 50 || len(store.sizes) < 8 {
		t.Errorf("batches %v: want 50 contracts in at least 8 batches", store.sizes)
	}
}

// logSnapshotter is a real store that records, before each batch it
// writes, what the progress log held.
type logSnapshotter struct {
	graph.Store
	log    string
	before []string
}

func (s *logSnapshotter) PutContracts(ctx context.Context, cs []*contract.Contract) ([]graph.PutOutcome, error) {
	got, err := os.ReadFile(s.log)
	if err != nil {
		return nil, err
	}
	s.before = append(s.before, string(got))
	return s.Store.PutContracts(ctx, cs)
}

// TestImportProgressCountsWrittenContracts checks that an import's bar
// follows the contracts written, not those read: it is not at 100% while
// the last batch is still to be written, and it ends at 100% with every
// contract counted.
func TestImportProgressCountsWrittenContracts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "many.jsonl")
	var b strings.Builder
	for i := range 40 {
		line, err := json.Marshal(map[string]any{"id": fmt.Sprintf("c-%02d", i), "title": "Supply agreement", "contract_type": "Supply"})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { importBatch = n }(importBatch)
	importBatch = 10

	logPath := filepath.Join(dir, "progress.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bar := newProgressBar(f, false)
	bar.every = 0 // a line for every update

	st, err := sqlite.Open(filepath.Join(dir, "cg.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	store := &logSnapshotter{Store: st, log: logPath}
	errs, err := newErrorLog(10, "")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runImport(context.Background(), store, []string{src}, importer.Options{}, errs, bar, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 40 || len(store.before) != 4 {
		t.Fatalf("imported %d in %d batches, want 40 in 4", sum.Imported, len(store.before))
	}
	for i, before := range store.before {
		if strings.Contains(before, "100%") {
			t.Errorf("before batch %d of 4 was written, the log already said:\n%s", i+1, before)
		}
	}
	got, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if want := src + ": 100% (40 contracts)\n"; !strings.HasSuffix(string(got), want) {
		t.Errorf("log ends %q, want it to end %q", got, want)
	}
}
