package graphtest

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/statute"
)

// Statute ids of StatuteFixture, sorted.
const (
	twFormation = "/tw/B0000001/a153"
	twPenalty   = "/tw/B0000001/a250"
	ukStay      = "/uk/ukpga/1996/23/s9"
	usFairUse   = "/us/usc/t17/s107"
	usTransfer  = "/us/usc/t17/s204"
	usValidity  = "/us/usc/t9/s2"
	usStay      = "/us/usc/t9/s3"
)

// StatuteFixture is the statute suite's knowledge base: four US Code
// sections, two articles of Taiwan's Civil Code (Chinese with the English
// translation, as the MOJ files are joined) and one UK section. Their words
// are chosen so that the rankings the suite expects follow from term counts
// alone, whatever the backend's BM25 variant.
func StatuteFixture() []contract.Statute {
	return []contract.Statute{
		{ID: usValidity, Jurisdiction: "us", Code: "9 U.S.C.", Number: "2",
			Heading: "Validity, irrevocability, and enforcement of agreements to arbitrate",
			Text: "A written provision in any maritime transaction or a contract evidencing a transaction involving commerce " +
				"to settle by arbitration a controversy thereafter arising out of such contract or transaction shall be valid, " +
				"irrevocable, and enforceable, save upon such grounds as exist at law or in equity for the revocation of any contract.",
			URL: "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2&num=0&edition=prelim"},
		{ID: usStay, Jurisdiction: "us", Code: "9 U.S.C.", Number: "3",
			Heading: "Stay of proceedings where issue therein referable to arbitration",
			Text: "If any suit or proceeding be brought in any of the courts of the United States upon any issue referable to " +
				"arbitration under an agreement in writing for such arbitration, the court in which such suit is pending shall " +
				"on application of one of the parties stay the trial of the action until such arbitration has been had."},
		{ID: usFairUse, Jurisdiction: "us", Code: "17 U.S.C.", Number: "107",
			Heading: "Limitations on exclusive rights: Fair use",
			Text: "The fair use of a copyrighted work, including such use by reproduction in copies or phonorecords, for purposes " +
				"such as criticism, comment, news reporting, teaching, scholarship, or research, is not an infringement of copyright."},
		{ID: usTransfer, Jurisdiction: "us", Code: "17 U.S.C.", Number: "204",
			Heading: "Execution of transfers of copyright ownership",
			Text: "A transfer of copyright ownership, other than by operation of law, is not valid unless an instrument of " +
				"conveyance, or a note or memorandum of the transfer, is in writing and signed by the owner of the rights conveyed."},
		{ID: twPenalty, Jurisdiction: "tw", Code: "民法 (Civil Code)", Number: "250",
			Text: "當事人得約定債務人於債務不履行時，應支付違約金。\n" +
				"The parties may agree that the debtor shall pay a penalty for breach of contract if he fails to perform the obligation.",
			URL: "https://law.moj.gov.tw/LawClass/LawSingle.aspx?pcode=B0000001&flno=250"},
		{ID: twFormation, Jurisdiction: "tw", Code: "民法 (Civil Code)", Number: "153",
			Text: "當事人互相表示意思一致者，無論其為明示或默示，契約即為成立。\n" +
				"When the parties have reciprocally declared their concurring intention, either expressly or impliedly, " +
				"a contract shall be constituted."},
		{ID: ukStay, Jurisdiction: "uk", Code: "Arbitration Act 1996", Number: "9", Heading: "Stay of legal proceedings",
			Text: "A party to an arbitration agreement against whom legal proceedings are brought in respect of a matter which " +
				"under the agreement is to be referred to arbitration may apply to the court in which the proceedings have been " +
				"brought to stay the proceedings so far as they concern that matter."},
	}
}

