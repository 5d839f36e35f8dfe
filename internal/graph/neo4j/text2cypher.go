package neo4j

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The methods in this file are the optional capability the text2cypher tool
// needs: the live schema as text, a read-only check of a statement's plan,
// and running a statement in a read session with a timeout and a row cap.
// The last two run what a model wrote, so they use the read-only user's
// connection when there is one.

// Schema introspection statements; db.schema.* procedures only, so no APOC.
const (
	nodeTypePropertiesCypher = "CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName, propertyTypes " +
		"RETURN nodeLabels, propertyName, propertyTypes"
	relTypePropertiesCypher = "CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes " +
		"RETURN relType, propertyName, propertyTypes"
	visualizationCypher = "CALL db.schema.visualization() YIELD nodes, relationships RETURN nodes, relationships"
)

// text2cypherStatements are the fixed statements of this file, for the lint.
func text2cypherStatements() []namedStatementT {
	return []namedStatementT{
		{"schema node properties", statement{Cypher: nodeTypePropertiesCypher}},
		{"schema relationship properties", statement{Cypher: relTypePropertiesCypher}},
		{"schema patterns", statement{Cypher: visualizationCypher}},
	}
}

// namedStatementT pairs a statement with a name for the lint dump.
type namedStatementT struct {
	Name string
	statement
}

// hiddenProperties are bookkeeping properties left out of the schema text:
// they answer no question (alias_keys only serves merged-party lookups on
// import), and the embedding is a long vector.
var hiddenProperties = map[string]bool{"content_hash": true, "embedding": true, "evidence": true, "alias_keys": true,
	"deadline_first": true, "deadline_last": true, "facet_keys": true, "facet_roles": true}

// SchemaText describes the live graph for a language model: node labels
// and relationship types with their properties and types, and the
// (start)-[type]->(end) patterns that occur, leaving out the schema marker.
// It reads db.schema.* only.
func (s *Store) SchemaText(ctx context.Context) (string, error) {
	type prop struct{ name, types string }
	nodes := map[string][]prop{}
	rels := map[string][]prop{}
	var patterns []string
	err := s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
		clear(nodes)
		clear(rels)
		patterns = patterns[:0]
		recs, err := collect(ctx, tx, statement{Cypher: nodeTypePropertiesCypher})
		if err != nil {
			return fmt.Errorf("node properties: %w", err)
		}
		for _, r := range recs {
			m := r.AsMap()
			labels := getStrings(m, "nodeLabels")
			label := strings.Join(labels, ":")
			if label == "" || slices.ContainsFunc(labels, hiddenLabel) {
				continue // the schema marker and the counts are bookkeeping, no data to ask about
			}
			name := getString(m, "propertyName")
			if _, ok := nodes[label]; !ok {
				nodes[label] = nil
			}
			if name != "" && !hiddenProperties[name] {
				nodes[label] = append(nodes[label], prop{name, strings.Join(getStrings(m, "propertyTypes"), "|")})
			}
		}
		recs, err = collect(ctx, tx, statement{Cypher: relTypePropertiesCypher})
		if err != nil {
			return fmt.Errorf("relationship properties: %w", err)
		}
		for _, r := range recs {
			m := r.AsMap()
			typ := strings.Trim(strings.TrimPrefix(getString(m, "relType"), ":"), "`")
			if typ == "" {
				continue
			}
			name := getString(m, "propertyName")
			if _, ok := rels[typ]; !ok {
				rels[typ] = nil
			}
			if name != "" && !hiddenProperties[name] {
				rels[typ] = append(rels[typ], prop{name, strings.Join(getStrings(m, "propertyTypes"), "|")})
			}
		}
		recs, err = collect(ctx, tx, statement{Cypher: visualizationCypher})
		if err != nil {
			return fmt.Errorf("patterns: %w", err)
		}
		for _, r := range recs {
			m := r.AsMap()
			labels := map[string]string{}
			for _, v := range asSlice(m["nodes"]) {
				if n, ok := v.(neo4j.Node); ok {
					labels[n.ElementId] = strings.Join(n.Labels, ":")
				}
			}
			for _, v := range asSlice(m["relationships"]) {
				if rel, ok := v.(neo4j.Relationship); ok {
					patterns = append(patterns, fmt.Sprintf("(:%s)-[:%s]->(:%s)",
						labels[rel.StartElementId], rel.Type, labels[rel.EndElementId]))
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read schema: %w", err)
	}
	render := func(b *strings.Builder, m map[string][]prop) {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ps := m[k]
			sort.Slice(ps, func(i, j int) bool { return ps[i].name < ps[j].name })
			fmt.Fprintf(b, "- %s", k)
			if len(ps) > 0 {
				parts := make([]string, len(ps))
				for i, p := range ps {
					parts[i] = p.name + ": " + p.types
				}
				fmt.Fprintf(b, " {%s}", strings.Join(parts, ", "))
			}
			b.WriteString("\n")
		}
	}
	var b strings.Builder
	b.WriteString("Node labels and their properties:\n")
	render(&b, nodes)
	b.WriteString("Relationship types and their properties:\n")
	render(&b, rels)
	b.WriteString("Relationship patterns:\n")
	sort.Strings(patterns)
	for i, p := range patterns {
		if i > 0 && patterns[i-1] == p {
			continue
		}
		fmt.Fprintf(&b, "- %s\n", p)
	}
	return b.String(), nil
}

// modelSession opens a read session for a statement a model wrote: as the
// read-only user when Config names one.
func (s *Store) modelSession(ctx context.Context) neo4j.SessionWithContext {
	return s.reader.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.db, AccessMode: neo4j.AccessModeRead})
}

