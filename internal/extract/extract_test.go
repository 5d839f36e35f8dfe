package extract_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/llm"
)

const supplyText = `SUPPLY AGREEMENT

This Supply Agreement (the "Agreement") is entered into as of March 1, 2019 (the "Effective Date") by and between Acme Widgets, Inc., a Delaware corporation with offices at 100 Main Street, Wilmington, Delaware ("Supplier"), and Beta Retail LLC, a New York limited liability company ("Customer").

1. TERM. This Agreement shall continue for a period of two (2) years from the Effective Date and shall renew automatically for successive one (1) year terms unless either party gives ninety (90) days' written notice of non-renewal.

2. PRICE. Customer shall pay Supplier a total of $250,000 for the Products.

3. GOVERNING LAW. This Agreement shall be governed by the laws of the State of New York.

4. LIMITATION OF LIABILITY. In no event shall either party's aggregate liability exceed the fees paid under this Agreement.
`

// good is a realistic, correct structured reply for supplyText.
func good() extract.Extraction {
	return extract.Extraction{
		Summary:       "Acme Widgets supplies products to Beta Retail for two years.",
		ContractType:  extract.Value{Value: "Supply", Evidence: "SUPPLY AGREEMENT"},
		EffectiveDate: extract.Value{Value: "March 1, 2019", Evidence: "entered into as of March 1, 2019"},
		Duration:      extract.Value{Value: "P2Y", Evidence: "shall continue for a period of two (2) years from the Effective Date"},
		RenewalTerm:   extract.Value{Value: "P1Y", Evidence: "shall renew automatically for successive one (1) year terms"},
		NoticePeriod:  extract.Value{Value: "ninety (90) days", Evidence: "ninety (90) days' written notice of non-renewal"},
		RenewalKind:   extract.Value{Value: "automatic", Evidence: "shall renew automatically for successive one (1) year terms unless either party gives ninety (90) days' written notice of non-renewal"},
		TotalAmount:   extract.Value{Value: "250000", Evidence: "a total of $250,000"},
		Currency:      extract.Value{Value: "USD", Evidence: "$250,000"},
		Scope:         extract.Value{Value: "Supply of Products.", Evidence: "for the Products"},
		GoverningLaw:  extract.GoverningLaw{Country: "United States", State: "New York", Evidence: "This Agreement shall be governed by the laws of the State of New York."},
		Parties: []extract.Party{
			{Name: "Acme Widgets, Inc.", Role: "Supplier", Location: extract.PartyLocation{Address: "100 Main Street", City: "Wilmington", State: "Delaware", Country: "USA"}, Evidence: "Acme Widgets, Inc."},
			{Name: "Beta Retail LLC", Role: "Customer", Location: extract.PartyLocation{State: "New York"}, Evidence: "Beta Retail LLC"},
		},
		Clauses: []extract.ClauseValue{
			{ClauseType: "Governing Law", Text: "This Agreement shall be governed by the laws of the State of New York.", Summary: "New York law governs."},
			// Whitespace and case differ from the text: located, then stored verbatim.
			{ClauseType: "Cap On Liability", Text: "in no event shall either party's aggregate liability   exceed the fees paid under this Agreement.", Summary: "Liability capped at fees paid."},
		},
	}
}

