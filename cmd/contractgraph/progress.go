package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressBar draws a one-line progress bar on a terminal. It draws nothing
// when its writer is not a terminal, so logs and pipes stay clean. It is
// safe for concurrent use.
type progressBar struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	width   int
	label   string
	unit    string // what the count counts: "contracts" unless startUnit says
	last    time.Time
	drawn   bool
}

// newProgressBar returns a bar writing to w, enabled only when w is a
// terminal and quiet is false.
func newProgressBar(w io.Writer, quiet bool) *progressBar {
	p := &progressBar{w: w, width: 80}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			p.width = width
		}
	}
	return p
}

// start begins a new item, e.g. the file being imported.
func (p *progressBar) start(label string) { p.startUnit(label, "contracts") }

// startUnit begins a new item whose count counts unit, e.g. "chunks".
func (p *progressBar) startUnit(label, unit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.label, p.unit = label, unit
	p.last = time.Time{}
}

// update redraws the bar, at most ten times a second: done of total (bytes,
// or the items themselves) and a count of items.
func (p *progressBar) update(done, total int64, items int) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = now
	fmt.Fprint(p.w, "\r"+renderBar(p.width, p.label, done, total, items, p.unit))
	p.drawn = true
}

// clear removes the bar so that the next line prints cleanly.
func (p *progressBar) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enabled && p.drawn {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width-1)+"\r")
		p.drawn = false
	}
}

// renderBar lays out "label [=====>    ]  42%  1234 contracts" in width
// columns, shortening the label to fit; unit names the items ("" means
// contracts).
func renderBar(width int, label string, done, total int64, items int, unit string) string {
	if unit == "" {
		unit = "contracts"
	}
	pct := 0.0
	if total > 0 {
		pct = min(1, float64(done)/float64(total))
	}
	tail := fmt.Sprintf(" %3.0f%%  %d %s", pct*100, items, unit)
	barW := max(10, min(40, width/3))
	maxLabel := width - 1 - barW - 3 - len(tail)
	if r := []rune(label); maxLabel > 3 && len(r) > maxLabel {
		label = "…" + string(r[len(r)-maxLabel+1:])
	} else if maxLabel <= 3 {
		label = ""
	}
	fill := int(pct * float64(barW))
	bar := strings.Repeat("=", fill)
	if fill < barW {
		bar += ">" + strings.Repeat(" ", barW-fill-1)
	}
	return fmt.Sprintf("%s [%s]%s", label, bar, tail)
}
