package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"weft/engine"
)

// progressTick is how often the engine reports its statistics.
const progressTick = 250 * time.Millisecond

// progressAfter is how long a check runs before progress is shown: a
// quick check prints nothing but its result.
const progressAfter = time.Second

// progressLogEvery is how often progress is written as a line of its own
// when stderr is not a terminal (a CI log).
const progressLogEvery = 10 * time.Second

// progress shows a long check's statistics on stderr, so that a long or
// livelocked model never looks like a hang: on a terminal one line
// rewritten in place, otherwise a line every progressLogEvery.
type progress struct {
	w        io.Writer
	path     string
	off      bool
	terminal bool
	shown    bool // a terminal line is on screen
	lastLine time.Duration
	stateful bool // count states, not executions (--algo stateful)
}

func newProgress(w io.Writer, path string, quiet bool) *progress {
	p := &progress{w: w, path: path, off: quiet}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

func (p *progress) update(s engine.Stats) {
	if p.off || s.Elapsed < progressAfter {
		return
	}
	secs := s.Elapsed.Seconds()
	line := fmt.Sprintf("weft: %s: %d executions (%.0f/s), %d steps (%.0f/s)", p.path, s.Executions, float64(s.Executions)/secs, s.Events, float64(s.Events)/secs)
	if p.stateful {
		line = fmt.Sprintf("weft: %s: %d states (%.0f/s), %d transitions, %d matched", p.path, s.States, float64(s.States)/secs, s.Transitions, s.Matched)
	}
	if s.MaxDepth > 0 {
		line += fmt.Sprintf(", longest execution %d steps", s.MaxDepth)
	}
	line += ", " + s.Elapsed.Round(time.Second).String()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
		return
	}
	if p.lastLine == 0 || s.Elapsed-p.lastLine >= progressLogEvery {
		p.lastLine = s.Elapsed
		fmt.Fprintln(p.w, line)
	}
}

// clear removes the terminal line before other output.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
