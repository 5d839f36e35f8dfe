package tools

import (
	"errors"
	"strings"
	"testing"
)

// cypherReads are statements a model may write: each must pass the parser,
// including those whose strings, quoted names, property keys, labels,
// aliases and comments hold a refused keyword.
var cypherReads = []string{
	"MATCH (c:Contract) RETURN count(c)",
	"MATCH (p:Party) WHERE p.name = 'Create Inc' RETURN p",
	"MATCH (p:Party) WHERE p.name = 'DELETE me' RETURN p",
	`MATCH (p:Party) WHERE p.name = "Set \"Merge\" Delete" RETURN p.name`,
	`RETURN 'it\'s a CREATE (x) // not code' AS s`,
	"MATCH (p:Party) // we never DELETE here\nRETURN p",
	"MATCH (n) RETURN n // CREATE (x)",
	"MATCH (p:Party) /* CREATE (x) */ RETURN p",
	"MATCH (c:Contract) RETURN c.`set` AS x, c.start AS s",
	"MATCH (n) RETURN n.`SET`, n.`CREATE` AS `DROP`",
	"MATCH (n:`SHOW`)-[:`DELETE`]->(m) RETURN m",
	"MATCH (n) WHERE n.created > '2020' RETURN n.created, n.set, n.delete, n.show, n.use",
	"MATCH (c:Contract) RETURN c {.id, set: c.title, delete: 1, show: 2} AS m",
	"MATCH (cl:Clause) WITH cl.start AS start, cl.end AS end RETURN start, end ORDER BY start",
	"WITH 1 AS show RETURN show",
	"MATCH (p:Party) WHERE p.name STARTS WITH 'Ac' AND p.name ENDS WITH 'e' RETURN p.name",
	"UNWIND $ids AS id MATCH (c:Contract {id: id}) RETURN c.id, $`odd name`, $0",
	"MATCH (a:Party)-[:PARTY_TO*1..3]-(b) RETURN b LIMIT 5",
	"MATCH ((a)-[:PARTY_TO]->(b)){1,3} RETURN a",
	"MATCH p = shortestPath((a:Party)-[*..4]-(b:Party)) RETURN length(p)",
	"MATCH (c:Contract) RETURN c.id AS id UNION ALL MATCH (p:Party) RETURN p.id AS id",
	"MATCH (c:Contract) RETURN c.id AS id UNION MATCH (p:Party) RETURN p.id AS id",
	"MATCH (c:Contract) WHERE EXISTS { MATCH (c)-[:HAS_CLAUSE]->(cl:Clause) WHERE cl.type = 'Non-Compete' } RETURN c.id",
	"MATCH (c:Contract) RETURN c.id, COUNT { (c)-[:HAS_CLAUSE]->() } AS clauses",
	"MATCH (c:Contract) WHERE exists { (c)<-[:PARTY_TO]-(:Party) } RETURN c.id",
	"MATCH (c:Contract) RETURN c.id, COLLECT { MATCH (c)<-[:PARTY_TO]-(p) RETURN p.name ORDER BY p.name } AS parties",
	"MATCH (c:Contract) CALL (c) { MATCH (c)-[:HAS_CLAUSE]->(cl) RETURN count(cl) AS n } RETURN c.id, n",
	"MATCH (c:Contract) CALL { WITH c MATCH (c)-[:HAS_CLAUSE]->(cl) RETURN count(cl) AS n } RETURN c.id, n",
	"CALL { MATCH (c:Contract) RETURN c.id AS id UNION MATCH (p:Party) RETURN p.id AS id } RETURN id",
	"CALL db.index.fulltext.queryNodes('contract_text', 'merge') YIELD node RETURN node.id",
	"call db.index.fulltext.queryNodes('contract_text', 'x') yield node, score where score > 1 return node.id",
	"CALL db.index.vector.queryNodes('chunk_embedding', 5, $v) YIELD node, score RETURN node.id, score",
	"MATCH (n) RETURN CASE WHEN n.x = 1 THEN 'set' ELSE 'delete' END AS label",
	"MATCH (p:Party) RETURN [k IN p.match_keys WHERE k CONTAINS 'acme' | k] AS keys, [(p)-[:PARTY_TO]->(c) WHERE c.id <> '' | c.id] AS ids",
	"MATCH (p:Party) WHERE any(k IN p.match_keys WHERE k CONTAINS 'acme') RETURN p",
	"MATCH (c:Contract) RETURN c.id AS id ORDER BY id DESC SKIP 5 LIMIT 10",
	"MATCH (n) WITH n ORDER BY n.id LIMIT 3 RETURN n",
	"MATCH (c:Contract) RETURN c.id;",
	"MATCH (n) WHERE n.name =~ '(?i)acme.*' AND n.x IS NOT NULL RETURN n",
	"RETURN 1.5e3, 0x1F, -2, 1e-3",
	"MATCH (c:Contract) RETURN date.truncate('month', date(c.effective_date)) AS m, duration.between(date(), date()).days AS d, c.id AS id",
	"OPTIONAL MATCH (n:Nothing) RETURN n",
	"match (c:Contract)\n  where c.contract_type = 'Distributor'\n  return c.id",
	"MATCH (cl:Clause) WHERE cl.type = 'Termination For Convenience' RETURN cl.start, cl.end",
}

