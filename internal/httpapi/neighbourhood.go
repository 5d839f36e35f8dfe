package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// graphBuilder collects nodes and edges without duplicates.
type graphBuilder struct {
	g     web.Graph
	nodes map[string]bool
	edges map[string]bool
}

func newGraphBuilder() *graphBuilder {
	return &graphBuilder{g: web.Graph{Nodes: []web.GraphNode{}, Edges: []web.GraphEdge{}}, nodes: map[string]bool{}, edges: map[string]bool{}}
}

func (b *graphBuilder) node(n web.GraphNode) string {
	if !b.nodes[n.ID] {
		b.nodes[n.ID] = true
		b.g.Nodes = append(b.g.Nodes, n)
	}
	return n.ID
}

func (b *graphBuilder) edge(source, label, role, target string) {
	id := source + "|" + label + "|" + role + "|" + target
	if !b.edges[id] {
		b.edges[id] = true
		b.g.Edges = append(b.g.Edges, web.GraphEdge{ID: id, Source: source, Target: target, Label: label, Role: role})
	}
}

func (b *graphBuilder) location(l *contract.Location) string {
	key := strings.ToLower(strings.Join([]string{l.Country, l.State, l.City, l.Address}, "|"))
	label := formatLocation(l)
	return b.node(web.GraphNode{ID: "location:" + key, Kind: "location", Label: label})
}

func formatLocation(l *contract.Location) string {
	var parts []string
	for _, p := range []string{l.City, l.State, l.Country} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return l.Address
	}
	return strings.Join(parts, ", ")
}

// contractGraph is a contract's neighbourhood in the schema's terms: its
// parties (PARTY_TO with the role) and their locations (HAS_LOCATION), its
// governing law (HAS_GOVERNING_LAW) and its clauses (HAS_CLAUSE).
func contractGraph(c *contract.Contract) web.Graph {
	b := newGraphBuilder()
	cid := b.node(web.GraphNode{ID: "contract:" + c.ID, Kind: "contract", Label: titleOr(c.Title, c.ID), Href: web.ContractURL(c.ID)})
	for _, p := range c.Parties {
		n := web.GraphNode{Kind: "party", Label: p.Name}
		if p.PartyID != "" {
			n.ID = "party:" + p.PartyID
			n.Href = web.PartyGraphURL(p.PartyID)
		} else {
			n.ID = "party-name:" + p.Name
		}
		pid := b.node(n)
		b.edge(pid, "PARTY_TO", p.Role, cid)
		if !p.Location.IsZero() {
			b.edge(pid, "HAS_LOCATION", "", b.location(p.Location))
		}
	}
	if !c.GoverningLaw.IsZero() {
		b.edge(cid, "HAS_GOVERNING_LAW", "", b.location(c.GoverningLaw))
	}
	for i, cl := range c.Clauses {
		id := cl.ID
		if id == "" {
			id = fmt.Sprintf("%s#%d", c.ID, i)
		}
		n := web.GraphNode{ID: "clause:" + id, Kind: "clause", Label: cl.Type}
		if clauseSpanValid(c.Text, cl) {
			n.Href = web.ContractURL(c.ID) + "#" + clauseAnchor(i)
		}
		b.edge(cid, "HAS_CLAUSE", "", b.node(n))
	}
	return b.g
}

func titleOr(title, id string) string {
	if title != "" {
		return title
	}
	return id
}

// partyGetter is an optional store capability: a party by its id.
type partyGetter interface {
	GetParty(ctx context.Context, id string) (*contract.Party, error)
}

var numberedID = regexp.MustCompile(`-\d+$`)

