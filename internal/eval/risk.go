package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/risk"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// ReasonCount is how often one reason was given.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// addReason counts reason in rs, keeping rs sorted by count then reason.
func addReason(rs []ReasonCount, reason string, n int) []ReasonCount {
	i := slices.IndexFunc(rs, func(r ReasonCount) bool { return r.Reason == reason })
	if i < 0 {
		rs = append(rs, ReasonCount{Reason: reason})
		i = len(rs) - 1
	}
	rs[i].Count += n
	slices.SortStableFunc(rs, func(a, b ReasonCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return rs
}

// RiskTally counts what the risk review did with its citations and clause
// quotes, for one contract or summed over many.
type RiskTally struct {
	// Proposed counts the distinct citations of every draft
	// (risk.Report.CitationsProposed). Each was kept (in a reported item),
	// removed by the final gate, or dropped before the gate by the review
	// (RemovedInReview: Proposed - Kept - RemovedAtGate, never negative).
	Proposed        int           `json:"citations_proposed"`
	Kept            int           `json:"citations_kept"`
	RemovedInReview int           `json:"citations_removed_in_review"`
	RemovedAtGate   int           `json:"citations_removed_at_gate"`
	GateReasons     []ReasonCount `json:"gate_reasons"`

	// ItemsKept are the reported risk items; ItemsRemoved were left out
	// (clause quote not in the contract, or in batch mode an unknown rule or
	// risk level), by reason.
	ItemsKept    int           `json:"items_kept"`
	ItemsRemoved int           `json:"items_removed"`
	ItemReasons  []ReasonCount `json:"item_reasons"`
	// QuotesVerified counts reported items whose clause quote is what the
	// contract text holds at the item's offsets (ignoring case and runs of
	// white space); QuoteShare is QuotesVerified over every item that got a
	// verdict (kept or removed).
	QuotesVerified int     `json:"clause_quotes_verified"`
	QuoteShare     float64 `json:"clause_quote_share"`
}

func (t *RiskTally) add(o RiskTally) {
	t.Proposed += o.Proposed
	t.Kept += o.Kept
	t.RemovedInReview += o.RemovedInReview
	t.RemovedAtGate += o.RemovedAtGate
	for _, r := range o.GateReasons {
		t.GateReasons = addReason(t.GateReasons, r.Reason, r.Count)
	}
	t.ItemsKept += o.ItemsKept
	t.ItemsRemoved += o.ItemsRemoved
	for _, r := range o.ItemReasons {
		t.ItemReasons = addReason(t.ItemReasons, r.Reason, r.Count)
	}
	t.QuotesVerified += o.QuotesVerified
	t.QuoteShare = ratio(t.QuotesVerified, t.ItemsKept+t.ItemsRemoved)
}

// TallyRisk counts one risk report. Clause quotes are checked against
// rep.ContractText, which a report read back from JSON lacks: run it on the
// report risk.Run returned.
func TallyRisk(rep *risk.Report) RiskTally {
	t := RiskTally{Proposed: rep.CitationsProposed, RemovedAtGate: len(rep.RemovedCitations),
		ItemsKept: len(rep.Items), ItemsRemoved: len(rep.RemovedItems), GateReasons: []ReasonCount{}, ItemReasons: []ReasonCount{}}
	for _, it := range rep.Items {
		t.Kept += len(it.Citations)
		if quoteAt(rep.ContractText, it.ClauseQuote, it.ClauseStart, it.ClauseEnd) {
			t.QuotesVerified++
		}
	}
	t.RemovedInReview = max(0, t.Proposed-t.Kept-t.RemovedAtGate)
	for _, rc := range rep.RemovedCitations {
		t.GateReasons = addReason(t.GateReasons, rc.Reason, 1)
	}
	for _, ri := range rep.RemovedItems {
		t.ItemReasons = addReason(t.ItemReasons, ri.Reason, 1)
	}
	t.QuoteShare = ratio(t.QuotesVerified, t.ItemsKept+t.ItemsRemoved)
	return t
}

// quoteAt reports whether text[start:end] holds quote, as textmatch.Equal
// decides: the span a quote was matched to through curly quotes or
// line-end hyphenation counts as verified.
func quoteAt(text, quote string, start, end int) bool {
	if start < 0 || start >= end || end > len(text) {
		return false
	}
	return textmatch.Equal(text[start:end], quote)
}

// RiskContract is one contract's review.
type RiskContract struct {
	ID string `json:"id"`
	// Error is why the review could not run at all (no text, ...).
	Error            string    `json:"error,omitempty"`
	Partial          bool      `json:"partial"`
	Notices          []string  `json:"notices,omitempty"`
	CitationsChecked bool      `json:"citations_checked"`
	Usage            llm.Usage `json:"usage"`
	Seconds          float64   `json:"seconds"`
	RiskTally
}

// RiskReport is the outcome of RiskEval.
type RiskReport struct {
	Model     string `json:"model,omitempty"`
	Mode      string `json:"mode"` // review or batch
	Contracts int    `json:"contracts"`
	Failed    int    `json:"failed"`  // the review could not run
	Partial   int    `json:"partial"` // partial reports
	// NoStatutes counts reviews that had no statute to check citations
	// against, so that every citation they proposed was removed.
	NoStatutes int `json:"no_statutes"`
	RiskTally
	Usage       llm.Usage      `json:"usage"`
	Seconds     float64        `json:"seconds"`
	PerContract []RiskContract `json:"per_contract"`
}

// RiskProgress reports RiskEval's advance: the pipeline's own progress for
// the contract being reviewed, with its position in the run.
type RiskProgress struct {
	Contract string
	Index    int // 1-based
	Total    int
	risk.Progress
}

// RiskEval runs the risk review on each input in turn and tallies the
// reports. A review that cannot run (invalid input) is counted as failed
// and the run goes on; a cancelled context ends it with the error.
func RiskEval(ctx context.Context, deps risk.Deps, inputs []risk.Input, progress func(RiskProgress)) (*RiskReport, error) {
	rep := &RiskReport{Mode: "review", PerContract: []RiskContract{}, RiskTally: RiskTally{GateReasons: []ReasonCount{}, ItemReasons: []ReasonCount{}}}
	started := time.Now()
	for i, in := range inputs {
		if in.Batch {
			rep.Mode = "batch"
		}
		id := ""
		if in.Contract != nil {
			id = in.Contract.ID
		}
		t0 := time.Now()
		r, err := risk.Run(ctx, deps, in, func(p risk.Progress) {
			if progress != nil {
				progress(RiskProgress{Contract: id, Index: i + 1, Total: len(inputs), Progress: p})
			}
		})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Contracts++
		rc := RiskContract{ID: id, Seconds: time.Since(t0).Seconds()}
		if r == nil {
			if err == nil {
				err = fmt.Errorf("no report")
			}
			rc.Error = err.Error()
			rep.Failed++
			rep.PerContract = append(rep.PerContract, rc)
			continue
		}
		rc.Partial, rc.Notices, rc.CitationsChecked, rc.Usage = r.Partial, r.Notices, r.CitationsChecked, r.Usage
		rc.RiskTally = TallyRisk(r)
		if rc.Partial {
			rep.Partial++
		}
		if !rc.CitationsChecked {
			rep.NoStatutes++
		}
		rep.RiskTally.add(rc.RiskTally)
		rep.Usage = rep.Usage.Add(r.Usage)
		rep.PerContract = append(rep.PerContract, rc)
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep, nil
}

// riskLines are the summary lines both renderings share.
func riskLines(rep *RiskReport) []string {
	t := rep.RiskTally
	lines := []string{
		fmt.Sprintf("Risk review (%s mode%s) of %d contracts: %d partial reports, %d failed, %d without statutes to check citations against",
			rep.Mode, modelSuffix(rep.Model), rep.Contracts, rep.Partial, rep.Failed, rep.NoStatutes),
		fmt.Sprintf("Citations: %d proposed, %d kept, %d removed in review, %d removed by the final gate", t.Proposed, t.Kept, t.RemovedInReview, t.RemovedAtGate),
		fmt.Sprintf("Risk items: %d kept, %d removed; clause quotes verified at their offsets: %d (%s of the items judged)", t.ItemsKept, t.ItemsRemoved, t.QuotesVerified, pct(t.QuoteShare)),
		fmt.Sprintf("Tokens: %d in, %d out; %.1f s", rep.Usage.InputTokens, rep.Usage.OutputTokens, rep.Seconds),
	}
	return lines
}

func modelSuffix(m string) string {
	if m == "" {
		return ""
	}
	return ", model " + m
}

// riskDocument lays out the report for every rendering.
func riskDocument(rep *RiskReport) document {
	d := document{Title: "Risk review citations", Sections: []section{{Paras: riskLines(rep)}}}
	reasons := func(title string, rs []ReasonCount) section {
		sec := section{Title: title, Header: []string{"reason", "count"}}
		for _, r := range rs {
			sec.Rows = append(sec.Rows, []string{r.Reason, fmt.Sprint(r.Count)})
		}
		if len(rs) == 0 {
			sec.Header, sec.Paras = nil, []string{"None."}
		}
		return sec
	}
	d.Sections = append(d.Sections, reasons("Citations removed by the final gate", rep.GateReasons), reasons("Risk items removed", rep.ItemReasons))
	per := section{Title: "Contracts", Header: []string{"contract", "partial", "proposed", "kept", "removed in review", "removed at gate",
		"items kept", "items removed", "clause quotes verified", "tokens in/out", "seconds", "notices"}}
	for _, c := range rep.PerContract {
		if c.Error != "" {
			per.Rows = append(per.Rows, []string{c.ID, "failed", "", "", "", "", "", "", "", "", fmt.Sprintf("%.1f", c.Seconds), c.Error})
			continue
		}
		per.Rows = append(per.Rows, []string{c.ID, yesNo(c.Partial), fmt.Sprint(c.Proposed), fmt.Sprint(c.Kept), fmt.Sprint(c.RemovedInReview),
			fmt.Sprint(c.RemovedAtGate), fmt.Sprint(c.ItemsKept), fmt.Sprint(c.ItemsRemoved), fmt.Sprintf("%d/%d", c.QuotesVerified, c.ItemsKept+c.ItemsRemoved),
			fmt.Sprintf("%d/%d", c.Usage.InputTokens, c.Usage.OutputTokens), fmt.Sprintf("%.1f", c.Seconds), strings.Join(c.Notices, " ")})
	}
	d.Sections = append(d.Sections, per)
	return d
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// WriteRiskText writes the report as plain text with aligned tables.
func WriteRiskText(w io.Writer, rep *RiskReport) error {
	return riskDocument(rep).writeText(w)
}

// WriteRiskMarkdown writes the report as Markdown.
func WriteRiskMarkdown(w io.Writer, rep *RiskReport) error {
	return riskDocument(rep).writeMarkdown(w)
}

// WriteRiskHTML writes the report as a self-contained HTML page.
func WriteRiskHTML(w io.Writer, rep *RiskReport) error {
	return riskDocument(rep).writeHTML(w)
}
