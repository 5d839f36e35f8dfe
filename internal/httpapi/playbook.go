package httpapi

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/playbook"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// handlePlaybook checks a stored contract against the server's playbook,
// without a model: ?format=json (the default), md or html (each clause
// linked to its span on the contract page).
func (s *Server) handlePlaybook(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	format := strings.ToLower(cmp.Or(r.URL.Query().Get("format"), "json"))
	switch format {
	case "json", "md", "html":
	default:
		s.fail(w, r, &tools.ArgError{Field: "format", Msg: fmt.Sprintf("%q: want json, md or html", format)})
		return
	}
	c, err := s.store.GetContract(r.Context(), id)
	switch {
	case errors.Is(err, graph.ErrNotFound):
		s.fail(w, r, fmt.Errorf("contract %q: %w", id, graph.ErrNotFound))
		return
	case err != nil:
		s.fail(w, r, fmt.Errorf("get contract %q: %w", id, err))
		return
	}
	rep := playbook.Check(s.playbook, c, s.now())
	if format == "json" {
		writeJSON(w, http.StatusOK, rep)
		return
	}
	base := "/contracts/" + url.PathEscape(id)
	opts := playbook.HTMLOptions{SpanURL: func(start, end int) string { return fmt.Sprintf("%s?span=%d-%d#cited", base, start, end) }}
	var buf bytes.Buffer
	write, ctype := playbook.WriteHTML, "text/html; charset=utf-8"
	if format == "md" {
		write, ctype = playbook.WriteMarkdown, "text/markdown; charset=utf-8"
	}
	if err := write(&buf, rep, opts); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(buf.Bytes())
}
