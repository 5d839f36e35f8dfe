package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.DeadlineSearcher = (*Store)(nil)

// insTimelineSQL writes a contract's contract_timelines row.
const insTimelineSQL = `INSERT INTO contract_timelines(contract_pk, renewal_kind, renewal_count, termination_notice, deadline_first, deadline_last, end_date, renewal_term, notice_period) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

// putTimeline writes c's renewal fields and deadline bounds, when it has
// any (a contract without an end date or renewal facts has no row).
func (w *writer) putTimeline(ctx context.Context, pk int64, p *graph.Prepared) error {
	c := p.Contract
	first, last := p.DeadlineBounds()
	if first == "" && c.RenewalKind == "" && c.RenewalCount == 0 && c.TerminationNotice == "" {
		return nil
	}
	var count any
	if c.RenewalCount != 0 {
		count = c.RenewalCount
	}
	if err := w.exec(ctx, "insTimeline", pk, null(c.RenewalKind), count, null(c.TerminationNotice), null(first), null(last),
		null(c.EndDate), null(c.RenewalTerm), null(c.NoticePeriod)); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// loadTimeline fills c's renewal kind, limit and termination notice.
func loadTimeline(ctx context.Context, tx queryer, pk int64, c *contract.Contract) error {
	var kind, tfc sql.NullString
	var count sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT renewal_kind, renewal_count, termination_notice FROM contract_timelines WHERE contract_pk = ?`, pk).
		Scan(&kind, &count, &tfc)
	switch {
	case err == sql.ErrNoRows:
		return nil
	case err != nil:
		return fmt.Errorf("timeline: %w", err)
	}
	c.RenewalKind, c.RenewalCount, c.TerminationNotice = kind.String, int(count.Int64), tfc.String
	return nil
}

// timelineColumns are read by scanTimeline: what working out a deadline
// needs of a contract (the title, evidence and parties of the ones
// returned are read after).
const timelineColumns = `c.pk, c.id, t.end_date, t.renewal_kind, t.renewal_term, t.notice_period, t.renewal_count, t.termination_notice, c.unverified`

// timelineFrom joins contracts to their timelines.
const timelineFrom = ` FROM contract_timelines t JOIN contracts c ON c.pk = t.contract_pk`

// timelineScanFrom is timelineFrom read in the order of the contracts
// rather than through the index of the first deadlines.
const timelineScanFrom = ` FROM contract_timelines t NOT INDEXED JOIN contracts c ON c.pk = t.contract_pk`

// minTimelineProbe is the fewest timelines with a first deadline in reach
// for which timelineSource reads the table in order.
var minTimelineProbe int64 = 1000

// timelineSource picks how the timelines whose first deadline is at most
// to are read. The index of the first deadlines pays only for a range that
// ends before most timelines begin: for the usual range (the coming
// months) nearly every timeline begins before it, and reading them through
// the index costs a lookup of the timeline and of its contract in random
// order each, three times the cost of reading the table in order (1.8 s
// against 0.6 s for the 259,000 timelines a quarter of 2024 reaches in a
// store of 1,000,000). The probe counts at most a sixteenth of the
// timelines' index entries; the timelines number at most the largest
// contract pk. conformance_test.go lowers minTimelineProbe to 0 to read
// the small stores of the tests in order too.
func timelineSource(ctx context.Context, q querier, to string) (string, error) {
	var maxPK sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(contract_pk) FROM contract_timelines`).Scan(&maxPK); err != nil {
		return "", fmt.Errorf("count timelines: %w", err)
	}
	limit := max(maxPK.Int64/16, minTimelineProbe)
	var n int64
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM contract_timelines WHERE deadline_first <= ? LIMIT ?)`, to, limit).Scan(&n); err != nil {
		return "", fmt.Errorf("count timelines: %w", err)
	}
	if n < limit {
		return timelineFrom, nil
	}
	return timelineScanFrom, nil
}

// timelineInRange keeps the timelines whose bounds reach the range; it
// takes the range's end and then its start.
const timelineInRange = `t.deadline_first <= ? AND (t.deadline_last IS NULL OR t.deadline_last >= ?)`

// scanTimeline reads a contract's timeline as f's queries see it
// (graph.Filter.Facts: unverified values left out unless f includes them).
func scanTimeline(r rowScanner, f graph.Filter) (int64, *contract.Contract, error) {
	var pk, mask int64
	var c contract.Contract
	var end, kind, term, notice, tfc sql.NullString
	var count sql.NullInt64
	if err := r.Scan(&pk, &c.ID, &end, &kind, &term, &notice, &count, &tfc, &mask); err != nil {
		return 0, nil, err
	}
	c.EndDate, c.RenewalKind = end.String, kind.String
	c.RenewalTerm, c.NoticePeriod, c.RenewalCount, c.TerminationNotice = term.String, notice.String, int(count.Int64), tfc.String
	return pk, f.Facts(&c, maskFields(mask)), nil
}

