package graphtest

import (
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Hostile party names: stored and matched as plain data by every backend.
const (
	sqlInjection    = "'); DROP TABLE contracts;--"
	cypherInjection = "MATCH (n) DETACH DELETE n"
	backslashQuotes = `Back\slash "Quoted" Partners`
	unicodeName     = "Théta Société Anonyme"
)

// Texts of the two contracts whose clauses carry verbatim spans.
const (
	textC01 = "SUPPLY AGREEMENT. 1. Term. This Agreement renews automatically for one year unless either party " +
		"gives notice of termination. 2. Liability. The total liability of the Supplier shall not exceed the fees paid."
	textC02 = "LICENSE. Confidentiality. Each party shall keep the other party's confidential information secret for five years."
)

// span returns the byte offsets of sub in text; the fixture only uses
// substrings that occur.
func span(text, sub string) (int, int) {
	i := strings.Index(text, sub)
	if i < 0 {
		panic("graphtest: fixture span not in text: " + sub)
	}
	return i, i + len(sub)
}

func intp(v int) *int           { return &v }
func floatp(v float64) *float64 { return &v }

func loc(country string) *contract.Location { return &contract.Location{Country: country} }

func law(country, state string) *contract.Location {
	return &contract.Location{Country: country, State: state}
}

func role(name, r, country string) contract.PartyRole {
	pr := contract.PartyRole{Name: name, Role: r}
	if country != "" {
		pr.Location = loc(country)
	}
	return pr
}

func summaryClause(typ, summary string) contract.Clause {
	return contract.Clause{Type: typ, Summary: summary}
}

func spanClause(typ, text, sub string) contract.Clause {
	start, end := span(text, sub)
	return contract.Clause{Type: typ, Text: sub, Start: start, End: end, Verified: true}
}

func spanEvidence(field, value, text, sub string) contract.Evidence {
	start, end := span(text, sub)
	return contract.Evidence{Field: field, Value: value, Quote: sub, Start: start, End: end, Verified: true}
}

func chunk(ord int, text, sub string) contract.Chunk {
	start, end := span(text, sub)
	return contract.Chunk{Ord: ord, Text: sub, Start: start, End: end}
}

// Fixture returns twelve hand-written contracts, c01..c12, whose facts the
// suite's expectations are computed from by hand. Each call returns fresh
// values. Notable features:
//   - Acme appears as "Acme Corp." (c01, c08, c11), "ACME Corporation" (c02)
//     and "Acme, Inc." (c03): one party with two aliases, shown as "ACME
//     Corporation" (contract.PreferredName). Gamma ("Gamma Ltd", "Gamma
//     Limited") and Delta ("Delta Inc", "Delta Inc.") likewise.
//   - c09 names Iota Events twice (two roles, second spelling "IOTA EVENTS").
//   - c10 has no dates, amount, parties or clauses (nulls in every ordering).
//   - c05, c06 and c07 carry hostile and unicode party names.
//   - c01 and c02 have text with verified clause spans; c01 has chunks.
//   - Timelines: c01 renews automatically every year (notice P30D, from
//     2021-10-14, with evidence), c05 every five years at most three times
//     (notice P6M, from 2020-05-04), c09 by option (notice P60D, ending
//     2020-11-19); c12 does not renew; the others do not say.
func Fixture() []*contract.Contract {
	return []*contract.Contract{
		{
			ID: "c01", Title: "Supply Agreement", ContractType: "Supply",
			Summary: "Supply of industrial widgets to Beta.", Scope: "Industrial widgets",
			EffectiveDate: "2019-10-15", EndDate: "2021-10-14", Duration: "P2Y", DurationDays: intp(730),
			TotalAmount: floatp(1000000), Currency: "USD", GoverningLaw: law("US", "NY"),
			Parties: []contract.PartyRole{
				{Name: "Acme Corp.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "DE", City: "Wilmington"}},
				role("Beta GmbH", "Buyer", "DE"),
			},
			Clauses: []contract.Clause{
				spanClause("Renewal & Termination", textC01, "This Agreement renews automatically for one year unless either party gives notice of termination."),
				spanClause("Cap On Liability", textC01, "The total liability of the Supplier shall not exceed the fees paid."),
			},
			Chunks: []contract.Chunk{
				chunk(0, textC01, "SUPPLY AGREEMENT. 1. Term. This Agreement renews automatically for one year unless either party gives notice of termination."),
				chunk(1, textC01, "2. Liability. The total liability of the Supplier shall not exceed the fees paid."),
			},
			RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P1Y", NoticePeriod: "P30D", TerminationNotice: "P90D",
			Evidence: []contract.Evidence{
				spanEvidence(contract.FieldRenewalKind, contract.RenewalAutomatic, textC01, "renews automatically for one year"),
				spanEvidence(contract.FieldRenewalTerm, "P1Y", textC01, "for one year"),
			},
			Text: textC01,
		},
		{
			ID: "c02", Title: "Software License", ContractType: "License Agreement",
			Summary:       "License of widget design software.",
			EffectiveDate: "2018-03-01", EndDate: "2020-02-29", DurationDays: intp(730),
			TotalAmount: floatp(250000), Currency: "USD", GoverningLaw: law("US", "DE"),
			Parties: []contract.PartyRole{
				role("ACME Corporation", "Licensor", "US"),
				role("Gamma Ltd", "Licensee", "GB"),
			},
			Clauses: []contract.Clause{
				spanClause("Confidentiality & Non-Disclosure", textC02, "Each party shall keep the other party's confidential information secret for five years."),
			},
			Text: textC02,
		},
		{
			ID: "c03", ContractType: "Distributor",
			Summary:       "Exclusive distribution of medical devices in China.",
			EffectiveDate: "2005-01-10", EndDate: "2005-12-31", DurationDays: intp(355),
			GoverningLaw: law("US", "DE"),
			Parties: []contract.PartyRole{
				role("Delta Inc", "Distributor", "CN"),
				role("Acme, Inc.", "Supplier", "US"),
			},
			Clauses: []contract.Clause{
				summaryClause("Non-Compete & Exclusivity", "Distributor shall not sell competing devices."),
				summaryClause("Liability & Indemnification", "Supplier indemnifies distributor against product liability claims."),
			},
		},
		{
			ID: "c04", ContractType: "Service",
			Summary: "Cloud hosting and support services.", Scope: "Data centre operations",
			EffectiveDate: "2019-12-01", TotalAmount: floatp(5000000), Currency: "GBP", GoverningLaw: law("GB", ""),
			Parties: []contract.PartyRole{
				role("Gamma Limited", "Provider", "GB"),
				role("Epsilon LLC", "Customer", "US"),
			},
			Clauses: []contract.Clause{
				summaryClause("Confidentiality & Non-Disclosure", "Provider keeps customer data confidential."),
			},
		},
		{
			ID: "c05", ContractType: "Franchise",
			Summary:       "Franchise for fast food restaurants.",
			EffectiveDate: "2010-05-05", EndDate: "2020-05-04", DurationDays: intp(3652),
			TotalAmount: floatp(50000), Currency: "USD", GoverningLaw: law("US", "CA"),
			Parties: []contract.PartyRole{
				role(sqlInjection, "Franchisee", "US"),
				role("Zeta Franchising Co.", "Franchisor", "US"),
			},
			Clauses: []contract.Clause{
				summaryClause("Renewal & Termination", "Franchise renews for successive five year terms."),
			},
			RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P5Y", NoticePeriod: "P6M", RenewalCount: 3,
		},
		{
			ID: "c06", ContractType: "Joint Venture",
			Summary:       "Joint venture to build solar farms.",
			EffectiveDate: "2015-07-01", EndDate: "2030-06-30", DurationDays: intp(5478),
			TotalAmount: floatp(20000000), Currency: "USD", GoverningLaw: law("US", "NY"),
			Parties: []contract.PartyRole{
				role(cypherInjection, "Partner", "US"),
				role("Beta GmbH", "Partner", "DE"),
				role("Epsilon LLC", "Partner", "US"),
			},
			Clauses: []contract.Clause{
				summaryClause("Liability & Indemnification", "Each partner indemnifies the other for liability from its own negligence."),
			},
		},
		{
			ID: "c07", ContractType: "Joint Venture",
			Summary:       "Joint venture for wind energy research.",
			EffectiveDate: "2016-01-01", TotalAmount: floatp(5000000), Currency: "EUR",
			Parties: []contract.PartyRole{
				role(unicodeName, "Partner", "FR"),
				role(backslashQuotes, "Partner", ""),
			},
		},
		{
			ID: "c08", ContractType: "Sponsorship",
			Summary:       "Sponsorship of a charity marathon.",
			EffectiveDate: "2019-11-20", EndDate: "2019-12-31", DurationDays: intp(41),
			TotalAmount: floatp(100000), Currency: "USD", GoverningLaw: law("US", "NY"),
			Parties: []contract.PartyRole{
				role("Acme Corp.", "Sponsor", "US"),
				role("Iota Events", "Event", "CA"),
			},
		},
		{
			ID: "c09", Title: "Festival Deal", ContractType: "Sponsorship",
			Summary:       "Sponsorship of a music festival.",
			EffectiveDate: "2019-11-20", EndDate: "2020-11-19", DurationDays: intp(365),
			TotalAmount: floatp(300000), Currency: "CAD",
			Parties: []contract.PartyRole{
				role("Iota Events", "Organizer", "CA"),
				role("Kappa Pty Ltd", "Sponsor", "AU"),
				role("IOTA EVENTS", "Payee", "CA"),
			},
			Clauses: []contract.Clause{
				summaryClause("Cap On Liability", "Sponsor liability is capped at the sponsorship fee."),
			},
			RenewalKind: contract.RenewalOption, RenewalTerm: "P1Y", NoticePeriod: "P60D",
		},
		{
			ID: "c10", ContractType: "License Agreement",
		},
		{
			ID: "c11", ContractType: "Endorsement",
			Summary:       "Athlete endorsement of running shoes.",
			EffectiveDate: "2008-01-01", EndDate: "2009-12-31", DurationDays: intp(730),
			TotalAmount: floatp(75000), Currency: "USD", GoverningLaw: law("US", "CA"),
			Parties: []contract.PartyRole{
				role("Lambda Sports", "Endorser", "US"),
				role("Acme Corp.", "Company", "US"),
			},
		},
		{
			ID: "c12", ContractType: "Other",
			Summary:       "Memorandum on solar panel supply.",
			EffectiveDate: "2021-02-01", EndDate: "2022-01-31", DurationDays: intp(364),
			GoverningLaw: law("CN", ""),
			Parties: []contract.PartyRole{
				role("Delta Inc.", "Licensor", "CN"),
			},
			RenewalKind: contract.RenewalNone,
		},
	}
}