// lookupParty finds a party by id. Stores may offer GetParty; otherwise the
// party is found by party_search on the name its id is derived from (ids are
// the normalised name with hyphens), keeping only an exact id match.
func (s *Server) lookupParty(ctx context.Context, id string) (*contract.Party, error) {
	if strings.TrimSpace(id) == "" {
		return nil, &tools.ArgError{Field: "id", Msg: "missing party id"}
	}
	if pg, ok := s.store.(partyGetter); ok {
		p, err := pg.GetParty(ctx, id)
		if errors.Is(err, graph.ErrNotFound) {
			return nil, fmt.Errorf("party %q: %w", id, graph.ErrNotFound)
		}
		return p, err
	}
	for _, name := range partyNameCandidates(id) {
		res, err := s.store.SearchParties(ctx, graph.PartyQuery{Name: name, OrderBy: "name", Limit: 50})
		if err != nil {
			return nil, fmt.Errorf("find party %q: %w", id, err)
		}
		for _, p := range res.Examples {
			if p.PartyID == id {
				return &contract.Party{ID: p.PartyID, Name: p.Name, Aliases: p.Aliases}, nil
			}
		}
	}
	return nil, fmt.Errorf("party %q: %w", id, graph.ErrNotFound)
}

// partyNameCandidates are name fragments to find the party with id by
// (containment) search, most specific first: the id's words; without a
// "-N" suffix that numbers a duplicate id; without the "and" that stands
// for "&" (which names keep as punctuation); then its longest words alone.
func partyNameCandidates(id string) []string {
	base := numberedID.ReplaceAllString(id, "")
	words := strings.FieldsFunc(base, func(r rune) bool { return r == '-' })
	var out []string
	add := func(s string) {
		if contract.MatchKey(s) != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(strings.ReplaceAll(id, "-", " "))
	add(strings.Join(words, " "))
	var noAnd []string
	for _, w := range words {
		if w != "and" {
			noAnd = append(noAnd, w)
		}
	}
	add(strings.Join(noAnd, " "))
	longest := slices.Clone(noAnd)
	slices.SortStableFunc(longest, func(a, b string) int { return len(b) - len(a) })
	for _, w := range longest[:min(2, len(longest))] {
		add(w)
	}
	return out
}

// maxPartyContracts bounds the contracts drawn around a party.
const maxPartyContracts = 50

// partyGraph is a party and the contracts it is party to (up to 50, newest
// first), with the other parties of those contracts. It also returns the
// party's name.
func (s *Server) partyGraph(ctx context.Context, id string) (web.Graph, string, error) {
	p, err := s.lookupParty(ctx, id)
	if err != nil {
		return web.Graph{}, "", err
	}
	args, err := json.Marshal(map[string]any{"parties": []string{p.Name}, "limit": maxPartyContracts})
	if err != nil {
		return web.Graph{}, "", err
	}
	out, err := s.tools.Call(ctx, tools.NameContractSearch, args)
	if err != nil {
		return web.Graph{}, "", err
	}
	var res graph.ContractResult
	if err := json.Unmarshal(out, &res); err != nil {
		return web.Graph{}, "", fmt.Errorf("decode contract_search result: %w", err)
	}
	// The party filter matches by containment ("Acme" also finds "Acme
	// Holdings"); keep the contracts this very party signed.
	keys := map[string]bool{contract.MatchKey(p.Name): true}
	for _, a := range p.Aliases {
		keys[contract.MatchKey(a)] = true
	}
	b := newGraphBuilder()
	pid := b.node(web.GraphNode{ID: "party:" + p.ID, Kind: "party", Label: p.Name, Href: web.PartyGraphURL(p.ID)})
	for _, c := range res.Examples {
		var self *graph.PartyRef
		for i := range c.Parties {
			if keys[contract.MatchKey(c.Parties[i].Name)] {
				self = &c.Parties[i]
				break
			}
		}
		if self == nil {
			continue
		}
		cid := b.node(web.GraphNode{ID: "contract:" + c.ContractID, Kind: "contract", Label: titleOr(c.Title, c.ContractID), Href: web.ContractURL(c.ContractID)})
		b.edge(pid, "PARTY_TO", self.Role, cid)
		for _, other := range c.Parties {
			if keys[contract.MatchKey(other.Name)] {
				continue
			}
			oid := b.node(web.GraphNode{ID: "party-name:" + other.Name, Kind: "party", Label: other.Name,
				Href: "/contracts?parties=" + url.QueryEscape(other.Name)})
			b.edge(oid, "PARTY_TO", other.Role, cid)
		}
	}
	return b.g, p.Name, nil
}
