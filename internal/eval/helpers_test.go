package eval

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/demo"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

var (
	refOnce sync.Once
	refPath string
	refErr  error
)

// referenceTools returns the real tools over a SQLite store of the shared
// contract_data.json (510 contracts), built once for the package.
func referenceTools(t *testing.T) *tools.Set {
	t.Helper()
	shared := sharedtest.Dir(t)
	refOnce.Do(func() {
		ctx := context.Background()
		refPath = filepath.Join(pkgDir, "reference.db")
		st, err := sqlite.Open(refPath)
		if err != nil {
			refErr = err
			return
		}
		defer st.Close()
		var all []*contract.Contract
		src := filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json")
		if refErr = importer.Read(ctx, src, importer.Options{}, func(r importer.Record) error {
			if r.Err != nil {
				return r.Err
			}
			all = append(all, r.Contract)
			return nil
		}); refErr != nil {
			return
		}
		outs, err := st.PutContracts(ctx, all)
		if err != nil {
			refErr = err
			return
		}
		for _, o := range outs {
			if o.Status == graph.PutFailed {
				refErr = o.Err
				return
			}
		}
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	st, err := sqlite.Open(refPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return tools.New(st, tools.Options{Now: func() time.Time { return today }})
}

var today = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

var (
	demoOnce sync.Once
	demoPath string
	demoErr  error
)

// demoTools returns the real tools over a real SQLite store holding the
// demo corpus as `contractgraph demo` builds it (shared by the tests, read
// only).
func demoTools(t *testing.T) *tools.Set {
	t.Helper()
	demoOnce.Do(func() {
		dir, err := tempDirForPackage()
		if err != nil {
			demoErr = err
			return
		}
		demoPath = filepath.Join(dir, "demo.db")
		st, err := sqlite.Open(demoPath)
		if err != nil {
			demoErr = err
			return
		}
		defer st.Close()
		_, demoErr = demo.Build(context.Background(), st, demo.Options{})
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	st, err := sqlite.Open(demoPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return tools.New(st, tools.Options{Now: func() time.Time { return today }})
}

// devQuestions reads the shared dev question set.
func devQuestions(t *testing.T) []Question {
	t.Helper()
	qs, err := ReadQuestionFile(filepath.Join(sharedtest.Dir(t), "questions", "dev_questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return qs
}
