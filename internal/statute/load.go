package statute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Format is a statute file format.
type Format string

// Supported formats.
const (
	FormatUSLM  Format = "uslm"   // US Code, USLM 1.0 XML
	FormatMOJ   Format = "tw-moj" // Taiwan Ministry of Justice law JSON
	FormatJSONL Format = "jsonl"  // generic {id, jurisdiction, code, number, heading, text, url} lines
)

// MaxFileSize bounds one statute file (the largest US Code titles are
// around 100 MB of XML).
const MaxFileSize = 256 << 20

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ErrUnknownFormat is returned by Detect for content in none of the
// supported formats.
var ErrUnknownFormat = errors.New("unrecognised statute format (want USLM XML, MOJ law JSON or JSON Lines)")

// Detect tells the format of a statute file from its content: XML is USLM, a
// JSON object with LawArticles, EngLawArticles or Laws is MOJ law JSON, and
// any other JSON object starts a JSON Lines file.
func Detect(data []byte) (Format, error) {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	if len(data) == 0 {
		return "", errors.New("empty file")
	}
	switch data[0] {
	case '<':
		return FormatUSLM, nil
	case '{':
		var keys map[string]json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&keys); err != nil {
			return "", fmt.Errorf("malformed JSON: %w", err)
		}
		if looksLikeMOJ(keys) {
			return FormatMOJ, nil
		}
		return FormatJSONL, nil
	}
	return "", ErrUnknownFormat
}

// FileResult is what Load made of one file.
type FileResult struct {
	File   string
	Format Format
	// Count is the number of statutes the file contributed; for a MOJ file
	// joined with its other-language version, the joined articles are
	// counted once, on the file listed first.
	Count int
	// Joined names the other-language MOJ file this file was joined with.
	Joined string
	// Warnings are problems that did not stop the file, such as an
	// other-language sibling that could not be joined.
	Warnings []string
	Err      error // nil on success; the file contributed nothing otherwise
}