func newExtractor(t *testing.T, m llm.Model, opts extract.Options) *extract.Extractor {
	t.Helper()
	e, err := extract.New(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func evidenceFor(c *contract.Contract, field string) (contract.Evidence, bool) {
	for _, e := range c.Evidence {
		if e.Field == field {
			return e, true
		}
	}
	return contract.Evidence{}, false
}

func TestExtractThroughOpenAIServer(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return extracttest.JSON(good(), 1200, 300)
	})
	e := newExtractor(t, srv.Model(t), extract.Options{})
	res, err := e.Extract(context.Background(), "supply-1", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contract
	amount, days := 250000.0, 730
	want := &contract.Contract{
		ID: "supply-1", Title: "SUPPLY AGREEMENT",
		Summary:       "Acme Widgets supplies products to Beta Retail for two years.",
		ContractType:  "Supply",
		EffectiveDate: "2019-03-01", EndDate: "2021-03-01", Duration: "P2Y", DurationDays: &days,
		RenewalTerm: "P1Y", NoticePeriod: "P90D", RenewalKind: contract.RenewalAutomatic, TotalAmount: &amount, Currency: "USD",
		Scope:        "Supply of Products.",
		GoverningLaw: &contract.Location{Country: "US", State: "NY"},
		Parties: []contract.PartyRole{
			{Name: "Acme Widgets, Inc.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "DE", City: "Wilmington", Address: "100 Main Street"}},
			{Name: "Beta Retail LLC", Role: "Customer", Location: &contract.Location{Country: "US", State: "NY"}},
		},
		Usage: &contract.TokenUsage{InputTokens: 1200, OutputTokens: 300},
	}
	if diff := cmp.Diff(want, c, cmpIgnoreBulk()); diff != "" {
		t.Errorf("contract (-want +got):\n%s", diff)
	}
	if c.Text != supplyText {
		t.Error("contract text is not the document text")
	}
	// Every evidence quote was found; its offsets select exactly the quote.
	for _, ev := range c.Evidence {
		if !ev.Verified || supplyText[ev.Start:ev.End] != ev.Quote {
			t.Errorf("evidence %+v not verified at its offsets", ev)
		}
	}
	ev, _ := evidenceFor(c, "effective_date")
	if ev.Value != "2019-03-01" || !strings.Contains(ev.Quote, "March 1, 2019") {
		t.Errorf("effective_date evidence = %+v", ev)
	}
	if len(c.Clauses) != 2 {
		t.Fatalf("clauses = %+v", c.Clauses)
	}
	cap := c.Clauses[1]
	if !cap.Verified || cap.Group != contract.GroupLiability || cap.Text != supplyText[cap.Start:cap.End] ||
		!strings.HasPrefix(cap.Text, "In no event shall either party's aggregate liability exceed") {
		t.Errorf("cap clause = %+v", cap)
	}
	if res.Calls != 1 || len(res.Warnings) != 0 {
		t.Errorf("calls %d warnings %v", res.Calls, res.Warnings)
	}
	// The request carried the schema with the taxonomies and the contract.
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].ResponseFormat == nil || reqs[0].ResponseFormat.JSONSchema.Name != "contract_extraction" {
		t.Fatalf("request response_format = %+v", reqs[0].ResponseFormat)
	}
	schema := string(reqs[0].ResponseFormat.JSONSchema.Schema)
	for _, s := range []string{`"Non Compete/Solicit"`, `"Uncapped Liability"`, `"evidence"`} {
		if !strings.Contains(schema, s) {
			t.Errorf("schema lacks %s", s)
		}
	}
	if reqs[0].ContractText() != supplyText {
		t.Error("request does not carry the contract text verbatim")
	}
}

func cmpIgnoreBulk() cmp.Option {
	return cmp.FilterPath(func(p cmp.Path) bool {
		switch p.String() {
		case "Text", "Evidence", "Clauses":
			return true
		}
		return false
	}, cmp.Ignore())
}

func TestEvidenceNotInTextIsUnverified(t *testing.T) {
	x := good()
	x.EffectiveDate.Evidence = "effective from the first of March 2019" // a paraphrase
	x.Clauses[0].Text = "The laws of New York govern this contract."    // not in the text
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply { return extracttest.JSON(x, 10, 10) })
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contract
	ev, ok := evidenceFor(c, "effective_date")
	if !ok || ev.Verified || ev.Value != "2019-03-01" || ev.Start != 0 || ev.End != 0 {
		t.Errorf("effective_date evidence = %+v, want kept unverified", ev)
	}
	if c.EffectiveDate != "2019-03-01" {
		t.Errorf("value dropped: %q", c.EffectiveDate)
	}
	if cl := c.Clauses[0]; cl.Verified || cl.Text != "The laws of New York govern this contract." {
		t.Errorf("unlocatable clause = %+v", cl)
	}
	if res.Calls != 1 {
		t.Errorf("calls = %d: unverified evidence must not cost a repair round", res.Calls)
	}
}

