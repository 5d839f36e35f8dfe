package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
)

func Example() {
	dir, err := os.MkdirTemp("", "contractgraph-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := sqlite.Open(filepath.Join(dir, "graph.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	ctx := context.Background()
	amount := 250000.0
	out, err := s.PutContracts(ctx, []*contract.Contract{
		{ID: "acme-beta-supply", ContractType: "Supply", EffectiveDate: "2019-10-15", TotalAmount: &amount,
			Parties: []contract.PartyRole{{Name: "Acme Corp.", Role: "Supplier"}, {Name: "Beta GmbH", Role: "Buyer"}}},
		{ID: "acme-gamma-license", ContractType: "License Agreement", EffectiveDate: "2018-03-01",
			Parties: []contract.PartyRole{{Name: "ACME Corporation", Role: "Licensor"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range out {
		fmt.Println(o.ID, o.Status)
	}

	// "ACME Corporation" is Acme Corp. under another spelling.
	r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Parties: []string{"acme corp"}}, Limit: 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.TotalCount, r.Examples[0].ContractID, r.Examples[1].ContractID)
	// Output:
	// acme-beta-supply created
	// acme-gamma-license created
	// 2 acme-beta-supply acme-gamma-license
}
