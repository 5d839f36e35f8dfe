// Package synth generates a deterministic synthetic contract corpus with
// realistic distributions — contract types weighted like CUAD, parties drawn
// from a long-tailed pool, mostly US companies, dates from 1995 to 2025,
// log-normal amounts, multi-year terms and clause sets typical of each
// contract type — for scale benchmarks and the demo.
package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// weighted is a value with a relative weight.
type weighted[T any] struct {
	v T
	w float64
}

// chooser picks values with probability proportional to their weights.
type chooser[T any] struct {
	vals []T
	cum  []float64
}

func newChooser[T any](ws []weighted[T]) chooser[T] {
	c := chooser[T]{}
	total := 0.0
	for _, w := range ws {
		total += w.w
		c.vals = append(c.vals, w.v)
		c.cum = append(c.cum, total)
	}
	return c
}

func (c chooser[T]) pick(r *rand.Rand) T {
	x := r.Float64() * c.cum[len(c.cum)-1]
	lo, hi := 0, len(c.cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if c.cum[mid] > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return c.vals[lo]
}

// contractTypes are weighted roughly like the reference corpus (CUAD).
var contractTypes = newChooser([]weighted[string]{
	{"Service", 76}, {"Strategic Alliance", 72}, {"License Agreement", 48}, {"Distributor", 36},
	{"Joint Venture", 34}, {"Sponsorship", 31}, {"Endorsement", 26}, {"Maintenance", 24},
	{"Affiliate Agreement", 12}, {"Development", 11}, {"IP", 21}, {"Supply", 20}, {"Manufacturing", 18},
	{"Hosting", 18}, {"Franchise", 16}, {"Reseller", 14}, {"Promotion", 13}, {"Transportation", 12},
	{"Marketing", 5}, {"Outsourcing", 8}, {"Co-Branding", 10}, {"Collaboration", 12}, {"Consulting", 8},
	{"Agency", 6}, {"Non Compete/Solicit", 3},
})

// roles are the two role names each contract type uses.
var roles = map[string][2]string{
	"Service": {"Provider", "Client"}, "Strategic Alliance": {"Partner", "Partner"},
	"License Agreement": {"Licensor", "Licensee"}, "Distributor": {"Supplier", "Distributor"},
	"Joint Venture": {"Party", "Party"}, "Sponsorship": {"Sponsor", "Organizer"},
	"Endorsement": {"Company", "Endorser"}, "Maintenance": {"Provider", "Customer"},
	"Affiliate Agreement": {"Company", "Affiliate"}, "Development": {"Developer", "Client"},
	"IP": {"Assignor", "Assignee"}, "Supply": {"Supplier", "Buyer"}, "Manufacturing": {"Manufacturer", "Customer"},
	"Hosting": {"Host", "Customer"}, "Franchise": {"Franchisor", "Franchisee"}, "Reseller": {"Vendor", "Reseller"},
	"Promotion": {"Promoter", "Company"}, "Transportation": {"Carrier", "Shipper"}, "Marketing": {"Company", "Marketer"},
	"Outsourcing": {"Provider", "Customer"}, "Co-Branding": {"Party", "Party"}, "Collaboration": {"Collaborator", "Collaborator"},
	"Consulting": {"Consultant", "Client"}, "Agency": {"Principal", "Agent"}, "Non Compete/Solicit": {"Company", "Covenantor"},
}

// typeClauses are the CUAD categories typical of each type (each present
// with high probability), on top of the general ones every contract may have.
var typeClauses = map[string][]string{
	"License Agreement":   {"License Grant", "Non-Transferable License", "Ip Ownership Assignment", "Audit Rights"},
	"Distributor":         {"Exclusivity", "Minimum Commitment", "Non-Compete", "Price Restrictions"},
	"Reseller":            {"Exclusivity", "Minimum Commitment", "Price Restrictions"},
	"Franchise":           {"License Grant", "Non-Compete", "Audit Rights", "Revenue/Profit Sharing", "Insurance"},
	"Service":             {"Cap On Liability", "Warranty Duration", "Termination For Convenience"},
	"Maintenance":         {"Warranty Duration", "Post-Termination Services", "Cap On Liability"},
	"Hosting":             {"Cap On Liability", "Source Code Escrow", "Post-Termination Services"},
	"Supply":              {"Minimum Commitment", "Volume Restriction", "Most Favored Nation", "Warranty Duration"},
	"Manufacturing":       {"Minimum Commitment", "Ip Ownership Assignment", "Insurance", "Warranty Duration"},
	"Development":         {"Ip Ownership Assignment", "Joint Ip Ownership", "License Grant"},
	"IP":                  {"Ip Ownership Assignment", "Covenant Not To Sue", "Irrevocable Or Perpetual License"},
	"Joint Venture":       {"Joint Ip Ownership", "Revenue/Profit Sharing", "Change Of Control", "Non-Compete"},
	"Strategic Alliance":  {"Exclusivity", "Revenue/Profit Sharing", "Joint Ip Ownership"},
	"Collaboration":       {"Joint Ip Ownership", "Revenue/Profit Sharing", "License Grant"},
	"Sponsorship":         {"License Grant", "Exclusivity", "Non-Disparagement"},
	"Endorsement":         {"License Grant", "Non-Disparagement", "Exclusivity"},
	"Promotion":           {"License Grant", "Revenue/Profit Sharing"},
	"Marketing":           {"Revenue/Profit Sharing", "Exclusivity"},
	"Affiliate Agreement": {"Revenue/Profit Sharing", "License Grant"},
	"Co-Branding":         {"License Grant", "Non-Transferable License", "Exclusivity"},
	"Outsourcing":         {"Cap On Liability", "No-Solicit Of Employees", "Audit Rights"},
	"Consulting":          {"No-Solicit Of Employees", "Ip Ownership Assignment"},
	"Agency":              {"Exclusivity", "Revenue/Profit Sharing"},
	"Transportation":      {"Cap On Liability", "Insurance", "Liquidated Damages"},
	"Non Compete/Solicit": {"Non-Compete", "No-Solicit Of Customers", "No-Solicit Of Employees"},
}

// generalClauses may appear in any contract, each with its probability.
var generalClauses = []weighted[string]{
	{"Anti-Assignment", 0.6}, {"Renewal Term", 0.35}, {"Notice Period To Terminate Renewal", 0.25},
	{"Termination For Convenience", 0.3}, {"Cap On Liability", 0.35}, {"Uncapped Liability", 0.08},
	{"Third Party Beneficiary", 0.1}, {"Change Of Control", 0.15}, {"Audit Rights", 0.2},
	{"Insurance", 0.15}, {"Expiration Date", 0.5}, {"Rofr/Rofo/Rofn", 0.05}, {"Liquidated Damages", 0.05},
}

// countryWeights: where parties are seated.
var countryWeights = newChooser([]weighted[string]{
	{"US", 62}, {"CN", 6}, {"CA", 6}, {"GB", 5}, {"DE", 3}, {"JP", 3}, {"IL", 2}, {"CH", 2}, {"HK", 2},
	{"FR", 2}, {"NL", 1.5}, {"IN", 1.5}, {"KR", 1}, {"SG", 1}, {"TW", 1}, {"AU", 1}, {"KY", 1}, {"LU", 1},
	{"BR", 0.7}, {"IE", 0.7}, {"SE", 0.5}, {"ES", 0.5}, {"IT", 0.5}, {"MX", 0.4}, {"ZA", 0.4},
})

var usStates = newChooser([]weighted[string]{
	{"NY", 14}, {"DE", 12}, {"CA", 14}, {"TX", 8}, {"FL", 6}, {"NJ", 5}, {"MA", 5}, {"IL", 5},
	{"PA", 4}, {"WA", 4}, {"NV", 3}, {"GA", 3}, {"CO", 3}, {"VA", 3}, {"MD", 2}, {"OH", 2}, {"MN", 2},
	{"NC", 2}, {"CT", 2}, {"AZ", 2}, {"MI", 1.5}, {"TN", 1.5}, {"MO", 1}, {"UT", 1}, {"OR", 1}, {"WI", 1},
})

var caProvinces = newChooser([]weighted[string]{{"ON", 6}, {"BC", 3}, {"QC", 2}, {"AB", 1.5}})

var usCities = map[string][]string{
	"NY": {"New York", "Rochester", "Albany"}, "DE": {"Wilmington", "Dover"}, "CA": {"San Francisco", "Los Angeles", "San Diego", "San Jose", "Palo Alto"},
	"TX": {"Austin", "Houston", "Dallas"}, "FL": {"Miami", "Tampa", "Orlando"}, "NJ": {"Newark", "Princeton"},
	"MA": {"Boston", "Cambridge"}, "IL": {"Chicago"}, "PA": {"Philadelphia", "Pittsburgh"}, "WA": {"Seattle", "Redmond"},
	"NV": {"Las Vegas", "Reno"}, "GA": {"Atlanta"}, "CO": {"Denver", "Boulder"}, "VA": {"Richmond", "Reston"},
}

var countryCities = map[string][]string{
	"CN": {"Beijing", "Shanghai", "Shenzhen"}, "CA": {"Toronto", "Vancouver", "Montreal"}, "GB": {"London", "Manchester"},
	"DE": {"Munich", "Berlin", "Frankfurt"}, "JP": {"Tokyo", "Osaka"}, "IL": {"Tel Aviv", "Haifa"}, "CH": {"Zurich", "Geneva"},
	"HK": {"Hong Kong"}, "FR": {"Paris", "Lyon"}, "NL": {"Amsterdam", "Eindhoven"}, "IN": {"Mumbai", "Bangalore"},
	"KR": {"Seoul"}, "SG": {"Singapore"}, "TW": {"Taipei"}, "AU": {"Sydney", "Melbourne"}, "KY": {"George Town"},
}

// suffixes are the legal forms used in each country.
var suffixes = map[string][]string{
	"US": {"Inc.", "LLC", "Corporation", "Corp.", "Inc.", "L.P.", "Holdings, Inc.", "Co."},
	"CA": {"Inc.", "Ltd.", "Corp."}, "GB": {"Ltd", "Limited", "plc", "LLP"}, "DE": {"GmbH", "AG", "GmbH & Co. KG"},
	"CN": {"Co., Ltd.", "Technology Co., Ltd.", "Group Co., Ltd."}, "JP": {"K.K.", "Co., Ltd.", "Corporation"},
	"CH": {"AG", "SA", "GmbH"}, "FR": {"S.A.", "SAS", "SARL"}, "NL": {"B.V.", "N.V."}, "IN": {"Private Limited", "Limited"},
	"HK": {"Limited", "Holdings Limited"}, "AU": {"Pty Ltd", "Limited"}, "SE": {"AB"}, "ES": {"S.L.", "S.A."},
	"IT": {"S.p.A.", "S.r.l."}, "BR": {"Ltda.", "S.A."}, "MX": {"S.A. de C.V."}, "LU": {"S.A.", "S.à r.l."},
}

var nameHeads = []string{
	"Apex", "Blue", "Summit", "Northwind", "Granite", "Silver", "Crescent", "Pioneer", "Harbor", "Vertex",
	"Atlas", "Cedar", "Aurora", "Beacon", "Cobalt", "Evergreen", "Falcon", "Horizon", "Ironwood", "Juniper",
	"Keystone", "Lumen", "Meridian", "Nova", "Orchid", "Pinnacle", "Quantum", "Redwood", "Sterling", "Titan",
	"Unity", "Vanguard", "Willow", "Zenith", "Alder", "Bright", "Coastal", "Delta", "Eagle", "Frontier",
	"Golden", "Highland", "Insight", "Jade", "Kinetic", "Liberty", "Maple", "Noble", "Oak", "Prairie",
}

var nameMids = []string{
	"", "River", "Peak", "Bay", "Ridge", "Star", "Stone", "Bridge", "Field", "Lake", "Point", "Crest",
	"Valley", "Rock", "Light", "Wave", "Gate", "Path", "Spring", "Forge",
}

var nameCores = []string{
	"Pharmaceuticals", "Logistics", "Software", "Energy", "Foods", "Media", "Networks", "Biosciences",
	"Systems", "Capital", "Entertainment", "Medical", "Technologies", "Brands", "Communications", "Labs",
	"Solutions", "Motors", "Retail", "Health", "Semiconductor", "Materials", "Interactive", "Analytics",
	"Beverages", "Apparel", "Robotics", "Financial", "Games", "Devices",
}

var products = []string{
	"medical devices", "consumer software", "nutritional supplements", "solar panels", "streaming content",
	"industrial sensors", "specialty chemicals", "mobile games", "cloud hosting services", "apparel",
	"beverages", "diagnostic kits", "semiconductor components", "payment processing services", "fitness equipment",
}

var territories = []string{
	"the United States", "North America", "Europe", "the People's Republic of China", "worldwide",
	"Canada", "the European Union", "Asia-Pacific", "Latin America", "Japan",
}

// party is one company of the pool; its seat is fixed.
type party struct {
	name string
	loc  contract.Location
}

// makePool builds size distinct companies (distinct by contract.PartyKey).
func makePool(r *rand.Rand, size int) []party {
	pool := make([]party, 0, size)
	seen := make(map[string]bool, size)
	for len(pool) < size {
		country := countryWeights.pick(r)
		sfx := suffixes[country]
		if sfx == nil {
			sfx = []string{"Ltd.", "S.A."}
		}
		head := nameHeads[r.IntN(len(nameHeads))]
		mid := nameMids[r.IntN(len(nameMids))]
		core := nameCores[r.IntN(len(nameCores))]
		base := head + mid + " " + core
		if mid != "" && r.IntN(3) == 0 {
			base = head + " " + mid + " " + core
		}
		suffix := sfx[r.IntN(len(sfx))]
		name := base + " " + suffix
		if suffix == "Inc." && r.IntN(3) == 0 {
			name = base + ", Inc."
		}
		key := contract.PartyKey(name)
		for n := 2; seen[key]; n++ {
			name = fmt.Sprintf("%s %s %s", base, roman(n), sfx[0])
			key = contract.PartyKey(name)
		}
		seen[key] = true
		p := party{name: name, loc: contract.Location{Country: country}}
		switch country {
		case "US":
			p.loc.State = usStates.pick(r)
			if cs := usCities[p.loc.State]; cs != nil {
				p.loc.City = cs[r.IntN(len(cs))]
			}
		case "CA":
			p.loc.State = caProvinces.pick(r)
			p.loc.City = countryCities["CA"][r.IntN(3)]
		default:
			if cs := countryCities[country]; cs != nil {
				p.loc.City = cs[r.IntN(len(cs))]
			}
		}
		pool = append(pool, p)
	}
	return pool
}

func roman(n int) string {
	if n >= 40 {
		return strconv.Itoa(n)
	}
	vals := []int{10, 9, 5, 4, 1}
	syms := []string{"X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

var durations = newChooser([]weighted[string]{
	{"P1Y", 20}, {"P2Y", 14}, {"P3Y", 16}, {"P5Y", 16}, {"P4Y", 5}, {"P10Y", 7}, {"P7Y", 3}, {"P6Y", 2},
	{"P8Y", 1}, {"P9Y", 1}, {"P6M", 3}, {"P18M", 2}, {"P36M", 2}, {"P30M", 1},
})

var minDate = time.Date(1995, 1, 1, 0, 0, 0, 0, time.UTC)

const dateSpanDays = 11322 // 1995-01-01 .. 2025-12-31

// Generate calls fn with n synthetic contracts, the same ones for the same
// seed. It stops at, and returns, fn's first error.
func Generate(seed int64, n int, fn func(*contract.Contract) error) error {
	if n < 0 {
		return fmt.Errorf("generate: negative count %d", n)
	}
	poolRand := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	pool := makePool(poolRand, n/2+20)
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	zipf := rand.NewZipf(r, 1.15, 3, uint64(len(pool)-1))
	for i := 0; i < n; i++ {
		c := generateOne(r, zipf, pool, seed, i)
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func generateOne(r *rand.Rand, zipf *rand.Zipf, pool []party, seed int64, i int) *contract.Contract {
	typ := contractTypes.pick(r)
	c := &contract.Contract{
		ID:           fmt.Sprintf("gen-%d-%07d", seed, i+1),
		ContractType: typ,
		ExtractedBy:  "synth",
	}
	// Parties: mostly two, distinct.
	np := 2
	switch x := r.Float64(); {
	case x > 0.95:
		np = 4
	case x > 0.85:
		np = 3
	}
	used := map[int]bool{}
	rl := roles[typ]
	for len(c.Parties) < np {
		k := int(zipf.Uint64())
		if used[k] {
			k = r.IntN(len(pool))
			if used[k] {
				continue
			}
		}
		used[k] = true
		p := pool[k]
		loc := p.loc
		role := rl[min(len(c.Parties), 1)]
		c.Parties = append(c.Parties, contract.PartyRole{Name: p.name, Role: role, Location: &loc})
	}
	start := minDate.AddDate(0, 0, r.IntN(dateSpanDays))
	c.EffectiveDate = start.Format(time.DateOnly)
	switch x := r.Float64(); {
	case x < 0.78:
		c.Duration = durations.pick(r)
		days, _ := contract.ParseISODuration(c.Duration)
		c.DurationDays = &days
		c.EndDate, _ = contract.DurationEnd(c.EffectiveDate, c.Duration)
	case x < 0.88:
		end := start.AddDate(0, 0, 180+r.IntN(3000))
		c.EndDate = end.Format(time.DateOnly)
		days := int(end.Sub(start).Hours() / 24)
		c.DurationDays = &days
	}
	if r.Float64() < 0.3 {
		v := math.Round(math.Exp(12+1.8*r.NormFloat64())/100) * 100
		v = max(v, 500)
		c.TotalAmount = &v
		c.Currency = currencyFor(c.Parties[0].Location.Country, r)
	}
	if r.Float64() < 0.8 {
		c.GoverningLaw = governingLaw(r, c.Parties)
	}
	product := products[r.IntN(len(products))]
	territory := territories[r.IntN(len(territories))]
	c.Title = typeTitle(typ)
	c.Scope = fmt.Sprintf("%s of %s in %s", scopeVerb(typ), product, territory)
	c.Summary = fmt.Sprintf("%s between %s (%s) and %s (%s): %s.", c.Title, c.Parties[0].Name, c.Parties[0].Role, c.Parties[1].Name, c.Parties[1].Role, c.Scope)
	c.Clauses = clauses(r, c, product, territory)
	timeline(c)
	return c
}

// timeline sets the renewal fields the contract's clauses state (see
// clauseText), drawing no random numbers so that the rest of the corpus
// stays as it was: an automatic one-year renewal, ninety days' notice of
// non-renewal, sixty days' notice of termination for convenience.
func timeline(c *contract.Contract) {
	for _, cl := range c.Clauses {
		switch cl.Type {
		case "Renewal Term":
			c.RenewalKind, c.RenewalTerm = contract.RenewalAutomatic, "P1Y"
		case "Notice Period To Terminate Renewal":
			c.NoticePeriod = "P90D"
		case "Termination For Convenience":
			c.TerminationNotice = "P60D"
		}
	}
}

func currencyFor(country string, r *rand.Rand) string {
	if r.Float64() < 0.8 {
		return "USD"
	}
	switch country {
	case "GB":
		return "GBP"
	case "CN":
		return "CNY"
	case "JP":
		return "JPY"
	case "CA":
		return "CAD"
	case "DE", "FR", "NL", "LU", "IE", "ES", "IT":
		return "EUR"
	}
	return "USD"
}

func governingLaw(r *rand.Rand, ps []contract.PartyRole) *contract.Location {
	first := ps[r.IntN(len(ps))].Location
	switch first.Country {
	case "US":
		if r.Float64() < 0.5 {
			return &contract.Location{Country: "US", State: first.State}
		}
		return &contract.Location{Country: "US", State: usStates.pick(r)}
	case "CA":
		return &contract.Location{Country: "CA", State: first.State}
	default:
		if r.Float64() < 0.3 {
			return &contract.Location{Country: "US", State: "NY"}
		}
		return &contract.Location{Country: first.Country}
	}
}

func typeTitle(typ string) string {
	switch typ {
	case "License Agreement", "Affiliate Agreement":
		return typ
	case "IP":
		return "Intellectual Property Agreement"
	case "Non Compete/Solicit":
		return "Non-Competition and Non-Solicitation Agreement"
	case "Distributor":
		return "Distribution Agreement"
	}
	return typ + " Agreement"
}

func scopeVerb(typ string) string {
	switch typ {
	case "Distributor", "Reseller":
		return "Distribution"
	case "License Agreement", "Co-Branding", "IP":
		return "Licensing"
	case "Manufacturing", "Supply":
		return "Supply"
	case "Service", "Hosting", "Maintenance", "Outsourcing", "Consulting":
		return "Services for the support"
	case "Sponsorship", "Endorsement", "Promotion", "Marketing", "Affiliate Agreement":
		return "Promotion"
	case "Transportation":
		return "Transport"
	}
	return "Cooperation on the development"
}

// clauses builds the clause set: the type's typical categories, general
// ones by chance, and the Governing Law clause when a law is chosen.
func clauses(r *rand.Rand, c *contract.Contract, product, territory string) []contract.Clause {
	var cats []string
	seen := map[string]bool{}
	add := func(cat string) {
		if !seen[cat] {
			seen[cat] = true
			cats = append(cats, cat)
		}
	}
	for _, cat := range typeClauses[c.ContractType] {
		if r.Float64() < 0.75 {
			add(cat)
		}
	}
	for _, g := range generalClauses {
		if r.Float64() < g.w {
			add(g.v)
		}
	}
	if c.GoverningLaw != nil {
		add("Governing Law")
	}
	// CUAD has no confidentiality category; like the reference data, such
	// clauses are recorded at group level.
	if r.Float64() < 0.45 {
		add(contract.GroupConfidentiality)
	}
	out := make([]contract.Clause, 0, len(cats))
	for _, cat := range cats {
		typ, group, err := contract.ParseClauseType(cat)
		if err != nil {
			continue // the tables above hold only valid categories; a test checks them
		}
		out = append(out, contract.Clause{Type: typ, Group: group, Text: clauseText(typ, c, product, territory)})
	}
	return out
}

func lawName(l *contract.Location) string {
	if l.Country == "US" && l.State != "" {
		return "the State of " + contract.USStateName(l.State)
	}
	if name := contract.CountryName(l.Country); name != "" {
		return name
	}
	return l.Country
}

// clauseText writes a short clause in contract language.
func clauseText(cat string, c *contract.Contract, product, territory string) string {
	a, b := c.Parties[0], c.Parties[1]
	switch cat {
	case "Governing Law":
		return fmt.Sprintf("This Agreement shall be governed by and construed in accordance with the laws of %s, without regard to its conflict of laws principles.", lawName(c.GoverningLaw))
	case "License Grant":
		return fmt.Sprintf("%s hereby grants to %s a non-exclusive license to use its trademarks in connection with %s in %s.", a.Name, b.Name, product, territory)
	case "Non-Transferable License":
		return "The license granted hereunder is personal and may not be sublicensed or transferred without prior written consent."
	case "Exclusivity":
		return fmt.Sprintf("During the Term, %s shall be the exclusive %s of %s in %s.", b.Name, strings.ToLower(b.Role), product, territory)
	case "Minimum Commitment":
		return fmt.Sprintf("%s shall purchase a minimum quantity of %s each contract year as set forth in Exhibit B.", b.Name, product)
	case "Non-Compete":
		return fmt.Sprintf("During the Term and for one year thereafter, %s shall not market products that compete with %s in %s.", b.Name, product, territory)
	case "Anti-Assignment":
		return "Neither party may assign this Agreement without the prior written consent of the other party, which shall not be unreasonably withheld."
	case "Renewal Term":
		return "This Agreement shall renew automatically for successive one-year terms unless either party gives notice of non-renewal."
	case "Notice Period To Terminate Renewal":
		return "Either party may prevent renewal by written notice given at least ninety (90) days before the end of the then-current term."
	case "Expiration Date":
		if c.EndDate != "" {
			return fmt.Sprintf("Unless terminated earlier, this Agreement shall expire on %s.", c.EndDate)
		}
		return "This Agreement shall continue until terminated in accordance with its terms."
	case "Termination For Convenience":
		return "Either party may terminate this Agreement for convenience upon sixty (60) days prior written notice."
	case "Cap On Liability":
		return "In no event shall either party's aggregate liability exceed the fees paid in the twelve months preceding the claim."
	case "Uncapped Liability":
		return "The limitations of liability shall not apply to breaches of confidentiality or indemnification obligations."
	case "Audit Rights":
		return fmt.Sprintf("%s may, upon reasonable notice, audit the books and records of %s relating to this Agreement once per year.", a.Name, b.Name)
	case "Insurance":
		return "Each party shall maintain commercial general liability insurance of not less than $2,000,000 per occurrence."
	case "Revenue/Profit Sharing":
		return fmt.Sprintf("%s shall pay %s fifteen percent (15%%) of net revenues from sales of %s.", b.Name, a.Name, product)
	case "Warranty Duration":
		return fmt.Sprintf("%s warrants that the %s will conform to the specifications for twelve (12) months after delivery.", a.Name, product)
	case "Ip Ownership Assignment":
		return fmt.Sprintf("All work product created under this Agreement shall be owned by %s, and %s hereby assigns all rights therein.", a.Name, b.Name)
	case contract.GroupConfidentiality:
		return fmt.Sprintf("Each party shall hold the other's Confidential Information in confidence and use it only to perform this Agreement, during the Term and for %d years thereafter.", 2+len(a.Name)%4)
	case "Joint Ip Ownership":
		return "Inventions conceived jointly by the parties shall be owned jointly, each party having an undivided interest."
	}
	return fmt.Sprintf("The parties agree to the %s provisions set out in Schedule A with respect to %s.", strings.ToLower(cat), product)
}

// header is the first line WriteJSONL writes: the JSONL export header the
// importer reads.
type header struct {
	ContractGraphExport int    `json:"contractgraph_export"`
	Generator           string `json:"generator"`
	Contracts           int    `json:"contracts"`
}

// WriteJSONL writes n generated contracts for seed to w in ContractGraph's
// JSONL import format: a header line, then one contract per line.
func WriteJSONL(w io.Writer, seed int64, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	h := header{ContractGraphExport: 1, Generator: fmt.Sprintf("contractgraph generate --seed %d --contracts %d", seed, n), Contracts: n}
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("write header: %w", err)
	}
	if err := Generate(seed, n, func(c *contract.Contract) error { return enc.Encode(c) }); err != nil {
		return fmt.Errorf("write contracts: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write contracts: %w", err)
	}
	return nil
}
