// Package playbook checks contracts against a legal team's playbook: its
// standard position per clause type, the fallbacks it accepts, the red
// lines it never accepts and the numeric terms it requires (a minimum
// liability cap, a maximum notice period).
//
// A playbook is a YAML (or JSON) file, read by Parse; examples/commercial.yaml
// is the documented example (Example returns it). Check compares a stored
// contract's clauses with it without a model; Judge then asks a model for
// a short judgement of each deviation and red flag, keeping only the
// quotes found in the clause and the playbook. WriteJSON, WriteMarkdown
// and WriteHTML render the report.
//
// # Verdicts
//
// For each entry, the clauses of its CUAD type (contract.ClauseCategories)
// are looked up in the contract.
//
// A forbidden entry meets the standard when the contract has no such
// clause (status missing), and is a red flag when it has one (status
// forbidden_present).
//
// A required entry whose clause is missing is a red flag. Otherwise the
// clause closest to the playbook is compared with the standard and each
// fallback by textmatch.Similarity (0 to 1). A position whose require
// words the clause lacks does not apply. The numeric terms are read with
// package terms; a term rule is met when some term of its kind and unit
// lies within its bounds, not met when there are such terms but none
// within, not found when there is none (not found never changes the
// verdict: the report shows it for the reader). Then, in order:
//
//  1. a red-line term rule not met: red flag;
//  2. a red flag's sample text closer than every position, at similarity
//     RedFlagMin (0.5) or more: red flag;
//  3. the closest applicable position is the standard, at StandardMin
//     (0.5) or more: meets standard, or deviation when a term rule is not
//     met;
//  4. the closest applicable position is a fallback, at FallbackMin (0.4)
//     or more: acceptable fallback, or deviation when a term rule is not
//     met;
//  5. otherwise: deviation.
//
// Every result lists the reasons that led to its verdict.
package playbook