func TestCheckReadOnlyCypherAllowsReads(t *testing.T) {
	for _, q := range cypherReads {
		if err := CheckReadOnlyCypher(q); err != nil {
			t.Errorf("CheckReadOnlyCypher(%q) = %v, want nil", q, err)
		}
	}
}

// cypherAttacks is the attack corpus: every statement must be refused with
// an error naming the clause, keyword or procedure and where it stands.
var cypherAttacks = []struct{ q, want string }{
	// Administration, which EXPLAIN calls read-only.
	{"SHOW TRANSACTIONS", "SHOW TRANSACTIONS at 1:1 administers the server"},
	{"show transactions yield transactionId, currentQuery RETURN *", "SHOW TRANSACTIONS at 1:1"},
	{"TERMINATE TRANSACTIONS 'neo4j-transaction-42'", "TERMINATE TRANSACTIONS at 1:1"},
	{"SHOW TRANSACTIONS YIELD transactionId AS id TERMINATE TRANSACTIONS id", "SHOW TRANSACTIONS at 1:1"},
	{"SHOW SETTINGS", "SHOW SETTINGS at 1:1"},
	{"SHOW PROCEDURES", "SHOW PROCEDURES at 1:1"},
	{"SHOW USERS", "SHOW USERS at 1:1 administers the server"},
	{"Show Users", "SHOW USERS at 1:1"},
	{"SHOW DATABASES", "SHOW DATABASES at 1:1"},
	{"START DATABASE neo4j", "START DATABASE at 1:1"},
	{"stop database neo4j", "STOP DATABASE at 1:1"},
	{"DROP INDEX contract_text", "DROP INDEX at 1:1"},
	{"CREATE INDEX x FOR (n:Party) ON (n.name)", "CREATE INDEX at 1:1 changes the schema"},
	{"CREATE USER eve SET PASSWORD 'x'", "CREATE USER at 1:1"},
	{"ALTER USER neo4j SET PASSWORD 'x'", "ALTER USER at 1:1"},
	{"GRANT ROLE admin TO bob", "GRANT ROLE at 1:1"},
	{"DENY TRAVERSE ON GRAPH * TO bob", "DENY TRAVERSE at 1:1"},
	{"REVOKE ROLE admin FROM bob", "REVOKE ROLE at 1:1"},
	{"USE system SHOW USERS", "USE at 1:1 switches the database"},
	{"USE neo4j MATCH (n) RETURN n", "USE at 1:1"},
	{"WITH 1 AS x SHOW USERS", "SHOW USERS at 1:13"},
	// Writes.
	{"CREATE (n:Pwned)", "CREATE at 1:1 writes"},
	{"MATCH (n) /* */ CREATE (x) RETURN x", "CREATE at 1:17 writes"},
	{"MATCH (n) RETURN n // see below\nCREATE (x)", "CREATE at 2:1"},
	{"match (n) detach delete n", "DETACH DELETE at 1:11"},
	{"MATCH (n) Delete n", "DELETE at 1:11"},
	{"MATCH (n)\nWITH n\n  DELETE n", "DELETE at 3:3"},
	{"MERGE (p:Party {id: 'x'})", "MERGE at 1:1"},
	{"MATCH (p:Party) SeT p.name = 'x' RETURN p", "SET at 1:17"},
	{"MATCH (p:Party) REMOVE p.name", "REMOVE at 1:17"},
	{"INSERT (n:Pwned)", "INSERT at 1:1"},
	{"LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV at 1:1 reads files"},
	{"load csv with headers from 'http://x' as r return r", "LOAD CSV at 1:1"},
	{"MATCH (p:Party) WITH collect(p) AS ps FOREACH (x IN ps | SET x.n = 1)", "FOREACH at 1:39"},
	{"MATCH (n) RETURN n ORDER BY n.id DELETE n", "DELETE at 1:34"},
	{"MATCH (n) WHERE EXISTS { CREATE (m) } RETURN n", "CREATE at 1:26"},
	{"MATCH (n) RETURN [x IN [1] | CREATE (m)]", "CREATE at 1:30"},
	{"CALL { CREATE (x) RETURN x } RETURN x", "CREATE at 1:8"},
	{"MATCH (a) CALL (a) { MATCH (a)-->(b) SET b.x = 1 } RETURN a", "SET at 1:38"},
	{"MATCH (n) CALL (n) { RETURN n.id AS id } IN TRANSACTIONS OF 10 ROWS RETURN id", "CALL { ... } IN TRANSACTIONS at 1:42"},
	{"CALL { MATCH (n) RETURN n } in concurrent transactions", "IN TRANSACTIONS at 1:29"},
	// Procedures that are not the listed index look-ups.
	{"CALL dbms.killQueries(['x'])", "CALL dbms.killQueries at 1:1 is not allowed"},
	{"CALL dbms.listConfig()", "CALL dbms.listConfig at 1:1"},
	{"CALL dbms.security.createUser('eve', 'x', false)", "CALL dbms.security.createUser at 1:1"},
	{"CALL `dbms`.`killQueries`(['x'])", "CALL dbms.killQueries at 1:1"},
	{"CALL apoc.create.node(['X'], {}) YIELD node RETURN node", "CALL apoc.create.node at 1:1"},
	{"CALL apoc.cypher.runWrite('CREATE (n)', {}) YIELD value RETURN value", "CALL apoc.cypher.runWrite at 1:1"},
	{"CALL APOC.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})", "CALL APOC.periodic.iterate at 1:1"},
	{"CALL apoc.meta.schema() YIELD value RETURN value", "CALL apoc.meta.schema at 1:1"},
	{"CALL db.createLabel('X')", "CALL db.createLabel at 1:1"},
	{"CALL db.labels()", "CALL db.labels at 1:1"},
	{"MATCH (n) OPTIONAL CALL apoc.do.when(true, 'x', 'y') YIELD value RETURN n", "CALL apoc.do.when at 1:20"},
	{"MATCH (n) WITH n CALL db.index.fulltext.createNodeIndex('x', ['A'], ['b']) RETURN n", "CALL db.index.fulltext.createNodeIndex at 1:18"},
	{"RETURN apoc.cypher.runFirstColumnSingle('MATCH (n) DETACH DELETE n', {}) AS x", "apoc.cypher.runFirstColumnSingle() at 1:8 is not one of Cypher's own functions"},
	{"MATCH (n) WHERE `apoc`.`util`.sleep(100000) RETURN n", "apoc.util.sleep() at 1:17"},
	// More than one statement, prefixes and other clauses.
	{"MATCH (n) RETURN n; MATCH (m) RETURN m", "; at 1:19 starts a second statement"},
	{"MATCH (n) RETURN n;;", "; at 1:19"},
	{"MATCH (n) RETURN n; CREATE (x)", "; at 1:19"},
	{"EXPLAIN MATCH (n) RETURN n", "EXPLAIN at 1:1"},
	{"profile MATCH (n) RETURN n", "PROFILE at 1:1"},
	{"CYPHER runtime=slotted MATCH (n) RETURN n", "CYPHER at 1:1"},
	{"MATCH (n) FINISH", "FINISH at 1:11"},
	{"RETURN 1 AS x UNION", "a query is missing after UNION"},
	{"(n)", `"(" at 1:1 is not where a clause can start`},
	{"", "the statement is empty"},
	{"// only a comment", "the statement is empty"},
	// Malformed input.
	{"MATCH (n) /* unterminated RETURN n", "at 1:11 a /* comment is not closed"},
	{"MATCH (n) WHERE n.x = 'open RETURN n", "at 1:23 a string literal is not closed"},
	{"MATCH (n) RETURN n.`open", "a `quoted name` is not closed"},
	{"MATCH (n RETURN n", "RETURN at 1:10 is not allowed inside an expression"},
	{"MATCH (n:Party", `"(" at 1:7 is not closed`},
	{"MATCH (n)) RETURN n", `")" at 1:10 closes nothing`},
	{"MATCH (n] RETURN n", `"]" at 1:9 does not close the "(" at 1:7`},
	{"MATCH (n) RETURN n\u00a0", "the character U+00A0 is not part of Cypher code"},
	{"MATCH (n) RETURN n\x00", "the character U+0000"},
	{"MATCH (n) RETURN \xff", "not valid UTF-8"},
}

