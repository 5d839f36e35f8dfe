package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

const dateLayout = "2006-01-02"

// render writes a page, or an error page if the template fails.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := s.pages.Render(w, page, data); err != nil {
		s.log.ErrorContext(r.Context(), "render page", "page", page, "err", err)
	}
}

// renderError answers a page request with an error page.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	s.render(w, r, status, web.PageError, web.ErrorPage{Base: web.Base{Title: title}, Message: msg})
}

// pageFail renders the error page for err, with the status errorFor gives it.
func (s *Server) pageFail(w http.ResponseWriter, r *http.Request, err error) {
	status, body := s.errorFor(r, err)
	if status == 499 {
		return
	}
	title := http.StatusText(status)
	if status == http.StatusNotFound {
		title = "Not found"
	}
	s.render(w, r, status, web.PageError, web.ErrorPage{Base: web.Base{Title: title}, Message: body.Message})
}

func (s *Server) pageDashboard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	stats, err := s.store.Stats(ctx)
	if err != nil {
		s.pageFail(w, r, fmt.Errorf("stats: %w", err))
		return
	}
	now := s.now()
	today, horizon := now.Format(dateLayout), now.AddDate(0, 0, 90).Format(dateLayout)
	page := web.DashboardPage{
		Base:    web.Base{Title: "Dashboard", Nav: "dashboard"},
		Today:   today,
		Horizon: horizon,
		Counts: []web.Count{
			{Label: "Contracts", N: stats.Nodes["Contract"]},
			{Label: "Parties", N: stats.Nodes["Party"]},
			{Label: "Clauses", N: stats.Nodes["Clause"]},
			{Label: "Locations", N: stats.Nodes["Location"]},
		},
	}
	byType, err := s.aggregate(ctx, graph.GroupContractType)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	page.ByType = web.Bars(byType, func(k string) string { return "/contracts?contract_type=" + url.QueryEscape(k) })
	byYear, err := s.aggregate(ctx, graph.GroupEffectiveYear)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	slices.SortFunc(byYear, func(a, b graph.Group) int { return cmp.Compare(a.Key, b.Key) })
	page.ByYear = web.Bars(byYear, func(k string) string {
		return "/contracts?min_effective_date=" + k + "-01-01&max_effective_date=" + k + "-12-31"
	})
	if page.Deadlines, page.DeadlinesTotal, err = s.actOn(ctx, today, horizon); err != nil {
		s.pageFail(w, r, err)
		return
	}
	page.CalendarURL = "/api/deadlines.ics"
	s.render(w, r, http.StatusOK, web.PageDashboard, page)
}

// dashboardDeadlines is how many deadlines the dashboard lists.
const dashboardDeadlines = 12

// actOn lists the deadlines from today to horizon for the dashboard:
// notice deadlines first (the ones a person must act on), then the
// renewals and expirations, each by date; and the total.
func (s *Server) actOn(ctx context.Context, today, horizon string) ([]graph.DeadlineHit, int, error) {
	args, err := json.Marshal(map[string]any{"from": today, "to": horizon, "limit": graph.DeadlineLimits.Max})
	if err != nil {
		return nil, 0, err
	}
	out, err := s.tools.Call(ctx, tools.NameDeadlineSearch, args)
	if err != nil {
		return nil, 0, err
	}
	var res graph.DeadlineResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, 0, fmt.Errorf("decode deadline_search result: %w", err)
	}
	ds := res.Deadlines
	slices.SortStableFunc(ds, func(a, b graph.DeadlineHit) int {
		an, bn := a.Kind == contract.DeadlineNotice, b.Kind == contract.DeadlineNotice
		switch {
		case an && !bn:
			return -1
		case bn && !an:
			return 1
		}
		return 0 // already by date
	})
	return ds[:min(len(ds), dashboardDeadlines)], res.TotalCount, nil
}

// aggregate counts contracts per group, at most 100 groups.
func (s *Server) aggregate(ctx context.Context, groupBy string) ([]graph.Group, error) {
	args, err := json.Marshal(map[string]any{"group_by": groupBy, "metric": graph.MetricCount, "limit": 100})
	if err != nil {
		return nil, err
	}
	out, err := s.tools.Call(ctx, tools.NameContractAggregate, args)
	if err != nil {
		return nil, err
	}
	var res graph.AggregateResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("decode contract_aggregate result: %w", err)
	}
	return res.Groups, nil
}

// webPageSize is the contracts browser's page size.
const webPageSize = 25

