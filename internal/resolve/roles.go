package resolve

import "github.com/contractgraph/contractgraph/internal/contract"

// roleWords are defined terms contracts use for a party's role. Extractors
// sometimes report them as the party's name ("Franchisee"); such a name
// says nothing about which entity it is, so it is never merged with
// another and never accepted as a name. Keys are contract.PartyKey forms.
var roleWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"company", "the company", "corporation", "licensor", "licensee", "sublicensor", "sublicensee",
		"franchisor", "franchisee", "distributor", "sub distributor", "supplier", "vendor", "customer",
		"client", "contractor", "subcontractor", "consultant", "manufacturer", "buyer", "seller",
		"purchaser", "reseller", "dealer", "agent", "principal", "partner", "party", "parties",
		"provider", "service provider", "recipient", "disclosing party", "receiving party",
		"licensors", "licensees", "lender", "borrower", "landlord", "tenant", "lessor", "lessee",
		"employer", "employee", "executive", "sponsor", "promoter", "developer", "publisher",
		"owner", "operator", "investor", "member", "members", "affiliate", "affiliates",
		"shareholder", "shareholders", "guarantor", "trustee", "host", "marketer", "endorser",
		"collaborator", "manager", "administrator", "assignor", "assignee", "producer",
		"the parties", "each party", "both parties", "us", "we", "you",
		"individual", "bank", "counterparty", "user", "end user", "merchant", "retailer",
		"wholesaler", "importer", "exporter", "carrier", "shipper", "customer affiliates",
		"premises", "exhibitor", "talent", "artist", "sales agent", "representative",
	} {
		m[contract.PartyKey(w)] = true
	}
	return m
}()

// IsRoleWord reports whether name is only a role word ("Franchisee",
// "the Company", "LICENSOR") rather than a party's name.
func IsRoleWord(name string) bool {
	k := contract.PartyKey(name)
	return k == "" || roleWords[k]
}
