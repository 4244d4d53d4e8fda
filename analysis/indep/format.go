package indep

import (
	"fmt"
	"io"
	"strings"

	"weft/analysis/access"
)

// StatementText is the source text of st (its header for an if, a while
// or a for: the text of its range), on one line: runs of white space
// become one space, and more than 60 characters end in "…".
func StatementText(st *access.Statement, src []byte) string {
	if st.End {
		return "end of " + ownerName(st)
	}
	lo, hi := st.Range.Start.Offset, st.Range.End.Offset
	if lo < 0 || hi > len(src) || lo > hi {
		return ""
	}
	s := strings.Join(strings.Fields(string(src[lo:hi])), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

func ownerName(st *access.Statement) string {
	if st.Owner == nil {
		return "?"
	}
	return st.Owner.Name
}

// Where is "line:col owner" (1-based), "line:col owner via f" for a
// statement of function f as owner's body runs it.
func Where(st *access.Statement) string {
	s := fmt.Sprintf("%d:%d %s", st.Range.Start.Line+1, st.Range.Start.Col+1, ownerName(st))
	if st.Func != nil {
		s += " via " + st.Func.Name
	}
	return s
}

// LocNames lists locations' names, "-" for none.
func LocNames(locs []access.Loc) string {
	if len(locs) == 0 {
		return "-"
	}
	names := make([]string, len(locs))
	for i, l := range locs {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}

// WriteText writes the pairs for people: per pair, the two statements
// (position, thread, text), what each reads and writes, why they are
// dependent, and each condition with its origin ("none" when they are
// always dependent); then the notes. src is the program's text.
func (r *Result) WriteText(w io.Writer, src []byte) error {
	var b strings.Builder
	for _, p := range r.Pairs {
		fmt.Fprintf(&b, "%s: %s\n", Where(p.A), StatementText(p.A, src))
		fmt.Fprintf(&b, "  with %s: %s", Where(p.B), StatementText(p.B, src))
		if p.Threads.Owner != nil && p.Threads.String() != ownerName(p.B) {
			fmt.Fprintf(&b, " (%s)", p.Threads)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  reads %s; writes %s / reads %s; writes %s\n",
			LocNames(p.A.Reads()), LocNames(p.A.Writes()), LocNames(p.B.Reads()), LocNames(p.B.Writes()))
		fmt.Fprintf(&b, "  dependent: %s\n", p.Reason)
		if len(p.Conditions) == 0 {
			b.WriteString("  commute: never known\n")
		}
		for _, c := range p.Conditions {
			eng := ""
			if c.Engine {
				eng = ", engine"
			}
			fmt.Fprintf(&b, "  commute if %s  [%s%s]\n", c.Text, c.Origin, eng)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