var orderOptions = []web.Option{
	{Value: graph.OrderEffectiveDate, Label: "Effective date"},
	{Value: graph.OrderEndDate, Label: "End date"},
	{Value: graph.OrderTotalAmount, Label: "Amount"},
	{Value: graph.OrderDurationDays, Label: "Duration"},
	{Value: graph.OrderPartyCount, Label: "Number of parties"},
}

func (s *Server) pageContracts(w http.ResponseWriter, r *http.Request) {
	q := url.Values{}
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			if strings.TrimSpace(v) != "" {
				q.Add(k, v)
			}
		}
	}
	page := web.ContractsPage{
		Base:          web.Base{Title: "Contracts", Nav: "contracts"},
		Query:         q,
		ContractTypes: contract.ContractTypes,
		ClauseGroups:  web.ClauseOptions(),
		Orders:        orderOptions,
	}
	page.Sort = sortHeaders(q)
	for k := range q {
		if !listParams[k] {
			page.ActiveFilters++
		}
	}
	status := http.StatusOK
	res, err := s.searchContracts(r.Context(), q, webPageSize)
	var argErr *tools.ArgError
	switch {
	case errors.As(err, &argErr):
		status = http.StatusBadRequest
		page.Error = &web.FieldError{Field: argErr.Field, Message: strings.TrimPrefix(argErr.Error(), argErr.Field+": ")}
	case err != nil:
		s.pageFail(w, r, err)
		return
	default:
		page.Result = graph.ContractResult{TotalCount: res.TotalCount, Examples: res.Examples}
		page.Rows = web.ContractRows(res.Examples, q.Get("parties"))
		page.Offset = res.Offset
		if reach := graph.MaxOffset + webPageSize; res.TotalCount > reach {
			page.Reachable = reach
		}
		pageURL := func(offset int) string {
			p := url.Values{}
			for k, v := range q {
				p[k] = v
			}
			p.Del("page")
			p.Del("limit")
			p.Set("offset", strconv.Itoa(offset))
			return "/contracts?" + p.Encode()
		}
		if res.Offset > 0 {
			page.PrevURL = pageURL(max(0, res.Offset-webPageSize))
		}
		next := res.Offset + len(res.Examples)
		if next < res.TotalCount && next <= graph.MaxOffset {
			page.NextURL = pageURL(next)
		}
	}
	s.renderResults(w, r, status, web.PageContracts, page)
}

// renderResults renders page, or only its "results" block for an htmx
// request (a form's live update), varying the response on HX-Request.
func (s *Server) renderResults(w http.ResponseWriter, r *http.Request, status int, name string, page any) {
	w.Header().Set("Vary", "HX-Request")
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		if err := s.pages.RenderFragment(w, name, "results", page); err != nil {
			s.log.ErrorContext(r.Context(), "render results", "err", err)
		}
		return
	}
	s.render(w, r, status, name, page)
}

// listParams are the contracts list's parameters that are not filters.
var listParams = map[string]bool{"order_by": true, "order": true, "offset": true, "page": true, "limit": true}

// sortableColumns are the orders the contracts table's headers sort by.
var sortableColumns = []string{graph.OrderPartyCount, graph.OrderEffectiveDate, graph.OrderEndDate, graph.OrderTotalAmount}

// sortHeaders links each sortable column header of the list filtered by q:
// to sort by it, newest or largest first, or, for the column the list is
// sorted by, to reverse the order. Sorting starts again at the first page.
func sortHeaders(q url.Values) map[string]web.SortHeader {
	cur := cmp.Or(q.Get("order_by"), graph.OrderEffectiveDate)
	asc := q.Get("order") == "asc"
	out := make(map[string]web.SortHeader, len(sortableColumns))
	for _, col := range sortableColumns {
		p := url.Values{}
		for k, v := range q {
			p[k] = v
		}
		p.Del("offset")
		p.Del("page")
		p.Set("order_by", col)
		p.Set("order", "desc")
		h := web.SortHeader{}
		if col == cur {
			h.Sort = "descending"
			if asc {
				h.Sort = "ascending"
			} else {
				p.Set("order", "asc")
			}
		}
		h.URL = "/contracts?" + p.Encode()
		out[col] = h
	}
	return out
}

// clauseAnchor is the id of clause i's highlight on the contract page: the
// part after "#" of the clause id the API gives it ("ID#clause-1"), so that
// page anchors and API clause ids both count from 1 and one can be made
// from the other.
func clauseAnchor(c *contract.Contract, i int) string {
	if id, ok := strings.CutPrefix(c.Clauses[i].ID, c.ID+"#"); ok && id != "" {
		return id
	}
	return "clause-" + strconv.Itoa(i+1)
}