// RunStatutes runs the statute suite against a graph.StatuteStore (and, when
// the store has it, graph.StatuteVectorStore). open must return a new, empty
// store each time; RunStatutes closes the stores it opens. A store without
// statutes skips the suite.
func RunStatutes(t *testing.T, open func(t *testing.T) graph.Store) {
	load := func(t *testing.T) graph.StatuteStore {
		t.Helper()
		s := open(t)
		t.Cleanup(func() { s.Close() })
		ss, ok := s.(graph.StatuteStore)
		if !ok {
			t.Skipf("%T keeps no statutes", s)
		}
		counts, err := ss.PutStatutes(context.Background(), StatuteFixture())
		if err != nil {
			t.Fatalf("put statute fixture: %v", err)
		}
		if want := (graph.StatuteCounts{Created: len(StatuteFixture())}); counts != want {
			t.Fatalf("put statute fixture: counts %+v, want %+v", counts, want)
		}
		return ss
	}
	t.Run("read", func(t *testing.T) {
		ss := load(t)
		t.Run("GetStatute", func(t *testing.T) { testGetStatute(t, ss) })
		t.Run("CountStatutes", func(t *testing.T) { testCountStatutes(t, ss) })
		t.Run("SearchStatutes", func(t *testing.T) { testSearchStatutes(t, ss) })
		t.Run("SearchStatutesHostile", func(t *testing.T) { testSearchStatutesHostile(t, ss) })
		t.Run("SearchStatutesLimits", func(t *testing.T) { testSearchStatutesLimits(t, ss) })
	})
	t.Run("PutStatutes", func(t *testing.T) { testPutStatutes(t, load(t)) })
	t.Run("PutStatutesInvalid", func(t *testing.T) { testPutStatutesInvalid(t, load(t)) })
	t.Run("StatuteVectors", func(t *testing.T) { testStatuteVectors(t, load(t)) })
}

func hitIDs(hs []graph.StatuteHit) []string {
	out := []string{}
	for _, h := range hs {
		out = append(out, h.Statute.ID)
	}
	return out
}

func statuteIDs(sts []contract.Statute) []string {
	out := []string{}
	for _, st := range sts {
		out = append(out, st.ID)
	}
	return out
}

func fixtureStatute(id string) contract.Statute {
	for _, st := range StatuteFixture() {
		if st.ID == id {
			return st
		}
	}
	panic("no fixture statute " + id)
}

// approxEqualAll tells whether got and want agree to 1e-4 element by element.
func approxEqualAll(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-4 {
			return false
		}
	}
	return true
}

func testGetStatute(t *testing.T, ss graph.StatuteStore) {
	ctx := context.Background()
	for _, want := range StatuteFixture() {
		got, err := ss.GetStatute(ctx, want.ID)
		if err != nil {
			t.Fatalf("GetStatute(%s): %v", want.ID, err)
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("GetStatute(%s) (-want +got):\n%s", want.ID, diff)
		}
	}
	for _, id := range []string{"/us/usc/t9/s999", "", "/US/USC/T9/S2"} {
		if _, err := ss.GetStatute(ctx, id); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("GetStatute(%q) = %v, want an error wrapping ErrNotFound", id, err)
		}
	}
}

func testCountStatutes(t *testing.T, ss graph.StatuteStore) {
	for jur, want := range map[string]int{"": 7, "us": 4, "tw": 2, "uk": 1, "fr": 0} {
		if n, err := ss.CountStatutes(context.Background(), jur); err != nil || n != want {
			t.Errorf("CountStatutes(%q) = %d, %v; want %d", jur, n, err, want)
		}
	}
}

