package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Default and maximum result sizes. A zero Limit means the default; the
// tools layer normally fills it in.
const (
	defaultContractLimit  = 5
	maxContractLimit      = 50
	defaultAggregateLimit = 10
	maxAggregateLimit     = 100
	defaultPartyLimit     = 10
	maxPartyLimit         = 50
	defaultClauseLimit    = 5
	maxClauseLimit        = 50
)

func limit(n, def, maxN int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > maxN:
		return 0, fmt.Errorf("limit %d out of range 1..%d", n, maxN)
	}
	return n, nil
}

// orderColumns is the allow-list of contract orderings.
var orderColumns = map[string]string{
	graph.OrderEffectiveDate: "c.effective_date",
	graph.OrderEndDate:       "c.end_date",
	graph.OrderTotalAmount:   "c.total_amount",
	graph.OrderDurationDays:  "c.duration_days",
	graph.OrderPartyCount:    "c.party_count",
}

// validNames lists a map's keys for error messages.
func validNames[V any](m map[string]V) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// readTx runs fn in one read-only transaction, so that the queries of one
// answer (a count and its examples) see the same snapshot.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// SearchContracts counts the contracts matching q and returns the first
// q.Limit of them in q's order (nulls last, then id ascending).
func (s *Store) SearchContracts(ctx context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	res := graph.ContractResult{Examples: []graph.ContractSummary{}}
	n, err := limit(q.Limit, defaultContractLimit, maxContractLimit)
	if err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	orderBy := q.OrderBy
	desc := q.Desc
	if orderBy == "" {
		orderBy, desc = graph.OrderEffectiveDate, true
	}
	col, ok := orderColumns[orderBy]
	if !ok {
		return res, fmt.Errorf("search contracts: unknown order_by %q; valid values: %s", q.OrderBy, validNames(orderColumns))
	}
	w, err := compileFilter(q.Filter)
	if err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	// SQLite sorts NULL first ascending and last descending; NULLS LAST
	// makes both directions put missing values last.
	order := col + " ASC NULLS LAST"
	if desc {
		order = col + " DESC"
	}
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM contracts c`+w.sql(), w.args...).Scan(&res.TotalCount); err != nil {
			return fmt.Errorf("count: %w", err)
		}
		if res.TotalCount == 0 {
			return nil
		}
		var pks []int64
		args := append(append([]any{}, w.args...), n)
		err := eachRow(ctx, tx, `SELECT `+contractColumns+` FROM `+contractFrom+w.sql()+
			` ORDER BY `+order+`, c.id ASC LIMIT ?`, args, func(r *sql.Rows) error {
			pk, c, err := scanContract(r)
			if err != nil {
				return err
			}
			pks = append(pks, pk)
			res.Examples = append(res.Examples, graph.ContractSummary{
				ContractID: c.ID, Title: c.Title, ContractType: c.ContractType, Summary: c.Summary, Scope: c.Scope,
				EffectiveDate: c.EffectiveDate, EndDate: c.EndDate, Duration: c.Duration, DurationDays: c.DurationDays,
				TotalAmount: c.TotalAmount, Currency: c.Currency, GoverningLaw: c.GoverningLaw,
				Parties: []graph.PartyRef{}, ClauseTypes: []string{},
			})
			return nil
		})
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		return fillSummaries(ctx, tx, pks, res.Examples)
	})
	if err != nil {
		return graph.ContractResult{}, fmt.Errorf("search contracts: %w", err)
	}
	return res, nil
}

// fillSummaries adds parties and clause types to the examples, whose
// contract pks are pks.
func fillSummaries(ctx context.Context, tx *sql.Tx, pks []int64, ex []graph.ContractSummary) error {
	if len(pks) == 0 {
		return nil
	}
	idx := make(map[int64]int, len(pks))
	args := make([]any, len(pks))
	for i, pk := range pks {
		idx[pk] = i
		args[i] = pk
	}
	in := placeholders(len(pks))
	err := eachRow(ctx, tx, `SELECT cp.contract_pk, cp.name, cp.role, cp.country FROM contract_parties cp
		WHERE cp.contract_pk IN (`+in+`) ORDER BY cp.contract_pk, cp.ord`, args, func(r *sql.Rows) error {
		var pk int64
		var p graph.PartyRef
		var role, country sql.NullString
		if err := r.Scan(&pk, &p.Name, &role, &country); err != nil {
			return err
		}
		p.Role, p.Country = role.String, country.String
		e := &ex[idx[pk]]
		e.Parties = append(e.Parties, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("parties: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT DISTINCT contract_pk, type FROM clauses WHERE contract_pk IN (`+in+`)
		ORDER BY contract_pk, type`, args, func(r *sql.Rows) error {
		var pk int64
		var t string
		if err := r.Scan(&pk, &t); err != nil {
			return err
		}
		e := &ex[idx[pk]]
		e.ClauseTypes = append(e.ClauseTypes, t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("clause types: %w", err)
	}
	return nil
}

// grouping is how one group_by value finds its keys: extra joins onto
// contracts c and the key expression. multi groupings can put a contract
// in several groups (or one group several times), so rows are made distinct.
type grouping struct {
	join  string
	key   string
	multi bool
}

// groupings is the allow-list of aggregate groupings.
var groupings = map[string]grouping{
	graph.GroupContractType:     {key: "c.contract_type"},
	graph.GroupEffectiveYear:    {key: "substr(c.effective_date, 1, 4)"},
	graph.GroupEffectiveMonth:   {key: "substr(c.effective_date, 1, 7)"},
	graph.GroupEffectiveQuarter: {key: "substr(c.effective_date, 1, 4) || '-Q' || ((CAST(substr(c.effective_date, 6, 2) AS INTEGER) + 2) / 3)"},
	graph.GroupEndYear:          {key: "substr(c.end_date, 1, 4)"},
	graph.GroupParty: {
		join: " JOIN contract_parties gcp ON gcp.contract_pk = c.pk JOIN parties gp ON gp.pk = gcp.party_pk",
		key:  "gp.name", multi: true,
	},
	graph.GroupPartyCountry: {
		join: " JOIN contract_parties gcp ON gcp.contract_pk = c.pk",
		key:  "gcp.country", multi: true,
	},
	graph.GroupGoverningLawCountry: {join: " JOIN locations gl ON gl.pk = c.governing_law_pk", key: "gl.country"},
	graph.GroupGoverningLawState:   {join: " JOIN locations gl ON gl.pk = c.governing_law_pk", key: "gl.state"},
	graph.GroupClauseType: {
		join: " JOIN clauses gcl ON gcl.contract_pk = c.pk",
		key:  "gcl.type", multi: true,
	},
}

// metrics is the allow-list of aggregate metrics over the columns amount
// and days of a group's distinct contracts.
var metrics = map[string]string{
	graph.MetricCount:           "count(*)",
	graph.MetricSumAmount:       "sum(amount)",
	graph.MetricAvgAmount:       "avg(amount)",
	graph.MetricMinAmount:       "min(amount)",
	graph.MetricMaxAmount:       "max(amount)",
	graph.MetricAvgDurationDays: "avg(days)",
	graph.MetricMinDurationDays: "min(days)",
	graph.MetricMaxDurationDays: "max(days)",
}

// AggregateContracts groups the contracts matching q and measures each
// group; see graph.AggregateQuery. Without GroupBy there is always exactly
// one group, "all", even when no contract matches.
func (s *Store) AggregateContracts(ctx context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	res := graph.AggregateResult{Groups: []graph.Group{}}
	n, err := limit(q.Limit, defaultAggregateLimit, maxAggregateLimit)
	if err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	metricName := q.Metric
	if metricName == "" {
		metricName = graph.MetricCount
	}
	metric, ok := metrics[metricName]
	if !ok {
		return res, fmt.Errorf("aggregate contracts: unknown metric %q; valid values: %s", q.Metric, validNames(metrics))
	}
	g := grouping{key: "'all'"}
	if q.GroupBy != "" {
		if g, ok = groupings[q.GroupBy]; !ok {
			return res, fmt.Errorf("aggregate contracts: unknown group_by %q; valid values: %s", q.GroupBy, validNames(groupings))
		}
	}
	w, err := compileFilter(q.Filter)
	if err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	if q.GroupBy != "" {
		w.add(g.key + " IS NOT NULL AND " + g.key + " <> ''")
	}
	distinct := ""
	if g.multi {
		distinct = "DISTINCT "
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	query := `WITH g AS (SELECT ` + distinct + g.key + ` AS k, c.pk AS pk, c.total_amount AS amount, c.duration_days AS days
			FROM contracts c` + g.join + w.sql() + `),
		agg AS (SELECT k, count(*) AS n, ` + metric + ` AS v FROM g GROUP BY k)
		SELECT k, n, v, count(*) OVER () FROM agg ORDER BY v IS NULL, v ` + dir + `, k ` + dir + ` LIMIT ?`
	if q.GroupBy == "" {
		// One group over every matching contract, present even when empty.
		query = `SELECT 'all', count(*), ` + metric + `, 1 FROM (SELECT c.total_amount AS amount, c.duration_days AS days FROM contracts c` + w.sql() + `) LIMIT ?`
	}
	args := append(append([]any{}, w.args...), n)
	err = eachRow(ctx, s.rdb, query, args, func(r *sql.Rows) error {
		var grp graph.Group
		var v sql.NullFloat64
		if err := r.Scan(&grp.Key, &grp.Count, &v, &res.TotalGroups); err != nil {
			return err
		}
		if v.Valid {
			f := v.Float64
			grp.Value = &f
		}
		res.Groups = append(res.Groups, grp)
		return nil
	})
	if err != nil {
		return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %w", err)
	}
	return res, nil
}

// SearchParties counts the parties matching q and returns the first q.Limit:
// by contract count descending (the default) or by name (ascending unless
// q.Desc), ties broken by name and then id ascending.
func (s *Store) SearchParties(ctx context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	res := graph.PartyResult{Examples: []graph.PartySummary{}}
	n, err := limit(q.Limit, defaultPartyLimit, maxPartyLimit)
	if err != nil {
		return res, fmt.Errorf("search parties: %w", err)
	}
	var order string
	switch q.OrderBy {
	case "", "contract_count":
		order = "n DESC, name ASC, id ASC"
	case "name":
		order = "name ASC, id ASC"
		if q.Desc {
			order = "name DESC, id ASC"
		}
	default:
		return res, fmt.Errorf("search parties: unknown order_by %q; valid values: contract_count, name", q.OrderBy)
	}
	w := &where{}
	if q.Name != "" {
		key := contract.MatchKey(q.Name)
		w.add("p.pk IN ("+partyMatchSQL+")", key, key)
	}
	if q.Country != "" {
		w.add("p.pk IN (SELECT party_pk FROM contract_parties WHERE country = ?)", q.Country)
	}
	if q.ContractType != "" {
		w.add(`p.pk IN (SELECT cp.party_pk FROM contract_parties cp JOIN contracts c ON c.pk = cp.contract_pk
			WHERE c.contract_type = ?)`, q.ContractType)
	}
	inner := `SELECT p.pk AS pk, p.id AS id, p.name AS name,
		(SELECT count(DISTINCT contract_pk) FROM contract_parties WHERE party_pk = p.pk) AS n
		FROM parties p` + w.sql()
	outer := ` WHERE n >= ?`
	args := append(append([]any{}, w.args...), q.MinContracts)
	var pks []int64
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+inner+`)`+outer, args...).Scan(&res.TotalCount); err != nil {
			return fmt.Errorf("count: %w", err)
		}
		if res.TotalCount == 0 {
			return nil
		}
		err := eachRow(ctx, tx, `SELECT pk, id, name, n FROM (`+inner+`)`+outer+` ORDER BY `+order+` LIMIT ?`,
			append(args, n), func(r *sql.Rows) error {
				var pk int64
				p := graph.PartySummary{Aliases: []string{}, ContractTypes: []string{}}
				if err := r.Scan(&pk, &p.PartyID, &p.Name, &p.ContractCount); err != nil {
					return err
				}
				pks = append(pks, pk)
				res.Examples = append(res.Examples, p)
				return nil
			})
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		for i, pk := range pks {
			if err := fillParty(ctx, tx, pk, &res.Examples[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return graph.PartyResult{}, fmt.Errorf("search parties: %w", err)
	}
	return res, nil
}

// fillParty adds a party's aliases, most frequent country and contract types.
func fillParty(ctx context.Context, tx *sql.Tx, pk int64, p *graph.PartySummary) error {
	err := eachRow(ctx, tx, `SELECT alias FROM party_aliases WHERE party_pk = ? ORDER BY alias`, []any{pk},
		func(r *sql.Rows) error {
			var a string
			if err := r.Scan(&a); err != nil {
				return err
			}
			p.Aliases = append(p.Aliases, a)
			return nil
		})
	if err != nil {
		return fmt.Errorf("aliases: %w", err)
	}
	var country sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT country FROM contract_parties WHERE party_pk = ? AND country IS NOT NULL AND country <> ''
		GROUP BY country ORDER BY count(*) DESC, country ASC LIMIT 1`, pk).Scan(&country)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("country: %w", err)
	}
	p.Country = country.String
	err = eachRow(ctx, tx, `SELECT DISTINCT c.contract_type FROM contract_parties cp JOIN contracts c ON c.pk = cp.contract_pk
		WHERE cp.party_pk = ? AND c.contract_type IS NOT NULL ORDER BY 1`, []any{pk}, func(r *sql.Rows) error {
		var t string
		if err := r.Scan(&t); err != nil {
			return err
		}
		p.ContractTypes = append(p.ContractTypes, t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("contract types: %w", err)
	}
	return nil
}

// SearchClauses ranks clause and chunk passages by BM25 against the words of
// q.Query (any of them may match), best first; ties are broken by contract
// id and offset. With q.ClauseTypes only clauses of those types or groups are
// searched (chunks have no type).
func (s *Store) SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	n, err := limit(q.Limit, defaultClauseLimit, maxClauseLimit)
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	match := ftsQuery(q.Query, " OR ")
	if match == "" {
		return nil, fmt.Errorf("search clauses: query %q holds no searchable word", q.Query)
	}
	w, err := compileFilter(q.Filter)
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	args := []any{match}
	clauseCond := ""
	if len(q.ClauseTypes) > 0 {
		in := placeholders(len(q.ClauseTypes))
		clauseCond = " AND (cl.type IN (" + in + ") OR cl.grp IN (" + in + "))"
		args = append(args, anys(q.ClauseTypes)...)
		args = append(args, anys(q.ClauseTypes)...)
	}
	passages := `SELECT h.s AS s, cl.contract_pk AS cpk, cl.id AS pid, cl.type AS typ,
			coalesce(nullif(cl.text, ''), cl.summary, '') AS text, cl.start AS st, cl."end" AS en, cl.verified AS ver
			FROM hits h JOIN clauses cl ON cl.pk = h.r WHERE h.r > 0` + clauseCond
	if len(q.ClauseTypes) == 0 {
		passages += ` UNION ALL SELECT h.s, ch.contract_pk, '', '', ch.text, ch.start, ch."end", ch.verified
			FROM hits h JOIN chunks ch ON ch.pk = -h.r WHERE h.r < 0`
	}
	query := `WITH hits AS MATERIALIZED (SELECT rowid AS r, bm25(passage_fts) AS s FROM passage_fts WHERE passage_fts MATCH ?),
		p AS (` + passages + `)
		SELECT c.id, p.pid, p.typ, p.text, p.st, p.en, p.ver, -p.s FROM p JOIN contracts c ON c.pk = p.cpk` + w.sql() +
		` ORDER BY p.s ASC, c.id ASC, p.st ASC, p.pid ASC LIMIT ?`
	args = append(append(args, w.args...), n)
	hits := []graph.ClauseHit{}
	err = eachRow(ctx, s.rdb, query, args, func(r *sql.Rows) error {
		var h graph.ClauseHit
		if err := r.Scan(&h.ContractID, &h.ClauseID, &h.ClauseType, &h.Text, &h.Start, &h.End, &h.Verified, &h.Score); err != nil {
			return err
		}
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	return hits, nil
}

// Stats counts nodes and relationships under the schema's names.
func (s *Store) Stats(ctx context.Context) (graph.Stats, error) {
	st := graph.Stats{Nodes: map[string]int{}, Relationships: map[string]int{}}
	counts := []struct {
		m     map[string]int
		name  string
		query string
	}{
		{st.Nodes, "Contract", `SELECT count(*) FROM contracts`},
		{st.Nodes, "Party", `SELECT count(*) FROM parties`},
		{st.Nodes, "Location", `SELECT count(*) FROM locations`},
		{st.Nodes, "Clause", `SELECT count(*) FROM clauses`},
		{st.Nodes, "Chunk", `SELECT count(*) FROM chunks`},
		{st.Relationships, "PARTY_TO", `SELECT count(*) FROM contract_parties`},
		{st.Relationships, "HAS_LOCATION", `SELECT count(*) FROM party_locations`},
		{st.Relationships, "HAS_GOVERNING_LAW", `SELECT count(*) FROM contracts WHERE governing_law_pk IS NOT NULL`},
		{st.Relationships, "HAS_CLAUSE", `SELECT count(*) FROM clauses`},
		{st.Relationships, "HAS_CHUNK", `SELECT count(*) FROM chunks`},
	}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		for _, c := range counts {
			var n int
			if err := tx.QueryRowContext(ctx, c.query).Scan(&n); err != nil {
				return fmt.Errorf("count %s: %w", c.name, err)
			}
			c.m[c.name] = n
		}
		// Statutes live in a table a later migration adds; until then there are none.
		var hasStatutes bool
		err := tx.QueryRowContext(ctx, `SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'statutes'`).Scan(&hasStatutes)
		if err != nil {
			return fmt.Errorf("count Statute: %w", err)
		}
		st.Nodes["Statute"] = 0
		if hasStatutes {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM statutes`).Scan(&n); err != nil {
				return fmt.Errorf("count Statute: %w", err)
			}
			st.Nodes["Statute"] = n
		}
		return nil
	})
	if err != nil {
		return graph.Stats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
