package contract

import "strings"

// country is one ISO 3166-1 entry.
type country struct {
	alpha2, alpha3, name string
}

// countries is ISO 3166-1: every officially assigned alpha-2 code with its
// alpha-3 code and a short English name.
var countries = []country{
	{"AD", "AND", "Andorra"},
	{"AE", "ARE", "United Arab Emirates"},
	{"AF", "AFG", "Afghanistan"},
	{"AG", "ATG", "Antigua and Barbuda"},
	{"AI", "AIA", "Anguilla"},
	{"AL", "ALB", "Albania"},
	{"AM", "ARM", "Armenia"},
	{"AO", "AGO", "Angola"},
	{"AQ", "ATA", "Antarctica"},
	{"AR", "ARG", "Argentina"},
	{"AS", "ASM", "American Samoa"},
	{"AT", "AUT", "Austria"},
	{"AU", "AUS", "Australia"},
	{"AW", "ABW", "Aruba"},
	{"AX", "ALA", "Åland Islands"},
	{"AZ", "AZE", "Azerbaijan"},
	{"BA", "BIH", "Bosnia and Herzegovina"},
	{"BB", "BRB", "Barbados"},
	{"BD", "BGD", "Bangladesh"},
	{"BE", "BEL", "Belgium"},
	{"BF", "BFA", "Burkina Faso"},
	{"BG", "BGR", "Bulgaria"},
	{"BH", "BHR", "Bahrain"},
	{"BI", "BDI", "Burundi"},
	{"BJ", "BEN", "Benin"},
	{"BL", "BLM", "Saint Barthélemy"},
	{"BM", "BMU", "Bermuda"},
	{"BN", "BRN", "Brunei"},
	{"BO", "BOL", "Bolivia"},
	{"BQ", "BES", "Caribbean Netherlands"},
	{"BR", "BRA", "Brazil"},
	{"BS", "BHS", "Bahamas"},
	{"BT", "BTN", "Bhutan"},
	{"BV", "BVT", "Bouvet Island"},
	{"BW", "BWA", "Botswana"},
	{"BY", "BLR", "Belarus"},
	{"BZ", "BLZ", "Belize"},
	{"CA", "CAN", "Canada"},
	{"CC", "CCK", "Cocos (Keeling) Islands"},
	{"CD", "COD", "Congo, Democratic Republic of the"},
	{"CF", "CAF", "Central African Republic"},
	{"CG", "COG", "Congo"},
	{"CH", "CHE", "Switzerland"},
	{"CI", "CIV", "Côte d’Ivoire"},
	{"CK", "COK", "Cook Islands"},
	{"CL", "CHL", "Chile"},
	{"CM", "CMR", "Cameroon"},
	{"CN", "CHN", "China"},
	{"CO", "COL", "Colombia"},
	{"CR", "CRI", "Costa Rica"},
	{"CU", "CUB", "Cuba"},
	{"CV", "CPV", "Cape Verde"},
	{"CW", "CUW", "Curaçao"},
	{"CX", "CXR", "Christmas Island"},
	{"CY", "CYP", "Cyprus"},
	{"CZ", "CZE", "Czechia"},
	{"DE", "DEU", "Germany"},
	{"DJ", "DJI", "Djibouti"},
	{"DK", "DNK", "Denmark"},
	{"DM", "DMA", "Dominica"},
	{"DO", "DOM", "Dominican Republic"},
	{"DZ", "DZA", "Algeria"},
	{"EC", "ECU", "Ecuador"},
	{"EE", "EST", "Estonia"},
	{"EG", "EGY", "Egypt"},
	{"EH", "ESH", "Western Sahara"},
	{"ER", "ERI", "Eritrea"},
	{"ES", "ESP", "Spain"},
	{"ET", "ETH", "Ethiopia"},
	{"FI", "FIN", "Finland"},
	{"FJ", "FJI", "Fiji"},
	{"FK", "FLK", "Falkland Islands"},
	{"FM", "FSM", "Micronesia"},
	{"FO", "FRO", "Faroe Islands"},
	{"FR", "FRA", "France"},
	{"GA", "GAB", "Gabon"},
	{"GB", "GBR", "United Kingdom"},
	{"GD", "GRD", "Grenada"},
	{"GE", "GEO", "Georgia"},
	{"GF", "GUF", "French Guiana"},
	{"GG", "GGY", "Guernsey"},
	{"GH", "GHA", "Ghana"},
	{"GI", "GIB", "Gibraltar"},
	{"GL", "GRL", "Greenland"},
	{"GM", "GMB", "Gambia"},
	{"GN", "GIN", "Guinea"},
	{"GP", "GLP", "Guadeloupe"},
	{"GQ", "GNQ", "Equatorial Guinea"},
	{"GR", "GRC", "Greece"},
	{"GS", "SGS", "South Georgia and South Sandwich Islands"},
	{"GT", "GTM", "Guatemala"},
	{"GU", "GUM", "Guam"},
	{"GW", "GNB", "Guinea-Bissau"},
	{"GY", "GUY", "Guyana"},
	{"HK", "HKG", "Hong Kong"},
	{"HM", "HMD", "Heard and McDonald Islands"},
	{"HN", "HND", "Honduras"},
	{"HR", "HRV", "Croatia"},
	{"HT", "HTI", "Haiti"},
	{"HU", "HUN", "Hungary"},
	{"ID", "IDN", "Indonesia"},
	{"IE", "IRL", "Ireland"},
	{"IL", "ISR", "Israel"},
	{"IM", "IMN", "Isle of Man"},
	{"IN", "IND", "India"},
	{"IO", "IOT", "British Indian Ocean Territory"},
	{"IQ", "IRQ", "Iraq"},
	{"IR", "IRN", "Iran"},
	{"IS", "ISL", "Iceland"},
	{"IT", "ITA", "Italy"},
	{"JE", "JEY", "Jersey"},
	{"JM", "JAM", "Jamaica"},
	{"JO", "JOR", "Jordan"},
	{"JP", "JPN", "Japan"},
	{"KE", "KEN", "Kenya"},
	{"KG", "KGZ", "Kyrgyzstan"},
	{"KH", "KHM", "Cambodia"},
	{"KI", "KIR", "Kiribati"},
	{"KM", "COM", "Comoros"},
	{"KN", "KNA", "Saint Kitts and Nevis"},
	{"KP", "PRK", "North Korea"},
	{"KR", "KOR", "South Korea"},
	{"KW", "KWT", "Kuwait"},
	{"KY", "CYM", "Cayman Islands"},
	{"KZ", "KAZ", "Kazakhstan"},
	{"LA", "LAO", "Laos"},
	{"LB", "LBN", "Lebanon"},
	{"LC", "LCA", "Saint Lucia"},
	{"LI", "LIE", "Liechtenstein"},
	{"LK", "LKA", "Sri Lanka"},
	{"LR", "LBR", "Liberia"},
	{"LS", "LSO", "Lesotho"},
	{"LT", "LTU", "Lithuania"},
	{"LU", "LUX", "Luxembourg"},
	{"LV", "LVA", "Latvia"},
	{"LY", "LBY", "Libya"},
	{"MA", "MAR", "Morocco"},
	{"MC", "MCO", "Monaco"},
	{"MD", "MDA", "Moldova"},
	{"ME", "MNE", "Montenegro"},
	{"MF", "MAF", "Saint Martin"},
	{"MG", "MDG", "Madagascar"},
	{"MH", "MHL", "Marshall Islands"},
	{"MK", "MKD", "North Macedonia"},
	{"ML", "MLI", "Mali"},
	{"MM", "MMR", "Myanmar"},
	{"MN", "MNG", "Mongolia"},
	{"MO", "MAC", "Macao"},
	{"MP", "MNP", "Northern Mariana Islands"},
	{"MQ", "MTQ", "Martinique"},
	{"MR", "MRT", "Mauritania"},
	{"MS", "MSR", "Montserrat"},
	{"MT", "MLT", "Malta"},
	{"MU", "MUS", "Mauritius"},
	{"MV", "MDV", "Maldives"},
	{"MW", "MWI", "Malawi"},
	{"MX", "MEX", "Mexico"},
	{"MY", "MYS", "Malaysia"},
	{"MZ", "MOZ", "Mozambique"},
	{"NA", "NAM", "Namibia"},
	{"NC", "NCL", "New Caledonia"},
	{"NE", "NER", "Niger"},
	{"NF", "NFK", "Norfolk Island"},
	{"NG", "NGA", "Nigeria"},
	{"NI", "NIC", "Nicaragua"},
	{"NL", "NLD", "Netherlands"},
	{"NO", "NOR", "Norway"},
	{"NP", "NPL", "Nepal"},
	{"NR", "NRU", "Nauru"},
	{"NU", "NIU", "Niue"},
	{"NZ", "NZL", "New Zealand"},
	{"OM", "OMN", "Oman"},
	{"PA", "PAN", "Panama"},
	{"PE", "PER", "Peru"},
	{"PF", "PYF", "French Polynesia"},
	{"PG", "PNG", "Papua New Guinea"},
	{"PH", "PHL", "Philippines"},
	{"PK", "PAK", "Pakistan"},
	{"PL", "POL", "Poland"},
	{"PM", "SPM", "Saint Pierre and Miquelon"},
	{"PN", "PCN", "Pitcairn Islands"},
	{"PR", "PRI", "Puerto Rico"},
	{"PS", "PSE", "Palestine"},
	{"PT", "PRT", "Portugal"},
	{"PW", "PLW", "Palau"},
	{"PY", "PRY", "Paraguay"},
	{"QA", "QAT", "Qatar"},
	{"RE", "REU", "Réunion"},
	{"RO", "ROU", "Romania"},
	{"RS", "SRB", "Serbia"},
	{"RU", "RUS", "Russia"},
	{"RW", "RWA", "Rwanda"},
	{"SA", "SAU", "Saudi Arabia"},
	{"SB", "SLB", "Solomon Islands"},
	{"SC", "SYC", "Seychelles"},
	{"SD", "SDN", "Sudan"},
	{"SE", "SWE", "Sweden"},
	{"SG", "SGP", "Singapore"},
	{"SH", "SHN", "Saint Helena"},
	{"SI", "SVN", "Slovenia"},
	{"SJ", "SJM", "Svalbard and Jan Mayen"},
	{"SK", "SVK", "Slovakia"},
	{"SL", "SLE", "Sierra Leone"},
	{"SM", "SMR", "San Marino"},
	{"SN", "SEN", "Senegal"},
	{"SO", "SOM", "Somalia"},
	{"SR", "SUR", "Suriname"},
	{"SS", "SSD", "South Sudan"},
	{"ST", "STP", "São Tomé and Príncipe"},
	{"SV", "SLV", "El Salvador"},
	{"SX", "SXM", "Sint Maarten"},
	{"SY", "SYR", "Syria"},
	{"SZ", "SWZ", "Eswatini"},
	{"TC", "TCA", "Turks and Caicos Islands"},
	{"TD", "TCD", "Chad"},
	{"TF", "ATF", "French Southern Territories"},
	{"TG", "TGO", "Togo"},
	{"TH", "THA", "Thailand"},
	{"TJ", "TJK", "Tajikistan"},
	{"TK", "TKL", "Tokelau"},
	{"TL", "TLS", "Timor-Leste"},
	{"TM", "TKM", "Turkmenistan"},
	{"TN", "TUN", "Tunisia"},
	{"TO", "TON", "Tonga"},
	{"TR", "TUR", "Turkey"},
	{"TT", "TTO", "Trinidad and Tobago"},
	{"TV", "TUV", "Tuvalu"},
	{"TW", "TWN", "Taiwan"},
	{"TZ", "TZA", "Tanzania"},
	{"UA", "UKR", "Ukraine"},
	{"UG", "UGA", "Uganda"},
	{"UM", "UMI", "United States Minor Outlying Islands"},
	{"US", "USA", "United States"},
	{"UY", "URY", "Uruguay"},
	{"UZ", "UZB", "Uzbekistan"},
	{"VA", "VAT", "Vatican City"},
	{"VC", "VCT", "Saint Vincent and Grenadines"},
	{"VE", "VEN", "Venezuela"},
	{"VG", "VGB", "British Virgin Islands"},
	{"VI", "VIR", "U.S. Virgin Islands"},
	{"VN", "VNM", "Vietnam"},
	{"VU", "VUT", "Vanuatu"},
	{"WF", "WLF", "Wallis and Futuna"},
	{"WS", "WSM", "Samoa"},
	{"YE", "YEM", "Yemen"},
	{"YT", "MYT", "Mayotte"},
	{"ZA", "ZAF", "South Africa"},
	{"ZM", "ZMB", "Zambia"},
	{"ZW", "ZWE", "Zimbabwe"},
}

