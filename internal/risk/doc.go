// Package risk runs a contract risk review whose legal citations cannot be
// hallucinated. The pipeline's stages pass typed values to one another:
//
//	rule generator (first 5,000 characters → contract type and RuleSet)
//	→ risk analyst (text or chunks + rules, tools statute_search and a
//	  clause_search scoped to the contract → Analysis)
//	→ senior reviewer (approve | feedback → the analyst revises | rewrite,
//	  at most MaxIterations rounds, plus a deterministic re-check of every
//	  citation and clause quote)
//	→ executive summariser (validated items only → Summary)
//	→ final gate (a citation survives only if statute_search returned its
//	  statute during this run and its quote is in the statute's text).
//
// Batch mode replaces the analyst and reviewer with a per-chunk triage,
// retrieval and analysis fan-out. Every model call asks for JSON validated
// against a schema derived from the stage's Go type. Run returns a Report,
// partial (and saying why) when a model call fails or the review does not
// converge; WriteJSON, WriteMarkdown and WriteHTML render it.
package risk