// searchStatutes runs q and checks what every result must satisfy: scores
// never rising (ties by id), the jurisdiction filter, and each hit the
// whole statute as stored.
func searchStatutes(t *testing.T, ss graph.StatuteStore, q graph.StatuteQuery) []graph.StatuteHit {
	t.Helper()
	hits, err := ss.SearchStatutes(context.Background(), q)
	if err != nil {
		t.Fatalf("SearchStatutes(%+v): %v", q, err)
	}
	for i, h := range hits {
		if q.Jurisdiction != "" && h.Statute.Jurisdiction != q.Jurisdiction {
			t.Errorf("SearchStatutes(%+v): hit %s is in %q", q, h.Statute.ID, h.Statute.Jurisdiction)
		}
		if i > 0 && (h.Score > hits[i-1].Score || h.Score == hits[i-1].Score && h.Statute.ID < hits[i-1].Statute.ID) {
			t.Errorf("SearchStatutes(%+v): hits not ordered by score, then id: %v", q, hitIDs(hits))
		}
		stored, err := ss.GetStatute(context.Background(), h.Statute.ID)
		if err != nil {
			t.Fatalf("SearchStatutes(%+v): hit %s: %v", q, h.Statute.ID, err)
		}
		if diff := cmp.Diff(stored, &h.Statute); diff != "" {
			t.Errorf("SearchStatutes(%+v): hit %s (-stored +hit):\n%s", q, h.Statute.ID, diff)
		}
	}
	return hits
}

// testSearchStatutes: the statute that matches the query's words best comes
// first and every statute matching any of them is found. Worked out by
// hand from the fixture, after stemming (arbitrate and arbitration share a
// stem, as do irrevocability and irrevocable) and without stop words.
func testSearchStatutes(t *testing.T, ss graph.StatuteStore) {
	tests := []struct {
		name string
		q    graph.StatuteQuery
		top  string   // the first hit
		all  []string // every hit, in id order
	}{
		{"FAA section 2: all five words", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable", Jurisdiction: "us"},
			usValidity, []string{usTransfer, usValidity, usStay}},
		{"any jurisdiction", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable"},
			usValidity, []string{ukStay, usTransfer, usValidity, usStay}},
		{"fair use", graph.StatuteQuery{Query: "fair use criticism comment news reporting teaching", Jurisdiction: "us"},
			usFairUse, []string{usFairUse}},
		{"transfer in writing", graph.StatuteQuery{Query: "transfer of copyright ownership writing signed", Jurisdiction: "us"},
			usTransfer, []string{usFairUse, usTransfer, usStay}},
		{"Han phrase", graph.StatuteQuery{Query: "違約金", Jurisdiction: "tw"}, twPenalty, []string{twPenalty}},
		{"Han phrase, any jurisdiction", graph.StatuteQuery{Query: "違約金"}, twPenalty, []string{twPenalty}},
		// 契 and 約 stand apart in a250 (約定, 違約金): a phrase, not two characters.
		{"Han phrase and a word", graph.StatuteQuery{Query: "契約 contract", Jurisdiction: "tw"}, twFormation, []string{twFormation, twPenalty}},
		{"English translation", graph.StatuteQuery{Query: "penalty for breach of contract agreed", Jurisdiction: "tw"},
			twPenalty, []string{twFormation, twPenalty}},
		{"jurisdiction filter", graph.StatuteQuery{Query: "arbitration", Jurisdiction: "uk"}, ukStay, []string{ukStay}},
		{"case and punctuation", graph.StatuteQuery{Query: "FAIR-USE!"}, usFairUse, []string{usFairUse}},
		{"no match", graph.StatuteQuery{Query: "copyright", Jurisdiction: "tw"}, "", []string{}},
		{"unknown word", graph.StatuteQuery{Query: "zeppelin"}, "", []string{}},
		{"unknown jurisdiction", graph.StatuteQuery{Query: "arbitration", Jurisdiction: "fr"}, "", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Limit = 50
			hits := searchStatutes(t, ss, tt.q)
			got := hitIDs(hits)
			if len(got) > 0 && got[0] != tt.top || len(got) == 0 && tt.top != "" {
				t.Errorf("hits %v, want %s first", got, tt.top)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.all, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
		})
	}
}

