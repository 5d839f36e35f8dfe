package httpapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// graphBuilder collects nodes and edges without duplicates.
type graphBuilder struct {
	g     web.Graph
	nodes map[string]int // index in g.Nodes
	edges map[string]bool
	names map[string]string // stored parties' names by id, where known
}

func newGraphBuilder() *graphBuilder {
	return &graphBuilder{g: web.Graph{Nodes: []web.GraphNode{}, Edges: []web.GraphEdge{}}, nodes: map[string]int{}, edges: map[string]bool{}}
}

// node adds n unless a node with its id is there already, and returns the id.
func (b *graphBuilder) node(n web.GraphNode) string {
	if _, ok := b.nodes[n.ID]; !ok {
		b.nodes[n.ID] = len(b.g.Nodes)
		b.g.Nodes = append(b.g.Nodes, n)
	}
	return n.ID
}

// addDetail appends a detail (a further role) to node id's.
func (b *graphBuilder) addDetail(id, detail string) {
	n := &b.g.Nodes[b.nodes[id]]
	if detail == "" || slices.Contains(strings.Split(n.Detail, ", "), detail) {
		return
	}
	if n.Detail != "" {
		n.Detail += ", "
	}
	n.Detail += detail
}

func (b *graphBuilder) edge(source, label, role, target string) {
	id := source + "|" + label + "|" + role + "|" + target
	if !b.edges[id] {
		b.edges[id] = true
		b.g.Edges = append(b.g.Edges, web.GraphEdge{ID: id, Source: source, Target: target, Label: label, Role: role})
	}
}

func (b *graphBuilder) location(l *contract.Location, side string) string {
	key := strings.ToLower(strings.Join([]string{l.Country, l.State, l.City, l.Address}, "|"))
	label := formatLocation(l)
	return b.node(web.GraphNode{ID: "location:" + key, Kind: web.KindLocation, Label: label, Side: side})
}

// partyNode adds a party of a contract: one node per stored party (by id),
// so that a party resolved from several spellings is drawn once, under its
// name (or else the first spelling met), with each of its roles.
func (b *graphBuilder) partyNode(p contract.PartyRole, side string) string {
	n := web.GraphNode{Kind: web.KindParty, Label: cmp.Or(b.names[p.PartyID], p.Name), Side: side}
	if p.PartyID != "" {
		n.ID = "party:" + p.PartyID
		n.Href = web.PartyGraphURL(p.PartyID)
	} else {
		n.ID = "party-name:" + contract.MatchKey(p.Name)
	}
	id := b.node(n)
	b.addDetail(id, p.Role)
	return id
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
// governing law (HAS_GOVERNING_LAW) and its clauses (HAS_CLAUSE). The
// clauses are drawn one node per clause type, with their number: a CUAD
// contract has dozens of clauses of a score of types, and one node for
// each would bury the parties. A clause node opens the first clause of its
// type in the text.
func contractGraph(c *contract.Contract) web.Graph {
	b := newGraphBuilder()
	cid := b.node(web.GraphNode{ID: "contract:" + c.ID, Kind: web.KindContract, Label: titleOr(c.Title, c.ID), Root: true,
		Detail: c.ContractType, Href: web.ContractURL(c.ID)})
	for _, p := range c.Parties {
		pid := b.partyNode(p, web.SideLeft)
		b.edge(pid, "PARTY_TO", p.Role, cid)
		if !p.Location.IsZero() {
			b.edge(pid, "HAS_LOCATION", "", b.location(p.Location, web.SideLeft))
		}
	}
	if !c.GoverningLaw.IsZero() {
		b.edge(cid, "HAS_GOVERNING_LAW", "", b.location(c.GoverningLaw, web.SideBelow))
	}
	for _, t := range clauseTypes(c) {
		n := web.GraphNode{ID: "clause:" + c.ID + "#" + t.name, Kind: web.KindClause, Label: t.name, Count: len(t.clauses), Side: web.SideRight}
		if n.Count > 1 {
			n.Detail = strconv.Itoa(n.Count) + " clauses"
		}
		for _, i := range t.clauses {
			if clauseSpanValid(c.Text, c.Clauses[i]) {
				n.Href = web.ContractURL(c.ID) + "#" + clauseAnchor(c, i)
				break
			}
		}
		b.edge(cid, "HAS_CLAUSE", "", b.node(n))
	}
	return b.g
}

// clauseType is the clauses of one type, by index into Contract.Clauses.
type clauseType struct {
	name    string
	order   int // the group's place in the taxonomy
	start   int // where its first clause starts in the text
	clauses []int
}

// clauseTypes lists a contract's clause types by group in the taxonomy's
// order and within a group by where they first occur in the text, each
// with its clauses in the order of the text.
func clauseTypes(c *contract.Contract) []clauseType {
	byName := map[string]*clauseType{}
	var out []*clauseType
	for i, cl := range c.Clauses {
		t := byName[cl.Type]
		if t == nil {
			group := cl.Group
			if group == "" {
				if _, g, err := contract.ParseClauseType(cl.Type); err == nil {
					group = g
				}
			}
			order := slices.Index(contract.ClauseGroups, group)
			if order < 0 {
				order = len(contract.ClauseGroups)
			}
			t = &clauseType{name: cl.Type, order: order, start: cl.Start}
			byName[cl.Type] = t
			out = append(out, t)
		}
		t.clauses = append(t.clauses, i)
		t.start = min(t.start, cl.Start)
	}
	types := make([]clauseType, 0, len(out))
	for _, t := range out {
		slices.SortStableFunc(t.clauses, func(a, b int) int { return cmp.Compare(c.Clauses[a].Start, c.Clauses[b].Start) })
		types = append(types, *t)
	}
	slices.SortStableFunc(types, func(a, b clauseType) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.start, b.start))
	})
	return types
}

