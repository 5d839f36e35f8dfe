#!/usr/bin/env node
// Lints Cypher statements with Neo4j's own language support
// (@neo4j-cypher/language-support, lintCypherQuery).
//
// Usage: node lint.mjs statements.json
//
// The input is what `CYPHER_DUMP=path go test ./internal/graph/neo4j -run TestCypherDump`
// writes: {"labels": [...], "relationshipTypes": [...], "propertyKeys": [...],
//          "statements": [{"name": "...", "cypher": "...", "params": {...}}]}.
// Each statement is linted against that schema with its own parameters.
// Every diagnostic fails the run: errors (syntax, semantics, undefined
// parameters) and warnings alike, since a warning about a label, relationship
// type or property the schema lacks means the compiler and the schema
// disagree, and a deprecation means the statement will break on the next
// major version. Exit status: 0 clean, 1 diagnostics, 2 bad input.
import { readFileSync } from 'node:fs';
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const severities = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

function main(argv) {
  if (argv.length !== 1) {
    console.error('usage: node lint.mjs statements.json');
    return 2;
  }
  let input;
  try {
    input = JSON.parse(readFileSync(argv[0], 'utf8'));
  } catch (err) {
    console.error(`cypherlint: read ${argv[0]}: ${err.message}`);
    return 2;
  }
  const statements = input.statements;
  if (!Array.isArray(statements) || statements.length === 0) {
    console.error(`cypherlint: ${argv[0]} holds no statements`);
    return 2;
  }
  let problems = 0;
  let failed = 0;
  for (const [i, st] of statements.entries()) {
    const name = st.name || `statement ${i + 1}`;
    if (typeof st.cypher !== 'string' || st.cypher.trim() === '') {
      console.error(`${name}: empty or missing "cypher"`);
      problems++;
      failed++;
      continue;
    }
    const schema = {
      labels: input.labels ?? [],
      relationshipTypes: input.relationshipTypes ?? [],
      propertyKeys: input.propertyKeys ?? [],
      parameters: st.params ?? {},
    };
    const { diagnostics } = lintCypherQuery(st.cypher, schema);
    if (diagnostics.length === 0) {
      continue;
    }
    failed++;
    console.log(`${name}:\n  ${st.cypher.replace(/\n/g, '\n  ')}`);
    for (const d of diagnostics) {
      problems++;
      const at = d.offsets ? ` at offset ${d.offsets.start}` : '';
      console.log(`  ${severities[d.severity] ?? 'diagnostic'}${at}: ${d.message}`);
    }
  }
  const summary = `cypherlint: ${statements.length} statements, ${failed} with diagnostics, ${problems} diagnostics`;
  if (problems > 0) {
    console.error(summary);
    return 1;
  }
  console.log(summary);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
