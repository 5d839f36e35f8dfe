package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestDeleteContract deletes a contract over the API: the token is
// required as for every route, a cross-site browser request is refused,
// the contract and its clauses are gone afterwards, and a second
// delete, like one of an unknown id, is 404.
func TestDeleteContract(t *testing.T) {
	const token = "s3cret-token"
	s, _ := newTestServer(t, func(c *Config) { c.Token = token })
	h := s.Handler()
	send := func(method, target string, hdr map[string]string) (int, []byte) {
		req, _ := http.NewRequest(method, target, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := newRecorder()
		h.ServeHTTP(rec, req.WithContext(context.Background()))
		return rec.Code, rec.Body.Bytes()
	}
	auth := map[string]string{"Authorization": "Bearer " + token}
	ctx := context.Background()
	before, err := s.store.GetContract(ctx, "acme-distribution")
	if err != nil {
		t.Fatal(err)
	}
	stats, err := s.store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if code, _ := send("DELETE", "/api/contracts/acme-distribution", nil); code != 401 {
		t.Errorf("without the token: %d, want 401", code)
	}
	code, _ := send("DELETE", "/api/contracts/acme-distribution", map[string]string{
		"Authorization": "Bearer " + token, "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example",
	})
	if code != 403 {
		t.Errorf("cross-site browser delete: %d, want 403", code)
	}
	if _, err := s.store.GetContract(ctx, "acme-distribution"); err != nil {
		t.Fatalf("refused deletes deleted: %v", err)
	}

	code, body := send("DELETE", "/api/contracts/acme-distribution", auth)
	var res deleteResult
	if code != 200 || json.Unmarshal(body, &res) != nil || res.Deleted != "acme-distribution" {
		t.Fatalf("delete: %d %s", code, body)
	}
	if _, err := s.store.GetContract(ctx, "acme-distribution"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}
	if code, _ := send("GET", "/api/contracts/acme-distribution", auth); code != 404 {
		t.Errorf("GET after delete: %d, want 404", code)
	}
	after, err := s.store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Nodes["Contract"] != stats.Nodes["Contract"]-1 || after.Nodes["Clause"] != stats.Nodes["Clause"]-len(before.Clauses) {
		t.Errorf("stats %v -> %v, want one contract and its %d clauses fewer", stats.Nodes, after.Nodes, len(before.Clauses))
	}
	for _, id := range []string{"acme-distribution", "no-such-contract"} {
		code, body := send("DELETE", "/api/contracts/"+id, auth)
		if code != 404 || errorOf(t, body).Code != codeNotFound || !strings.Contains(string(body), id) {
			t.Errorf("delete %s: %d %s, want 404 naming it", id, code, body)
		}
	}
	if code, _ := send("PUT", "/api/contracts/x", auth); code != 405 {
		t.Errorf("PUT: %d, want 405", code)
	}
}