// noticeCondition resolves a notice-deadline range: the timelines whose
// bounds can reach it are read and tested in Go (graph.HasNoticeDeadline),
// and the condition keeps the contracts that pass.
func noticeCondition(ctx context.Context, q querier, f graph.Filter, lo, hi string) (string, []any, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+timelineColumns+timelineFrom+` WHERE t.renewal_kind IN (?, ?, ?) AND t.notice_period IS NOT NULL AND `+timelineInRange,
		contract.RenewalAutomatic, contract.RenewalOption, contract.RenewalEvergreen, hi, lo)
	if err != nil {
		return "", nil, fmt.Errorf("notice deadlines: %w", err)
	}
	defer rows.Close()
	pks := []int64{}
	for rows.Next() {
		pk, c, err := scanTimeline(rows, f)
		if err != nil {
			return "", nil, fmt.Errorf("notice deadlines: %w", err)
		}
		if graph.HasNoticeDeadline(c, lo, hi) {
			pks = append(pks, pk)
		}
	}
	if err := rows.Err(); err != nil {
		return "", nil, fmt.Errorf("notice deadlines: %w", err)
	}
	b, _ := json.Marshal(pks) // a slice of integers always encodes
	return "c.pk IN (SELECT value FROM json_each(?))", []any{string(b)}, nil
}

// SearchDeadlines answers deadline_search: the timelines of the contracts
// q.Filter keeps whose bounds reach the range are read in one transaction,
// their deadlines worked out by graph.CollectDeadlines, and the evidence
// and parties of the page's contracts added.
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
	var res graph.DeadlineResult
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		w, err := compileFilter(ctx, tx, q.Filter)
		if err != nil {
			return err
		}
		w.add(timelineInRange, q.To, q.From)
		from, err := timelineSource(ctx, tx, q.To)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+timelineColumns+from+w.sql(), w.args...)
		if err != nil {
			return err
		}
		var cands []*contract.Contract
		var pks []int64
		for rows.Next() {
			pk, c, err := scanTimeline(rows, q.Filter)
			if err != nil {
				rows.Close()
				return err
			}
			cands = append(cands, c)
			pks = append(pks, pk)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// The returned deadlines cite evidence, read for their contracts only.
		byID := map[string]int64{}
		res, err = graph.CollectDeadlines(cands, q, limit, func(page []int) error {
			for _, i := range page {
				byID[cands[i].ID] = pks[i]
			}
			return loadTimelineEvidence(ctx, tx, cands, page, pks)
		})
		if err != nil {
			return err
		}
		return addDeadlineContracts(ctx, tx, res.Deadlines, byID)
	})
	if err != nil {
		return fail(err)
	}
	return res, nil
}

// loadTimelineEvidence adds to the candidates page (indexes into cands,
// whose pks are pks) the evidence of their timeline fields.
func loadTimelineEvidence(ctx context.Context, tx *sql.Tx, cands []*contract.Contract, page []int, pks []int64) error {
	if len(page) == 0 {
		return nil
	}
	want := make([]int64, 0, len(page))
	byPK := make(map[int64]*contract.Contract, len(page))
	for _, i := range page {
		want = append(want, pks[i])
		byPK[pks[i]] = cands[i]
	}
	b, _ := json.Marshal(want)
	fields := `'` + strings.Join(contract.TimelineFields, `', '`) + `'` // constants, no quotes in them
	return eachRow(ctx, tx, `SELECT contract_pk, field, value, quote, start, "end", verified FROM evidence
		WHERE contract_pk IN (SELECT value FROM json_each(?)) AND field IN (`+fields+`) ORDER BY contract_pk, ord`,
		[]any{string(b)}, func(r *sql.Rows) error {
			var pk int64
			var e contract.Evidence
			var value sql.NullString
			if err := r.Scan(&pk, &e.Field, &value, &e.Quote, &e.Start, &e.End, &e.Verified); err != nil {
				return err
			}
			e.Value = value.String
			byPK[pk].Evidence = append(byPK[pk].Evidence, e)
			return nil
		})
}

// addDeadlineContracts adds each deadline's contract title and party
// names, in contract order.
func addDeadlineContracts(ctx context.Context, tx *sql.Tx, ds []graph.DeadlineHit, byID map[string]int64) error {
	names := map[int64][]string{}
	titles := map[int64]string{}
	for i := range ds {
		pk := byID[ds[i].ContractID]
		if _, done := names[pk]; !done {
			var title sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT title FROM contract_details WHERE contract_pk = ?`, pk).Scan(&title); err != nil {
				return fmt.Errorf("title: %w", err)
			}
			titles[pk] = title.String
			list := []string{}
			err := eachRow(ctx, tx, `SELECT name FROM contract_parties WHERE contract_pk = ? ORDER BY ord`, []any{pk}, func(r *sql.Rows) error {
				var n string
				if err := r.Scan(&n); err != nil {
					return err
				}
				list = append(list, n)
				return nil
			})
			if err != nil {
				return fmt.Errorf("parties: %w", err)
			}
			names[pk] = list
		}
		ds[i].Parties, ds[i].Title = names[pk], titles[pk]
	}
	return nil
}
