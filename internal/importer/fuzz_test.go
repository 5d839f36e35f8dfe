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
		err := readJSONL(context.Background(), "f.jsonl", bufio.NewReader(strings.NewReader(in)), Limits{}.withDefaults(), func(r Record) error {
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

// FuzzArrayReader checks the streaming splitter of the reference array
// against encoding/json: for every valid JSON array it yields exactly the
// elements json.Unmarshal finds, and on any input it never panics.
func FuzzArrayReader(f *testing.F) {
	f.Add(`[{"a":"]"},[1,[2]],"x\"y",3,true,null]`)
	f.Add(`[]`)
	f.Add(` [ {"file_id":"a"} , {"s":"\\"} ] `)
	f.Add(`[1}`)
	f.Fuzz(func(t *testing.T, in string) {
		arr, err := newArrayReader(bufio.NewReaderSize(strings.NewReader(in), 16), 1<<20)
		var got []string
		if err == nil {
			for {
				el, err := arr.next()
				if err != nil {
					break
				}
				got = append(got, string(el.raw))
			}
		}
		var want []json.RawMessage
		if json.Unmarshal([]byte(in), &want) != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, encoding/json finds %d", in, len(got), len(want))
		}
		for i := range want {
			if strings.TrimSpace(got[i]) != strings.TrimSpace(string(want[i])) {
				t.Fatalf("%q: element %d is %q, encoding/json says %q", in, i, got[i], want[i])
			}
		}
	})
}
