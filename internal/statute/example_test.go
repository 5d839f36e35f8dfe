package statute_test

import (
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/statute"
)

func ExampleParseJSONL() {
	in := `{"id":"/uk/ukpga/1996/23/s9","jurisdiction":"uk","code":"Arbitration Act 1996","number":"9","text":"A party to an arbitration agreement may apply to stay proceedings."}`
	sts, err := statute.ParseJSONL("laws.jsonl", strings.NewReader(in), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sts[0].ID, "—", statute.Cite(&sts[0]))

	_, err = statute.ParseJSONL("bad.jsonl", strings.NewReader(`{"id":"x","jurisdiction":"uk","txt":"typo"}`), nil)
	fmt.Println(err)
	// Output:
	// /uk/ukpga/1996/23/s9 — Arbitration Act 1996 9
	// bad.jsonl: line 1: field "txt": unknown field
}

func ExampleParseUSLM() {
	doc := `<uscDoc xmlns="http://xml.house.gov/schemas/uslm/1.0"><main><title identifier="/us/usc/t9">
<section identifier="/us/usc/t9/s2"><num value="2">§ 2.</num><heading> Validity of agreements to arbitrate</heading>
<content><p>A written provision … shall be valid, irrevocable, and enforceable.</p></content>
<notes><note><p>Editorial note, left out.</p></note></notes></section></title></main></uscDoc>`
	sts, err := statute.ParseUSLM("usc09.xml", strings.NewReader(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	st := sts[0]
	fmt.Println(statute.Cite(&st), "|", st.Heading, "|", st.Text)
	fmt.Println(st.URL)
	// Output:
	// 9 U.S.C. § 2 | Validity of agreements to arbitrate | A written provision … shall be valid, irrevocable, and enforceable.
	// https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2&num=0&edition=prelim
}
