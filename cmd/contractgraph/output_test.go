package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// asTerminal makes the app's stdout and stderr act as a terminal of width
// columns, as they do when a person runs contractgraph.
func asTerminal(width int) func(*app) {
	return func(a *app) {
		a.terminal = func(w io.Writer) (bool, int) { return true, width }
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestToolsCallTable is the issue's done-when: `tools call
// contract_aggregate '{"group_by":"contract_type","limit":5}'` prints a
// table on a terminal (coloured unless NO_COLOR), the same table without
// colour when stdout is a pipe or a file, and with --json exactly the JSON
// the tool returns (what it printed before human output existed).
func TestToolsCallTable(t *testing.T) {
	db := fixtureDB(t)
	args := `{"group_by":"contract_type","limit":5}`
	t.Setenv("NO_COLOR", "")

	want := toolResult(t, db, tools.NameContractAggregate, args)
	var res struct {
		TotalGroups int `json:"total_groups"`
		Groups      []struct {
			Key   string `json:"key"`
			Count int    `json:"count"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(want, &res); err != nil || len(res.Groups) != 5 || res.TotalGroups <= 5 {
		t.Fatalf("fixture aggregate %s (%v): want 5 of more groups", want, err)
	}

	term, stderr, code := runConfigured(t, "", asTerminal(100), "--db", db, "tools", "call", tools.NameContractAggregate, args)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(term, "\x1b[1m") {
		t.Errorf("terminal output has no bold heading:\n%q", term)
	}
	plain := ansi.ReplaceAllString(term, "")
	lines := strings.Split(strings.TrimRight(plain, "\n"), "\n")
	if len(lines) != 1+len(res.Groups)+1 {
		t.Fatalf("want a heading, %d rows and a footer, got:\n%s", len(res.Groups), plain)
	}
	if !regexp.MustCompile(`^CONTRACT TYPE\s+CONTRACTS$`).MatchString(lines[0]) {
		t.Errorf("heading %q", lines[0])
	}
	// Each row is a group's key and count, the counts right-aligned in
	// one column.
	countEnd := len(lines[0])
	for i, g := range res.Groups {
		row := lines[1+i]
		if !strings.HasPrefix(row, g.Key+"  ") || !strings.HasSuffix(row, " "+itoa(g.Count)) || len(row) != countEnd {
			t.Errorf("row %d = %q, want %s with %d ending at column %d", i, row, g.Key, g.Count, countEnd)
		}
	}
	if footer := lines[len(lines)-1]; !strings.Contains(footer, "5 of "+itoa(res.TotalGroups)+" groups") {
		t.Errorf("footer %q does not say how many groups there are", footer)
	}

	t.Setenv("NO_COLOR", "1")
	noColor, _, _ := runConfigured(t, "", asTerminal(100), "--db", db, "tools", "call", tools.NameContractAggregate, args)
	if noColor != plain {
		t.Errorf("NO_COLOR output differs from the terminal's without escapes:\n%q\nwant\n%q", noColor, plain)
	}
	piped, _, _ := runContractgraph(t, "", "--db", db, "tools", "call", tools.NameContractAggregate, args)
	if piped != plain {
		t.Errorf("piped output differs from the terminal's text:\n%s\nwant\n%s", piped, plain)
	}

	for _, run := range []func(*app){nil, asTerminal(100)} {
		got, _, code := runConfigured(t, "", run, "--db", db, "--json", "tools", "call", tools.NameContractAggregate, args)
		if code != 0 || got != string(want)+"\n" {
			t.Errorf("--json printed %q, want exactly the tool's result %q", got, want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// toolResult is what the tool itself returns for args on db.
func toolResult(t *testing.T, db, tool, args string) json.RawMessage {
	t.Helper()
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	out, err := tools.New(store, tools.Options{}).Call(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return out
}

// TestToolsCallEveryToolReads calls every tool the CLI offers (statutes
// included) and checks that the readable output is not JSON, shows what
// the result holds, and fits a narrow terminal.
func TestToolsCallEveryToolReads(t *testing.T) {
	db := fixtureDB(t)
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = store.PutStatutes(context.Background(), []contract.Statute{{
		ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Heading: "Validity, irrevocability, and enforcement of agreements to arbitrate",
		Text: "A written provision in any maritime transaction or a contract evidencing a transaction involving commerce to settle by arbitration a controversy thereafter arising out of such contract or transaction shall be valid, irrevocable, and enforceable.",
		URL:  "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2",
	}})
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]struct {
		args string
		want []string // in the readable output
	}{
		tools.NameContractSearch:    {`{"limit":3,"order_by":"effective_date"}`, []string{"contracts match; the first 3:", "ID", "PARTIES", "c12"}},
		tools.NameContractAggregate: {`{"group_by":"governing_law_country","metric":"sum_amount"}`, []string{"GOVERNING LAW COUNTRY", "TOTAL AMOUNT", "CONTRACTS"}},
		tools.NamePartySearch:       {`{"name":"acme"}`, []string{"NAME", "COUNTRY", "Acme"}},
		tools.NameGetContract:       {`{"contract_id":"c09"}`, []string{"Festival Deal  c09", "Type", "Sponsorship", "Parties", "Iota Events"}},
		tools.NameDeadlineSearch:    {`{"from":"2021-01-01","to":"2022-12-31","kinds":["notice"]}`, []string{"2 deadlines from 2021-01-01 to 2022-12-31:", "DATE", "2021-09-14", "notice", "c01"}},
		tools.NameClauseSearch:      {`{"query":"liability","limit":2}`, []string{"2 passages", "c01 · contract text · bytes 125-206 · verified", "“2. Liability. The total liability"}},
		tools.NameClauseCompare:     {`{"clause_type":"Liability & Indemnification","threshold":0.15}`, []string{"Liability & Indemnification: 4 clauses in 4 contracts", "2 groups and 0 outliers", "Group 1 · 2 clauses in 2 contracts", "key terms: cap 1 × fees", "representative c01 · bytes 139-206", "also: c09"}},
		tools.NameStatuteSearch:     {`{"query":"arbitration enforceable"}`, []string{"1 statute", "9 U.S.C. § 2 — Validity", "https://uscode.house.gov/", "“A written provision"}},
		tools.NameGetStatute:        {`{"statute_id":"/us/usc/t9/s2"}`, []string{"9 U.S.C. § 2 — Validity", "/us/usc/t9/s2 · us", "shall be valid"}},
	}
	listed, stderr, code := runConfigured(t, "", asTerminal(60), "--db", db, "tools", "list")
	if code != 0 {
		t.Fatalf("tools list: exit %d: %s", code, stderr)
	}
	listedLines := strings.Split(strings.TrimRight(ansi.ReplaceAllString(listed, ""), "\n"), "\n")
	if len(listedLines) != len(calls) {
		t.Errorf("tools list printed %d lines for %d tools:\n%s", len(listedLines), len(calls), listed)
	}
	for _, line := range listedLines {
		name, _, _ := strings.Cut(line, " ")
		if _, ok := calls[name]; !ok {
			t.Errorf("tools list line %q names no tool this test calls; add it", line)
		}
		if n := len([]rune(line)); n > 60 {
			t.Errorf("tools list line %q is %d columns on a 60-column terminal", line, n)
		}
	}
	for tool, c := range calls {
		out, stderr, code := runConfigured(t, "", asTerminal(80), "--db", db, "tools", "call", tool, c.args)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tool, code, stderr)
			continue
		}
		plain := ansi.ReplaceAllString(out, "")
		if strings.HasPrefix(strings.TrimSpace(plain), "{") {
			t.Errorf("%s printed JSON without --json:\n%s", tool, plain)
		}
		for _, w := range c.want {
			if !strings.Contains(plain, w) {
				t.Errorf("%s %s: output lacks %q:\n%s", tool, c.args, w, plain)
			}
		}
		for _, line := range strings.Split(plain, "\n") {
			if tool != tools.NameGetContract && len([]rune(line)) > 80 {
				t.Errorf("%s: line of %d columns on an 80-column terminal: %q", tool, len([]rune(line)), line)
			}
		}
	}
}

// TestErrorsUnderJSON checks that --json errors are the API's error body
// on stderr, with the exit codes of plain errors.
func TestErrorsUnderJSON(t *testing.T) {
	db := fixtureDB(t)
	type apiErr struct {
		Error struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Field   string   `json:"field"`
			Valid   []string `json:"valid"`
		} `json:"error"`
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		errCode  string
		field    string
		validHas string
		msgHas   string
	}{
		{"bad group_by", []string{"--db", db, "tools", "call", "contract_aggregate", `{"group_by":"colour"}`}, 2, "invalid_argument", "group_by", "contract_type", "unknown value"},
		{"unknown tool", []string{"--db", db, "tools", "call", "drop_tables"}, 2, "unknown_tool", "", "", "drop_tables"},
		{"missing contract", []string{"--db", db, "tools", "call", "get_contract", `{"contract_id":"nope"}`}, 1, "not_found", "", "", `"nope"`},
		{"missing database", []string{"--db", filepath.Join(t.TempDir(), "absent.db"), "stats"}, 2, "not_found", "", "", "no database at"},
		{"bad flag", []string{"--db", db, "stats", "--colour"}, 2, "invalid_argument", "", "", "--colour"},
		{"not JSON", []string{"--db", db, "tools", "call", "contract_search", `{x}`}, 2, "invalid_argument", "", "", "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runContractgraph(t, "", append([]string{"--json"}, tt.args...)...)
			if code != tt.code || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and nothing on stdout", code, stdout, tt.code)
			}
			var e apiErr
			if err := json.Unmarshal([]byte(stderr), &e); err != nil || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("stderr is not one JSON error line: %v\n%s", err, stderr)
			}
			if e.Error.Code != tt.errCode || e.Error.Field != tt.field || !strings.Contains(e.Error.Message, tt.msgHas) {
				t.Errorf("error %+v, want code %s, field %q, message with %q", e.Error, tt.errCode, tt.field, tt.msgHas)
			}
			if tt.validHas != "" && !contains(e.Error.Valid, tt.validHas) {
				t.Errorf("valid %v lacks %q", e.Error.Valid, tt.validHas)
			}
			// Without --json the same message, as text.
			_, plain, plainCode := runContractgraph(t, "", tt.args...)
			if plainCode != tt.code || plain != "contractgraph: "+e.Error.Message+"\n" {
				t.Errorf("plain: exit %d, %q; want exit %d, %q", plainCode, plain, tt.code, "contractgraph: "+e.Error.Message)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
