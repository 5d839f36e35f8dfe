// Package resolve finds parties that are the same legal entity under
// different spellings ("A.B. Watley, Inc." and "AB Wately, Inc.") and
// merges them into one canonical party whose aliases keep the other
// spellings.
//
// Names are reduced to contract.PartyKey (case, punctuation, corporate
// suffixes); candidate pairs are blocked by shared rare tokens and key
// prefixes; each pair is scored by Jaro-Winkler and Levenshtein similarity of
// the keys, token by token, adjusted by shared or conflicting locations and
// shared counterparties. Hard rules veto a merge whatever the score: role
// words mistaken for names ("Franchisee"), two parties of one contract,
// conflicting legal forms (an LLC and an L.P. of the same name are two
// entities) and differing designators (Fund II and Fund III).
package resolve
