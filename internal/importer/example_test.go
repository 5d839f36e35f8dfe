package importer_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/importer"
)

func ExampleParsePyStringList() {
	spans, err := importer.ParsePyStringList(`['This Agreement is governed by Nevada law.', "Company's liability"]`)
	fmt.Printf("%q %v\n", spans, err)
	// Output: ["This Agreement is governed by Nevada law." "Company's liability"] <nil>
}

func ExampleTitleFromID() {
	fmt.Println(importer.TitleFromID("ACME_01_02_2010-EX-10.1-DISTRIBUTOR AGREEMENT"))
	// Output: Distributor Agreement
}
