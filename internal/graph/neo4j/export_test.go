package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// SchemaStatementsRun returns how many schema statements s's Open ran.
func (s *Store) SchemaStatementsRun() int64 { return s.schemaRuns.Load() }

// SchemaStatementCount is the number of statements of a full schema set-up.
func SchemaStatementCount() int { return len(schemaStatements()) }

// SchemaVersion is this binary's schema version, as the marker records it.
func SchemaVersion() string { return schemaVersion() }

// CallStatement is one statement of the store query a tool call makes.
type CallStatement struct {
	Name   string
	Cypher string
	Params map[string]any
}

// CallStatements compiles the store queries the tools layer makes for one
// tool call (with now as the tools' clock), as the store would run them.
func CallStatements(tool string, args json.RawMessage, now func() time.Time) ([]CallStatement, error) {
	rec := &recorder{}
	if _, err := tools.New(rec, tools.Options{Now: now}).Call(context.Background(), tool, args); err != nil {
		return nil, err
	}
	var out []CallStatement
	add := func(name string, st statement) {
		out = append(out, CallStatement{Name: name, Cypher: st.Cypher, Params: st.Params})
	}
	for _, q := range rec.contracts {
		cs, err := compileContractSearch(q)
		if err != nil {
			return nil, err
		}
		add("count", cs.count)
		add("examples", cs.examples)
	}
	for _, q := range rec.aggregates {
		st, err := compileAggregate(q)
		if err != nil {
			return nil, err
		}
		add("aggregate", st)
	}
	for _, q := range rec.parties {
		ps, err := compileParties(q)
		if err != nil {
			return nil, err
		}
		add("count", ps.count)
		add("examples", ps.examples)
	}
	for _, q := range rec.clauses {
		st, err := compileClauses(q)
		if err != nil {
			return nil, err
		}
		add("clauses", st)
	}
	return out, nil
}

// Profile runs st under PROFILE in a read transaction and returns its plan.
func (s *Store) Profile(ctx context.Context, st CallStatement) (driver.ProfiledPlan, error) {
	var plan driver.ProfiledPlan
	err := s.tx(ctx, driver.AccessModeRead, func(tx driver.ManagedTransaction) error {
		res, err := tx.Run(ctx, "PROFILE "+st.Cypher, st.Params)
		if err != nil {
			return err
		}
		sum, err := res.Consume(ctx)
		if err != nil {
			return err
		}
		plan = sum.Profile()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", st.Name, err)
	}
	if plan == nil {
		return nil, fmt.Errorf("profile %s: the server returned no plan", st.Name)
	}
	return plan, nil
}
