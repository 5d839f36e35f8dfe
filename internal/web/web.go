// Package web holds ContractGraph's web app: the html/template pages, their
// view models, one stylesheet, a little vanilla JavaScript and the vendored
// htmx and cytoscape.js builds, all embedded in the binary with go:embed.
//
// The package renders; it does not fetch. The HTTP server (internal/httpapi)
// loads data through the typed tools and the store, fills a page struct and
// calls Renderer.Render. Pages work without JavaScript except the graph
// canvas, the streamed chat, the upload progress and the risk review,
// which need it.
package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Page names accepted by Renderer.Render.
const (
	PageDashboard = "dashboard"
	PageContracts = "contracts"
	PageContract  = "contract"
	PageGraph     = "graph"
	PageChat      = "chat"
	PageUpload    = "upload"
	PageLogin     = "login"
	PageError     = "error"
	PageRisk      = "risk"
	PageCompare   = "compare"
)

var pageNames = []string{PageDashboard, PageContracts, PageContract, PageGraph, PageChat, PageUpload, PageLogin, PageError, PageRisk, PageCompare}

// Renderer renders the app's pages. It is safe for concurrent use.
type Renderer struct {
	pages map[string]*template.Template
}

// RendererOptions configures a Renderer.
type RendererOptions struct {
	// SignOut shows a sign-out button (POST /logout) in the header of
	// every page but the sign-in page: set when the app requires signing in.
	SignOut bool
}

// NewRenderer parses every page template together with the shared layout.
func NewRenderer(opts RendererOptions) (*Renderer, error) {
	r := &Renderer{pages: make(map[string]*template.Template, len(pageNames))}
	for _, name := range pageNames {
		signOut := opts.SignOut && name != PageLogin
		t, err := template.New(name).Funcs(funcs).Funcs(template.FuncMap{"signOut": func() bool { return signOut }}).ParseFS(templateFiles, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", name, err)
		}
		r.pages[name] = t
	}
	return r, nil
}

// Render writes page with data to w. It renders into a buffer first so a
// template error never leaves half a page on the wire.
func (r *Renderer) Render(w io.Writer, page string, data any) error {
	return r.render(w, page, "layout", data)
}

// RenderFragment writes one named block of a page (such as the contracts
// page's "results"), for htmx requests that swap part of the page.
func (r *Renderer) RenderFragment(w io.Writer, page, block string, data any) error {
	return r.render(w, page, block, data)
}

