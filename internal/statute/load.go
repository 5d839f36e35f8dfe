package statute

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/text/encoding/unicode"

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

// MaxFileSize bounds a statute file read whole, as MOJ law JSON is (one
// JSON object per law); USLM XML and JSON Lines are streamed and have no
// limit on the file, only on each JSON Lines record (MaxRecordBytes).
const MaxFileSize = 256 << 20

// MaxRecordErrors is how many bad records of one file a FileResult keeps;
// the rest are counted.
const MaxRecordErrors = 100

// detectPeek is how many leading bytes Detect is given.
const detectPeek = 64 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ErrUnknownFormat is returned by Detect for content in none of the
// supported formats.
var ErrUnknownFormat = errors.New("unrecognised statute format (want USLM XML, MOJ law JSON or JSON Lines)")

// Detect tells the format of a statute file from its first bytes (Load
// gives it the first 64 KiB): XML is USLM; a JSON object whose first line
// is the whole object is JSON Lines unless it has LawArticles,
// EngLawArticles or Laws, which make MOJ law JSON; a JSON object written
// over several lines is MOJ law JSON when it names MOJ fields (LawName,
// LawLevel, LawArticles, ...) and JSON Lines whose first line is broken
// when a later line is a whole object.
func Detect(head []byte) (Format, error) {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if len(head) == 0 {
		return "", errors.New("empty file")
	}
	switch head[0] {
	case '<':
		return FormatUSLM, nil
	case '{':
		lines := bytes.Split(head, []byte("\n"))
		first := bytes.TrimSpace(lines[0])
		if json.Valid(first) {
			var keys map[string]json.RawMessage
			if json.Unmarshal(first, &keys) == nil && looksLikeMOJ(keys) {
				return FormatMOJ, nil
			}
			return FormatJSONL, nil
		}
		for _, k := range []string{`"LawArticles"`, `"EngLawArticles"`, `"Laws"`, `"LawName"`, `"LawLevel"`, `"EngLawName"`} {
			if bytes.Contains(head, []byte(k)) {
				return FormatMOJ, nil
			}
		}
		// A line cut off by the peek is not valid JSON, so only whole lines count.
		for _, l := range lines[1:] {
			if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' && json.Valid(l) {
				return FormatJSONL, nil
			}
		}
		return "", errors.New("malformed JSON: the first line is not a whole JSON object (JSON Lines) and no MOJ law fields follow")
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
	// Bad are the first MaxRecordErrors records that failed alone (each a
	// *ParseError naming its line); BadCount counts all of them. The file's
	// other records are in Count.
	Bad      []error
	BadCount int
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
		var laws []MOJLaw
		perFile[i], laws, results[i].Err = loadFile(p, &results[i])
		if results[i].Err != nil {
			continue
		}
		if results[i].Format == FormatMOJ {
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

// loadFile reads one file, streaming it unless it is MOJ law JSON: the
// format is told from the first bytes. It sets r's Format and, for JSON
// Lines, its bad records.
func loadFile(p string, r *FileResult) ([]contract.Statute, []MOJLaw, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, &ParseError{File: p, Err: err}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, detectPeek)
	head, err := br.Peek(detectPeek)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, &ParseError{File: p, Err: err}
	}
	format, err := Detect(head)
	if err != nil {
		return nil, nil, &ParseError{File: p, Err: err}
	}
	r.Format = format
	switch format {
	case FormatUSLM:
		// Invalid UTF-8, which encoding/xml refuses, becomes U+FFFD as it
		// does on every other path into the store.
		sts, err := ParseUSLM(p, unicode.UTF8.NewDecoder().Reader(br))
		return sts, nil, err
	case FormatJSONL:
		sts, err := ParseJSONL(p, br, func(err error) {
			if r.BadCount++; len(r.Bad) < MaxRecordErrors {
				r.Bad = append(r.Bad, err)
			}
		})
		return sts, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(br, MaxFileSize+1))
	if err != nil {
		return nil, nil, &ParseError{File: p, Err: err}
	}
	if len(data) > MaxFileSize {
		return nil, nil, &ParseError{File: p, Err: fmt.Errorf("larger than %d MiB, the limit for a law JSON file", MaxFileSize>>20)}
	}
	laws, err := ParseMOJ(p, data)
	return nil, laws, err
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
