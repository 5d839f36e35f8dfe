package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

var judgedResult = Result{
	Answer: "260 contracts have a party in Canada.",
	Calls: []Call{
		{Tool: "contract_search", Args: json.RawMessage(`{"party_country": "Canadia"}`), Error: `party_country: unknown country "Canadia"`},
		{Tool: "contract_search", Args: json.RawMessage(`{"party_country":"CA","limit":1}`), Result: json.RawMessage(`{"total_count":260,"examples":[{"contract_id":"gen-7-0000855"}]}`)},
	},
}

func TestJudgePromptGolden(t *testing.T) {
	long := judgedResult
	long.Calls = append([]Call{}, judgedResult.Calls...)
	long.Calls[1].Result = json.RawMessage(`{"total_count":260,"examples":[{"summary":"` + strings.Repeat("x", 300) + `"}]}`)
	tests := []struct {
		name string
		q    Question
		r    Result
		max  int
	}{
		{"judge", Question{ID: "demo05", Question: "How many contracts involve a party located in Canada?", Answer: "260 contracts.", MustContain: []string{"260"}}, judgedResult, 0},
		{"judge-no-reference", Question{ID: "q", Question: "Who signs most?"}, Result{Answer: "I could not tell."}, 0},
		{"judge-clipped", Question{ID: "q", Question: "How many?"}, long, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&Judge{MaxResultBytes: tt.max}).judgePrompt(tt.q, &tt.r)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("prompt %s changed; run go test -update and review the diff.\ngot:\n%s\nwant:\n%s", tt.name, got, want)
			}
		})
	}
}

func TestJudgeGrade(t *testing.T) {
	q := Question{ID: "demo05", Question: "How many?", Answer: "260."}
	good := `{"reason":"Right count.","correctness":5,"faithfulness":4,"satisfactory":true}`
	tests := []struct {
		name     string
		replies  []llmtest.Step
		want     *Verdict
		wantErr  string
		requests int
	}{
		{name: "valid", replies: []llmtest.Step{llmtest.Text(good)}, want: &Verdict{Reason: "Right count.", Correctness: 5, Faithfulness: 4, Satisfactory: true}, requests: 1},
		{name: "in a code fence", replies: []llmtest.Step{llmtest.Text("```json\n" + good + "\n```")}, want: &Verdict{Reason: "Right count.", Correctness: 5, Faithfulness: 4, Satisfactory: true}, requests: 1},
		{name: "repaired", replies: []llmtest.Step{llmtest.Text(`{"reason": "ok", "correctness": 5,`), llmtest.Text(good)},
			want: &Verdict{Reason: "Right count.", Correctness: 5, Faithfulness: 4, Satisfactory: true}, requests: 2},
		{name: "out of range, repaired", replies: []llmtest.Step{llmtest.Text(`{"reason":"r","correctness":9,"faithfulness":4,"satisfactory":true}`), llmtest.Text(good)},
			want: &Verdict{Reason: "Right count.", Correctness: 5, Faithfulness: 4, Satisfactory: true}, requests: 2},
		{name: "broken twice", replies: []llmtest.Step{llmtest.Text("The answer is fine."), llmtest.Text(`{"verdict": "good"}`)},
			wantErr: "judge: model reply does not match the schema", requests: 2},
		{name: "provider error", replies: []llmtest.Step{llmtest.Fail(&llm.APIError{Provider: "openai", Kind: llm.ErrRateLimited})}, wantErr: "rate limited", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llmtest.NewScripted(tt.replies...)
			v, usage, err := (&Judge{Model: m, Seed: 9}).Grade(context.Background(), q, &judgedResult)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			reqs := m.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tt.requests)
			}
			for _, r := range reqs {
				if r.ResponseFormat == nil || !strings.Contains(string(r.ResponseFormat.Schema), `"faithfulness"`) || *r.Temperature != 0 || *r.Seed != 9 {
					t.Errorf("request: format %+v, temperature %v, seed %v", r.ResponseFormat, r.Temperature, r.Seed)
				}
			}
			if tt.requests == 2 {
				last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
				if !strings.Contains(last, "not valid for the required JSON schema") {
					t.Errorf("the repair round does not say what was wrong: %q", last)
				}
			}
			if tt.replies[0].Response != nil && usage.InputTokens == 0 {
				t.Errorf("usage %+v not counted", usage)
			}
		})
	}
}

// A judge that answers with broken JSON fails that question's grade only:
// the answers are still scored and the other questions judged.
func TestAnswersJudgeFailureIsPerQuestion(t *testing.T) {
	set := demoTools(t)
	call := llmtest.Calls(llmtest.Call("c1", "contract_search", `{"party_country":"CA"}`))
	m := llmtest.NewScripted(call, countAnswer(t), call, countAnswer(t))
	judge := llmtest.NewScripted(llmtest.Text("Looks right to me!"), llmtest.Text("{broken"),
		llmtest.Text(`{"reason":"Correct.","correctness":5,"faithfulness":5,"satisfactory":true}`))
	second := canada
	second.ID = "again"
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set}, Model: "m", Judge: &Judge{Model: judge, Name: "scripted-judge"}}
	run, err := ev.Run(context.Background(), []Question{canada, second})
	if err != nil {
		t.Fatal(err)
	}
	first, next := run.Results[0], run.Results[1]
	if first.Judge != nil || !strings.Contains(first.JudgeError, "judge: model reply does not match the schema") || !first.Pass {
		t.Errorf("first: judge %+v, error %q, pass %v", first.Judge, first.JudgeError, first.Pass)
	}
	if next.Judge == nil || !next.Judge.Satisfactory || next.JudgeError != "" {
		t.Errorf("second: judge %+v, error %q", next.Judge, next.JudgeError)
	}
	s := run.Summary
	if s.Judged != 1 || s.JudgeErrors != 1 || s.Satisfactory != 1 || s.MeanCorrectness != 5 || s.Passed != 2 || run.Judge != "scripted-judge" {
		t.Errorf("summary %+v", s)
	}
	// The judge saw the question, the reference figures and the tool result.
	prompt := judge.Requests()[2].Messages[0].Content
	for _, want := range []string{canada.Question, "Figures a correct answer states: 260", `contract_search {"party_country":"CA"}`, `"total_count":260`, "There are 260 such contracts."} {
		if !strings.Contains(prompt, want) {
			t.Errorf("judge prompt lacks %q", want)
		}
	}
}