func titleOr(title, id string) string {
	if title != "" {
		return title
	}
	return id
}

// errNoPartyLookup is returned by stores that cannot look parties up by id;
// both backends can (graph.PartyGetter).
var errNoPartyLookup = errors.New("the store cannot look up parties by id")

// lookupParty returns the party with id, or an error wrapping
// graph.ErrNotFound when there is none.
func (s *Server) lookupParty(ctx context.Context, id string) (*graph.PartyInfo, error) {
	if strings.TrimSpace(id) == "" {
		return nil, &tools.ArgError{Field: "id", Msg: "missing party id"}
	}
	pg, ok := s.store.(graph.PartyGetter)
	if !ok {
		return nil, fmt.Errorf("party %q: %w", id, errNoPartyLookup)
	}
	return pg.GetParty(ctx, id)
}

// Bounds of a party's graph.
const (
	// maxPartyContracts is how many of a party's contracts (the newest)
	// are read for its counterparties.
	maxPartyContracts = 50
	// maxDrawnContracts is how many contracts are drawn one by one; a
	// party with more has them drawn as clusters.
	maxDrawnContracts = 12
	// maxClusters bounds the clusters; the smallest are folded into one.
	maxClusters = 12
	// maxCounterparties bounds the other parties drawn.
	maxCounterparties = 15
)

// partyView is a party's neighbourhood graph, its name and what the graph
// leaves out.
type partyView struct {
	Graph web.Graph
	Name  string
	Note  string
}

