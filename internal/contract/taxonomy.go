package contract

import (
	"fmt"
	"sort"
	"strings"
)

// ContractTypes is the closed list of contract types, in display order. It is
// the reference implementation's list with its two fused entries repaired,
// plus the CUAD types the reference list lacked.
var ContractTypes = []string{
	"Affiliate Agreement",
	"Agency",
	"Co-Branding",
	"Collaboration",
	"Consulting",
	"Development",
	"Distributor",
	"Endorsement",
	"Franchise",
	"Hosting",
	"IP",
	"Joint Venture",
	"License Agreement",
	"Maintenance",
	"Manufacturing",
	"Marketing",
	"Non Compete/Solicit",
	"Outsourcing",
	"Promotion",
	"Reseller",
	"Service",
	"Sponsorship",
	"Strategic Alliance",
	"Supply",
	"Transportation",
	"Other",
}

// legacyTypes maps the reference data's fused values to the two types each
// one fused. The first is chosen unless the hint (title or file name) names
// the second.
var legacyTypes = map[string][2]string{
	"affiliate agreementdevelopment": {"Affiliate Agreement", "Development"},
	"non compete/solicitoutsourcing": {"Non Compete/Solicit", "Outsourcing"},
}

// typeSynonyms maps lower-cased alternative spellings to canonical types.
var typeSynonyms = map[string]string{
	"license":                      "License Agreement",
	"licence":                      "License Agreement",
	"licence agreement":            "License Agreement",
	"distribution":                 "Distributor",
	"distributor agreement":        "Distributor",
	"services":                     "Service",
	"service agreement":            "Service",
	"non-compete/non-solicit":      "Non Compete/Solicit",
	"non-compete":                  "Non Compete/Solicit",
	"non compete":                  "Non Compete/Solicit",
	"intellectual property":        "IP",
	"joint-venture":                "Joint Venture",
	"cobranding":                   "Co-Branding",
	"co branding":                  "Co-Branding",
	"affiliate":                    "Affiliate Agreement",
	"strategic alliance agreement": "Strategic Alliance",
}

// ParseContractType returns the canonical contract type for s, accepting any
// case, the synonyms above and the reference data's legacy fused values
// (resolved with hint, typically the title or file name). The error lists the
// valid values.
func ParseContractType(s, hint string) (string, error) {
	key := strings.ToLower(strings.Join(strings.Fields(s), " "))
	if key == "" {
		return "", fmt.Errorf("empty contract type; valid values: %s", strings.Join(ContractTypes, ", "))
	}
	for _, t := range ContractTypes {
		if strings.ToLower(t) == key {
			return t, nil
		}
	}
	if t, ok := typeSynonyms[key]; ok {
		return t, nil
	}
	if pair, ok := legacyTypes[key]; ok {
		h := strings.ToLower(hint)
		second := strings.ToLower(strings.Fields(pair[1])[0])
		first := strings.ToLower(strings.Fields(pair[0])[0])
		if strings.Contains(h, second) && !strings.Contains(h, first) {
			return pair[1], nil
		}
		return pair[0], nil
	}
	return "", fmt.Errorf("unknown contract type %q; valid values: %s", s, strings.Join(ContractTypes, ", "))
}

// Clause groups. The first five are the reference implementation's clause
// types; the rest group the remaining CUAD categories.
const (
	GroupRenewalTermination = "Renewal & Termination"
	GroupConfidentiality    = "Confidentiality & Non-Disclosure"
	GroupLiability          = "Liability & Indemnification"
	GroupNonCompete         = "Non-Compete & Exclusivity"
	GroupServiceLevel       = "Service-Level Agreements"
	GroupGeneral            = "General Information"
	GroupIntellectualProp   = "Intellectual Property & Licensing"
	GroupAssignment         = "Assignment & Change of Control"
	GroupCommercial         = "Pricing & Commercial Terms"
	GroupDisputesRemedies   = "Rights & Remedies"
)

// ClauseGroups lists every group in display order.
var ClauseGroups = []string{
	GroupRenewalTermination, GroupConfidentiality, GroupLiability, GroupNonCompete, GroupServiceLevel,
	GroupGeneral, GroupIntellectualProp, GroupAssignment, GroupCommercial, GroupDisputesRemedies,
}

// ClauseCategory is one CUAD clause category.
type ClauseCategory struct {
	Name  string // CUAD category name, e.g. "Governing Law"
	Group string
}

