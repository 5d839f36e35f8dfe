package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzJSONL feeds arbitrary input to the JSONL reader: it must not panic,
// every record must carry either a valid contract or a *RecordError, and
// every accepted contract must pass Validate again unchanged.
func FuzzJSONL(f *testing.F) {
	f.Add(`{"contractgraph_export":1}` + "\n" + `{"id":"a","text":"abc","clauses":[{"type":"Insurance","text":"b","start":1,"end":2,"verified":true}]}`)
	f.Add(`{"id":"a","effective_date":"2019-02-30"}`)
	f.Add(`{"id":"a","evidence":[{"field":"x","quote":"q","start":5,"end":9,"verified":true}]}`)
	f.Add("{\"id\":\"a\"\n\n{")
	f.Fuzz(func(t *testing.T, in string) {
		err := readJSONL(context.Background(), "f.jsonl", bufio.NewReader(strings.NewReader(in)), func(r Record) error {
			if (r.Contract == nil) == (r.Err == nil) {
				t.Fatalf("record %d: contract %v, err %v", r.Index, r.Contract, r.Err)
			}
			var re *RecordError
			if r.Err != nil && !errors.As(r.Err, &re) {
				t.Fatalf("record error %T is not a *RecordError", r.Err)
			}
			if r.Contract != nil {
				if field, err := Validate(r.Contract); err != nil {
					t.Fatalf("accepted contract fails Validate: %s: %v", field, err)
				}
			}
			return nil
		})
		var re *RecordError
		if err != nil && !errors.As(err, &re) {
			t.Fatalf("Read error %T is not a *RecordError: %v", err, err)
		}
	})
}

// FuzzReference feeds arbitrary JSON values to the reference converter.
func FuzzReference(f *testing.F) {
	f.Add(`{"file_id":"a","parties":[{"name":"Acme","location":{"country":"USA","state":"New York"}}],"duration":"P1Y","total_amount":"$5"}`)
	f.Add(`{"file_id":"b","effective_date":"2019-02-30","clauses":[{"clause_type":"x"}]}`)
	f.Add(`[1]`)
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		c, warnings, err := convertReference("f.json", 1, json.RawMessage(in))
		if (c == nil) == (err == nil) {
			t.Fatalf("contract %v with err %v", c, err)
		}
		for _, w := range warnings {
			var re *RecordError
			if !errors.As(w, &re) || re.Field == "" {
				t.Fatalf("warning %v names no field", w)
			}
		}
		if c != nil && c.ID == "" {
			t.Fatal("contract without id")
		}
	})
}
