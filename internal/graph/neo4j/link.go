package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.LinkStore = (*Store)(nil)

const (
	// deleteLinksCypher removes every link of one source.
	deleteLinksCypher = `MATCH (:Contract)-[r:AMENDS|SUPPLEMENTS]->(:Contract)
WHERE r.source = $source
DELETE r`

	// missingLinkContractsCypher returns the ids of $ids that name no
	// contract.
	missingLinkContractsCypher = `UNWIND $ids AS id
OPTIONAL MATCH (c:Contract {id: id})
WITH id, c
WHERE c IS NULL
RETURN id`

	// contractLinksCypher reads the links from or to $id, or all when
	// $id is "".
	contractLinksCypher = `MATCH (f:Contract)-[r:AMENDS|SUPPLEMENTS]->(t:Contract)
WHERE $id = '' OR f.id = $id OR t.id = $id
RETURN f.id AS from_id, t.id AS to_id, type(r) AS kind, r.restates AS restates, r.confidence AS confidence,
 r.quote AS quote, r.quote_start AS quote_start, r.quote_end AS quote_end, r.source AS source
ORDER BY from_id, to_id, kind`
)

// putLinksCypher writes the links of one kind (a relationship type from
// the allow-list graph.LinkAmends, graph.LinkSupplements). A manual link
// replaces the properties of a detected one with its key; a detected link
// leaves a manual one as it is.
func putLinksCypher(kind string, manual bool) string {
	if kind != graph.LinkSupplements {
		kind = graph.LinkAmends
	}
	set := "ON CREATE SET r += row.props"
	if manual {
		set = "SET r += row.props"
	}
	return `UNWIND $rows AS row
MATCH (f:Contract {id: row.from_id})
MATCH (t:Contract {id: row.to_id})
MERGE (f)-[r:` + kind + `]->(t)
` + set
}

// ReplaceLinks replaces every link of source with links in one write
// transaction; see graph.LinkStore.
func (s *Store) ReplaceLinks(ctx context.Context, source string, links []graph.ContractLink) error {
	if source != graph.LinkDetected && source != graph.LinkManual {
		return fmt.Errorf("replace links: %w: source %q", graph.ErrInvalidQuery, source)
	}
	rows := map[string][]any{}
	var ids []any
	for _, l := range links {
		if err := l.Check(); err != nil {
			return fmt.Errorf("replace links: %w", err)
		}
		if l.Source != source {
			return fmt.Errorf("replace links: %w: link %q -> %q has source %q, not %q", graph.ErrInvalidQuery, l.From, l.To, l.Source, source)
		}
		rows[l.Kind] = append(rows[l.Kind], map[string]any{"from_id": l.From, "to_id": l.To, "props": map[string]any{
			"restates": l.Restates, "confidence": l.Confidence, "quote": l.Quote,
			"quote_start": int64(l.Start), "quote_end": int64(l.End), "source": l.Source}})
		ids = append(ids, l.From, l.To)
	}
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		if len(ids) > 0 {
			recs, err := collect(ctx, tx, statement{Cypher: missingLinkContractsCypher, Params: map[string]any{"ids": ids}})
			if err != nil {
				return err
			}
			if len(recs) > 0 {
				return fmt.Errorf("%w: contract %q of a link is not stored", graph.ErrNotFound, getString(recs[0].AsMap(), "id"))
			}
		}
		if _, err := collect(ctx, tx, statement{Cypher: deleteLinksCypher, Params: map[string]any{"source": source}}); err != nil {
			return err
		}
		for _, kind := range []string{graph.LinkAmends, graph.LinkSupplements} {
			if len(rows[kind]) == 0 {
				continue
			}
			st := statement{Cypher: putLinksCypher(kind, source == graph.LinkManual), Params: map[string]any{"rows": rows[kind]}}
			if _, err := collect(ctx, tx, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("replace links: %w", err)
	}
	return nil
}

// ContractLinks returns the links from or to id, or all of them; see
// graph.LinkStore.
func (s *Store) ContractLinks(ctx context.Context, id string) ([]graph.ContractLink, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: contractLinksCypher, Params: map[string]any{"id": id}})
	if err != nil {
		return nil, fmt.Errorf("contract links: %w", err)
	}
	out := make([]graph.ContractLink, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		l := graph.ContractLink{From: getString(m, "from_id"), To: getString(m, "to_id"), Kind: getString(m, "kind"),
			Quote: getString(m, "quote"), Start: int(getInt(m, "quote_start")), End: int(getInt(m, "quote_end")), Source: getString(m, "source")}
		l.Restates, _ = m["restates"].(bool)
		if f := getFloatPtr(m, "confidence"); f != nil {
			l.Confidence = *f
		}
		out = append(out, l)
	}
	return out, nil
}
