package statute

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// USLMNamespace is the XML namespace of United States Legislative Markup 1.0,
// the format uscode.house.gov publishes the US Code in.
const USLMNamespace = "http://xml.house.gov/schemas/uslm/1.0"

// uslmSectionID matches a section identifier such as /us/usc/t9/s2 or
// /us/usc/t17/s116A and captures the title and the section number.
var uslmSectionID = regexp.MustCompile(`^/us/usc/t([0-9]+[A-Za-z]?)/s([0-9A-Za-z.\-]+)$`)

// uslmBlocks are the elements that start a new line of plain text.
var uslmBlocks = map[string]bool{
	"subsection": true, "paragraph": true, "subparagraph": true, "clause": true,
	"subclause": true, "item": true, "subitem": true, "subsubitem": true,
	"p": true, "chapeau": true, "continuation": true, "content": true,
	"proviso": true, "tr": true, "heading": true, "quotedContent": true,
}

// uslmSkipped are the elements whose text is commentary, not law: editorial
// notes and the source credit.
var uslmSkipped = map[string]bool{"notes": true, "note": true, "sourceCredit": true}

// ParseUSLM reads a US Code title in USLM 1.0 XML and returns one Statute per
// <section>, in document order. Section text is the plain text of the
// section's body (subsections, paragraphs, tables); notes and source credits
// are left out. A repealed section, which has no body, gets its heading as
// text. file names the input in errors.
func ParseUSLM(file string, r io.Reader) ([]contract.Statute, error) {
	dec := xml.NewDecoder(r)
	dec.Entity = xml.HTMLEntity
	var (
		out      []contract.Statute
		seen     = map[string]bool{}
		depth    int
		rootSeen bool
		sec      *uslmSection
		skip     int // depth of the outermost skipped element, 0 if none
		count    int
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rec := ""
			if sec != nil {
				rec = "section " + sec.identifier
			}
			return nil, &ParseError{File: file, Record: rec, Err: fmt.Errorf("malformed XML: %w", err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if !rootSeen {
				rootSeen = true
				if t.Name.Space != USLMNamespace {
					return nil, &ParseError{File: file, Err: fmt.Errorf("root element <%s> is not in the USLM namespace %s", t.Name.Local, USLMNamespace)}
				}
			}
			if t.Name.Space != USLMNamespace {
				continue
			}
			name := t.Name.Local
			if skip != 0 {
				continue
			}
			if uslmSkipped[name] || (sec == nil && (name == "toc" || name == "quotedContent")) {
				skip = depth
				continue
			}
			if sec == nil {
				if name == "section" {
					count++
					sec = &uslmSection{depth: depth, ordinal: count}
					for _, a := range t.Attr {
						switch a.Name.Local {
						case "identifier":
							sec.identifier = a.Value
						case "status":
							sec.status = a.Value
						}
					}
				}
				continue
			}
			sec.start(name, depth, t.Attr)
		case xml.EndElement:
			if skip != 0 {
				if depth == skip {
					skip = 0
				}
				depth--
				continue
			}
			if sec != nil && t.Name.Space == USLMNamespace {
				if depth == sec.depth {
					st, err := sec.statute(file)
					if err != nil {
						return nil, err
					}
					if seen[st.ID] {
						return nil, &ParseError{File: file, Record: "section " + st.ID, Field: "identifier", Err: errors.New("duplicate section identifier")}
					}
					seen[st.ID] = true
					out = append(out, st)
					sec = nil
				} else {
					sec.end(t.Name.Local, depth)
				}
			}
			depth--
		case xml.CharData:
			if skip == 0 && sec != nil {
				sec.text(string(t))
			}
		}
	}
	if !rootSeen {
		return nil, &ParseError{File: file, Err: errors.New("no XML root element")}
	}
	if len(out) == 0 {
		return nil, &ParseError{File: file, Err: errors.New("no <section> elements found")}
	}
	return out, nil
}

// uslmSection accumulates one section while its tokens stream by.
type uslmSection struct {
	depth        int
	ordinal      int
	identifier   string
	status       string
	num          string
	heading      strings.Builder
	headingDepth int // depth of the section heading while inside it
	headingDone  bool
	body         strings.Builder
	afterNum     bool // a body <num> just ended: its text runs on into the next block
}

func (s *uslmSection) start(name string, depth int, attrs []xml.Attr) {
	switch {
	case name == "num" && depth == s.depth+1:
		for _, a := range attrs {
			if a.Name.Local == "value" {
				s.num = a.Value
			}
		}
		s.headingDepth = -depth // the section's own number is not body text
		return
	case name == "heading" && depth == s.depth+1 && !s.headingDone:
		s.headingDepth = depth
		return
	}
	switch {
	case uslmBlocks[name] && !s.afterNum:
		s.body.WriteByte('\n')
	case name == "td" || name == "th" || name == "column":
		s.body.WriteByte(' ')
	}
	s.afterNum = false
}

func (s *uslmSection) end(name string, depth int) {
	switch {
	case s.headingDepth == -depth:
		s.headingDepth = 0
		return
	case s.headingDepth == depth:
		s.headingDepth = 0
		s.headingDone = true
		return
	}
	switch {
	case uslmBlocks[name]:
		s.body.WriteByte('\n')
	case name == "num":
		s.body.WriteByte(' ')
		s.afterNum = true
	case name == "td" || name == "th" || name == "column":
		s.body.WriteByte(' ')
	}
}

func (s *uslmSection) text(t string) {
	switch {
	case s.headingDepth < 0:
		// Inside the section's <num>: its value is kept from the attribute.
	case s.headingDepth > 0:
		s.heading.WriteString(t)
	default:
		// Line breaks in the source are layout; lines come from the elements.
		s.body.WriteString(strings.ReplaceAll(t, "\n", " "))
		if strings.TrimSpace(t) != "" {
			s.afterNum = false
		}
	}
}

func (s *uslmSection) statute(file string) (contract.Statute, error) {
	rec := fmt.Sprintf("section #%d", s.ordinal)
	if s.identifier == "" {
		return contract.Statute{}, &ParseError{File: file, Record: rec, Field: "identifier", Err: errors.New("missing")}
	}
	m := uslmSectionID.FindStringSubmatch(s.identifier)
	if m == nil {
		return contract.Statute{}, &ParseError{File: file, Record: rec, Field: "identifier",
			Err: fmt.Errorf("%q is not a US Code section identifier like /us/usc/t9/s2", s.identifier)}
	}
	title, number := m[1], m[2]
	if s.num != "" {
		number = s.num
	}
	heading := collapseSpace(s.heading.String())
	text := plainLines(s.body.String())
	if text == "" {
		text = heading
	}
	if text == "" {
		return contract.Statute{}, &ParseError{File: file, Record: "section " + s.identifier, Field: "content", Err: errors.New("section has neither text nor heading")}
	}
	return contract.Statute{
		ID:           s.identifier,
		Jurisdiction: "us",
		Code:         title + " U.S.C.",
		Number:       number,
		Heading:      heading,
		Text:         text,
		URL:          USCodeURL(title, m[2]),
	}, nil
}

// USCodeURL is the official uscode.house.gov page of a section.
func USCodeURL(title, section string) string {
	return "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title" + url.QueryEscape(title) +
		"-section" + url.QueryEscape(section) + "&num=0&edition=prelim"
}

// collapseSpace trims s and turns every run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// softHyphen is an invisible line-break hint that would stop a quote typed
// without it from matching.
const softHyphen = "\u00ad"

// plainLines removes soft hyphens, collapses the white space inside each line of s, drops empty
// lines and joins the rest with newlines.
func plainLines(s string) string {
	var lines []string
	s = strings.ReplaceAll(s, softHyphen, "")
	for line := range strings.SplitSeq(s, "\n") {
		if l := collapseSpace(line); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
