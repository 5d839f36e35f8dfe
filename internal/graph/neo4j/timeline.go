package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.DeadlineSearcher = (*Store)(nil)

// addTimeline sets a contract node's renewal properties and the bounds of
// its deadlines (graph.DeadlineBounds), which date-range queries test
// before working the dates out in Go.
func addTimeline(props map[string]any, c *contract.Contract) {
	setString(props, "renewal_kind", c.RenewalKind)
	setString(props, "termination_notice", c.TerminationNotice)
	if c.RenewalCount != 0 {
		props["renewal_count"] = int64(c.RenewalCount)
	}
	first, last := graph.DeadlineBounds(c)
	setString(props, "deadline_first", first)
	setString(props, "deadline_last", last)
}

// readTimeline fills c's renewal fields from its node's properties.
func readTimeline(cm map[string]any, c *contract.Contract) {
	c.RenewalKind = getString(cm, "renewal_kind")
	c.TerminationNotice = getString(cm, "termination_notice")
	c.RenewalCount = int(getInt(cm, "renewal_count"))
}

// timelineInRange keeps the contracts whose stored bounds reach the range
// $from..$to.
const timelineInRange = "c.deadline_first <= $to AND (c.deadline_last IS NULL OR c.deadline_last >= $from)"

// noticeCandidatesCypher reads the timelines that can have a notice
// deadline from $from to $to.
const noticeCandidatesCypher = `MATCH (c:Contract) WHERE c.renewal_kind IN $kinds AND c.notice_period IS NOT NULL AND ` + timelineInRange + `
RETURN c.id AS id, c.end_date AS end_date, c.renewal_kind AS renewal_kind, c.renewal_term AS renewal_term,
	c.notice_period AS notice_period, c.renewal_count AS renewal_count, c.unverified_fields AS unverified_fields`

func noticeCandidates(lo, hi string) statement {
	return statement{Cypher: noticeCandidatesCypher, Params: map[string]any{
		"kinds": []any{contract.RenewalAutomatic, contract.RenewalOption, contract.RenewalEvergreen}, "from": lo, "to": hi,
	}}
}

// resolveFilter replaces f's notice-deadline range, which Cypher cannot
// roll forward term by term, by the contracts graph.HasNoticeDeadline
// finds among the candidates (graph.Filter.WithNoticeMatches); a filter
// without one is returned as it is.
func (s *Store) resolveFilter(ctx context.Context, f graph.Filter) (graph.Filter, error) {
	lo, hi, ok := f.NoticeRange()
	if !ok {
		return f, nil
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, noticeCandidates(lo, hi))
	if err != nil {
		return graph.Filter{}, fmt.Errorf("notice deadlines: %w", err)
	}
	ids := []string{}
	for _, r := range recs {
		m := r.AsMap()
		c := &contract.Contract{ID: getString(m, "id"), EndDate: getString(m, "end_date"), RenewalKind: getString(m, "renewal_kind"),
			RenewalTerm: getString(m, "renewal_term"), NoticePeriod: getString(m, "notice_period"), RenewalCount: int(getInt(m, "renewal_count"))}
		if graph.HasNoticeDeadline(f.Facts(c, unverifiedFields(m)), lo, hi) {
			ids = append(ids, c.ID)
		}
	}
	return f.WithNoticeMatches(ids), nil
}

// compileDeadlineCandidates reads the timelines, evidence and parties of
// the contracts q.Filter keeps whose bounds reach q's range.
func compileDeadlineCandidates(q graph.DeadlineQuery) (statement, error) {
	p := params{}
	cf, err := compileFilter(p, q.Filter, summaryAsCondition)
	if err != nil {
		return statement{}, err
	}
	p["from"], p["to"] = q.From, q.To
	cypher := cf.prelude + cf.source + cf.where(timelineInRange) +
		` RETURN c.id AS id, c.title AS title, c.effective_date AS effective_date, c.end_date AS end_date,
	c.renewal_kind AS renewal_kind, c.renewal_term AS renewal_term, c.notice_period AS notice_period,
	c.renewal_count AS renewal_count, c.termination_notice AS termination_notice, c.evidence AS evidence,
	c.unverified_fields AS unverified_fields,
	[(:Party)-[r:PARTY_TO]->(c) | [r.ord, r.name]] AS parties`
	return statement{Cypher: cypher, Params: p}, nil
}

// unverifiedFields reads a record's unverified_fields as a list for
// graph.Filter.Facts.
func unverifiedFields(m map[string]any) []contract.Unverified {
	var out []contract.Unverified
	for _, f := range getStrings(m, "unverified_fields") {
		out = append(out, contract.Unverified{Field: f})
	}
	return out
}

// SearchDeadlines answers deadline_search: the candidates' timelines are
// read in one statement and their deadlines worked out by
// graph.CollectDeadlines, as the embedded store does.
func (s *Store) SearchDeadlines(ctx context.Context, q graph.DeadlineQuery) (graph.DeadlineResult, error) {
	fail := func(err error) (graph.DeadlineResult, error) {
		return graph.DeadlineResult{}, fmt.Errorf("search deadlines: %w", err)
	}
	if err := q.Check(); err != nil {
		return fail(err)
	}
	limit, err := q.EffectiveLimit()
	if err != nil {
		return fail(err)
	}
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return fail(err)
	}
	st, err := compileDeadlineCandidates(q)
	if err != nil {
		return fail(err)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, st)
	if err != nil {
		return fail(err)
	}
	cands := make([]*contract.Contract, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		c := &contract.Contract{ID: getString(m, "id"), Title: getString(m, "title"), EffectiveDate: getString(m, "effective_date"),
			EndDate: getString(m, "end_date"), RenewalKind: getString(m, "renewal_kind"), RenewalTerm: getString(m, "renewal_term"),
			NoticePeriod: getString(m, "notice_period"), RenewalCount: int(getInt(m, "renewal_count")),
			TerminationNotice: getString(m, "termination_notice")}
		if ev := getString(m, "evidence"); ev != "" {
			var all []contract.Evidence
			if err := json.Unmarshal([]byte(ev), &all); err != nil {
				return fail(fmt.Errorf("contract %q evidence: %w", c.ID, err))
			}
			for _, e := range all {
				if slices.Contains(contract.TimelineFields, e.Field) {
					c.Evidence = append(c.Evidence, e)
				}
			}
		}
		type party struct {
			ord  int64
			name string
		}
		var ps []party
		for _, v := range asSlice(m["parties"]) {
			pair := asSlice(v)
			if len(pair) != 2 {
				continue
			}
			ord, _ := pair[0].(int64)
			name, _ := pair[1].(string)
			ps = append(ps, party{ord, name})
		}
		slices.SortFunc(ps, func(a, b party) int { return int(a.ord - b.ord) })
		for _, p := range ps {
			c.Parties = append(c.Parties, contract.PartyRole{Name: p.name})
		}
		cands = append(cands, q.Facts(c, unverifiedFields(m)))
	}
	res, err := graph.CollectDeadlines(cands, q, limit, nil)
	if err != nil {
		return fail(err)
	}
	return res, nil
}