func TestInvalidDateRepaired(t *testing.T) {
	bad := good()
	bad.EffectiveDate = extract.Value{Value: "February 30, 2019", Evidence: "March 1, 2019"}
	bad.Parties = append(bad.Parties, extract.Party{Name: "Franchisee", Role: "Franchisee"})
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.JSON(bad, 100, 50)
		}
		return extracttest.JSON(good(), 150, 60)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2 (one repair round)", len(reqs))
	}
	repair := reqs[1].Last()
	for _, s := range []string{"effective_date", "February 30, 2019", `parties[2].name: "Franchisee" is a role word`} {
		if !strings.Contains(repair, s) {
			t.Errorf("repair prompt lacks %q:\n%s", s, repair)
		}
	}
	if got := reqs[1].Messages[len(reqs[1].Messages)-2]; got.Role != "assistant" || !strings.Contains(got.Content, "February 30") {
		t.Errorf("repair conversation does not show the model its reply: %+v", got)
	}
	if res.Contract.EffectiveDate != "2019-03-01" || len(res.Contract.Parties) != 2 {
		t.Errorf("repaired contract: date %q parties %d", res.Contract.EffectiveDate, len(res.Contract.Parties))
	}
	if u := res.Contract.Usage; u.InputTokens != 250 || u.OutputTokens != 110 {
		t.Errorf("usage = %+v, want both calls counted", u)
	}
}

func TestStillInvalidAfterRepairDropsValue(t *testing.T) {
	bad := good()
	bad.EndDate = extract.Value{Value: "the 45th of Smarch", Evidence: "x"}
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply { return extracttest.JSON(bad, 1, 1) })
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 2 {
		t.Errorf("calls = %d, want exactly one repair round", res.Calls)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "end_date:") {
		t.Errorf("warnings = %v", res.Warnings)
	}
	// The invalid end date is dropped; the one derived from the duration stands.
	if res.Contract.EndDate != "2021-03-01" {
		t.Errorf("end_date = %q", res.Contract.EndDate)
	}
}

func TestTruncatedReplyRepaired(t *testing.T) {
	full := extracttest.JSON(good(), 10, 10).Content
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.Reply{Content: full[:len(full)/2], FinishReason: "length", InputTokens: 10, OutputTokens: 8192}
		}
		return extracttest.Reply{Content: full, InputTokens: 20, OutputTokens: 10}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Last(), "not valid") {
		t.Fatalf("want a repair request naming the JSON error, got %d requests", len(reqs))
	}
	if res.Contract.ContractType != "Supply" {
		t.Errorf("contract type = %q", res.Contract.ContractType)
	}
}

func TestTruncatedTwiceFails(t *testing.T) {
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply {
		return extracttest.Reply{Content: `{"summary": "cut`, FinishReason: "length"}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	var perr *llm.ParseError
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v, want *llm.ParseError", err)
	}
	if res.Calls != 2 {
		t.Errorf("calls = %d", res.Calls)
	}
}

func TestRateLimitedThenServed(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"}
		}
		return extracttest.JSON(good(), 5, 5)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 2 || res.Calls != 1 {
		t.Errorf("server saw %d requests, extractor made %d calls; want 2 and 1", len(srv.Requests()), res.Calls)
	}
}

func TestRateLimitedPersistently(t *testing.T) {
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply {
		return extracttest.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"}
	})
	_, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if !errors.Is(err, llm.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
}