func (r *Renderer) render(w io.Writer, page, block string, data any) error {
	t, ok := r.pages[page]
	if !ok {
		return fmt.Errorf("render: unknown page %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, block, data); err != nil {
		return fmt.Errorf("render %s/%s: %w", page, block, err)
	}
	_, err := buf.WriteTo(w)
	return err
}

// Static serves the embedded stylesheet, scripts and vendored libraries;
// mount it at /static/. Vendored files carry their version in the name, so
// they may be cached for long; the app's own files are revalidated.
func Static() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		// The embed directive guarantees the directory exists.
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if strings.HasPrefix(r.URL.Path, "/static/vendor/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	})
}

// Base is what every page has: its title and the current navigation tab
// ("dashboard", "contracts", "compare", "chat", "upload" or "").
type Base struct {
	Title string
	Nav   string
}

// Count is one headline number on the dashboard.
type Count struct {
	Label string
	N     int
}

// Bar is one row of a CSS bar chart.
type Bar struct {
	Label   string
	Value   int
	Percent float64 // bar width relative to the largest value, 0..100
	Href    string  // optional link, e.g. to the filtered contracts list
}

// Bars turns aggregate groups into bars scaled to the largest count. href,
// when not nil, gives each bar a link.
func Bars(groups []graph.Group, href func(key string) string) []Bar {
	max := 0
	for _, g := range groups {
		if g.Count > max {
			max = g.Count
		}
	}
	out := make([]Bar, 0, len(groups))
	for _, g := range groups {
		b := Bar{Label: g.Key, Value: g.Count}
		if max > 0 {
			b.Percent = float64(int(float64(g.Count)*1000/float64(max))) / 10
		}
		if href != nil {
			b.Href = href(g.Key)
		}
		out = append(out, b)
	}
	return out
}

// DashboardPage is the landing page.
type DashboardPage struct {
	Base
	Counts  []Count
	ByType  []Bar
	ByYear  []Bar
	Today   string // YYYY-MM-DD
	Horizon string // Today + 90 days
	// Deadlines are what falls due from Today to Horizon ("Act on
	// these"): notice deadlines first, then renewals and expirations,
	// each by date. DeadlinesTotal counts them all; CalendarURL is the
	// iCalendar feed to subscribe to.
	Deadlines      []graph.DeadlineHit
	DeadlinesTotal int
	CalendarURL    string
}

// ContractTimeline is a contract page's timeline: the inputs with their
// evidence, the dates derived from them on AsOf and the deadlines to come.
type ContractTimeline struct {
	AsOf     string
	Facts    []TimelineFact
	Derived  []TimelineDate
	Upcoming []contract.Deadline
}

// TimelineFact is one timeline input as the page shows it. Href, when set,
// shows the evidence quote highlighted in the text.
type TimelineFact struct {
	Label, Value, Quote, Href string
	Verified                  bool
	// Unverified is the reason the value is unverified
	// (contract.UnverifiedValues), "" when it is not.
	Unverified string
}

// TimelineDate is one derived date: Date is empty when unknown, and
// Derivation says how it was computed or why it is unknown.
type TimelineDate struct {
	Label, Date, Derivation string
}

// Option is a value and label of a select element.
type Option struct {
	Value string
	Label string
}

// ClauseGroupOptions is one optgroup of the clause type filter.
type ClauseGroupOptions struct {
	Name  string
	Types []string
}

// ClauseOptions lists the clause groups with their CUAD types, in display
// order, for the clause type filter.
func ClauseOptions() []ClauseGroupOptions {
	out := make([]ClauseGroupOptions, 0, len(contract.ClauseGroups))
	for _, g := range contract.ClauseGroups {
		o := ClauseGroupOptions{Name: g}
		for _, c := range contract.ClauseCategories {
			if c.Group == g {
				o.Types = append(o.Types, c.Name)
			}
		}
		out = append(out, o)
	}
	return out
}

// FieldError is an invalid filter shown above the results.
type FieldError struct {
	Field   string
	Message string
}

// ContractsPage is the contracts browser: the filter form (refilled from
// Query, whose keys are contract_search argument names) and one page of
// results.
type ContractsPage struct {
	Base
	Query         url.Values
	ContractTypes []string
	ClauseGroups  []ClauseGroupOptions
	Orders        []Option
	Result        graph.ContractResult
	Rows          []ContractRow // Result.Examples as the table shows them
	Offset        int
	PrevURL       string
	NextURL       string
	Error         *FieldError
	// Sort holds the sortable column headers by contract_search order
	// name (effective_date, end_date, total_amount, party_count).
	Sort map[string]SortHeader
	// Reachable is how many of Result.TotalCount paging can reach, set
	// only when that is fewer than all of them.
	Reachable int
	// ActiveFilters counts the filters set, shown on the collapsed form.
	ActiveFilters int
}

// SortHeader is a sortable column header: the link that sorts by it (or
// reverses the order when it is the current one) and its aria-sort state.
type SortHeader struct {
	URL  string
	Sort string // "ascending", "descending" or "" when the list is not sorted by it
}

// sortCell is a column header as the "sortable" template draws it.
type sortCell struct {
	SortHeader
	Label, Class string
}

// ContractRow is a contract as one row of the contracts table.
type ContractRow struct {
	graph.ContractSummary
	// DistinctParty and DistinctDate tell the contract apart from others
	// of the same or a generic title ("Strategic Alliance Agreement"): its
	// counterparty and effective date. Empty when the title says enough.
	DistinctParty string
	DistinctDate  string
	// FirstParty is the party the compact party cell names, Others the
	// rest (listed when the cell is opened).
	FirstParty string
	Others     []graph.PartyRef
}

// ContractRows prepares search results for the contracts table. party is
// the list's party filter: the counterparty named in Distinct is another
// party than the one the list is filtered by.
func ContractRows(examples []graph.ContractSummary, party string) []ContractRow {
	titles := make(map[string]int, len(examples))
	for _, e := range examples {
		titles[strings.ToLower(titleOr(e.Title, e.ContractID))]++
	}
	key := contract.MatchKey(party)
	rows := make([]ContractRow, 0, len(examples))
	for _, e := range examples {
		r := ContractRow{ContractSummary: e}
		if len(e.Parties) > 0 {
			r.FirstParty, r.Others = e.Parties[0].Name, e.Parties[1:]
		}
		title := titleOr(e.Title, e.ContractID)
		if titles[strings.ToLower(title)] > 1 || genericTitle(title, e.ContractType) {
			r.DistinctParty = counterparty(e.Parties, key)
			r.DistinctDate = DateWords(e.EffectiveDate)
		}
		rows = append(rows, r)
	}
	return rows
}

// counterparty picks the party that best names a contract beside its
// title: not the one the list is filtered by (key, a MatchKey), and not
// the first listed, which the party column shows, unless it is the only
// one left.
func counterparty(parties []graph.PartyRef, key string) string {
	var names []string
	for _, p := range parties {
		if key == "" || !strings.Contains(contract.MatchKey(p.Name), key) {
			names = append(names, p.Name)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 1 && len(parties) > 0 && names[0] == parties[0].Name:
		return names[1]
	}
	return names[0]
}

// genericTitle reports whether a title names only a kind of agreement
// ("Strategic Alliance Agreement", "Agreement", the contract's own type),
// as titles derived from file names or document headings often do.
func genericTitle(title, contractType string) bool {
	norm := func(s string) string {
		var words []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r)
		}) {
			switch w {
			case "agreement", "agreements", "contract", "the", "and", "of":
				continue
			}
			words = append(words, w)
		}
		return strings.Join(words, " ")
	}
	t := norm(title)
	return t == "" || t == norm(contractType)
}

