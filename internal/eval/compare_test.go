package eval

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestMatchResultShapes(t *testing.T) {
	search := func(total int, ids ...string) string {
		var ex []string
		for _, id := range ids {
			ex = append(ex, `{"contract_id":"`+id+`","parties":[],"clause_types":[]}`)
		}
		b, _ := json.Marshal(map[string]any{"total_count": total, "examples": json.RawMessage("[" + strings.Join(ex, ",") + "]")})
		return string(b)
	}
	tests := []struct {
		name               string
		expTool, expArgs   string
		expRes             string
		tool, args, result string
		ok                 bool
		why                string
	}{
		{name: "same count", expTool: "contract_search", expArgs: `{"party_country":"CN"}`, expRes: search(31, "a", "b"),
			tool: "contract_search", args: `{"party_country":"China","limit":1}`, result: search(31, "z"), ok: true, why: "total_count 31"},
		{name: "other count", expTool: "contract_search", expArgs: `{}`, expRes: search(31, "a"),
			tool: "contract_search", args: `{}`, result: search(30, "a"), ok: false, why: "total_count 30, expected 31"},
		{name: "ordered: same first id", expTool: "contract_search", expArgs: `{"order_by":"duration_days","limit":1}`, expRes: search(510, "long"),
			tool: "contract_search", args: `{"order_by":"duration_days","limit":3}`, result: search(510, "long", "b", "c"), ok: true, why: "the same first 1 id (long)"},
		{name: "ordered: other first id", expTool: "contract_search", expArgs: `{"order_by":"duration_days","limit":2}`, expRes: search(510, "long", "b"),
			tool: "contract_search", args: `{"order_by":"end_date"}`, result: search(510, "late", "b"), ok: false, why: "example 1 is late, expected long"},
		{name: "ordered: no examples", expTool: "contract_search", expArgs: `{"order_by":"end_date"}`, expRes: search(3, "a"),
			tool: "contract_search", args: `{}`, result: search(3), ok: false, why: "no examples returned"},
		{name: "parties by count", expTool: "party_search", expArgs: `{"country":"CA"}`, expRes: `{"total_count":43,"examples":[{"party_id":"p1","name":"P1"}]}`,
			tool: "party_search", args: `{"country":"Canada","limit":50}`, result: `{"total_count":43,"examples":[{"party_id":"p9","name":"P9"}]}`, ok: true, why: "total_count 43"},
		{name: "top groups", expTool: "contract_aggregate", expArgs: `{"group_by":"governing_law_state","limit":3}`,
			expRes: `{"total_groups":57,"groups":[{"key":"NY","value":57,"count":57},{"key":"CA","value":27,"count":27},{"key":"DE","value":20,"count":20}]}`,
			tool:   "contract_aggregate", args: `{"group_by":"governing_law_state","limit":1}`, result: `{"total_groups":57,"groups":[{"key":"NY","value":57,"count":57}]}`,
			ok: true, why: "the same top 1 group (NY=57 (57 contracts) first)"},
		{name: "groups differ", expTool: "contract_aggregate", expArgs: `{"group_by":"governing_law_state"}`,
			expRes: `{"total_groups":2,"groups":[{"key":"NY","value":57,"count":57},{"key":"CA","value":27,"count":27}]}`,
			tool:   "contract_aggregate", args: `{"group_by":"governing_law_state","order":"asc"}`, result: `{"total_groups":2,"groups":[{"key":"CA","value":27,"count":27},{"key":"NY","value":57,"count":57}]}`,
			ok: false, why: "group 1 is CA=27 (27 contracts), expected NY=57 (57 contracts)"},
		{name: "single value within rounding", expTool: "contract_aggregate", expArgs: `{"metric":"avg_duration_days"}`,
			expRes: `{"total_groups":1,"groups":[{"key":"all","value":4411.142857142857,"count":16}]}`,
			tool:   "contract_aggregate", args: `{"metric":"avg_duration_days","limit":5}`, result: `{"total_groups":1,"groups":[{"key":"all","value":4411.142857142858,"count":16}]}`,
			ok: true, why: "all=4411.14 (16 contracts)"},
		{name: "single value differs", expTool: "contract_aggregate", expArgs: `{"metric":"sum_amount"}`,
			expRes: `{"total_groups":1,"groups":[{"key":"all","value":100,"count":2}]}`,
			tool:   "contract_aggregate", args: `{"metric":"max_amount"}`, result: `{"total_groups":1,"groups":[{"key":"all","value":60,"count":2}]}`,
			ok: false, why: "group 1 is all=60 (2 contracts), expected all=100 (2 contracts)"},
		{name: "null values", expTool: "contract_aggregate", expArgs: `{"metric":"sum_amount"}`,
			expRes: `{"total_groups":1,"groups":[{"key":"all","value":null,"count":0}]}`,
			tool:   "contract_aggregate", args: `{"metric":"sum_amount"}`, result: `{"total_groups":1,"groups":[{"key":"all","value":null,"count":0}]}`, ok: true},
		{name: "aggregate count answers a search count", expTool: "contract_search", expArgs: `{"party_country":"CN"}`, expRes: search(31, "a"),
			tool: "contract_aggregate", args: `{"party_country":"CN"}`, result: `{"total_groups":1,"groups":[{"key":"all","value":31,"count":31}]}`, ok: true},
		{name: "search count answers an aggregate count", expTool: "contract_aggregate", expArgs: `{"party_country":"CN","metric":"count"}`,
			expRes: `{"total_groups":1,"groups":[{"key":"all","value":31,"count":31}]}`,
			tool:   "contract_search", args: `{"party_country":"CN"}`, result: search(31, "a"), ok: true},
		{name: "a search count does not answer a sum", expTool: "contract_aggregate", expArgs: `{"metric":"sum_amount"}`,
			expRes: `{"total_groups":1,"groups":[{"key":"all","value":500,"count":31}]}`,
			tool:   "contract_search", args: `{}`, result: search(31, "a"), ok: false, why: "contract_search does not answer what contract_aggregate answers"},
		{name: "an aggregate does not answer an ordered search", expTool: "contract_search", expArgs: `{"order_by":"end_date"}`, expRes: search(31, "a"),
			tool: "contract_aggregate", args: `{}`, result: `{"total_groups":1,"groups":[{"key":"all","value":31,"count":31}]}`, ok: false},
		{name: "same contract", expTool: "get_contract", expArgs: `{"contract_id":"x"}`, expRes: `{"id":"x","title":"X"}`,
			tool: "get_contract", args: `{"contract_id":"x","include_text":true}`, result: `{"id":"x","title":"X","text":"..."}`, ok: true, why: "contract x"},
		{name: "other contract", expTool: "get_contract", expArgs: `{"contract_id":"x"}`, expRes: `{"id":"x"}`,
			tool: "get_contract", args: `{"contract_id":"y"}`, result: `{"id":"y"}`, ok: false, why: "contract y, expected x"},
		{name: "top passage found", expTool: "clause_search", expArgs: `{"query":"total liability"}`,
			expRes: `{"passages":[{"contract_id":"k","start":100,"end":200},{"contract_id":"m","start":0,"end":50}]}`,
			tool:   "clause_search", args: `{"query":"limitation of liability"}`, result: `{"passages":[{"contract_id":"m","start":0,"end":50},{"contract_id":"k","start":150,"end":300}]}`,
			ok: true, why: "is passage 2"},
		{name: "top passage missing", expTool: "clause_search", expArgs: `{"query":"total liability"}`,
			expRes: `{"passages":[{"contract_id":"k","start":100,"end":200}]}`,
			tool:   "clause_search", args: `{"query":"x"}`, result: `{"passages":[{"contract_id":"k","start":200,"end":300}]}`, ok: false, why: "is not among the 1 passage returned"},
		{name: "no passages either way", expTool: "clause_search", expArgs: `{"query":"zzz"}`, expRes: `{"passages":[]}`,
			tool: "clause_search", args: `{"query":"zzz"}`, result: `{"passages":[]}`, ok: true},
		{name: "another tool", expTool: "party_search", expArgs: `{}`, expRes: `{"total_count":3,"examples":[]}`,
			tool: "get_contract", args: `{"contract_id":"x"}`, result: `{"id":"x"}`, ok: false, why: "get_contract does not answer what party_search answers"},
		{name: "unknown tool, equal JSON", expTool: "statute_search", expArgs: `{"query":"a"}`, expRes: `{"b":1,"a":[2]}`,
			tool: "statute_search", args: `{"query":"b"}`, result: `{"a":[2],"b":1}`, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := &Expected{Tool: tt.expTool, Args: json.RawMessage(tt.expArgs)}
			ok, why := matchResult(exp, json.RawMessage(tt.expRes), tt.tool, json.RawMessage(tt.args), json.RawMessage(tt.result))
			if ok != tt.ok || !strings.Contains(why, tt.why) {
				t.Errorf("matchResult = %v, %q; want %v, %q", ok, why, tt.ok, tt.why)
			}
		})
	}
}

