package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/web"
)

// scanPages is the contract page's scan view: the contract's recognised
// pages with the words of each highlighted span boxed. spans and valid are
// the page's highlights (valid[i]: span i is in the text). It is empty
// when the store keeps no pages, the contract has none, or they were read
// from another version of its source than the stored text.
func (s *Server) scanPages(ctx context.Context, c *contract.Contract, spans []web.Span, valid []bool) ([]web.ScanPage, error) {
	ps, ok := s.store.(graph.PageStore)
	if !ok {
		return nil, nil
	}
	got, err := ps.Pages(ctx, c.ID)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if got.SHA256 != c.SHA256 {
		s.log.Warn("stored pages are of another version of the contract's source; not shown", "contract", c.ID)
		return nil, nil
	}
	var out []web.ScanPage
	for _, p := range got.Pages {
		if p.Source != contract.PageOCR || p.Width <= 0 || p.Height <= 0 {
			continue
		}
		sp := web.ScanPage{Number: p.Number, Confidence: p.Confidence, Low: len(p.Words) > 0 && p.Confidence < contract.LowOCRConfidence,
			ImageURL: fmt.Sprintf("/contracts/%s/pages/%d?v=%.12s", url.PathEscape(c.ID), p.Number, got.SHA256)}
		for i, sn := range spans {
			if i >= len(valid) || !valid[i] || sn.End <= p.Start || sn.Start >= p.End {
				continue
			}
			for _, b := range lineBoxes(p, sn.Start, sn.End) {
				b.Anchor, b.Title, b.Class = sn.ID, sn.Title, sn.Class
				sp.Boxes = append(sp.Boxes, b)
			}
		}
		out = append(out, sp)
	}
	return out, nil
}

// lineBoxes returns one box per line around the words of page p that
// overlap the text range [start, end), in percent of the page image.
func lineBoxes(p contract.Page, start, end int) []web.ScanBox {
	type rect struct{ x0, y0, x1, y1 int }
	var rects []rect
	for _, w := range p.Words {
		if w.End <= start || w.Start >= end {
			continue
		}
		r := rect{w.X, w.Y, w.X + w.W, w.Y + w.H}
		if n := len(rects); n > 0 {
			last := &rects[n-1]
			// The same line: the word's middle is within the box's height
			// and it lies to the right of the box's start.
			if mid := (r.y0 + r.y1) / 2; mid >= last.y0 && mid <= last.y1 && r.x0 >= last.x0 {
				last.x1, last.y0, last.y1 = max(last.x1, r.x1), min(last.y0, r.y0), max(last.y1, r.y1)
				continue
			}
		}
		rects = append(rects, r)
	}
	// A little room around the ink, as a highlighter leaves.
	pad := max(2, p.Height/400)
	out := make([]web.ScanBox, len(rects))
	for i, r := range rects {
		x0, y0 := max(0, r.x0-pad), max(0, r.y0-pad)
		x1, y1 := min(p.Width, r.x1+pad), min(p.Height, r.y1+pad)
		out[i] = web.ScanBox{
			Left: pct(x0, p.Width), Top: pct(y0, p.Height),
			Width: pct(x1-x0, p.Width), Height: pct(y1-y0, p.Height),
		}
	}
	return out
}

func pct(v, of int) float64 { return 100 * float64(v) / float64(of) }

// pagePageImage serves the PNG of one recognised page of a contract.
func (s *Server) pagePageImage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	n, err := strconv.Atoi(r.PathValue("page"))
	if err != nil || n < 1 {
		s.pageFail(w, r, fmt.Errorf("page %q of contract %q: %w", r.PathValue("page"), id, graph.ErrNotFound))
		return
	}
	ps, ok := s.store.(graph.PageStore)
	if !ok {
		s.pageFail(w, r, fmt.Errorf("page images: this store keeps none: %w", graph.ErrNotFound))
		return
	}
	img, err := ps.PageImage(r.Context(), id, n)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	// The URL names the source's hash (?v=), so a new version is a new URL.
	w.Header().Set("Cache-Control", "private, max-age=86400")
	w.Write(img)
}