// DateWords writes a YYYY-MM-DD date as "7 Sep 1999"; other values are
// returned as they are.
func DateWords(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format("2 Jan 2006")
}

func titleOr(title, id string) string {
	if title != "" {
		return title
	}
	return id
}

// ClauseItem is one clause in the contract page's clause list.
type ClauseItem struct {
	Type     string
	Summary  string
	Excerpt  string // the start of the clause text when there is no summary
	Verified bool
	Anchor   string // id of the clause's highlight in the text, "" when it has no span
}

// ClauseGroup is the clauses of one group, in the order of the text.
type ClauseGroup struct {
	Name    string
	Clauses []ClauseItem
}

// ContractPage shows one contract with its highlighted text.
type ContractPage struct {
	Base
	C *contract.Contract
	// Unverified is contract.UnverifiedValues of C: the values the page
	// tags as unverified, with the reason.
	Unverified []contract.Unverified
	Timeline   *ContractTimeline // nil when the contract states no timeline
	Groups     []ClauseGroup
	TextHTML   template.HTML
	Markdown   bool // TextHTML is rendered Markdown (HighlightMarkdown)
	// Family is the contract's master and the contracts that amend or
	// supplement it (graph.LinkStore); FamilyNote says what agreement the
	// contract refers to when that agreement is not in the store.
	Family     []FamilyMember
	FamilyNote string
	// Scans are the contract's recognised pages, shown with the words of
	// its clauses boxed; empty for a born-digital contract.
	Scans []ScanPage
}

