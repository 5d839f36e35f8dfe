package contract

// Page sources: how the loader got a page's text.
const (
	PageText = "text" // the document's own text layer
	PageOCR  = "ocr"  // recognised from the page image
)

// Page is one page of a contract's source document. Start and End are the
// page's UTF-8 byte range in Contract.Text. An OCR page also has the size
// of the image it was recognised from (Width by Height pixels, the space
// its word boxes are in), its words and its mean word confidence
// (0 to 100); Image is a PNG of the page for display, smaller than the
// image that was recognised but of the same proportions.
type Page struct {
	Number     int        `json:"number"`
	Source     string     `json:"source"`
	Start      int        `json:"start"`
	End        int        `json:"end"`
	Confidence float64    `json:"confidence,omitempty"`
	Width      int        `json:"width,omitempty"`
	Height     int        `json:"height,omitempty"`
	Words      []PageWord `json:"words,omitempty"`
	Image      []byte     `json:"-"`
}

// PageWord is one recognised word: Contract.Text[Start:End] is the word,
// and X, Y, W, H its box in the page image's pixels (origin top left).
// Conf is the recogniser's confidence, 0 to 100.
type PageWord struct {
	Start int     `json:"start"`
	End   int     `json:"end"`
	X     int     `json:"x"`
	Y     int     `json:"y"`
	W     int     `json:"w"`
	H     int     `json:"h"`
	Conf  float64 `json:"conf"`
}

// LowOCRConfidence is the mean word confidence under which a recognised
// page is reported, at ingest and on the contract page, as low-confidence:
// its text likely has errors a reader should check against the image.
const LowOCRConfidence = 70