// partyGraph is a party and its contracts. Up to maxDrawnContracts are
// drawn one by one with their other parties; a party with more has its
// contracts drawn as clusters (by contract type, or by effective year when
// by is "year"), each a node with its count that opens the list of those
// contracts, and the parties it shares most contracts with beside it. The
// other parties come from its newest contracts (at most
// maxPartyContracts), one node per stored party.
func (s *Server) partyGraph(ctx context.Context, id, by string) (partyView, error) {
	p, err := s.lookupParty(ctx, id)
	if err != nil {
		return partyView{}, err
	}
	// Its own contracts, by id: a party filter would match by containment
	// ("Acme" also finds "Acme Holdings"), and those could crowd its own out.
	res := graph.ContractResult{}
	if len(p.ContractIDs) > 0 { // no ids would mean every contract
		res, err = s.store.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{ContractIDs: p.ContractIDs}, Limit: maxPartyContracts})
		if err != nil {
			return partyView{}, fmt.Errorf("contracts of party %q: %w", id, err)
		}
	}
	// The summaries name parties as the contracts write them; the
	// contracts themselves give each its stored party, so that a party
	// resolved from two spellings is one node.
	contracts := make([]*contract.Contract, len(res.Examples))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, e := range res.Examples {
		g.Go(func() error {
			c, err := s.store.GetContract(gctx, e.ContractID)
			if err != nil {
				return fmt.Errorf("contract %q of party %q: %w", e.ContractID, id, err)
			}
			contracts[i] = c
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return partyView{}, err
	}

	b := newGraphBuilder()
	// The parties drawn beside it go by their stored names, not by the
	// spelling of whichever contract came first.
	cps := counterparties(p.ID, contracts)
	cps = cps[:min(len(cps), maxCounterparties)]
	b.names = make(map[string]string, len(cps))
	for _, cp := range cps {
		if cp.party.PartyID == "" {
			continue
		}
		other, err := s.lookupParty(ctx, cp.party.PartyID)
		if err != nil {
			return partyView{}, fmt.Errorf("party %q beside party %q: %w", cp.party.PartyID, id, err)
		}
		b.names[other.ID] = other.Name
	}
	root := b.node(web.GraphNode{ID: "party:" + p.ID, Kind: web.KindParty, Label: p.Name, Root: true,
		Detail: contractCount(len(p.ContractIDs)), Href: "/contracts?parties=" + url.QueryEscape(p.Name)})
	view := partyView{Name: p.Name}
	if len(p.ContractIDs) <= maxDrawnContracts {
		view.Note = s.drawContracts(b, root, p, contracts)
	} else {
		view.Note, err = s.drawClusters(ctx, b, root, p, contracts, by)
		if err != nil {
			return partyView{}, err
		}
	}
	view.Graph = b.g
	return view, nil
}

func contractCount(n int) string {
	if n == 1 {
		return "1 contract"
	}
	return strconv.Itoa(n) + " contracts"
}

// counterparty is another party of some of a party's contracts.
type counterparty struct {
	party     contract.PartyRole
	contracts []string // contract node ids, in the order met
}

// counterparties lists the other parties of contracts, most shared first
// (then by name), keyed by party id, without the party self.
func counterparties(self string, contracts []*contract.Contract) []*counterparty {
	byKey := map[string]*counterparty{}
	var out []*counterparty
	for _, c := range contracts {
		for _, pr := range c.Parties {
			if pr.PartyID == self {
				continue
			}
			key := "id:" + pr.PartyID
			if pr.PartyID == "" {
				key = "name:" + contract.MatchKey(pr.Name)
			}
			cp := byKey[key]
			if cp == nil {
				cp = &counterparty{party: pr}
				byKey[key] = cp
				out = append(out, cp)
			}
			if cid := "contract:" + c.ID; !slices.Contains(cp.contracts, cid) {
				cp.contracts = append(cp.contracts, cid)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *counterparty) int {
		return cmp.Or(-cmp.Compare(len(a.contracts), len(b.contracts)), cmp.Compare(a.party.Name, b.party.Name))
	})
	return out
}

// drawContracts draws each contract on the right of the party with its
// other parties beyond it, and returns the note on what was left out.
func (s *Server) drawContracts(b *graphBuilder, root string, p *graph.PartyInfo, contracts []*contract.Contract) string {
	for _, c := range contracts {
		var self *contract.PartyRole
		for i := range c.Parties {
			if c.Parties[i].PartyID == p.ID {
				self = &c.Parties[i]
				break
			}
		}
		if self == nil {
			continue
		}
		detail := c.ContractType
		if y, _, ok := strings.Cut(c.EffectiveDate, "-"); ok {
			detail = strings.TrimPrefix(detail+" · "+y, " · ")
		}
		cid := b.node(web.GraphNode{ID: "contract:" + c.ID, Kind: web.KindContract, Label: titleOr(c.Title, c.ID), Detail: detail,
			Side: web.SideRight, Href: web.ContractGraphURL(c.ID)})
		b.edge(root, "PARTY_TO", self.Role, cid)
	}
	cps := counterparties(p.ID, contracts)
	for _, cp := range cps[:min(len(cps), maxCounterparties)] {
		for _, cid := range cp.contracts {
			for _, c := range contracts {
				if "contract:"+c.ID != cid {
					continue
				}
				for _, pr := range c.Parties {
					if samePartyRef(pr, cp.party) {
						b.edge(b.partyNode(pr, web.SideRight), "PARTY_TO", pr.Role, cid)
					}
				}
			}
		}
	}
	if n := len(cps) - maxCounterparties; n > 0 {
		return fmt.Sprintf("The graph shows the %d parties it shares most contracts with; %d others are in the contracts list.", maxCounterparties, n)
	}
	return ""
}

func samePartyRef(a, b contract.PartyRole) bool {
	if a.PartyID != "" || b.PartyID != "" {
		return a.PartyID == b.PartyID
	}
	return contract.MatchKey(a.Name) == contract.MatchKey(b.Name)
}

// drawClusters draws the party's contracts as clusters by type or year,
// counted over all its contracts, and the parties it shares most of its
// newest contracts with. It returns the note on how the graph was built.
func (s *Server) drawClusters(ctx context.Context, b *graphBuilder, root string, p *graph.PartyInfo, contracts []*contract.Contract, by string) (string, error) {
	groupBy, param, what := graph.GroupContractType, "contract_type", "type"
	if by == "year" {
		groupBy, param, what = graph.GroupEffectiveYear, "", "effective year"
	}
	agg, err := s.store.AggregateContracts(ctx, graph.AggregateQuery{
		Filter: graph.Filter{ContractIDs: p.ContractIDs}, GroupBy: groupBy, Metric: graph.MetricCount, Limit: graph.AggregateLimits.Max,
	})
	if err != nil {
		return "", fmt.Errorf("contracts of party %q by %s: %w", p.ID, what, err)
	}
	groups := slices.DeleteFunc(slices.Clone(agg.Groups), func(g graph.Group) bool { return g.Key == "" || g.Count == 0 })
	slices.SortStableFunc(groups, func(a, b graph.Group) int { return cmp.Or(-cmp.Compare(a.Count, b.Count), cmp.Compare(a.Key, b.Key)) })
	rest := len(p.ContractIDs)
	folded := len(groups) > maxClusters
	if folded {
		groups = groups[:maxClusters-1]
	}
	for _, g := range groups {
		rest -= g.Count
		q := url.Values{"parties": {p.Name}}
		if param != "" {
			q.Set(param, g.Key)
		} else {
			q.Set("min_effective_date", g.Key+"-01-01")
			q.Set("max_effective_date", g.Key+"-12-31")
		}
		id := b.node(web.GraphNode{ID: "contracts:" + groupBy + ":" + g.Key, Kind: web.KindContracts, Label: g.Key, Count: g.Count,
			Detail: contractCount(g.Count), Side: web.SideRight, Href: "/contracts?" + q.Encode()})
		b.edge(root, "PARTY_TO", "", id)
	}
	if rest > 0 {
		label := "No " + what
		switch {
		case folded && by == "year":
			label = "Other years"
		case folded:
			label = "Other types"
		}
		id := b.node(web.GraphNode{ID: "contracts:" + groupBy + ":", Kind: web.KindContracts, Label: label, Count: rest,
			Detail: contractCount(rest), Side: web.SideRight, Href: "/contracts?" + url.Values{"parties": {p.Name}}.Encode()})
		b.edge(root, "PARTY_TO", "", id)
	}
	cps := counterparties(p.ID, contracts)
	for _, cp := range cps[:min(len(cps), maxCounterparties)] {
		id := b.partyNode(cp.party, web.SideLeft)
		b.g.Nodes[b.nodes[id]].Detail = "shares " + contractCount(len(cp.contracts))
		b.edge(id, "shares contracts with", strconv.Itoa(len(cp.contracts)), root)
	}
	note := fmt.Sprintf("Its %d contracts are grouped by %s; each group opens their list.", len(p.ContractIDs), what)
	if len(contracts) > 0 {
		note += fmt.Sprintf(" Beside it, the parties it shares most of its %d newest contracts with.", len(contracts))
	}
	return note, nil
}