func TestCheckReadOnlyCypherRefusesAttacks(t *testing.T) {
	for _, c := range cypherAttacks {
		err := CheckReadOnlyCypher(c.q)
		var r *CypherRefusal
		if !errors.Is(err, ErrCypherRefused) || !errors.As(err, &r) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckReadOnlyCypher(%q) = %v, want a refusal saying %q", c.q, err, c.want)
		}
	}
}

func FuzzCheckReadOnlyCypher(f *testing.F) {
	for _, s := range cypherReads {
		f.Add(s)
	}
	for _, c := range cypherAttacks {
		f.Add(c.q)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckReadOnlyCypher(s)
		var r *CypherRefusal
		if err != nil && (!errors.Is(err, ErrCypherRefused) || !errors.As(err, &r)) {
			t.Fatalf("error %v is not a *CypherRefusal", err)
		}
		if r != nil && (r.Line < 1 || r.Line > strings.Count(s, "\n")+1 || r.Col < 1) {
			t.Fatalf("refusal at %d:%d, outside the statement %q", r.Line, r.Col, s)
		}
		// A statement that begins with a writing clause is never accepted,
		// whatever follows it.
		if err := CheckReadOnlyCypher("CREATE (x) " + s); err == nil {
			t.Fatalf("CREATE prefix accepted for %q", s)
		}
		if err == nil {
			// An accepted statement stays accepted behind a comment line,
			// and a second statement after it is refused.
			if err := CheckReadOnlyCypher("// c\n" + s); err != nil {
				t.Fatalf("accepted %q but not after a comment: %v", s, err)
			}
		}
	})
}
