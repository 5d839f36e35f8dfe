// A read-only Neo4j user for ContractGraph's text2cypher tool, which runs
// Cypher that a language model wrote. The tool already refuses everything
// but read queries; this user makes the database refuse them too, whatever
// gets through.
//
// Role-based access control needs Neo4j Enterprise Edition: on Community
// Edition CREATE ROLE and GRANT fail, and every user may do everything, so a
// second user gains nothing. There, leave NEO4J_READONLY_USERNAME unset:
// text2cypher's statements run as NEO4J_USERNAME, guarded by the tool's
// parser and EXPLAIN check only (start-up warns about it). Where the database
// itself must refuse model-written administration, use Enterprise (or Aura),
// or keep such a deployment on the SQLite store, which has no text2cypher.
//
// Before running it, replace 'change-me' with a password of your own and, if
// the contracts are not in the default database "neo4j", replace neo4j in ON
// DATABASE / ON GRAPH with their database's name. Run it as an administrator
// against the system database:
//
//   cypher-shell -a neo4j://localhost:7687 -u neo4j -d system \
//     -f scripts/neo4j-readonly-user.cypher
//
// Then give ContractGraph the user next to the main one:
//
//   export NEO4J_READONLY_USERNAME=contractgraph_reader NEO4J_READONLY_PASSWORD=...
//
// Running the script again is harmless: it creates only what is missing and
// grants what is already granted once more.

CREATE ROLE contractgraph_reader IF NOT EXISTS;

// Read the contract graph: connect to its database, find and read every node
// and relationship. Schema introspection (db.schema.*) and the index look-ups
// text2cypher may call need no more than this and the PUBLIC role's right to
// execute procedures.
GRANT ACCESS ON DATABASE neo4j TO contractgraph_reader;
GRANT MATCH {*} ON GRAPH neo4j ELEMENTS * TO contractgraph_reader;

// Nothing else, even if another role of the same user would allow it: no
// writes, no index or constraint changes, no seeing or stopping other
// sessions' transactions.
DENY WRITE ON GRAPH neo4j TO contractgraph_reader;
DENY INDEX MANAGEMENT ON DATABASE neo4j TO contractgraph_reader;
DENY CONSTRAINT MANAGEMENT ON DATABASE neo4j TO contractgraph_reader;
DENY SHOW TRANSACTION (*) ON DATABASE neo4j TO contractgraph_reader;
DENY TERMINATE TRANSACTION (*) ON DATABASE neo4j TO contractgraph_reader;

CREATE USER contractgraph_reader IF NOT EXISTS SET PASSWORD 'change-me' CHANGE NOT REQUIRED;
GRANT ROLE contractgraph_reader TO contractgraph_reader;