func TestLongDocumentExtractedInParts(t *testing.T) {
	// Pad the contract so that it needs several parts of a small budget.
	filler := strings.Repeat("The parties shall cooperate in good faith in all matters under this Agreement.\n\n", 400)
	text := supplyText + "\n" + filler + "5. NOTICES. Notices go to Gamma Holdings Ltd., the Supplier's agent.\n"
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		part := req.ContractText()
		x := extract.Extraction{Parties: []extract.Party{}, Clauses: []extract.ClauseValue{}}
		if strings.Contains(part, "SUPPLY AGREEMENT") {
			x = good()
		}
		if strings.Contains(part, "Gamma Holdings") {
			x.Parties = append(x.Parties,
				extract.Party{Name: "Gamma Holdings Ltd.", Role: "Agent", Evidence: "Gamma Holdings Ltd."},
				extract.Party{Name: "ACME WIDGETS INC", Role: "", Evidence: "Acme Widgets, Inc."})
			x.GoverningLaw = extract.GoverningLaw{Country: "UK", Evidence: "not in the text"}
		}
		return extracttest.JSON(x, 100, 10)
	})
	e := newExtractor(t, srv.Model(t), extract.Options{ContextTokens: 4000, MaxOutputTokens: 500})
	res, err := e.Extract(context.Background(), "long", text)
	if err != nil {
		t.Fatal(err)
	}
	if res.Parts < 3 || len(srv.Requests()) != res.Parts {
		t.Fatalf("parts = %d, requests = %d", res.Parts, len(srv.Requests()))
	}
	// The parts together cover the text, in order, without overlap.
	var joined strings.Builder
	for _, r := range srv.Requests() {
		joined.WriteString(r.ContractText())
		if !strings.Contains(r.Messages[0].Content, "You see part") {
			t.Error("system prompt does not say it is a part")
		}
	}
	if joined.String() != text {
		t.Error("parts do not reassemble the document")
	}
	var names []string
	for _, p := range res.Contract.Parties {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"Acme Widgets, Inc.", "Beta Retail LLC", "Gamma Holdings Ltd."}, names); diff != "" {
		t.Errorf("merged parties (-want +got):\n%s", diff)
	}
	if g := res.Contract.GoverningLaw; g == nil || g.State != "NY" {
		t.Errorf("governing law = %+v, want the first part's", g)
	}
	if res.Contract.Usage.InputTokens != 100*res.Parts {
		t.Errorf("usage = %+v", res.Contract.Usage)
	}
}

// TestGarbageReplyClippedInRepair: a runaway reply many times the echo limit that is
// not JSON is quoted in the repair request only clipped, so the repair
// round costs kilobytes, not another copy of the garbage.
func TestGarbageReplyClippedInRepair(t *testing.T) {
	var garbage strings.Builder
	for i := 0; garbage.Len() < 3*llm.MaxRepairEcho; i++ {
		fmt.Fprintf(&garbage, "%x ", sha256.Sum256([]byte(strconv.Itoa(i))))
	}
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.Reply{Content: garbage.String(), InputTokens: 10, OutputTokens: 10}
		}
		return extracttest.JSON(good(), 20, 10)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the extraction and one repair", len(reqs))
	}
	echoed := reqs[1].Messages[len(reqs[1].Messages)-2].Content
	if len(echoed) > llm.MaxRepairEcho+100 || !strings.Contains(echoed, "bytes of the reply left out") || !strings.HasPrefix(echoed, garbage.String()[:1000]) {
		t.Errorf("repair request quotes %d bytes of the %d-byte reply", len(echoed), garbage.Len())
	}
	if res.Contract.ContractType != "Supply" {
		t.Errorf("contract type = %q", res.Contract.ContractType)
	}
}

// TestMaxCallsStopsRepair: once a document's model calls are spent, no
// repair round starts; the document fails saying which limit stopped it.
func TestMaxCallsStopsRepair(t *testing.T) {
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply {
		return extracttest.Reply{Content: `{"summary": "cut`, FinishReason: "length"}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{MaxCalls: 1}).Extract(context.Background(), "s", supplyText)
	if err == nil || !strings.Contains(err.Error(), "the document's limit of 1 model calls was reached") || res.Calls != 1 || len(srv.Requests()) != 1 {
		t.Errorf("Extract = %v after %d calls, want no repair past the limit of 1", err, len(srv.Requests()))
	}
}
