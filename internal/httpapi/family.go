package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/family"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// familyJSON is GET /api/contracts/{id}/family: the contract's links, the
// contracts they name, and its own reference to a master when that master
// is not linked.
type familyJSON struct {
	ContractID string               `json:"contract_id"`
	Links      []graph.ContractLink `json:"links"`
	Titles     map[string]string    `json:"titles"`
	// Reference is what the contract says it amends or supplements, when
	// no link from it was recorded (the master is not in the store).
	Reference *family.Reference `json:"reference,omitempty"`
}

// contractFamily reads c's family: its links (none when the store cannot
// record them), the titles of the contracts they name, and c's unresolved
// reference.
func (s *Server) contractFamily(ctx context.Context, c *contract.Contract) (familyJSON, error) {
	out := familyJSON{ContractID: c.ID, Links: []graph.ContractLink{}, Titles: map[string]string{}}
	if ls, ok := s.store.(graph.LinkStore); ok {
		links, err := ls.ContractLinks(ctx, c.ID)
		if err != nil {
			return out, err
		}
		out.Links = links
		for _, l := range links {
			for _, id := range []string{l.From, l.To} {
				if _, done := out.Titles[id]; done || id == c.ID {
					continue
				}
				o, err := s.store.GetContract(ctx, id)
				if err != nil {
					return out, fmt.Errorf("family of %q: %w", c.ID, err)
				}
				out.Titles[id] = o.Title
			}
		}
	}
	amends := false
	for _, l := range out.Links {
		amends = amends || l.From == c.ID
	}
	if !amends {
		if ref, ok := family.ParseReference(c.Title, c.Text); ok {
			out.Reference = &ref
		}
	}
	return out, nil
}

// handleContractFamily serves GET /api/contracts/{id}/family.
func (s *Server) handleContractFamily(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f, err := s.contractFamily(r.Context(), c)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, f)
}

// familyMembers lays out a family for the contract page.
func familyMembers(c *contract.Contract, f familyJSON) (members []web.FamilyMember, note string) {
	for _, l := range f.Links {
		m := web.FamilyMember{Kind: l.Kind, Restates: l.Restates, Confidence: l.Confidence, Quote: strings.Join(strings.Fields(l.Quote), " ")}
		if l.From == c.ID {
			m.ID, m.Role = l.To, "master"
		} else {
			m.ID, m.Role = l.From, "amendment"
			if l.Kind == graph.LinkSupplements {
				m.Role = "supplement"
			}
		}
		m.Title = f.Titles[m.ID]
		m.DiffURL = web.DiffURL(l.To, l.From)
		members = append(members, m)
	}
	if ref := f.Reference; ref != nil {
		what := ref.Document
		if ref.Number != "" {
			what += " " + ref.Number
		}
		target := "an agreement"
		if ref.Master != "" {
			target = "the " + ref.Master
		}
		if ref.MasterDate != "" {
			target += " dated " + ref.MasterDate
		}
		verb := "to"
		if ref.Restates {
			what, verb = "Restates", ""
		}
		note = strings.Join(strings.Fields(fmt.Sprintf("%s %s %s, which is not in the store.", what, verb, target)), " ")
	}
	return members, note
}

// pageDiff serves GET /contracts/{id}/diff/{other}: the clause-by-clause
// diff of the two as one self-contained page; ?format=json or md gives
// the report in that format.
func (s *Server) pageDiff(w http.ResponseWriter, r *http.Request) {
	a, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	b, err := s.getContract(r.Context(), r.PathValue("other"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	rep := family.Diff(a, b)
	write, ctype := family.WriteDiffHTML, "text/html; charset=utf-8"
	switch f := r.URL.Query().Get("format"); f {
	case "", "html":
	case "md":
		write, ctype = family.WriteDiffMarkdown, "text/markdown; charset=utf-8"
	case "json":
		writeJSON(w, http.StatusOK, rep)
		return
	default:
		s.fail(w, r, &tools.ArgError{Field: "format", Msg: fmt.Sprintf("unknown format %q", f), Valid: []string{"html", "md", "json"}})
		return
	}
	var buf bytes.Buffer
	if err := write(&buf, rep); err != nil {
		s.pageFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(buf.Bytes())
}
