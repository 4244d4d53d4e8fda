// Package source holds what every layer of Weft shares about source text:
// positions (byte offset, 0-based line, UTF-16 column as LSP counts them),
// ranges, and diagnostics with a stable code. It depends on nothing else in
// the module, so the grammar, the analyses, the engine and the servers can
// all speak about places in a file without knowing about each other.
package source

import (
	"fmt"
	"unicode/utf8"
)

// Pos is a position in a source file. Line and Col are 0-based; Col counts
// UTF-16 code units from the start of the line, as the Language Server
// Protocol does. The zero Pos is the start of the file; a Pos with
// Offset < 0 is "no position" (see NoPos).
type Pos struct {
	Offset int // byte offset from the start of the file
	Line   int // 0-based line
	Col    int // 0-based column in UTF-16 code units
}

// NoPos is the position of things that have none (synthesised nodes).
var NoPos = Pos{Offset: -1, Line: -1, Col: -1}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Offset >= 0 }

// Before reports whether p comes strictly before q.
func (p Pos) Before(q Pos) bool { return p.Offset < q.Offset }

// String prints the position 1-based, as people read it: "line:col".
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line+1, p.Col+1)
}

// Range is a half-open span [Start, End) of a source file.
type Range struct {
	Start, End Pos
}

// IsValid reports whether r has a real start.
func (r Range) IsValid() bool { return r.Start.IsValid() }

// Contains reports whether p lies inside r (End excluded).
func (r Range) Contains(p Pos) bool {
	return r.Start.Offset <= p.Offset && p.Offset < r.End.Offset
}

func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// Severity says how serious a diagnostic is. The values match LSP's
// DiagnosticSeverity so that servers can convert by cast.
type Severity int

const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Diagnostic is one problem found in a file: where, how bad, a stable
// machine-readable code (such as "undefined-name") and a message a person
// understands.
type Diagnostic struct {
	Range    Range
	Severity Severity
	Code     string
	Message  string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s", d.Range.Start, d.Severity, d.Message)
}

// HasErrors reports whether any diagnostic in ds is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// File is the text of one source file with a line index, for turning byte
// offsets into positions after the fact.
type File struct {
	Name       string
	Text       []byte
	lineStarts []int // byte offset at which each line starts
}

// NewFile indexes text by line.
func NewFile(name string, text []byte) *File {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &File{Name: name, Text: text, lineStarts: starts}
}

// LineCount is the number of lines (a file with no newline has one).
func (f *File) LineCount() int { return len(f.lineStarts) }

// Pos returns the position of a byte offset, clamped into the file.
func (f *File) Pos(offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(f.Text) {
		offset = len(f.Text)
	}
	// Binary search for the line.
	lo, hi := 0, len(f.lineStarts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if f.lineStarts[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return Pos{Offset: offset, Line: lo, Col: UTF16Len(f.Text[f.lineStarts[lo]:offset])}
}

// Offset turns an LSP-style line and UTF-16 column back into a byte offset,
// clamping to the line's end and the file's end.
func (f *File) Offset(line, col int) int {
	if line < 0 {
		return 0
	}
	if line >= len(f.lineStarts) {
		return len(f.Text)
	}
	i := f.lineStarts[line]
	end := len(f.Text)
	if line+1 < len(f.lineStarts) {
		end = f.lineStarts[line+1] - 1
	}
	units := 0
	for i < end && units < col {
		r, size := utf8.DecodeRune(f.Text[i:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return i
}

// UTF16Len counts the UTF-16 code units needed for the UTF-8 text b.
// Invalid bytes count one unit each (they are shown as U+FFFD).
func UTF16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}