// ScanPage is one recognised page of the contract page's scan view.
type ScanPage struct {
	Number     int
	ImageURL   string
	Confidence float64 // mean word confidence, 0 to 100
	Low        bool    // under the ingest's minimum confidence
	Boxes      []ScanBox
}

// ScanBox is the box around one line's words of a span on a page image,
// in percent of the image's width and height. Anchor is the id of the
// span's highlight in the text ("" when none), Class "cited" for the span
// an answer cited.
type ScanBox struct {
	Left, Top, Width, Height float64
	Anchor, Title, Class     string
}

// FamilyMember is one contract of a family as a contract page lists it:
// Role "master" (the page's contract amends or supplements it) or
// "amendment" / "supplement" (it amends or supplements the page's).
type FamilyMember struct {
	ID, Title, Role, Kind string
	Restates              bool
	Confidence            float64
	Quote                 string
	// DiffURL compares the master with the amending contract.
	DiffURL string
}

// DiffURL is the page that diffs contract a (the earlier version) with b.
func DiffURL(a, b string) string {
	return "/contracts/" + url.PathEscape(a) + "/diff/" + url.PathEscape(b)
}

// GraphNode is a node of the neighbourhood graph. Kind is one of contract,
// party, location, clause (all the clauses of one type), contracts (a
// cluster: a party's contracts of one type or year).
type GraphNode struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Detail is a second line under the label: a party's role, how many
	// clauses or contracts the node stands for.
	Detail string `json:"detail,omitempty"`
	// Count is how many clauses or contracts a clause or cluster node
	// stands for (0 for a single thing).
	Count int `json:"count,omitempty"`
	// Root marks the node whose neighbourhood the graph is.
	Root bool `json:"root,omitempty"`
	// Side is where the viewer draws the node: left (parties and their
	// places), right (clauses, contracts) or below (governing law).
	Side string `json:"side,omitempty"`
	// Href opens the node: its own graph for a contract or party, the
	// clause in the text, or the contracts list of a cluster.
	Href string `json:"href,omitempty"`
}

// Graph node kinds.
const (
	KindContract  = "contract"
	KindParty     = "party"
	KindLocation  = "location"
	KindClause    = "clause"
	KindContracts = "contracts"
)

// Sides of the graph viewer's layout.
const (
	SideLeft  = "left"
	SideRight = "right"
	SideBelow = "below"
)

// GraphEdge is a relationship of the neighbourhood graph, named as in the
// schema (PARTY_TO, HAS_LOCATION, HAS_GOVERNING_LAW, HAS_CLAUSE).
type GraphEdge struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
	Label  string `json:"label"`
	Role   string `json:"role,omitempty"`
}

// Graph is a contract's or party's neighbourhood, as the graph viewer draws it.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphPage shows a neighbourhood graph; the canvas loads DataURL, the table
// below lists Graph for keyboard and screen-reader users.
type GraphPage struct {
	Base
	DataURL   string
	BackURL   string
	BackLabel string
	// Note says what the graph leaves out or folds together, if anything.
	Note string
	// Groupings link the other ways of clustering the graph's contracts,
	// when it clusters them.
	Groupings []Grouping
	Graph     Graph
}

// Grouping is one way of clustering a party's contracts in its graph.
type Grouping struct {
	Label   string
	URL     string
	Current bool
}

// ChatPage is the question-answering page.
type ChatPage struct {
	Base
	ModelConfigured bool
	ModelName       string
	// Rewrite, Critic and Check are the initial state of the toggles of
	// the agent's practices (the server's defaults); each question sends
	// the toggles' state.
	Rewrite, Critic, Check bool
}

// RiskPage runs a contract's risk review: its script posts to APIURL,
// shows the streamed progress and then the report.
type RiskPage struct {
	Base
	ID              string // the contract's id
	ContractTitle   string
	HasText         bool // a contract without text cannot be reviewed
	APIURL          string
	ModelConfigured bool
	ModelName       string
	Jurisdictions   []Option // choices of the jurisdiction select; the first is the default
}

