package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/compare"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/terms"
)

// NameClauseCompare is the clause comparison tool's name.
const NameClauseCompare = "clause_compare"

const clauseCompareDescription = `Compare one kind of clause across the contracts matching the filters: the clauses of clause_type (a type such as 'Cap On Liability' or a group such as 'Liability & Indemnification') grouped by how alike their wording is, so that "the ways our supply agreements limit liability" is one call. Returns total_contracts and total_clauses (every match), compared (how many clauses were grouped: the first max_clauses, newest contracts first), total_groups and groups (largest first), each with id, size, contracts, cohesion (mean similarity, 0..1), representative (the clause most like the others), members (the others most alike first, up to examples), more_members and key_terms (per kind of term: amount, duration, notice, cap, percent, with unit or currency: count, median, min, max); then total_outliers, outlier_reasons (counts) and up to outliers outliers (those of groups first), each with its group and reasons: unique (like no other clause), loosely_grouped, far_term (a key term more than 5 times from its group's median). Every clause has contract_id, title, clause_type, text, start/end byte offsets in the contract text, and its key terms with their offsets. Takes the same filters as contract_search.`

var clauseCompareCompact = Compact{
	Description: `Compare one clause type across contracts: groups by wording (representative clause, key terms such as caps) and outliers.`,
	Tune: func(s *jsonschema.Schema) {
		property(s, "contract_type").Description = "as listed in contract_search"
		for _, name := range filterNames {
			if name != "parties" && name != "contract_type" {
				delete(s.Properties, name)
			}
		}
		for _, name := range compareTuning {
			delete(s.Properties, name)
		}
	},
}

// compareTuning are clause_compare's arguments that its compact schema
// leaves out: their defaults suit a small model's question.
var compareTuning = []string{"threshold", "max_clauses", "groups", "examples", "outliers", "text_chars"}

// Bounds of clause_compare.
var (
	// CompareClauseLimits bound how many clauses one call groups.
	CompareClauseLimits = graph.Limit{Default: 500, Max: 1000}
	// CompareGroupLimits bound how many groups a result lists.
	CompareGroupLimits = graph.Limit{Default: 5, Max: 50}
	// CompareExampleLimits bound how many members each group lists
	// besides its representative.
	CompareExampleLimits = graph.Limit{Default: 2, Max: 20}
	// CompareTextLimits bound the characters of each clause's text a
	// result shows.
	CompareTextLimits = graph.Limit{Default: 300, Max: 4000}
	// CompareOutlierLimits bound how many outliers a result lists.
	CompareOutlierLimits = graph.Limit{Default: 10, Max: 100}
)

// ClauseCompareInput is the input of clause_compare.
type ClauseCompareInput struct {
	ClauseType string `json:"clause_type" jsonschema:"The clause type or group to compare, e.g. 'Cap On Liability' or 'Liability & Indemnification' (every type of the group)." compact:"clause type or group, e.g. Cap On Liability"`
	Filters
	Threshold  float64 `json:"threshold,omitempty" jsonschema:"How alike (0..1, default 0.3) two groups' clauses must be on average to be merged: higher gives more, tighter groups."`
	MaxClauses int     `json:"max_clauses,omitempty" jsonschema:"How many clauses to compare at most, from the newest contracts; total_clauses counts every match."`
	Groups     int     `json:"groups,omitempty" jsonschema:"How many groups to list; total_groups counts them all."`
	Examples   int     `json:"examples,omitempty" jsonschema:"How many members to show per group besides its representative; more_members counts the rest."`
	Outliers   int     `json:"outliers,omitempty" jsonschema:"How many outliers to list; total_outliers counts them all."`
	TextChars  int     `json:"text_chars,omitempty" jsonschema:"How many characters of each clause's text to show (cut at a word, with truncated set); start and end always span the whole clause."`
}

// ClauseCompareResult is clause_compare's answer.
type ClauseCompareResult struct {
	ClauseType string `json:"clause_type"`
	// TotalContracts counts the contracts matching the filters that have
	// such a clause; TotalClauses their clauses of the type, Compared how
	// many of those were grouped.
	TotalContracts int             `json:"total_contracts"`
	TotalClauses   int             `json:"total_clauses"`
	Compared       int             `json:"compared"`
	Threshold      float64         `json:"threshold"`
	TotalGroups    int             `json:"total_groups"`
	Groups         []ComparedGroup `json:"groups"`
	TotalOutliers  int             `json:"total_outliers"`
	// OutlierReasons counts the outliers by reason (an outlier may have
	// two), the ones not listed too.
	OutlierReasons map[string]int    `json:"outlier_reasons"`
	Outliers       []compare.Outlier `json:"outliers"`
	// PartyMatches is as in graph.ContractResult.
	PartyMatches []graph.PartyMatch `json:"party_matches,omitempty"`
}

