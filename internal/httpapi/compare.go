package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/contractgraph/contractgraph/internal/compare"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// comparePageDefaults are the clause_compare arguments the comparison page
// sets when its query does not: more groups, members and words than the
// tool gives a model.
var comparePageDefaults = map[string]string{"groups": "12", "examples": "6", "outliers": "30", "text_chars": "600"}

// pageCompare is the clause comparison page: the form, and once a clause
// type is chosen clause_compare's groups side by side and its outliers.
func (s *Server) pageCompare(w http.ResponseWriter, r *http.Request) {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			if strings.TrimSpace(v) != "" {
				q.Add(k, v)
			}
		}
	}
	page := web.ComparePage{
		Base:          web.Base{Title: "Compare clauses", Nav: "compare"},
		Query:         q,
		ClauseGroups:  web.ClauseOptions(),
		ContractTypes: contract.ContractTypes,
	}
	status := http.StatusOK
	if q.Get("clause_type") != "" {
		args := url.Values{}
		for k, v := range q {
			args[k] = v
		}
		for k, v := range comparePageDefaults {
			if args.Get(k) == "" {
				args.Set(k, v)
			}
		}
		out, err := s.queryTool(r.Context(), tools.NameClauseCompare, args)
		var argErr *tools.ArgError
		switch {
		case errors.As(err, &argErr):
			status = http.StatusBadRequest
			page.Error = &web.FieldError{Field: argErr.Field, Message: strings.TrimPrefix(argErr.Error(), argErr.Field+": ")}
		case err != nil:
			s.pageFail(w, r, err)
			return
		default:
			var res tools.ClauseCompareResult
			if err := json.Unmarshal(out, &res); err != nil {
				s.pageFail(w, r, fmt.Errorf("decode clause_compare result: %w", err))
				return
			}
			page.Result = comparison(res)
		}
	}
	s.renderResults(w, r, status, web.PageCompare, page)
}

// comparison lays a clause_compare result out for the page: links to each
// clause's span, key terms marked in the words, outliers marked where
// they appear in their groups too.
func comparison(res tools.ClauseCompareResult) *web.Comparison {
	type spanKey struct {
		id         string
		start, end int
		text       string
	}
	keyOf := func(c compare.Clause) spanKey { return spanKey{c.ContractID, c.Start, c.End, c.Text} }
	flagged := map[spanKey]compare.Outlier{}
	for _, o := range res.Outliers {
		flagged[keyOf(o.Clause)] = o
	}
	clause := func(m compare.Member) web.CompareClause {
		v := compareClause(m.Clause)
		v.Similarity = m.Similarity
		if o, ok := flagged[keyOf(m.Clause)]; ok {
			v.Outlier, v.Group, v.Reasons, v.Details = true, o.Group, o.Reasons, o.Details
		}
		return v
	}
	out := &web.Comparison{
		ClauseType: res.ClauseType, TotalContracts: res.TotalContracts, TotalClauses: res.TotalClauses, Compared: res.Compared,
		Threshold: res.Threshold, TotalGroups: res.TotalGroups, TotalOutliers: res.TotalOutliers,
	}
	for _, g := range res.Groups {
		cg := web.CompareGroup{ID: g.ID, Size: g.Size, Contracts: g.Contracts, Cohesion: g.Cohesion, MoreMembers: g.MoreMembers, Representative: clause(g.Representative)}
		cg.Representative.Similarity = 1
		for _, m := range g.Members {
			cg.Members = append(cg.Members, clause(m))
		}
		for _, t := range g.KeyTerms {
			label := t.Kind + " " + compare.FormatValue(t.Median, t.Unit, t.Currency)
			if t.Min != t.Max {
				label = fmt.Sprintf("%s median %s (%s to %s)", t.Kind, compare.FormatValue(t.Median, t.Unit, t.Currency),
					compare.FormatValue(t.Min, t.Unit, t.Currency), compare.FormatValue(t.Max, t.Unit, t.Currency))
			}
			label += fmt.Sprintf(", %d of %d clauses", t.Count, g.Size)
			cg.KeyTerms = append(cg.KeyTerms, web.KeyTerm{Kind: t.Kind, Label: label})
		}
		out.Groups = append(out.Groups, cg)
	}
	for _, o := range res.Outliers {
		v := clause(o.Member)
		v.Similarity = 0 // an outlier is shown for itself, not against a representative
		out.Outliers = append(out.Outliers, v)
	}
	return out
}

// compareClause is one clause with its key terms marked in its words
// (overlapping terms, such as a cap and the amount it restates, share one
// mark) and its link to the contract's text at its span.
func compareClause(c compare.Clause) web.CompareClause {
	v := web.CompareClause{ContractID: c.ContractID, Title: c.Title, Summary: c.Summary, Truncated: c.Truncated}
	if c.End > c.Start {
		v.Href = web.SpanURL(c.ContractID, c.Start, c.End)
	}
	var marks []web.TermMark
	for _, t := range c.Terms {
		label := string(t.Kind) + " " + compare.FormatValue(t.Value, t.Unit, t.Currency)
		v.Terms = append(v.Terms, label)
		start, end := t.Start-c.Start, t.End-c.Start
		if n := len(marks); n > 0 && start < marks[n-1].End {
			marks[n-1].End = max(marks[n-1].End, end)
			marks[n-1].Kind += " " + string(t.Kind)
			marks[n-1].Title += "; " + label
			continue
		}
		marks = append(marks, web.TermMark{Start: start, End: end, Kind: string(t.Kind), Title: label})
	}
	if c.Text != "" {
		v.HTML = web.MarkTerms(c.Text, marks)
	}
	return v
}