// countryAliases maps geoKey spellings that are neither a code nor the table
// name to alpha-2 codes.
var countryAliases = map[string]string{
	"united states of america": "US", "us": "US", "usa": "US", "america": "US",
	"united states america": "US", "us of america": "US", "u s": "US", "u s a": "US",
	"uk": "GB", "united kingdom of great britain and northern ireland": "GB",
	"great britain": "GB", "britain": "GB", "england": "GB", "england and wales": "GB",
	"wales": "GB", "scotland": "GB", "northern ireland": "GB",
	"prc": "CN", "peoples republic of china": "CN", "mainland china": "CN", "pr china": "CN",
	"china prc": "CN", "republic of china": "TW", "taiwan roc": "TW", "roc": "TW",
	"hong kong sar": "HK", "hong kong sar china": "HK", "hksar": "HK", "macau": "MO",
	"korea": "KR", "republic of korea": "KR", "south korea": "KR", "rok": "KR",
	"north korea": "KP", "dprk": "KP", "democratic peoples republic of korea": "KP",
	"cayman": "KY", "grand cayman": "KY", "bvi": "VG", "virgin islands british": "VG",
	"holland": "NL", "the netherlands": "NL", "russian federation": "RU",
	"czech republic": "CZ", "turkiye": "TR", "türkiye": "TR", "swaziland": "SZ",
	"macedonia": "MK", "burma": "MM", "ivory coast": "CI", "cote divoire": "CI",
	"curacao": "CW", "reunion": "RE", "aland islands": "AX", "saint barthelemy": "BL",
	"sao tome and principe": "ST", "vatican": "VA", "holy see": "VA",
	"drc": "CD", "democratic republic of the congo": "CD", "republic of the congo": "CG",
	"uae": "AE", "emirates": "AE", "viet nam": "VN", "lao pdr": "LA",
	"iran islamic republic of": "IR", "syrian arab republic": "SY", "moldova republic of": "MD",
	"bolivia plurinational state of": "BO", "venezuela bolivarian republic of": "VE",
	"tanzania united republic of": "TZ", "micronesia federated states of": "FM",
	"cabo verde": "CV", "east timor": "TL", "brunei darussalam": "BN",
	"federal republic of germany": "DE", "deutschland": "DE", "french republic": "FR",
	"kingdom of the netherlands": "NL", "state of israel": "IL", "republic of ireland": "IE",
	"eire": "IE", "republic of singapore": "SG", "commonwealth of australia": "AU",
	"bermuda islands": "BM", "us virgin islands": "VI", "british virgin islands": "VG",
}

