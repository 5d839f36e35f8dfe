package family_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/family"
	"github.com/contractgraph/contractgraph/internal/importer"
)

// cuadDir is CUAD in the shared data, beside the repository.
var cuadDir = filepath.Join("..", "..", "..", "shared", "data", "cuad")

var (
	cuadOnce    sync.Once
	cuadRecords []family.Record
	cuadErr     error
)

// loadCUAD reads CUAD's contracts as linker records, skipping the test
// without the shared data.
func loadCUAD(t *testing.T) []family.Record {
	t.Helper()
	if _, err := os.Stat(filepath.Join(cuadDir, "master_clauses.csv")); err != nil {
		t.Skipf("CUAD not available at %s: %v", cuadDir, err)
	}
	cuadOnce.Do(func() {
		cuadErr = importer.Read(context.Background(), cuadDir, importer.Options{}, func(r importer.Record) error {
			if r.Err != nil {
				return nil
			}
			c := r.Contract
			rec := family.Record{ID: c.ID, Title: c.Title, ContractType: c.ContractType, EffectiveDate: c.EffectiveDate, Text: c.Text}
			for _, p := range c.Parties {
				rec.Parties = append(rec.Parties, family.Party{Name: p.Name})
			}
			cuadRecords = append(cuadRecords, rec)
			return nil
		})
	})
	if cuadErr != nil {
		t.Fatal(cuadErr)
	}
	return cuadRecords
}

// TestCUADFamilies asserts the families of CUAD that were checked by
// hand (docs/EVALUATION.md, "Amendment families on CUAD"): each amendment
// is linked to its master, and amendments whose master CUAD lacks stay
// unresolved instead of being linked to a wrong contract.
func TestCUADFamilies(t *testing.T) {
	recs := loadCUAD(t)
	res := family.Detect(recs, family.Options{})
	for _, l := range res.Links {
		t.Logf("%s %.3f restates=%v %s -> %s (%s) %q", l.Kind, l.Confidence, l.Restates, l.From, l.To, l.Reason, l.Evidence.Quote)
	}
	for _, u := range res.Unresolved {
		t.Logf("unresolved %s: %s (%s %q)", u.ContractID, u.Reason, u.Reference.Document, u.Reference.Master)
	}
	links := map[string]family.Link{}
	for _, l := range res.Links {
		links[l.From] = l
	}
	for from, to := range map[string]string{
		"AzulSa_20170303_F-1A_EX-10.3_9943903_EX-10.3_Maintenance Agreement2":                                   "AzulSa_20170303_F-1A_EX-10.3_9943903_EX-10.3_Maintenance Agreement1",
		"BIOAMBERINC_04_10_2013-EX-10.34-DEVELOPMENT AGREEMENT - First Amendment":                               "BIOAMBERINC_04_10_2013-EX-10.34-DEVELOPMENT AGREEMENT (1)",
		"FEDERATEDGOVERNMENTINCOMESECURITIESINC_04_28_2020-EX-99.SERV AGREE-SERVICES AGREEMENT_SECONDAMENDMENT": "FEDERATEDGOVERNMENTINCOMESECURITIESINC_04_28_2020-EX-99.SERV AGREE-SERVICES AGREEMENT",
		"NEONSYSTEMSINC_03_01_1999-EX-10.5-DISTRIBUTOR AGREEMENT_Amendment":                                     "NEONSYSTEMSINC_03_01_1999-EX-10.5-DISTRIBUTOR AGREEMENT_New",
		"ScansourceInc_20190822_10-K_EX-10.39_11793959_EX-10.39_Distributor Agreement":                          "ScansourceInc_20190822_10-K_EX-10.38_11793958_EX-10.38_Distributor Agreement1",
	} {
		l, ok := links[from]
		if !ok || l.To != to || l.Kind != family.Amends {
			t.Errorf("%s: got link %+v, want AMENDS %s", from, l, to)
		}
	}
	unresolved := map[string]bool{}
	for _, u := range res.Unresolved {
		unresolved[u.ContractID] = true
	}
	for _, id := range []string{
		"ADMA BioManufacturing, LLC -  Amendment #3 to Manufacturing Agreement",
		"Cerus Corporation - FIRST AMEND TO SUPPLY AND MANUFACTURING AGREEMENT",
		"BellringBrandsInc_20190920_S-1_EX-10.12_11817081_EX-10.12_Manufacturing Agreement2",
		"Monsanto Company - SECOND A_R EXCLUSIVE AGENCY AND MARKETING AGREEMENT",
	} {
		if !unresolved[id] {
			t.Errorf("%s: master not in CUAD, want it unresolved", id)
		}
	}
	// Plain agreements whose recitals mention other amendments are not
	// amendments.
	for _, id := range []string{"VAXCYTE,INC_05_22_2020-EX-10.19-SUPPLY AGREEMENT", "Antares Pharma, Inc. - Manufacturing Agreement"} {
		if unresolved[id] || links[id].From != "" {
			t.Errorf("%s taken for an amendment", id)
		}
	}
}

// TestCUADMayRefer checks that of CUAD's titles and openings, those that
// ParseReference's quick test skips are matched by none of its
// expressions.
func TestCUADMayRefer(t *testing.T) {
	recs := loadCUAD(t)
	skipped := 0
	for _, r := range recs {
		for _, s := range []string{family.ClipUTF8(r.Title, family.MaxTitleBytes), family.ClipUTF8(r.Text, family.HeadBytes)} {
			if family.MayRefer(s) {
				continue
			}
			skipped++
			if family.ReferenceMatches(s) {
				t.Errorf("%s: mayRefer skips %q, which an expression matches", r.ID, s[:min(len(s), 200)])
			}
		}
	}
	if skipped == 0 {
		t.Errorf("of %d contracts no title or opening was skipped: the quick test skips nothing", len(recs))
	}
	t.Logf("%d CUAD contracts, %d of their titles and openings skipped", len(recs), skipped)
}
