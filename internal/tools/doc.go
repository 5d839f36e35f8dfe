// Package tools is ContractGraph's semantic layer: the typed tools
// (contract_search, contract_aggregate, party_search, get_contract,
// clause_search) that the agent, the CLI's `tools call`, the HTTP API and the
// MCP server all call through one [Set].
//
// A tool takes JSON arguments, decodes them into a typed Go input struct
// ([DecodeArgs]: unknown arguments are errors, but shapes whose meaning is
// plain, such as null or a one-element list, are accepted), validates and normalises them (dates, contract and clause types,
// countries, US states, limits) into a graph query, runs it on a
// [graph.Store] and returns the typed result as JSON. Every tool's JSON
// Schema is generated from its input struct, so the schema an LLM sees and
// the validation it is held to cannot drift apart. Bad arguments produce an
// [*ArgError] that names the field and lists the valid values, so that the
// caller, person or model, can correct itself.
//
// A Set describes its tools in full or, for small local models whose
// prompt processing the full schemas would dominate, compactly
// ([SchemasCompact]: short descriptions, no long enums); the tools and
// their behaviour are the same either way.
//
// Other packages add tools to a Set with [Register] (typed) or [Set.Add]
// (raw JSON), e.g. text2cypher for the Neo4j backend or the statute tools.
package tools
