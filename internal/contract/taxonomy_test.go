package contract

import (
	"strings"
	"testing"
)

func TestParseContractType(t *testing.T) {
	tests := []struct{ in, hint, want string }{
		{"Service", "", "Service"},
		{"  license   AGREEMENT ", "", "License Agreement"},
		{"Licence", "", "License Agreement"},
		{"distribution", "", "Distributor"},
		{"Non-Compete", "", "Non Compete/Solicit"},
		{"Affiliate AgreementDevelopment", "ACME-EX-10.1-DEVELOPMENT AGREEMENT", "Development"},
		{"Affiliate AgreementDevelopment", "ACME_Affiliate Agreement", "Affiliate Agreement"},
		{"Affiliate AgreementDevelopment", "", "Affiliate Agreement"},
		{"Affiliate AgreementDevelopment", "Affiliate Development Agreement", "Affiliate Agreement"},
		{"Non Compete/SolicitOutsourcing", "ACME-EX-10-OUTSOURCING AGREEMENT", "Outsourcing"},
		{"Non Compete/SolicitOutsourcing", "NON-COMPETE AGREEMENT", "Non Compete/Solicit"},
	}
	for _, tt := range tests {
		got, err := ParseContractType(tt.in, tt.hint)
		if err != nil || got != tt.want {
			t.Errorf("ParseContractType(%q, %q) = %q, %v; want %q", tt.in, tt.hint, got, err, tt.want)
		}
	}
	for _, typ := range ContractTypes {
		if got, err := ParseContractType(strings.ToUpper(typ), ""); err != nil || got != typ {
			t.Errorf("ParseContractType(%q) = %q, %v", strings.ToUpper(typ), got, err)
		}
	}
	_, err := ParseContractType("Lease", "")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown contract type "Lease"; valid values: Affiliate Agreement, Agency,`) {
		t.Errorf("ParseContractType(Lease) error = %v", err)
	}
	if _, err := ParseContractType("  ", ""); err == nil || !strings.HasPrefix(err.Error(), "empty contract type") {
		t.Errorf("ParseContractType(blank) error = %v", err)
	}
}

func TestParseClauseType(t *testing.T) {
	tests := []struct{ in, typ, group string }{
		{"governing law", "Governing Law", GroupGeneral},
		{"Cap on Liability", "Cap On Liability", GroupLiability},
		{"ROFR/ROFO/ROFN", "Rofr/Rofo/Rofn", GroupCommercial},
		{"Notice Period To Terminate Renewal", "Notice Period To Terminate Renewal", GroupRenewalTermination},
		{"Liability & Indemnification", GroupLiability, GroupLiability},
		{"liability and indemnification", GroupLiability, GroupLiability},
		{"Renewal and Termination", GroupRenewalTermination, GroupRenewalTermination},
		{"Liability", "", ""},
		{"service-level agreements", GroupServiceLevel, GroupServiceLevel},
	}
	for _, tt := range tests {
		typ, group, err := ParseClauseType(tt.in)
		if tt.typ == "" {
			if err == nil {
				t.Errorf("ParseClauseType(%q) = %q, want error", tt.in, typ)
			}
			continue
		}
		if err != nil || typ != tt.typ || group != tt.group {
			t.Errorf("ParseClauseType(%q) = %q, %q, %v; want %q, %q", tt.in, typ, group, err, tt.typ, tt.group)
		}
	}
}

func TestTaxonomyTables(t *testing.T) {
	if len(ClauseCategories) != 41 {
		t.Errorf("%d CUAD categories, want 41", len(ClauseCategories))
	}
	groups := map[string]bool{}
	for _, g := range ClauseGroups {
		groups[g] = true
		if !IsClauseGroup(g) {
			t.Errorf("IsClauseGroup(%q) = false", g)
		}
	}
	used := map[string]bool{}
	for _, c := range ClauseCategories {
		if !groups[c.Group] {
			t.Errorf("category %q has unknown group %q", c.Name, c.Group)
		}
		used[c.Group] = true
		if IsClauseGroup(c.Name) {
			t.Errorf("category %q is also a group name", c.Name)
		}
	}
	// CUAD has no confidentiality category: that reference group is only
	// ever recorded at group level.
	for g := range groups {
		if !used[g] && g != GroupConfidentiality {
			t.Errorf("group %q has no category", g)
		}
	}
	if n := len(ClauseTypeNames()); n != 41+len(ClauseGroups) {
		t.Errorf("ClauseTypeNames has %d names, want %d", n, 41+len(ClauseGroups))
	}
	for syn, typ := range typeSynonyms {
		if _, err := ParseContractType(typ, ""); err != nil {
			t.Errorf("synonym %q maps to invalid type %q", syn, typ)
		}
	}
}