// testSearchStatutesHostile: query syntax of SQL, FTS5 and Lucene in the
// query is text, never an error; without a searchable word there is no hit.
func testSearchStatutesHostile(t *testing.T, ss graph.StatuteStore) {
	tests := []struct {
		query string
		want  []string // in id order
	}{
		{`"stay" AND (proceedings* OR ~court) \ -NOT: && || ! ^ [ ] { } ?`, []string{ukStay, usStay}},
		{`stay~ proceedings^ court:* "unbalanced`, []string{ukStay, usStay}},
		{`licensee* NEAR("indemnify" OR) AND -"`, []string{}},
		{`AND OR ( ) * ~ " \ NOT`, []string{}},
		{`'; DROP TABLE statutes; -- $p0 {x}`, []string{}},
		{" ?! ", []string{}},
		{"", []string{}},
		{"the of and not", []string{}},
	}
	for _, tt := range tests {
		got := hitIDs(searchStatutes(t, ss, graph.StatuteQuery{Query: tt.query, Limit: 50}))
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SearchStatutes(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

func testSearchStatutesLimits(t *testing.T, ss graph.StatuteStore) {
	ctx := context.Background()
	all := hitIDs(searchStatutes(t, ss, graph.StatuteQuery{Query: "arbitration", Limit: 50}))
	if want := []string{ukStay, usValidity, usStay}; !cmp.Equal(sortedCopy(all), want) {
		t.Fatalf("arbitration: hits %v, want %v", all, want)
	}
	// The limit keeps the best hits.
	for n := 1; n <= 3; n++ {
		if got := hitIDs(searchStatutes(t, ss, graph.StatuteQuery{Query: "arbitration", Limit: n})); !cmp.Equal(got, all[:n]) {
			t.Errorf("limit %d: hits %v, want %v", n, got, all[:n])
		}
	}
	// Zero is the default, five; a search for every word of the fixture
	// that finds all seven statutes returns five.
	if got := searchStatutes(t, ss, graph.StatuteQuery{Query: "contract copyright arbitration"}); len(got) != 5 {
		t.Errorf("default limit: %d hits, want 5", len(got))
	}
	for _, n := range []int{-1, 51} {
		_, err := ss.SearchStatutes(ctx, graph.StatuteQuery{Query: "arbitration", Limit: n})
		if !errors.Is(err, graph.ErrInvalidQuery) || !strings.Contains(err.Error(), "1..50") {
			t.Errorf("limit %d: error %v, want one matching ErrInvalidQuery and naming 1..50", n, err)
		}
	}
}

func testPutStatutes(t *testing.T, ss graph.StatuteStore) {
	ctx := context.Background()
	fixture := StatuteFixture()
	counts, err := ss.PutStatutes(ctx, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Unchanged: 7}); counts != want {
		t.Errorf("re-put counts = %+v, want %+v", counts, want)
	}

	// A changed statute is rewritten and reindexed: its new word is found,
	// the word it lost is not.
	changed := fixtureStatute(usStay)
	changed.Text = strings.ReplaceAll(changed.Text, "suit", "action") + " Amended."
	if n := len(searchStatutes(t, ss, graph.StatuteQuery{Query: "suit", Limit: 5})); n != 1 {
		t.Fatalf("before the update %d statutes hold suit, want 1", n)
	}
	counts, err = ss.PutStatutes(ctx, []contract.Statute{changed, fixtureStatute(usValidity)})
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Updated: 1, Unchanged: 1}); counts != want {
		t.Errorf("update counts = %+v, want %+v", counts, want)
	}
	got, err := ss.GetStatute(ctx, usStay)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&changed, got); diff != "" {
		t.Errorf("GetStatute after update (-want +got):\n%s", diff)
	}
	if got := hitIDs(searchStatutes(t, ss, graph.StatuteQuery{Query: "amended", Limit: 5})); !cmp.Equal(got, []string{usStay}) {
		t.Errorf("search for the new word: %v, want [%s]", got, usStay)
	}
	if hits, err := ss.SearchStatutes(ctx, graph.StatuteQuery{Query: "suit", Limit: 5}); err != nil || len(hits) != 0 {
		t.Errorf("search for the removed word: %v, %v; want none", hitIDs(hits), err)
	}
	if n, err := ss.CountStatutes(ctx, ""); err != nil || n != 7 {
		t.Errorf("after the update CountStatutes = %d, %v; want 7", n, err)
	}

	// What is stored is the canonical form: the jurisdiction lower-cased,
	// heading and url trimmed; re-putting the same input changes nothing.
	// Quotes, backslashes and parameter-like text are data.
	raw := contract.Statute{ID: `/xx/q"uote'd\1`, Jurisdiction: " XX ", Code: "Test Code", Number: " 1 ",
		Heading: "  It's a \"test\" ", Text: "O'Brien said \"$p0\" \\ {x} (MATCH (n) DETACH DELETE n).", URL: " https://example.com/a?b=1&c=2 "}
	if counts, err := ss.PutStatutes(ctx, []contract.Statute{raw}); err != nil || counts != (graph.StatuteCounts{Created: 1}) {
		t.Fatalf("put raw statute: %+v, %v", counts, err)
	}
	want := raw
	want.Jurisdiction, want.Number, want.Heading, want.URL = "xx", "1", `It's a "test"`, "https://example.com/a?b=1&c=2"
	got, err = ss.GetStatute(ctx, raw.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("stored form (-want +got):\n%s", diff)
	}
	for _, st := range []contract.Statute{raw, want} {
		if counts, err := ss.PutStatutes(ctx, []contract.Statute{st}); err != nil || counts != (graph.StatuteCounts{Unchanged: 1}) {
			t.Errorf("re-put of %+v: %+v, %v; want unchanged", st, counts, err)
		}
	}
	if n, err := ss.CountStatutes(ctx, "xx"); err != nil || n != 1 {
		t.Errorf("CountStatutes(xx) = %d, %v; want 1", n, err)
	}
	if got := hitIDs(searchStatutes(t, ss, graph.StatuteQuery{Query: "detach", Jurisdiction: "xx", Limit: 5})); !cmp.Equal(got, []string{raw.ID}) {
		t.Errorf("search of the raw statute: %v", got)
	}

	if counts, err := ss.PutStatutes(ctx, nil); err != nil || counts != (graph.StatuteCounts{}) {
		t.Errorf("PutStatutes(nil) = %+v, %v", counts, err)
	}
}

