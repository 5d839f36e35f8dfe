// Package risk runs a contract risk review whose legal citations cannot be
// hallucinated. The pipeline's stages pass typed values to one another:
//
//	rule generator (first 5,000 characters → contract type and RuleSet)
//	→ risk analyst (text or chunks + rules → Analysis, on the agent's tool
//	  loop with clause_search and get_contract scoped to the contract and
//	  statute_search and get_statute to the review's jurisdiction)
//	→ senior reviewer (approve | feedback → the analyst revises | rewrite,
//	  at most MaxIterations rounds, plus a deterministic re-check of every
//	  citation and clause quote)
//	→ executive summariser (validated items only → Summary)
//	→ final gate (a citation survives only if statute_search returned its
//	  statute during this run and its quote is in the statute's text).
//
// Batch mode replaces the analyst and reviewer with a per-chunk triage,
// retrieval and analysis fan-out; each passage comes with its statutes and
// takes the analyst's path without tools. Every stage's reply is JSON
// validated against a schema derived from its Go type (the analyst's tool
// loop sends none, and a final reply that does not fit gets one
// schema-enforced call). Run returns a Report,
// partial (and saying why) when a model call fails or the review does not
// converge; WriteJSON, WriteMarkdown and WriteHTML render it.
package risk
