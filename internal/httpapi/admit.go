package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Admission control keeps cheap requests fast under load. Every routed
// request but /healthz, the static files and sign-in belongs to a class
// by what it costs; each class runs at most Concurrency requests at once
// and lets at most Queue more wait, each for at most MaxWait. A request
// that finds the queue full, or waits longer, is answered 503 with
// Retry-After instead of piling up: a burst of full-text searches cannot
// take every store connection and CPU slot from contract lookups.
//
// Requests an agent run makes (its tool calls) are part of that run and
// are not admitted again.

// Class is a kind of request by its cost.
type Class string

// The request classes, cheapest first.
const (
	// ClassLookup: one contract or party by id, its page and graph, the
	// tool list and the API description.
	ClassLookup Class = "lookup"
	// ClassQuery: structured searches and aggregates (contract_search,
	// contract_aggregate, party_search, the dashboard, the contracts list).
	ClassQuery Class = "query"
	// ClassText: full-text and vector search over passages and statutes,
	// and model-written Cypher.
	ClassText Class = "text"
	// ClassModel: runs of a language model (ask, upload ingestion, risk
	// review), which hold their slot for seconds to minutes.
	ClassModel Class = "model"
)

// Classes lists the classes in the order they are documented.
var Classes = []Class{ClassLookup, ClassQuery, ClassText, ClassModel}

// Limit bounds one class of requests.
type Limit struct {
	Concurrency int           // requests running at once
	Queue       int           // requests waiting beyond those
	MaxWait     time.Duration // longest wait for a slot
}

// DefaultLimits are the limits for GOMAXPROCS p. Text and query searches
// together use fewer slots than the SQLite store's reader connections
// (2p, at least 4), so a lookup always finds one free.
func DefaultLimits(p int) map[Class]Limit {
	p = max(1, p)
	return map[Class]Limit{
		ClassLookup: {Concurrency: 4 * p, Queue: 512, MaxWait: 2 * time.Second},
		ClassQuery:  {Concurrency: p, Queue: 256, MaxWait: 5 * time.Second},
		ClassText:   {Concurrency: max(1, p/2), Queue: 128, MaxWait: 10 * time.Second},
		ClassModel:  {Concurrency: 2, Queue: 8, MaxWait: time.Minute},
	}
}

// ParseLimits reads limits written as "class=concurrency[/queue[/wait]]",
// comma-separated (e.g. "text=2/64/10s,model=4"), over base. Classes not
// named keep base's limits.
func ParseLimits(spec string, base map[Class]Limit) (map[Class]Limit, error) {
	out := make(map[Class]Limit, len(base))
	for c, l := range base {
		out[c] = l
	}
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		c := Class(strings.TrimSpace(name))
		l, known := out[c]
		if !ok || !known {
			return nil, fmt.Errorf("%q: want class=concurrency[/queue[/wait]] with class one of %s", part, classNames())
		}
		fields := strings.Split(strings.TrimSpace(val), "/")
		if len(fields) > 3 {
			return nil, fmt.Errorf("%q: want class=concurrency[/queue[/wait]]", part)
		}
		n, err := strconv.Atoi(fields[0])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: concurrency must be a whole number of at least 1", part)
		}
		l.Concurrency = n
		if len(fields) > 1 {
			q, err := strconv.Atoi(fields[1])
			if err != nil || q < 0 {
				return nil, fmt.Errorf("%q: queue must be a whole number of at least 0", part)
			}
			l.Queue = q
		}
		if len(fields) > 2 {
			d, err := time.ParseDuration(fields[2])
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("%q: wait must be a positive duration such as 5s", part)
			}
			l.MaxWait = d
		}
		out[c] = l
	}
	return out, nil
}

func classNames() string {
	names := make([]string, len(Classes))
	for i, c := range Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// gate admits the requests of one class.
type gate struct {
	class   Class
	limit   Limit
	slots   chan struct{}
	waiting atomic.Int64
	refused atomic.Int64
}

func newGate(c Class, l Limit) *gate {
	return &gate{class: c, limit: l, slots: make(chan struct{}, l.Concurrency)}
}

// errBusy is a request the class could not admit.
var errBusy = errors.New("busy")

// enter waits for a slot and returns the function that gives it back.
func (g *gate) enter(ctx context.Context) (func(), error) {
	release := func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	if g.waiting.Add(1) > int64(g.limit.Queue) {
		g.waiting.Add(-1)
		g.refused.Add(1)
		return nil, errBusy
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(g.limit.MaxWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-t.C:
		g.refused.Add(1)
		return nil, errBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// retryAfter is the Retry-After a refused request of the class gets, in
// seconds: about how long a slot takes to come free.
func (g *gate) retryAfter() int {
	switch g.class {
	case ClassModel:
		return 30
	case ClassText:
		return 5
	}
	return 1
}

// admission holds the gates of every class.
type admission struct {
	gates map[Class]*gate
}

func newAdmission(limits map[Class]Limit) *admission {
	a := &admission{gates: map[Class]*gate{}}
	def := DefaultLimits(runtime.GOMAXPROCS(0))
	for _, c := range Classes {
		l, ok := limits[c]
		if !ok {
			l = def[c]
		}
		a.gates[c] = newGate(c, l)
	}
	return a
}

// admit wraps h so that it runs only once its class admits the request.
// class decides the request's class; it may read the path values.
func (s *Server) admit(class func(*http.Request) Class, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		g := s.admission.gates[class(r)]
		release, err := g.enter(r.Context())
		if err != nil {
			if !errors.Is(err, errBusy) {
				return // the client went away while waiting
			}
			w.Header().Set("Retry-After", strconv.Itoa(g.retryAfter()))
			msg := fmt.Sprintf("the server is busy with %s requests (it runs %d at once and queues %d for up to %s); retry in %d s",
				g.class, g.limit.Concurrency, g.limit.Queue, g.limit.MaxWait, g.retryAfter())
			if strings.HasPrefix(r.URL.Path, "/api/") {
				writeError(w, http.StatusServiceUnavailable, &apiError{Code: codeBusy, Message: msg})
			} else {
				s.renderError(w, r, http.StatusServiceUnavailable, "Busy", msg)
			}
			return
		}
		defer release()
		h(w, r)
	}
}

func fixed(c Class) func(*http.Request) Class { return func(*http.Request) Class { return c } }

// toolClass is the class of POST /api/tools/{name}.
func toolClass(r *http.Request) Class {
	switch r.PathValue("name") {
	case "clause_search", "statute_search", "text2cypher":
		return ClassText
	case "get_contract":
		return ClassLookup
	case "contract_search", "contract_aggregate", "party_search", "deadline_search", "clause_compare":
		return ClassQuery
	}
	return ClassQuery // a tool added later is costed like a search until classed
}
