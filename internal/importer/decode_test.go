package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// decodeV1 is what decodeContract did before its v2 fast path, and what it
// still does for whatever v2 refuses.
func decodeV1(line []byte) (contract.Contract, bool, error) {
	var c contract.Contract
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&c)
	return c, err == nil && dec.More(), err
}

// checkDecodeAgrees fails when decodeContract's outcome for line differs
// from encoding/json's, and reports whether the v2 path decoded it.
func checkDecodeAgrees(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	var got contract.Contract
	more, err := decodeContract(line, &got)
	want, wantMore, wantErr := decodeV1(line)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json's %v", line, err, wantErr)
	}
	if more != wantMore {
		t.Fatalf("%q: more %v, encoding/json's %v", line, more, wantMore)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: decoded differently from encoding/json (-v1 +got):\n%s", line, diff)
	}
	var probe contract.Contract
	return jsonv2.Unmarshal(line, &probe, strictV2) == nil
}

// TestDecodeContractAgrees decodes generated contracts (every field the
// generator fills, in the form export writes), the export golden file and
// records v2 refuses for reasons encoding/json does not share, and checks
// that the result is encoding/json's every time, and that the generated
// ones, the import's common case, take the fast path.
func TestDecodeContractAgrees(t *testing.T) {
	fast := 0
	err := synth.Generate(7, 300, func(c *contract.Contract) error {
		line, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if checkDecodeAgrees(t, line) {
			fast++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fast != 300 {
		t.Errorf("%d of 300 generated contracts took the v2 path; want all", fast)
	}
	f, err := os.Open("testdata/export.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		checkDecodeAgrees(t, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"id":"a","id":"b"}`,            // duplicate member: the last wins in encoding/json
		`{"ID":"a","Title":"T"}`,         // names in another case match
		"{\"id\":\"a\xffb\"}",            // invalid UTF-8 becomes U+FFFD
		`{"id":"\ud800"}`,                // a lone surrogate too
		`{"id":"a"} {"id":"b"}`,          // a second value
		`{"id":"a","duration_days":1e2}`, // not an integer's form
		`{"id":"a","unknown":1}`,
		`{"id":"a",}`,
		`{"id":"a","parties":[{"name":"N","name":"M"}]}`,
		`{"id":"a","provenance":{"k":"v","k":"w"}}`,
		`{"id":"a","parties":null,"clauses":[null]}`,
	} {
		checkDecodeAgrees(t, []byte(line))
	}
}

// FuzzDecodeContract checks on arbitrary input that decodeContract decodes
// exactly as encoding/json does: same value, same error, same trailing
// value.
func FuzzDecodeContract(f *testing.F) {
	f.Add(`{"id":"a","title":"T","parties":[{"name":"Acme","role":"Buyer","location":{"country":"US"}}],"duration_days":30}`)
	f.Add(`{"id":"a","id":"b","Title":"x"}`)
	f.Add(`{"id":"a","clauses":[{"type":"Insurance","text":"b","start":1,"end":2,"verified":true}],"total_amount":1.5e3}`)
	f.Fuzz(func(t *testing.T, in string) {
		checkDecodeAgrees(t, []byte(in))
	})
}