var countryIndex = func() map[string]string {
	m := make(map[string]string, 4*len(countries)+len(countryAliases))
	for _, c := range countries {
		m[strings.ToLower(c.alpha2)] = c.alpha2
		m[strings.ToLower(c.alpha3)] = c.alpha2
		m[geoKey(c.name)] = c.alpha2
	}
	for k, v := range countryAliases {
		m[geoKey(k)] = v
	}
	return m
}()

// diacritics folds the accented letters that occur in country and state names.
var diacritics = strings.NewReplacer(
	"á", "a", "à", "a", "â", "a", "ä", "a", "å", "a", "ã", "a",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "í", "i", "ì", "i", "î", "i", "ï", "i",
	"ó", "o", "ò", "o", "ô", "o", "ö", "o", "õ", "o", "ú", "u", "ù", "u", "û", "u", "ü", "u",
	"ç", "c", "ñ", "n", "ß", "ss", "ø", "o", "æ", "ae", "œ", "oe", "ł", "l", "ý", "y", "č", "c", "š", "s", "ž", "z",
	"’", "", "'", "",
)

var geoSeparators = strings.NewReplacer("&", " and ", ",", " ", "-", " ", "(", " ", ")", " ")

// geoKey lower-cases s, folds diacritics, reads "&" as "and", deletes
// punctuation ("U.S.A." becomes "usa"), collapses spaces and drops a leading
// "the".
func geoKey(s string) string {
	s = diacritics.Replace(strings.ToLower(s))
	s = geoSeparators.Replace(s)
	k := MatchKey(s)
	if rest, ok := strings.CutPrefix(k, "the "); ok {
		k = rest
	}
	return k
}