// testPutStatutesInvalid: a batch with an invalid statute writes nothing
// and its error names the statute and the field.
func testPutStatutesInvalid(t *testing.T, ss graph.StatuteStore) {
	ctx := context.Background()
	ok := contract.Statute{ID: "/xx/ok", Jurisdiction: "xx", Text: "Fine."}
	changed := fixtureStatute(usValidity)
	changed.Text += " Amended."
	tests := []struct {
		name string
		bad  contract.Statute
		want []string // in the error
	}{
		{"empty text", contract.Statute{ID: "/xx/bad", Jurisdiction: "xx", Text: "  \n"}, []string{`"/xx/bad"`, "text", "missing"}},
		{"no id", contract.Statute{Jurisdiction: "xx", Text: "t"}, []string{"id", "missing"}},
		{"space in id", contract.Statute{ID: "/xx/a b", Jurisdiction: "xx", Text: "t"}, []string{`"/xx/a b"`, "id", "white space"}},
		{"long id", contract.Statute{ID: "/xx/" + strings.Repeat("x", 200), Jurisdiction: "xx", Text: "t"}, []string{"id", "longer than 200 bytes"}},
		{"no jurisdiction", contract.Statute{ID: "/xx/bad", Jurisdiction: " ", Text: "t"}, []string{`"/xx/bad"`, "jurisdiction", "missing"}},
		{"bad url", contract.Statute{ID: "/xx/bad", Jurisdiction: "xx", Text: "t", URL: "javascript:alert(1)"}, []string{`"/xx/bad"`, "url", "not an absolute http(s) URL"}},
		{"not UTF-8", contract.Statute{ID: "/xx/bad", Jurisdiction: "xx", Text: "t\xff"}, []string{`"/xx/bad"`, "text", "UTF-8"}},
		{"repeated id", ok, []string{`"/xx/ok"`, "id", "repeats"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ss.PutStatutes(ctx, []contract.Statute{ok, changed, tt.bad})
			if err == nil {
				t.Fatal("no error")
			}
			var fe *graph.StatuteFieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %v is not a *graph.StatuteFieldError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
	// Nothing of the rejected batches was written.
	if _, err := ss.GetStatute(ctx, ok.ID); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("GetStatute of a statute of a rejected batch: %v, want ErrNotFound", err)
	}
	if got, err := ss.GetStatute(ctx, usValidity); err != nil || got.Text != fixtureStatute(usValidity).Text {
		t.Errorf("a rejected batch changed %s: %v", usValidity, err)
	}
	if n, err := ss.CountStatutes(ctx, ""); err != nil || n != 7 {
		t.Errorf("after rejected batches CountStatutes = %d, %v; want 7", n, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ss.PutStatutes(cancelled, []contract.Statute{ok}); err == nil {
		t.Error("PutStatutes with a cancelled context returned no error")
	}
	if _, err := ss.GetStatute(ctx, ok.ID); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("statute put under a cancelled context exists (err = %v)", err)
	}
}

// testStatuteVectors: embeddings are listed until written, written all or
// none, ranked by cosine similarity within a jurisdiction and dimension,
// and dropped when their statute changes.
func testStatuteVectors(t *testing.T, ss graph.StatuteStore) {
	vs, ok := ss.(graph.StatuteVectorStore)
	if !ok {
		t.Skipf("%T keeps no statute embeddings", ss)
	}
	ctx := context.Background()
	// whole checks that st is the statute as stored.
	whole := func(st contract.Statute) {
		t.Helper()
		stored, err := ss.GetStatute(ctx, st.ID)
		if err != nil {
			t.Fatalf("GetStatute(%s): %v", st.ID, err)
		}
		if diff := cmp.Diff(stored, &st); diff != "" {
			t.Errorf("statute %s (-stored +returned):\n%s", st.ID, diff)
		}
	}
	without := func() []string {
		t.Helper()
		sts, err := vs.StatutesWithoutEmbedding(ctx, 50)
		if err != nil {
			t.Fatalf("StatutesWithoutEmbedding: %v", err)
		}
		for _, st := range sts {
			whole(st)
		}
		return statuteIDs(sts)
	}
	search := func(vec []float32, jur string, limit int) ([]string, []float64) {
		t.Helper()
		hits, err := vs.SearchStatuteVectors(ctx, vec, jur, limit)
		if err != nil {
			t.Fatalf("SearchStatuteVectors(%v, %q, %d): %v", vec, jur, limit, err)
		}
		var scores []float64
		for _, h := range hits {
			scores = append(scores, h.Score)
			whole(h.Statute)
		}
		return hitIDs(hits), scores
	}
	all := []string{twFormation, twPenalty, ukStay, usFairUse, usTransfer, usValidity, usStay}
	if got := without(); !cmp.Equal(got, all) {
		t.Fatalf("before any embedding, without: %v, want %v", got, all)
	}
	if sts, err := vs.StatutesWithoutEmbedding(ctx, 2); err != nil || !cmp.Equal(statuteIDs(sts), all[:2]) {
		t.Errorf("StatutesWithoutEmbedding(2) = %v, %v; want %v", statuteIDs(sts), err, all[:2])
	}
	if _, err := vs.StatutesWithoutEmbedding(ctx, 0); !errors.Is(err, graph.ErrInvalidQuery) {
		t.Errorf("StatutesWithoutEmbedding(0): %v, want an error matching ErrInvalidQuery", err)
	}

	if err := vs.PutStatuteEmbeddings(ctx, []string{usValidity, usStay, twPenalty, ukStay},
		[][]float32{{1, 0}, {0.6, 0.8}, {1, 0.1}, {0, 1}}); err != nil {
		t.Fatal(err)
	}
	if got := without(); !cmp.Equal(got, []string{twFormation, usFairUse, usTransfer}) {
		t.Errorf("without after embedding four: %v", got)
	}
	// cos((0,1), v): uk 1, s3 0.8, a250 0.1/√1.01 ≈ 0.0995, s2 0.
	for _, tt := range []struct {
		jur    string
		limit  int
		want   []string
		scores []float64
	}{
		{"us", 5, []string{usStay, usValidity}, []float64{0.8, 0}},
		{"", 5, []string{ukStay, usStay, twPenalty, usValidity}, []float64{1, 0.8, 0.1 / math.Sqrt(1.01), 0}},
		{"", 2, []string{ukStay, usStay}, []float64{1, 0.8}},
		{"tw", 5, []string{twPenalty}, []float64{0.1 / math.Sqrt(1.01)}},
		{"fr", 5, []string{}, nil},
	} {
		got, scores := search([]float32{0, 1}, tt.jur, tt.limit)
		if !cmp.Equal(got, tt.want) || !approxEqualAll(scores, tt.scores) {
			t.Errorf("SearchStatuteVectors((0,1), %q, %d) = %v %v, want %v %v", tt.jur, tt.limit, got, scores, tt.want, tt.scores)
		}
	}

	// Vectors of another dimension are skipped, not compared.
	if err := vs.PutStatuteEmbeddings(ctx, []string{usFairUse}, [][]float32{{0, 0, 2}}); err != nil {
		t.Fatal(err)
	}
	if got, scores := search([]float32{0, 0, 1}, "", 5); !cmp.Equal(got, []string{usFairUse}) || !approxEqualAll(scores, []float64{1}) {
		t.Errorf("3-d query: %v %v, want [%s] with cosine 1", got, scores, usFairUse)
	}
	if got, _ := search([]float32{0, 1}, "", 50); !cmp.Equal(got, []string{ukStay, usStay, twPenalty, usValidity}) {
		t.Errorf("2-d query after a 3-d embedding: %v", got)
	}
	if got, _ := search([]float32{1, 1, 1, 1}, "", 5); len(got) != 0 {
		t.Errorf("4-d query: %v, want none", got)
	}

	// An unknown id, an empty vector or a length mismatch fails the call
	// and writes nothing.
	err := vs.PutStatuteEmbeddings(ctx, []string{usTransfer, "/us/usc/t9/s999"}, [][]float32{{1, 1}, {1, 1}})
	if !errors.Is(err, graph.ErrNotFound) || !strings.Contains(err.Error(), "/us/usc/t9/s999") {
		t.Errorf("unknown id: %v, want ErrNotFound naming it", err)
	}
	for name, call := range map[string]func() error{
		"empty vector": func() error { return vs.PutStatuteEmbeddings(ctx, []string{usTransfer}, [][]float32{{}}) },
		"mismatch": func() error {
			return vs.PutStatuteEmbeddings(ctx, []string{usTransfer, twFormation}, [][]float32{{1, 1}})
		},
	} {
		if err := call(); err == nil {
			t.Errorf("PutStatuteEmbeddings with %s: no error", name)
		}
	}
	if got := without(); !cmp.Equal(got, []string{twFormation, usTransfer}) {
		t.Errorf("without after rejected writes: %v, want [%s %s]", got, twFormation, usTransfer)
	}

	// A changed statute loses its embedding; an unchanged one keeps it.
	changed := fixtureStatute(usValidity)
	changed.Text += " Amended."
	if _, err := ss.PutStatutes(ctx, []contract.Statute{changed, fixtureStatute(usStay)}); err != nil {
		t.Fatal(err)
	}
	if got := without(); !cmp.Equal(got, []string{twFormation, usTransfer, usValidity}) {
		t.Errorf("without after changing %s: %v", usValidity, got)
	}
	if got, _ := search([]float32{1, 0}, "us", 5); !cmp.Equal(got, []string{usStay}) {
		t.Errorf("after the change the us vectors rank %v, want [%s]", got, usStay)
	}

	for name, call := range map[string]func() error{
		"zero vector":  func() error { _, err := vs.SearchStatuteVectors(ctx, []float32{0, 0}, "", 5); return err },
		"empty vector": func() error { _, err := vs.SearchStatuteVectors(ctx, nil, "", 5); return err },
		"limit 0":      func() error { _, err := vs.SearchStatuteVectors(ctx, []float32{0, 1}, "", 0); return err },
		"limit 51":     func() error { _, err := vs.SearchStatuteVectors(ctx, []float32{0, 1}, "", 51); return err },
	} {
		if err := call(); !errors.Is(err, graph.ErrInvalidQuery) {
			t.Errorf("SearchStatuteVectors with %s: %v, want an error matching ErrInvalidQuery", name, err)
		}
	}
}

// SharedStatutes parses US Code titles 9 and 17 and Taiwan's Civil Code
// (Chinese joined with English) from the shared data set, or skips.
func SharedStatutes(tb testing.TB) []contract.Statute {
	tb.Helper()
	dir := filepath.Join(sharedtest.Dir(tb), "data", "statutes")
	sts, results := statute.Load([]string{
		filepath.Join(dir, "uscode", "usc09.xml"),
		filepath.Join(dir, "uscode", "usc17.xml"),
		filepath.Join(dir, "tw_moj", "ch", "B0000001.json"),
	})
	for _, r := range results {
		if r.Err != nil {
			tb.Fatal(r.Err)
		}
	}
	return sts
}

// RunSharedStatutes imports US Code titles 9 and 17 and Taiwan's Civil
// Code from the shared data set (skipping without it) and checks, on real
// statutes, the import counts, that a re-import changes nothing and that
// each search finds the section a lawyer would cite among its first three
// hits. open must return a new, empty store.
func RunSharedStatutes(t *testing.T, open func(t *testing.T) graph.Store) {
	sts := SharedStatutes(t)
	s := open(t)
	t.Cleanup(func() { s.Close() })
	ss, ok := s.(graph.StatuteStore)
	if !ok {
		t.Skipf("%T keeps no statutes", s)
	}
	ctx := context.Background()
	counts, err := ss.PutStatutes(ctx, sts)
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Created: 31 + 140 + 1439}); counts != want {
		t.Fatalf("first import counts = %+v, want %+v", counts, want)
	}
	if counts, err := ss.PutStatutes(ctx, sts); err != nil || counts != (graph.StatuteCounts{Unchanged: len(sts)}) {
		t.Errorf("re-import counts = %+v, %v; want all %d unchanged", counts, err, len(sts))
	}
	for jur, want := range map[string]int{"": 1610, "us": 171, "tw": 1439, "uk": 0} {
		if n, err := ss.CountStatutes(ctx, jur); err != nil || n != want {
			t.Errorf("CountStatutes(%q) = %d, %v; want %d", jur, n, err, want)
		}
	}
	tests := []struct {
		name string
		q    graph.StatuteQuery
		top  string // among the first three hits
	}{
		{"FAA section 2", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable", Jurisdiction: "us"}, "/us/usc/t9/s2"},
		{"FAA section 2 any jurisdiction", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable"}, "/us/usc/t9/s2"},
		{"fair use", graph.StatuteQuery{Query: "fair use criticism comment news reporting teaching", Jurisdiction: "us"}, "/us/usc/t17/s107"},
		{"transfer of copyright", graph.StatuteQuery{Query: "transfer of copyright ownership writing signed", Jurisdiction: "us"}, "/us/usc/t17/s204"},
		{"civil code in Chinese", graph.StatuteQuery{Query: "違約金", Jurisdiction: "tw"}, "/tw/B0000001/a250"},
		{"civil code in English", graph.StatuteQuery{Query: "penalty for breach of contract agreed", Jurisdiction: "tw"}, "/tw/B0000001/a250"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Limit = 10
			got := hitIDs(searchStatutes(t, ss, tt.q))
			if !slices.Contains(got[:min(3, len(got))], tt.top) {
				t.Errorf("top hits %v lack %s", got[:min(3, len(got))], tt.top)
			}
			t.Logf("top hits: %v", got[:min(5, len(got))])
		})
	}
}