// UploadPage is the document upload page.
type UploadPage struct {
	Base
	Enabled bool
	Accept  string // file input accept list, e.g. ".pdf,.docx"
	MaxMB   int64
}

// LoginPage asks for the access token.
type LoginPage struct {
	Base
	Failed bool
	Next   string
}

// ErrorPage explains what went wrong.
type ErrorPage struct {
	Base
	Message string
}

// ContractURL is the web page of a contract.
func ContractURL(id string) string { return "/contracts/" + url.PathEscape(id) }

// ContractGraphURL is the graph page of a contract's neighbourhood.
func ContractGraphURL(id string) string { return "/contracts/" + url.PathEscape(id) + "/graph" }

// RiskURL is the risk review page of a contract.
func RiskURL(id string) string { return "/contracts/" + url.PathEscape(id) + "/risk" }

// PartyGraphURL is the graph page of a party and its contracts.
func PartyGraphURL(id string) string { return "/parties/" + url.PathEscape(id) + "/graph" }

var funcs = template.FuncMap{
	"contractURL":      ContractURL,
	"percent":          func(v float64) string { return strconv.Itoa(int(v*100+0.5)) + "%" },
	"contractGraphURL": ContractGraphURL,
	"riskURL":          RiskURL,
	"partyGraphURL":    PartyGraphURL,
	"add":              func(a, b int) int { return a + b },
	"formValue":        func(q url.Values, key string) string { return q.Get(key) },
	"titleOr":          titleOr,
	// unverified is the reason a contract's field is unverified ("" when
	// it is not); unverifiedParty the same for a party by its name.
	"unverified":      contract.UnverifiedField,
	"unverifiedParty": contract.UnverifiedParty,
	"deadlineLabel":   contract.DeadlineLabel,
	"thousands":       thousands,
	"durationWords":   contract.DurationWords,
	"sourceName":      SourceName,
	"sortHeader": func(m map[string]SortHeader, key, label, class string) sortCell {
		return sortCell{SortHeader: m[key], Label: label, Class: class}
	},
	"partyNames": func(ps []graph.PartyRef) string {
		names := make([]string, 0, len(ps))
		for _, p := range ps {
			names = append(names, p.Name)
		}
		return strings.Join(names, "; ")
	},
	"amount":     formatAmount,
	"location":   formatLocation,
	"edgeLabels": edgeLabels,
	"graphHas": func(g Graph, kind string) bool {
		return slices.ContainsFunc(g.Nodes, func(n GraphNode) bool { return n.Kind == kind })
	},
}

func formatAmount(v *float64, currency string) string {
	if v == nil {
		return ""
	}
	s := strconv.FormatFloat(*v, 'f', 2, 64)
	s = strings.TrimSuffix(s, ".00")
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	if currency != "" {
		out += " " + currency
	}
	return out
}

func formatLocation(l *contract.Location) string {
	if l.IsZero() {
		return ""
	}
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

// edgeLabels describes how node id is connected, for the accessible node
// table under the graph canvas.
func edgeLabels(g Graph, id string) string {
	label := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	var parts []string
	for _, e := range g.Edges {
		rel := e.Label
		if e.Role != "" {
			rel += " (" + e.Role + ")"
		}
		switch id {
		case e.Source:
			parts = append(parts, rel+" → "+label[e.Target])
		case e.Target:
			parts = append(parts, label[e.Source]+" → "+rel)
		}
	}
	return strings.Join(parts, "; ")
}

// thousands writes n with thousands separators: 10,025.
func thousands(n int) string {
	f := float64(n)
	return formatAmount(&f, "")
}

// SourceName is what the contract page shows of a contract's source: the
// file's name, never the directories of the machine it was imported on.
func SourceName(sourcePath string) string {
	p := strings.TrimRight(strings.ReplaceAll(sourcePath, `\`, "/"), "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return p
}
