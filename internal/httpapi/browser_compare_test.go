package httpapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// TestBrowserCompare opens the comparison page over the first 100 CUAD
// contracts (with their texts), compares their Cap On Liability clauses
// through the form, and checks that the groups render side by side with
// the numbers clause_compare gives, that outliers are marked, that a key
// term chip marks its terms, and that a clause's link opens the contract
// at the clause.
func TestBrowserCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s := sharedServer(t, filepath.Join(sharedtest.Dir(t), "data", "cuad", "master_clauses.csv"), 100)
	want := callCompare(t, s)
	if want.TotalGroups < 2 || want.TotalOutliers == 0 {
		t.Fatalf("the first 100 CUAD contracts give %d groups and %d outliers: too few to test the page", want.TotalGroups, want.TotalOutliers)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, 2*time.Minute)

	must(t, ctx, "open the comparison page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`a.tab[href="/compare"]`)),
		chromedp.Click(chromedp.CSS(`a.tab[href="/compare"]`)), chromedp.WaitVisible(chromedp.ID("compare-form")))
	if got := eval[string](t, ctx, `document.querySelector('a.tab[aria-current="page"]').textContent`); got != "Compare" {
		t.Errorf("current tab %q, want Compare", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.compare-group').length`); n != 0 {
		t.Errorf("%d groups before a clause type is chosen", n)
	}
	must(t, ctx, "choose Cap On Liability", chromedp.SetValue(chromedp.ID("c-type"), "Cap On Liability"),
		chromedp.Click(chromedp.CSS(`#compare-form button[type="submit"]`)))
	waitFor(t, ctx, "the groups", `document.querySelectorAll('.compare-group').length > 0`)
	if got := eval[string](t, ctx, `new URLSearchParams(location.search).get('clause_type')`); got != "Cap On Liability" {
		t.Errorf("the address's clause_type is %q: the comparison cannot be linked to", got)
	}
	heading := eval[string](t, ctx, `document.getElementById('results-h').textContent`)
	if !strings.Contains(heading, "Cap On Liability") || !strings.Contains(heading, thousandsText(want.TotalClauses)+" clauses") {
		t.Errorf("heading %q, want the %d clauses clause_compare counts", heading, want.TotalClauses)
	}
	summary := eval[string](t, ctx, `document.getElementById('compare-summary').textContent`)
	if !strings.Contains(summary, thousandsText(want.TotalGroups)+" groups") || !strings.Contains(summary, thousandsText(want.TotalOutliers)+" outlier") {
		t.Errorf("summary %q, want %d groups and %d outliers", summary, want.TotalGroups, want.TotalOutliers)
	}
	groups := eval[int](t, ctx, `document.querySelectorAll('.compare-group').length`)
	if groups != min(want.TotalGroups, 12) {
		t.Errorf("%d groups shown, want %d", groups, min(want.TotalGroups, 12))
	}
	// Side by side: the first two groups share a row.
	row := eval[[]float64](t, ctx, `(() => { const g = document.querySelectorAll('.compare-group'); const a = g[0].getBoundingClientRect(), b = g[1].getBoundingClientRect(); return [a.top, b.top, a.right, b.left]; })()`)
	if row[0] != row[1] || row[3] < row[2] {
		t.Errorf("the first two groups are not side by side: %v", row)
	}
	first := eval[string](t, ctx, `document.querySelector('#group-1 h3').textContent + ' ' + document.querySelector('#group-1 p.muted').textContent`)
	if !strings.Contains(first, "Group 1") || !strings.Contains(first, thousandsText(want.Groups[0].Size)+" clauses") {
		t.Errorf("group 1 reads %q, want %d clauses", first, want.Groups[0].Size)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.compare-outliers .compare-clause.outlier').length`); n != min(want.TotalOutliers, 30) {
		t.Errorf("%d outliers marked, want %d", n, min(want.TotalOutliers, 30))
	}
	// A key term chip marks its kind of term in its group's clauses.
	chip := eval[string](t, ctx, `(() => { const c = [...document.querySelectorAll('.term-chip')].find(c => c.closest('.compare-group').querySelector('mark.term[data-kind~="' + c.dataset.kind + '"]')); if (!c) return ''; c.click(); return c.closest('.compare-group').id; })()`)
	if chip == "" {
		t.Error("no group has a key term chip with its terms marked in the text")
	} else if n := eval[int](t, ctx, `document.querySelectorAll('#`+chip+` mark.term.active').length`); n == 0 {
		t.Errorf("clicking a key term chip of %s marks no term", chip)
	}
	screenshot(t, ctx, shots, "compare")

	// The representative's link opens the contract at the clause.
	rep := want.Groups[0].Representative
	must(t, ctx, "open group 1's representative", chromedp.Click(chromedp.CSS(`#group-1 .compare-clause .clause-source a`)), chromedp.WaitVisible(chromedp.CSS(`mark#cited`)))
	cited := eval[string](t, ctx, `document.querySelector('mark#cited').textContent`)
	if words := strings.Fields(cited); len(words) == 0 || !strings.HasPrefix(strings.Join(strings.Fields(rep.Text), " "), strings.Join(words[:min(8, len(words))], " ")) {
		t.Errorf("the contract page cites %.80q, not group 1's representative %.80q", cited, rep.Text)
	}
}

// callCompare is what the page shows, called through the tool.
func callCompare(t *testing.T, s *Server) tools.ClauseCompareResult {
	t.Helper()
	out, err := s.tools.Call(context.Background(), tools.NameClauseCompare, json.RawMessage(`{"clause_type":"Cap On Liability","groups":12,"examples":6,"outliers":30,"text_chars":600}`))
	if err != nil {
		t.Fatal(err)
	}
	var res tools.ClauseCompareResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// thousandsText writes n as the page's thousands template function does.
func thousandsText(n int) string {
	digits := strconv.Itoa(n)
	var b strings.Builder
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