// Every expected call of the shared dev questions runs on a store of
// contract_data.json, and each question's expected result is matched by
// itself: the comparison is reflexive on real results of every shape.
func TestDevQuestionsRunOnTheReferenceData(t *testing.T) {
	set := referenceTools(t)
	qs := devQuestions(t)
	ctx := context.Background()
	if err := CheckExpected(ctx, set, qs); err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		res, err := set.Call(ctx, q.Expected.Tool, q.Expected.Args)
		if err != nil {
			t.Fatal(err)
		}
		if ok, why := matchResult(q.Expected, res, q.Expected.Tool, q.Expected.Args, res); !ok {
			t.Errorf("%s: the expected result does not match itself: %s", q.ID, why)
		}
		for _, f := range q.MustContain {
			if q.ID == "d17" {
				// The gold 11 counts the raw state "Delaware" only; the
				// store normalises "DE" and "Delaware" to one state, so
				// the right count here is 16 and d17's figure check fails
				// a correct answer.
				if !strings.Contains(string(res), `"total_count":16,`) {
					t.Errorf("d17: expected 16 contracts on the normalised store: %s", clip(string(res), 100))
				}
				continue
			}
			if !statesFigure(string(res), f) {
				t.Errorf("%s: the expected result %s does not state %q", q.ID, clip(string(res), 200), f)
			}
		}
	}
}