func clauseSpanValid(text string, cl contract.Clause) bool {
	return web.Span{Start: cl.Start, End: cl.End}.Valid(text)
}

func (s *Server) pageContract(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	// The cited span (from an answer's citation link) comes first so that
	// it, not a clause starting at the same place, owns the mark's id.
	spans := make([]web.Span, 1, len(c.Clauses)+1)
	if start, end, ok := parseSpan(r.URL.Query().Get("span")); ok {
		spans[0] = web.Span{Start: start, End: end, ID: "cited", Class: "cited", Title: "cited in an answer"}
	}
	for i, cl := range c.Clauses {
		spans = append(spans, web.Span{Start: cl.Start, End: cl.End, ID: clauseAnchor(c, i), Title: cl.Type})
	}
	highlight := web.HighlightText
	markdown := web.IsMarkdown(c.SourcePath)
	if markdown {
		highlight = web.HighlightMarkdown
	}
	html, valid := highlight(c.Text, spans)
	scans, err := s.scanPages(r.Context(), c, spans, valid)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	valid = valid[1:]
	fam, err := s.contractFamily(r.Context(), c)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	members, note := familyMembers(c, fam)
	s.render(w, r, http.StatusOK, web.PageContract, web.ContractPage{
		Scans:      scans,
		Family:     members,
		FamilyNote: note,
		Base:       web.Base{Title: titleOr(c.Title, c.ID), Nav: "contracts"},
		C:          c,
		Unverified: contract.UnverifiedValues(c),
		Timeline:   contractTimeline(c, s.now()),
		Groups:     clauseGroups(c, valid),
		TextHTML:   html,
		Markdown:   markdown,
	})
}

// parseSpan reads "START-END" byte offsets.
func parseSpan(v string) (int, int, bool) {
	a, b, ok := strings.Cut(v, "-")
	if !ok {
		return 0, 0, false
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	return start, end, err1 == nil && err2 == nil && start >= 0 && end > start
}

// clauseGroups lists a contract's clauses by group (in the taxonomy's
// order) and within a group in the order of the text. valid[i] tells
// whether clause i is highlighted in the text and so can be linked.
func clauseGroups(c *contract.Contract, valid []bool) []web.ClauseGroup {
	type item struct {
		start int
		web.ClauseItem
	}
	byGroup := map[string][]item{}
	for i, cl := range c.Clauses {
		group := cl.Group
		if group == "" {
			if _, g, err := contract.ParseClauseType(cl.Type); err == nil {
				group = g
			} else {
				group = "Other"
			}
		}
		it := item{start: cl.Start, ClauseItem: web.ClauseItem{Type: cl.Type, Summary: cl.Summary, Verified: cl.Verified || cl.Text == ""}}
		if cl.Summary == "" {
			it.Excerpt = excerpt(cl.Text, 160)
		}
		if i < len(valid) && valid[i] {
			it.Anchor = clauseAnchor(c, i)
		}
		byGroup[group] = append(byGroup[group], it)
	}
	order := append(slices.Clone(contract.ClauseGroups), "Other")
	for g := range byGroup {
		if !slices.Contains(order, g) {
			order = append(order, g)
		}
	}
	var out []web.ClauseGroup
	for _, g := range order {
		items := byGroup[g]
		if len(items) == 0 {
			continue
		}
		slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(a.start, b.start) })
		cg := web.ClauseGroup{Name: g}
		for _, it := range items {
			cg.Clauses = append(cg.Clauses, it.ClauseItem)
		}
		out = append(out, cg)
	}
	return out
}

// excerpt shortens text to about n bytes at a word boundary.
func excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= n {
		return text
	}
	cut := strings.LastIndexByte(text[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut] + "…"
}

func (s *Server) pageContractGraph(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	title := titleOr(c.Title, c.ID)
	s.render(w, r, http.StatusOK, web.PageGraph, web.GraphPage{
		Base:      web.Base{Title: "Graph of " + title, Nav: "contracts"},
		DataURL:   "/api/contracts/" + url.PathEscape(c.ID) + "/graph",
		BackURL:   web.ContractURL(c.ID),
		BackLabel: title,
		Graph:     contractGraph(c),
	})
}

