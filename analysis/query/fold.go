package query

import (
	"sort"
	"strings"

	"weft/grammar"
	"weft/source"
)

// FoldKind says what a folding range folds.
type FoldKind uint8

// The kinds of folds.
const (
	FoldRegion  FoldKind = iota // a block or an initialiser list
	FoldComment                 // a /* */ comment or a run of // comments
)

func (k FoldKind) String() string {
	if k == FoldComment {
		return "comment"
	}
	return "region"
}

// Fold is a range of lines that an editor can fold: StartLine stays
// visible, the lines after it up to EndLine (0-based, inclusive) are
// hidden.
type Fold struct {
	StartLine, EndLine int
	Kind               FoldKind
}

// FoldingRanges returns the folds of the file, ordered by start line:
// every block that spans lines (thread, proc and function bodies, if, else, for,
// while and atomic blocks), every initialiser list that spans lines,
// every /* */ comment that spans lines, and every run of two or more //
// comments on consecutive lines of their own. A closing brace that starts
// its line stays visible (the fold ends on the line before), so that
// `} else {` is never hidden.
func FoldingRanges(src *source.File, file *grammar.File) []Fold {
	if src == nil || file == nil {
		return nil
	}
	var out []Fold
	add := func(start, end int, kind FoldKind) {
		if end > start {
			out = append(out, Fold{StartLine: start, EndLine: end, Kind: kind})
		}
	}
	closing := func(open, close source.Pos) {
		if !close.IsValid() || !open.IsValid() {
			return
		}
		end := close.Line
		if isByteAt(src.Text, close.Offset, '}') && startsLine(src.Text, close.Offset) {
			end--
		}
		add(open.Line, end, FoldRegion)
	}
	grammar.Inspect(file, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.Block:
			if isByteAt(src.Text, n.Lbrace.Offset, '{') {
				closing(n.Lbrace, n.Rbrace)
			}
		case *grammar.InitList:
			closing(n.Lbrace, n.Rbrace)
		}
		return true
	})
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			add(runStart, runEnd, FoldComment)
		}
		runStart, runEnd = -1, -1
	}
	for _, c := range file.Comments {
		if c == nil {
			continue
		}
		if !strings.HasPrefix(c.Text, "//") {
			flush()
			add(c.Start.Line, c.Stop.Line, FoldComment)
			continue
		}
		if !startsLine(src.Text, c.Start.Offset) {
			flush()
			continue
		}
		if runStart >= 0 && c.Start.Line == runEnd+1 {
			runEnd = c.Start.Line
			continue
		}
		flush()
		runStart, runEnd = c.Start.Line, c.Start.Line
	}
	flush()
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out
}

// startsLine reports whether only spaces and tabs precede offset off on
// its line.
func startsLine(text []byte, off int) bool {
	if off > len(text) {
		return false
	}
	for i := off - 1; i >= 0; i-- {
		switch text[i] {
		case ' ', '\t':
			continue
		case '\n':
			return true
		}
		return false
	}
	return true
}