// NormalizeCountry returns the ISO 3166-1 alpha-2 code for a country name,
// alpha-2 or alpha-3 code or common alias ("United States", "U.S.A.", "UK",
// "England", "PRC", "Korea", "Cayman Islands", ...). ok is false when s names
// no country.
func NormalizeCountry(s string) (string, bool) {
	if strings.ContainsRune(s, '/') { // "N/A" is not Namibia
		return "", false
	}
	k := geoKey(s)
	if k == "" {
		return "", false
	}
	if c, ok := countryIndex[k]; ok {
		return c, true
	}
	// "Republic of Kazakhstan", "Kingdom of Spain", "State of Israel".
	for _, prefix := range []string{"republic of ", "kingdom of ", "commonwealth of ", "federal republic of ", "peoples republic of "} {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if c, ok := countryIndex[rest]; ok {
				return c, true
			}
		}
	}
	return "", false
}

// CountryName returns the English short name of an alpha-2 code, or "" when
// the code is not assigned.
func CountryName(alpha2 string) string {
	a := strings.ToUpper(alpha2)
	for _, c := range countries {
		if c.alpha2 == a {
			return c.name
		}
	}
	return ""
}

// usStates maps USPS codes to names: the 50 states, DC and the inhabited
// territories.
var usStates = map[string]string{
	"AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
	"CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia",
	"HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa",
	"KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland",
	"MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri",
	"MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey",
	"NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio",
	"OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina",
	"SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont",
	"VA": "Virginia", "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
	"DC": "District of Columbia", "PR": "Puerto Rico", "GU": "Guam", "VI": "U.S. Virgin Islands",
	"AS": "American Samoa", "MP": "Northern Mariana Islands",
}