// ComparedGroup is one group of a clause_compare result, its members cut
// to the examples asked for.
type ComparedGroup struct {
	compare.Group
	MoreMembers int `json:"more_members"`
}

func tuneClauseCompare(s *jsonschema.Schema) {
	tuneFilters(s)
	setEnum(s, "clause_type", contract.ClauseTypeNames())
	property(s, "clause_type").MinLength = new(1)
	p := property(s, "threshold")
	lo, hi := 0.05, 1.0
	p.Minimum, p.Maximum = &lo, &hi
	setDefault(s, "threshold", compare.DefaultThreshold)
	setRange(s, "max_clauses", 1, float64(CompareClauseLimits.Max), CompareClauseLimits.Default)
	setRange(s, "groups", 1, float64(CompareGroupLimits.Max), CompareGroupLimits.Default)
	setRange(s, "examples", 1, float64(CompareExampleLimits.Max), CompareExampleLimits.Default)
	setRange(s, "text_chars", 1, float64(CompareTextLimits.Max), CompareTextLimits.Default)
	setRange(s, "outliers", 1, float64(CompareOutlierLimits.Max), CompareOutlierLimits.Default)
}

// compareQuery is a validated clause_compare call.
type compareQuery struct {
	typ, group string // group is set when typ names a whole group
	filter     graph.Filter
	threshold  float64
	limit      int
	groups     int
	examples   int
	outliers   int
	textChars  int
}

func (s *Set) compareQuery(in ClauseCompareInput) (compareQuery, error) {
	var q compareQuery
	if strings.TrimSpace(in.ClauseType) == "" {
		return q, &ArgError{Field: "clause_type", Msg: "missing: give the clause type or group to compare, e.g. 'Cap On Liability'", Valid: contract.ClauseTypeNames()}
	}
	typ, group, err := contract.ParseClauseType(in.ClauseType)
	if err != nil {
		return q, &ArgError{Field: "clause_type", Msg: fmt.Sprintf("unknown clause type %q", in.ClauseType), Valid: contract.ClauseTypeNames()}
	}
	q.typ = typ
	if contract.IsClauseGroup(typ) {
		q.group = group
	}
	if q.filter, err = s.filter(in.Filters); err != nil {
		return q, err
	}
	if !slices.Contains(q.filter.ClauseTypes, typ) {
		q.filter.ClauseTypes = append(q.filter.ClauseTypes, typ)
	}
	switch th := in.Threshold; {
	case th == 0:
		q.threshold = compare.DefaultThreshold
	case th >= 0.05 && th <= 1:
		q.threshold = th
	default:
		return q, &ArgError{Field: "threshold", Msg: fmt.Sprintf("%v is out of range: give 0.05 to 1", th)}
	}
	if q.limit, err = parseBound("max_clauses", in.MaxClauses, CompareClauseLimits); err != nil {
		return q, err
	}
	if q.groups, err = parseBound("groups", in.Groups, CompareGroupLimits); err != nil {
		return q, err
	}
	if q.examples, err = parseBound("examples", in.Examples, CompareExampleLimits); err != nil {
		return q, err
	}
	if q.outliers, err = parseBound("outliers", in.Outliers, CompareOutlierLimits); err != nil {
		return q, err
	}
	if q.textChars, err = parseBound("text_chars", in.TextChars, CompareTextLimits); err != nil {
		return q, err
	}
	return q, nil
}

