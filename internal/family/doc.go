// Package family finds the versions and families of contracts: amendments,
// restatements, statements of work, schedules and addenda that refer to a
// master agreement, and links each to its master among the stored
// contracts. It also diffs two versions of a contract clause by clause.
//
// Everything here is a pure function over contract records (title, the
// head of the text, resolved parties, dates): no I/O, no model. A link says
// which words of the amending contract support it (a quote with its byte
// span), how confident the match is and why; a reference whose master is
// not among the records is reported as unresolved rather than dropped, so
// that a user learns which agreements are missing.
//
// Restatements are AMENDS links with Restates set: an amended and restated
// agreement replaces the terms of the one it restates, which is what
// AMENDS says, and the flag tells the two apart without a third
// relationship type for stores and queries to know.
package family