// ClauseCategories are CUAD's 41 categories, in CUAD's order, each in one group.
var ClauseCategories = []ClauseCategory{
	{"Document Name", GroupGeneral},
	{"Parties", GroupGeneral},
	{"Agreement Date", GroupGeneral},
	{"Effective Date", GroupGeneral},
	{"Expiration Date", GroupRenewalTermination},
	{"Renewal Term", GroupRenewalTermination},
	{"Notice Period To Terminate Renewal", GroupRenewalTermination},
	{"Governing Law", GroupGeneral},
	{"Most Favored Nation", GroupCommercial},
	{"Non-Compete", GroupNonCompete},
	{"Exclusivity", GroupNonCompete},
	{"No-Solicit Of Customers", GroupNonCompete},
	{"Competitive Restriction Exception", GroupNonCompete},
	{"No-Solicit Of Employees", GroupNonCompete},
	{"Non-Disparagement", GroupNonCompete},
	{"Termination For Convenience", GroupRenewalTermination},
	{"Rofr/Rofo/Rofn", GroupCommercial},
	{"Change Of Control", GroupAssignment},
	{"Anti-Assignment", GroupAssignment},
	{"Revenue/Profit Sharing", GroupCommercial},
	{"Price Restrictions", GroupCommercial},
	{"Minimum Commitment", GroupServiceLevel},
	{"Volume Restriction", GroupServiceLevel},
	{"Ip Ownership Assignment", GroupIntellectualProp},
	{"Joint Ip Ownership", GroupIntellectualProp},
	{"License Grant", GroupIntellectualProp},
	{"Non-Transferable License", GroupIntellectualProp},
	{"Affiliate License-Licensor", GroupIntellectualProp},
	{"Affiliate License-Licensee", GroupIntellectualProp},
	{"Unlimited/All-You-Can-Eat-License", GroupIntellectualProp},
	{"Irrevocable Or Perpetual License", GroupIntellectualProp},
	{"Source Code Escrow", GroupIntellectualProp},
	{"Post-Termination Services", GroupRenewalTermination},
	{"Audit Rights", GroupServiceLevel},
	{"Uncapped Liability", GroupLiability},
	{"Cap On Liability", GroupLiability},
	{"Liquidated Damages", GroupLiability},
	{"Warranty Duration", GroupServiceLevel},
	{"Insurance", GroupLiability},
	{"Covenant Not To Sue", GroupDisputesRemedies},
	{"Third Party Beneficiary", GroupDisputesRemedies},
}

func clauseKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	categoryByKey = map[string]ClauseCategory{}
	groupByKey    = map[string]string{}
)

func init() {
	for _, c := range ClauseCategories {
		categoryByKey[clauseKey(c.Name)] = c
	}
	for _, g := range ClauseGroups {
		groupByKey[clauseKey(g)] = g
	}
}

// ClauseTypeNames returns every valid clause filter value: the 41 categories
// and the groups, sorted.
func ClauseTypeNames() []string {
	out := make([]string, 0, len(ClauseCategories)+len(ClauseGroups))
	for _, c := range ClauseCategories {
		out = append(out, c.Name)
	}
	out = append(out, ClauseGroups...)
	sort.Strings(out)
	return out
}

// ParseClauseType resolves s (any case and punctuation, e.g. "governing law",
// "Cap on Liability" or a group name such as "Liability & Indemnification") to
// its canonical type and group. For a group name, typ and group are both the
// group, so a clause recorded only at group level (as in the reference data)
// still has a type.
func ParseClauseType(s string) (typ, group string, err error) {
	k := clauseKey(s)
	if c, ok := categoryByKey[k]; ok {
		return c.Name, c.Group, nil
	}
	if g, ok := groupByKey[k]; ok {
		return g, g, nil
	}
	// "Liability and Indemnification" for "Liability & Indemnification".
	if g, ok := groupByKey[clauseKey(strings.ReplaceAll(" "+strings.ToLower(s)+" ", " and ", " & "))]; ok {
		return g, g, nil
	}
	return "", "", fmt.Errorf("unknown clause type %q; valid values: %s", s, strings.Join(ClauseTypeNames(), ", "))
}

// IsClauseGroup reports whether name is a clause group rather than a category.
func IsClauseGroup(name string) bool {
	_, ok := groupByKey[clauseKey(name)]
	return ok
}