// ClauseCompare runs clause_compare: it reads the clauses of the type
// from the contracts the filters match (composing contract search and
// GetContract, so every backend serves it), extracts their key terms and
// groups them (compare.Cluster).
func (s *Set) ClauseCompare(ctx context.Context, in ClauseCompareInput) (ClauseCompareResult, error) {
	if s.store == nil {
		return ClauseCompareResult{}, errNoStore
	}
	q, err := s.compareQuery(in)
	if err != nil {
		return ClauseCompareResult{}, err
	}
	var matches []graph.PartyMatch
	if q.filter, matches, err = s.resolveParties(ctx, q.filter); err != nil {
		return ClauseCompareResult{}, fmt.Errorf("%s: %w", NameClauseCompare, err)
	}
	res := ClauseCompareResult{ClauseType: q.typ, Threshold: q.threshold, PartyMatches: matches}
	var clauses []compare.Clause
	// A store that counts the clauses is read only for the ones compared;
	// another has every matching contract read for the count.
	counter, counts := s.store.(graph.ClauseCounter)
	err = s.contractsOf(ctx, q.filter, &res.TotalContracts, func(c *contract.Contract) bool {
		for _, cl := range c.Clauses {
			if !q.matches(cl) {
				continue
			}
			res.TotalClauses++
			if len(clauses) < q.limit {
				clauses = append(clauses, compareClause(c, cl))
			}
		}
		return counts && len(clauses) >= q.limit
	})
	if err != nil {
		return ClauseCompareResult{}, fmt.Errorf("%s: %w", NameClauseCompare, err)
	}
	if counts && len(clauses) >= q.limit {
		if res.TotalClauses, err = counter.CountClauses(ctx, q.filter, q.typ); err != nil {
			return ClauseCompareResult{}, fmt.Errorf("%s: %w", NameClauseCompare, err)
		}
	}
	res.Compared = len(clauses)
	grouped, err := compare.Cluster(ctx, clauses, compare.Options{Threshold: q.threshold})
	if err != nil {
		return ClauseCompareResult{}, fmt.Errorf("%s: %w", NameClauseCompare, err)
	}
	res.TotalGroups, res.TotalOutliers = len(grouped.Groups), len(grouped.Outliers)
	res.Groups = make([]ComparedGroup, 0, min(q.groups, len(grouped.Groups)))
	for _, g := range grouped.Groups[:min(q.groups, len(grouped.Groups))] {
		cg := ComparedGroup{Group: g, MoreMembers: max(0, len(g.Members)-q.examples)}
		cg.Members = g.Members[:min(q.examples, len(g.Members))]
		cg.Representative.Clause = cutText(cg.Representative.Clause, q.textChars)
		for i := range cg.Members {
			cg.Members[i].Clause = cutText(cg.Members[i].Clause, q.textChars)
		}
		res.Groups = append(res.Groups, cg)
	}
	res.OutlierReasons = map[string]int{}
	for _, o := range grouped.Outliers {
		for _, r := range o.Reasons {
			res.OutlierReasons[r]++
		}
	}
	res.Outliers = grouped.Outliers[:min(q.outliers, len(grouped.Outliers))]
	for i := range res.Outliers {
		res.Outliers[i].Clause = cutText(res.Outliers[i].Clause, q.textChars)
	}
	return res, nil
}

// matches reports whether cl is of the compared type, or in the compared
// group, as the clause_types filter that selects the contracts reads a
// clause (and graph.ClauseCounter counts them): by its stored type, or for
// a group its stored type or group (a clause stored without a group has
// its type's).
func (q compareQuery) matches(cl contract.Clause) bool {
	if q.group != "" {
		return cl.Type == q.group || cl.Group == q.group
	}
	return cl.Type == q.typ
}

// compareBatch is how many contracts a clause_compare reads per search.
const compareBatch = 50

// contractsOf calls fn with every contract f matches (newest first, then
// by id), up to the deepest page contract search reaches or until fn
// returns true, and sets total to their number.
func (s *Set) contractsOf(ctx context.Context, f graph.Filter, total *int, fn func(*contract.Contract) bool) error {
	for offset := 0; offset <= graph.MaxOffset; offset += compareBatch {
		page, err := s.store.SearchContracts(ctx, graph.ContractQuery{Filter: f, OrderBy: graph.OrderEffectiveDate, Desc: true, Limit: compareBatch, Offset: offset})
		if err != nil {
			return err
		}
		*total = page.TotalCount
		for _, ex := range page.Examples {
			c, err := s.store.GetContract(ctx, ex.ContractID)
			if err != nil {
				return err
			}
			if fn(c) {
				return nil
			}
		}
		if len(page.Examples) < compareBatch || offset+compareBatch >= page.TotalCount {
			return nil
		}
	}
	return nil
}

// compareClause is cl of c as compared: its span only when it is
// verified and slices c's text, its key terms with offsets in that text.
func compareClause(c *contract.Contract, cl contract.Clause) compare.Clause {
	out := compare.Clause{ContractID: c.ID, Title: c.Title, ClauseID: cl.ID, ClauseType: cl.Type, Text: cl.Text, Verified: cl.Verified}
	if cl.Text == "" {
		out.Summary = cl.Summary
	}
	located := cl.Verified && cl.Start >= 0 && cl.End > cl.Start && cl.End <= len(c.Text)
	if located {
		out.Start, out.End = cl.Start, cl.End
		out.Text = c.Text[cl.Start:cl.End]
	} else {
		out.Verified = false
	}
	out.Terms = terms.Extract(out.Passage())
	if out.Terms == nil {
		out.Terms = []terms.Term{}
	}
	for i := range out.Terms {
		out.Terms[i].Start += out.Start
		out.Terms[i].End += out.Start
	}
	return out
}

// cutText shortens c's text to about n characters at a word boundary.
func cutText(c compare.Clause, n int) compare.Clause {
	if utf8.RuneCountInString(c.Text) <= n {
		return c
	}
	cut := len(c.Text)
	for i := range c.Text {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	if sp := strings.LastIndexAny(c.Text[:cut], " \n\t"); sp > cut/2 {
		cut = sp
	}
	c.Text = strings.TrimRight(c.Text[:cut], " \n\t") + "…"
	c.Truncated = true
	return c
}
