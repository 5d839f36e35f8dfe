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

// logEvery is how often a progress bar writing to a file or pipe (a log,
// not a terminal) prints a line. Tests set it before they start, so that
// output they compare does not depend on the machine's speed.
var logEvery = 10 * time.Second

// progressBar draws a one-line progress bar on a terminal. When its writer
// is a file or a pipe it prints a plain line every logEvery instead, and
// the last one at 100%, so that a long import run under nohup or in CI
// shows its progress while a command that finishes sooner leaves the log
// clean. It is safe for concurrent use.
type progressBar struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	logged  bool // lines for a log rather than a redrawn bar
	width   int
	label   string
	unit    string // what the count counts: "contracts" unless startUnit says
	last    time.Time
	drawn   bool
	ended   bool             // a log's 100% line is out
	every   time.Duration    // logEvery when the bar was made
	now     func() time.Time // time.Now; tests move the clock
}

// newProgressBar returns a bar writing to w when w is a terminal, a file or
// a pipe, and quiet is false; other writers get nothing.
func newProgressBar(w io.Writer, quiet bool) *progressBar {
	p := &progressBar{w: w, width: 80, every: logEvery, now: time.Now}
	f, ok := w.(*os.File)
	switch {
	case !ok || quiet:
	case term.IsTerminal(int(f.Fd())):
		p.enabled = true
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			p.width = width
		}
	default:
		p.enabled, p.logged = true, true
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
	p.drawn, p.ended = false, false
	if p.logged {
		// A log's first line comes p.every after the start.
		p.last = p.now()
	}
}

// update redraws the bar, at most ten times a second: done of total (bytes,
// or the items themselves) and a count of items.
func (p *progressBar) update(done, total int64, items int) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.logged {
		// A line every p.every, and the last at the end when one was
		// printed before; the end once.
		end := done >= total
		if end && p.ended {
			return
		}
		if (!end || !p.drawn) && now.Sub(p.last) < p.every {
			return
		}
		fmt.Fprintln(p.w, logLine(p.label, done, total, items, p.unit))
		p.last, p.drawn, p.ended = now, true, end
		return
	}
	if now.Sub(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = now
	fmt.Fprint(p.w, "\r"+renderBar(p.width, p.label, done, total, items, p.unit))
	p.drawn = true
}

// logLine is a progress line for a log: "label: 42% (1234 contracts)".
func logLine(label string, done, total int64, items int, unit string) string {
	if unit == "" {
		unit = "contracts"
	}
	return fmt.Sprintf("%s: %3d%% (%d %s)", label, percent(done, total), items, unit)
}

// clear removes the bar so that the next line prints cleanly.
func (p *progressBar) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enabled && !p.logged && p.drawn {
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
	tail := fmt.Sprintf(" %3d%%  %d %s", percent(done, total), items, unit)
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

// percent is done of total in whole percent, rounded down: 100 only when
// the phase is done, so that a bar at 99.6% does not say it has finished.
func percent(done, total int64) int {
	if total <= 0 {
		return 0
	}
	return int(min(100, 100*done/total))
}