// usStateAliases maps other geoKey spellings (traditional abbreviations,
// "State of ...") to USPS codes.
var usStateAliases = map[string]string{
	"ala": "AL", "ariz": "AZ", "ark": "AR", "calif": "CA", "cal": "CA", "colo": "CO",
	"conn": "CT", "del": "DE", "fla": "FL", "ill": "IL", "ind": "IN", "kan": "KS", "kans": "KS",
	"mass": "MA", "mich": "MI", "minn": "MN", "miss": "MS", "mont": "MT", "neb": "NE", "nebr": "NE",
	"nev": "NV", "okla": "OK", "ore": "OR", "oreg": "OR", "penn": "PA", "penna": "PA",
	"tenn": "TN", "tex": "TX", "wash": "WA", "wis": "WI", "wisc": "WI", "wyo": "WY",
	"washington dc": "DC", "washington d c": "DC", "dist of columbia": "DC",
	"commonwealth of massachusetts": "MA", "commonwealth of pennsylvania": "PA",
	"commonwealth of virginia": "VA", "commonwealth of kentucky": "KY",
	"commonwealth of puerto rico": "PR", "virgin islands": "VI", "us virgin islands": "VI",
}

var usStateIndex = func() map[string]string {
	m := make(map[string]string, 3*len(usStates)+len(usStateAliases))
	for code, name := range usStates {
		m[strings.ToLower(code)] = code
		k := geoKey(name)
		m[k] = code
		m["state of "+k] = code
	}
	for k, v := range usStateAliases {
		m[geoKey(k)] = v
	}
	return m
}()