func (s *Server) pagePartyGraph(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	by := r.URL.Query().Get("by")
	v, err := s.partyGraph(r.Context(), id, by)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	dataURL := "/api/parties/" + url.PathEscape(id) + "/graph"
	if by == "year" {
		dataURL += "?by=year"
	}
	s.render(w, r, http.StatusOK, web.PageGraph, web.GraphPage{
		Base:      web.Base{Title: v.Name + " and its contracts", Nav: "contracts"},
		DataURL:   dataURL,
		BackURL:   "/contracts?parties=" + url.QueryEscape(v.Name),
		BackLabel: "Contracts of " + v.Name,
		Note:      v.Note,
		Groupings: groupings(v.Graph, id, by),
		Graph:     v.Graph,
	})
}

// groupings links the two ways of clustering a party's contracts, when its
// graph clusters them.
func groupings(g web.Graph, id, by string) []web.Grouping {
	if !slices.ContainsFunc(g.Nodes, func(n web.GraphNode) bool { return n.Kind == web.KindContracts }) {
		return nil
	}
	return []web.Grouping{
		{Label: "contract type", URL: web.PartyGraphURL(id), Current: by != "year"},
		{Label: "year", URL: web.PartyGraphURL(id) + "?by=year", Current: by == "year"},
	}
}

func (s *Server) pageChat(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, web.PageChat, web.ChatPage{
		Base:            web.Base{Title: "Ask", Nav: "chat"},
		ModelConfigured: s.agent != nil,
		ModelName:       s.modelName,
		Rewrite:         s.askOptions.Rewrite,
		Critic:          s.askOptions.Critic,
		Check:           s.askOptions.Check,
	})
}

// uploadAccept lists the document types the upload accepts.
var uploadAccept = []string{".pdf", ".docx", ".html", ".htm", ".txt", ".md"}

func (s *Server) pageUpload(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, web.PageUpload, web.UploadPage{
		Base:    web.Base{Title: "Upload", Nav: "upload"},
		Enabled: s.ingester != nil,
		Accept:  strings.Join(uploadAccept, ","),
		MaxMB:   s.maxUpload >> 20,
	})
}

// timelineLabels name the timeline's inputs on the contract page.
var timelineLabels = map[string]string{
	contract.FieldEffectiveDate: "Starts", contract.FieldEndDate: "Term ends", contract.FieldRenewalKind: "Renewal",
	contract.FieldRenewalTerm: "Renewal term", contract.FieldNoticePeriod: "Notice to stop renewal",
	contract.FieldTerminationNotice: "Termination for convenience",
}

// contractTimeline is the contract page's timeline on now's date, or nil
// when the contract states none of it.
func contractTimeline(c *contract.Contract, now time.Time) *web.ContractTimeline {
	tl := contract.TimelineOf(c)
	if tl.End.Value == "" && tl.RenewalKind.Value == "" && tl.NoticePeriod.Value == "" && tl.TerminationNotice.Value == "" {
		return nil
	}
	today := now.Format(dateLayout)
	out := &web.ContractTimeline{AsOf: today}
	unverified := contract.UnverifiedValues(c)
	for _, f := range []contract.Fact{tl.Start, tl.End, tl.RenewalKind, tl.RenewalTerm, tl.NoticePeriod, tl.TerminationNotice} {
		if f.Value == "" {
			continue
		}
		v := f.Value
		if _, err := contract.ParseISODuration(v); err == nil {
			v = contract.DurationWords(v)
		}
		if f.Field == contract.FieldRenewalKind && tl.RenewalCount > 0 {
			v += fmt.Sprintf(", at most %d times", tl.RenewalCount)
		}
		fact := web.TimelineFact{Label: timelineLabels[f.Field], Value: v, Unverified: contract.UnverifiedField(unverified, f.Field)}
		if e := f.Evidence; e != nil {
			fact.Quote, fact.Verified = e.Quote, e.Verified
			if e.Verified && e.End > e.Start {
				fact.Href = web.ContractURL(c.ID) + "?span=" + strconv.Itoa(e.Start) + "-" + strconv.Itoa(e.End) + "#cited"
			}
		}
		out.Facts = append(out.Facts, fact)
	}
	if d, err := tl.AsOf(today); err == nil {
		for _, x := range []struct {
			label string
			d     contract.DerivedDate
		}{
			{"Current term ends", d.CurrentTermEnd}, {"Notice deadline", d.NoticeDeadline},
			{"Next renewal", d.NextRenewal}, {"Earliest termination", d.EarliestTermination},
		} {
			out.Derived = append(out.Derived, web.TimelineDate{Label: x.label, Date: x.d.Date, Derivation: x.d.Derivation})
		}
	}
	if ds, err := tl.Deadlines(today, now.AddDate(2, 0, 0).Format(dateLayout)); err == nil {
		out.Upcoming = ds[:min(len(ds), 6)]
	}
	return out
}
