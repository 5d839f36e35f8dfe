package neo4j_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

func TestZZProfile(t *testing.T) {
	ctx := context.Background()
	s, err := neo4j.Open(ctx, neo4j.Config{URI: os.Getenv("NEO4J_URI"), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := strings.Split(os.Getenv("ZZ_CALLS"), ",")
	for _, c := range readDevCalls(t, sharedtest.Dir(t)) {
		ok := false
		for _, w := range want {
			ok = ok || w == c.ID
		}
		if !ok {
			continue
		}
		sts, err := neo4j.CallStatements(c.Tool, c.Args, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sts {
			plan, err := s.Profile(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			writePlan(&b, plan, 1)
			t.Logf("%s %s: %d db hits\n%s\n%s", c.ID, st.Name, totalDBHits(plan), st.Cypher, b.String())
		}
	}
}
