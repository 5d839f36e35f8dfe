package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Pages survive re-putting their contract, are replaced by the next
// PutPages and go with the contract's deletion.
func TestContractPages(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	text := "SUPPLY AGREEMENT\f\nThis is made."
	c := &contract.Contract{ID: "scan", Title: "Supply", Text: text, SHA256: "abc"}
	if _, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG fake")
	want := graph.ContractPages{ContractID: "scan", SHA256: "abc", Pages: []contract.Page{
		{Number: 1, Source: contract.PageText, Start: 0, End: 16},
		{Number: 2, Source: contract.PageOCR, Start: 18, End: 31, Confidence: 91.25, Width: 2550, Height: 3300, Image: png,
			Words: []contract.PageWord{{Start: 18, End: 22, X: 300, Y: 400, W: 80, H: 40, Conf: 96.5}, {Start: 23, End: 25, X: 400, Y: 400, W: 30, H: 40, Conf: 88}}},
	}}
	if err := s.PutPages(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pages(ctx, "scan")
	if err != nil {
		t.Fatal(err)
	}
	noImages := want
	noImages.Pages = []contract.Page{want.Pages[0], want.Pages[1]}
	noImages.Pages[1].Image = nil
	if diff := cmp.Diff(&noImages, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if img, err := s.PageImage(ctx, "scan", 2); err != nil || string(img) != string(png) {
		t.Errorf("page 2 image = %q, %v", img, err)
	}
	if _, err := s.PageImage(ctx, "scan", 1); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("text page image: %v, want ErrNotFound", err)
	}
	// A re-put of the contract (new summary) keeps its pages.
	c.Summary = "Cans and cases."
	if _, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Pages(ctx, "scan"); err != nil || len(got.Pages) != 2 {
		t.Errorf("after re-put: %+v, %v", got, err)
	}
	if err := s.PutPages(ctx, graph.ContractPages{ContractID: "scan", SHA256: "def", Pages: want.Pages[:1]}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Pages(ctx, "scan"); err != nil || len(got.Pages) != 1 || got.SHA256 != "def" {
		t.Errorf("after replacing: %+v, %v", got, err)
	}
	if _, err := s.DeleteContracts(ctx, []string{"scan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pages(ctx, "scan"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}
}