// Explain plans cypher without running it (EXPLAIN, in a read session) and
// reports whether the plan only reads. A statement the database rejects
// (syntax, unknown procedure) is an error carrying the database's message.
func (s *Store) Explain(ctx context.Context, cypher string) (readOnly bool, err error) {
	var typ neo4j.StatementType
	sess := s.modelSession(ctx)
	defer sess.Close(context.WithoutCancel(ctx))
	_, err = sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, "EXPLAIN "+cypher, nil)
		if err != nil {
			return nil, err
		}
		sum, err := res.Consume(ctx)
		if err != nil {
			return nil, err
		}
		typ = sum.StatementType()
		return nil, nil
	}, neo4j.WithTxTimeout(s.timeout))
	if err != nil {
		return false, fmt.Errorf("explain: %w", err)
	}
	return typ == neo4j.StatementTypeReadOnly, nil
}

// RunRead runs cypher in a READ access-mode transaction bounded by timeout,
// as the read-only user when Config names one, and returns its columns and
// at most maxRows rows; truncated says more rows were there. Values are plain JSON-ready Go values: nodes become
// {"labels", "properties"} maps, relationships {"type", "properties"},
// temporal values their ISO strings.
func (s *Store) RunRead(ctx context.Context, cypher string, params map[string]any, maxRows int, timeout time.Duration) (columns []string, rows [][]any, truncated bool, err error) {
	if maxRows <= 0 {
		return nil, nil, false, fmt.Errorf("run read: row cap %d must be positive", maxRows)
	}
	sess := s.modelSession(ctx)
	defer sess.Close(context.WithoutCancel(ctx))
	_, err = sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		columns, rows, truncated = nil, nil, false
		res, err := tx.Run(ctx, cypher, params)
		if err != nil {
			return nil, err
		}
		keys, err := res.Keys()
		if err != nil {
			return nil, err
		}
		columns = keys
		for res.Next(ctx) {
			if len(rows) == maxRows {
				truncated = true
				break
			}
			vals := res.Record().Values
			row := make([]any, len(vals))
			for i, v := range vals {
				row[i] = plainValue(v)
			}
			rows = append(rows, row)
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		_, err = res.Consume(ctx)
		return nil, err
	}, neo4j.WithTxTimeout(timeout))
	if err != nil {
		return nil, nil, false, fmt.Errorf("run read: %w", err)
	}
	return columns, rows, truncated, nil
}

// plainValue turns a driver value into JSON-ready Go values.
func plainValue(v any) any {
	switch x := v.(type) {
	case neo4j.Node:
		return map[string]any{"labels": x.Labels, "properties": plainProps(x.Props)}
	case neo4j.Relationship:
		return map[string]any{"type": x.Type, "properties": plainProps(x.Props)}
	case neo4j.Path:
		nodes := make([]any, len(x.Nodes))
		for i, n := range x.Nodes {
			nodes[i] = plainValue(n)
		}
		rels := make([]any, len(x.Relationships))
		for i, r := range x.Relationships {
			rels[i] = plainValue(r)
		}
		return map[string]any{"nodes": nodes, "relationships": rels}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainValue(e)
		}
		return out
	case map[string]any:
		return plainProps(x)
	case neo4j.Date:
		return x.Time().Format(time.DateOnly)
	case neo4j.LocalDateTime:
		return x.Time().Format("2006-01-02T15:04:05.999999999")
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case neo4j.Duration:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	return v
}

func plainProps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if hiddenProperties[k] {
			continue
		}
		out[k] = plainValue(v)
	}
	return out
}