// Load reads and parses statute files, detecting each one's format. A bad
// file is reported in its FileResult and does not stop the others. The
// Chinese and English MOJ files of one law are joined on the article number;
// when only one of them is given, its counterpart is looked for in the
// sibling directory (…/ch/X.json ↔ …/en/X.json) and joined if present.
// Statutes come back in file order, without duplicates.
func Load(paths []string) ([]contract.Statute, []FileResult) {
	results := make([]FileResult, len(paths))
	perFile := make([][]contract.Statute, len(paths))
	type mojVersion struct {
		file int // index into paths, or -1 for an auto-discovered sibling
		path string
		law  MOJLaw
	}
	mojByPCode := map[string][]mojVersion{}
	var pcodes []string
	given := map[string]bool{}
	for _, p := range paths {
		given[filepath.Clean(p)] = true
	}
	for i, p := range paths {
		results[i].File = p
		data, err := readLimited(p)
		if err != nil {
			results[i].Err = err
			continue
		}
		format, err := Detect(data)
		if err != nil {
			results[i].Err = &ParseError{File: p, Err: err}
			continue
		}
		results[i].Format = format
		switch format {
		case FormatUSLM:
			perFile[i], results[i].Err = ParseUSLM(p, bytes.NewReader(data))
		case FormatJSONL:
			perFile[i], results[i].Err = ParseJSONL(p, bytes.NewReader(data))
		case FormatMOJ:
			laws, err := ParseMOJ(p, data)
			if err != nil {
				results[i].Err = err
				continue
			}
			for _, law := range laws {
				if _, ok := mojByPCode[law.PCode]; !ok {
					pcodes = append(pcodes, law.PCode)
				}
				mojByPCode[law.PCode] = append(mojByPCode[law.PCode], mojVersion{file: i, path: p, law: law})
			}
			if sib := mojSibling(p); sib != "" && !given[filepath.Clean(sib)] && len(laws) == 1 {
				slaw, warn := loadSibling(sib, laws[0])
				if slaw != nil {
					mojByPCode[laws[0].PCode] = append(mojByPCode[laws[0].PCode], mojVersion{file: -1, path: sib, law: *slaw})
				}
				if warn != "" {
					results[i].Warnings = append(results[i].Warnings, warn)
				}
			}
		}
	}
	for _, pc := range pcodes {
		var zh, en *mojVersion
		failed := false
		for j := range mojByPCode[pc] {
			v := &mojByPCode[pc][j]
			slot := &zh
			if v.law.English {
				slot = &en
			}
			if *slot != nil && (*slot).file >= 0 && v.file >= 0 {
				results[v.file].Err = &ParseError{File: v.path, Record: pc,
					Err: fmt.Errorf("law %s in this language is also in %s", pc, (*slot).path)}
				failed = true
				continue
			}
			if *slot == nil || (*slot).file < 0 {
				*slot = v
			}
		}
		if failed && zh == nil && en == nil {
			continue
		}
		var zl, el *MOJLaw
		if zh != nil {
			zl = &zh.law
		}
		if en != nil {
			el = &en.law
		}
		sts, err := JoinMOJ(zl, el)
		owner := zh
		if owner == nil || (owner.file < 0 && en != nil) {
			owner = en
		}
		if err != nil {
			results[owner.file].Err = &ParseError{File: owner.path, Record: pc, Err: err}
			continue
		}
		perFile[owner.file] = append(perFile[owner.file], sts...)
		for _, v := range []*mojVersion{zh, en} {
			if v != nil && v != owner {
				if v.file >= 0 {
					results[v.file].Joined = owner.path
				}
				results[owner.file].Joined = v.path
			}
		}
	}
	var out []contract.Statute
	type origin struct {
		file int
		st   contract.Statute
	}
	byID := map[string]origin{}
	for i := range paths {
		if results[i].Err != nil {
			continue
		}
		var kept []contract.Statute
		for _, st := range perFile[i] {
			prev, dup := byID[st.ID]
			if !dup {
				kept = append(kept, st)
				continue
			}
			if prev.st != st {
				results[i].Err = &ParseError{File: paths[i], Record: st.ID, Field: "id",
					Err: fmt.Errorf("also in %s with different content", paths[prev.file])}
				break
			}
		}
		if results[i].Err != nil {
			continue
		}
		for _, st := range kept {
			byID[st.ID] = origin{i, st}
		}
		out = append(out, kept...)
		results[i].Count = len(kept)
	}
	return out, results
}

// loadSibling reads the other-language version of law found beside its
// file. A missing sibling is normal (no warning); an unreadable or
// mismatched one is skipped with a warning.
func loadSibling(path string, law MOJLaw) (*MOJLaw, string) {
	data, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, fmt.Sprintf("other-language version not joined: %v", err)
	}
	laws, err := ParseMOJ(path, data)
	if err != nil {
		return nil, fmt.Sprintf("other-language version not joined: %v", err)
	}
	if len(laws) != 1 || laws[0].PCode != law.PCode || laws[0].English == law.English {
		return nil, fmt.Sprintf("other-language version not joined: %s is not the other-language version of law %s", path, law.PCode)
	}
	return &laws[0], ""
}

// mojSibling returns the other-language path of a MOJ file laid out as
// …/ch/X.json and …/en/X.json, or "".
func mojSibling(p string) string {
	dir, base := filepath.Split(filepath.Clean(p))
	parent, lang := filepath.Split(filepath.Clean(dir))
	switch lang {
	case "ch":
		return filepath.Join(parent, "en", base)
	case "en":
		return filepath.Join(parent, "ch", base)
	}
	return ""
}

// readLimited reads a whole file, refusing files over MaxFileSize.
func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &ParseError{File: p, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &ParseError{File: p, Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, &ParseError{File: p, Err: fmt.Errorf("larger than %d MiB", MaxFileSize>>20)}
	}
	return data, nil
}