// NormalizeUSState returns the USPS code for a US state, DC or territory
// given by name or code ("New York", "N.Y.", "ny", "State of Delaware",
// "Calif."). ok is false when s names none.
func NormalizeUSState(s string) (string, bool) {
	k := geoKey(s)
	if k == "" {
		return "", false
	}
	c, ok := usStateIndex[k]
	return c, ok
}

// USStateName returns the name of a USPS code, or "".
func USStateName(code string) string { return usStates[strings.ToUpper(code)] }

// caProvinces maps ISO 3166-2:CA subdivision codes to names.
var caProvinces = map[string]string{
	"AB": "Alberta", "BC": "British Columbia", "MB": "Manitoba", "NB": "New Brunswick",
	"NL": "Newfoundland and Labrador", "NS": "Nova Scotia", "NT": "Northwest Territories",
	"NU": "Nunavut", "ON": "Ontario", "PE": "Prince Edward Island", "QC": "Quebec",
	"SK": "Saskatchewan", "YT": "Yukon",
}

// CAProvinceName returns the name of an ISO 3166-2:CA province or
// territory code (without the "CA-"), or "".
func CAProvinceName(code string) string { return caProvinces[strings.ToUpper(code)] }

// NormalizeCAProvince returns the ISO 3166-2:CA code (without "CA-") of a
// Canadian province or territory given by name, code or abbreviation
// ("Ontario", "ont", "QC"). ok is false when s names none.
func NormalizeCAProvince(s string) (string, bool) {
	c, ok := caProvinceIndex[geoKey(CleanPartyName(s))]
	return c, ok
}

var caProvinceIndex = func() map[string]string {
	m := make(map[string]string, 3*len(caProvinces))
	for code, name := range caProvinces {
		m[strings.ToLower(code)] = code
		k := geoKey(name)
		m[k] = code
		m["province of "+k] = code
	}
	for k, v := range map[string]string{
		"newfoundland": "NL", "pq": "QC", "que": "QC", "yukon territory": "YT",
		"nfld": "NL", "ont": "ON", "alta": "AB", "sask": "SK", "man": "MB",
	} {
		m[k] = v
	}
	return m
}()

// NormalizeState normalises a first-level subdivision within country (an
// alpha-2 code): USPS codes in the US, ISO 3166-2 codes for Canadian
// provinces ("Ontario" becomes "ON"), and the cleaned input elsewhere or when
// the name is not recognised.
func NormalizeState(country, s string) string {
	clean := CleanPartyName(s)
	switch strings.ToUpper(country) {
	case "US":
		if c, ok := NormalizeUSState(clean); ok {
			return c
		}
	case "CA":
		if c, ok := caProvinceIndex[geoKey(clean)]; ok {
			return c
		}
	}
	return clean
}
