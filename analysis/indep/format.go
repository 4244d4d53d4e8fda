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
	// One line: the statements of a block that stood on lines of their
	// own are separated by "; ", as Weft allows.
	var b strings.Builder
	prev := ""
	for _, line := range strings.Split(string(src[lo:hi]), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		switch {
		case prev == "":
		case strings.HasSuffix(prev, "{") || strings.HasSuffix(prev, ";") || strings.HasPrefix(line, "}"):
			b.WriteByte(' ')
		default:
			b.WriteString("; ")
		}
		b.WriteString(line)
		prev = line
	}
	s := b.String()
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

// Accesses lists the names of the words st may read and write, each
// once; the mutexes and condition variables its steps use (locks,
// unlocks, trylocks, waits, signals, broadcasts, and those of called
// functions) count as written.
func Accesses(st *access.Statement) (reads, writes []string) {
	seen := map[string]bool{}
	add := func(locs ...access.Loc) {
		for _, l := range locs {
			if l.Name != "" && !seen[l.Name] {
				seen[l.Name] = true
				writes = append(writes, l.Name)
			}
		}
	}
	for _, l := range st.Reads() {
		reads = append(reads, l.Name)
	}
	add(st.Writes()...)
	for i := range st.Steps {
		sp := &st.Steps[i]
		switch sp.Kind {
		case access.Lock, access.Unlock, access.Trylock:
			add(sp.Mutex)
		case access.Wait, access.Wake:
			add(sp.Mutex, sp.Cond)
		case access.Signal, access.Broadcast:
			add(sp.Cond)
		case access.Call:
			add(sp.Sync...)
		}
	}
	return reads, writes
}

func names(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ", ")
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
		ar, aw := Accesses(p.A)
		br, bw := Accesses(p.B)
		fmt.Fprintf(&b, "  reads %s; writes %s / reads %s; writes %s\n", names(ar), names(aw), names(br), names(bw))
		fmt.Fprintf(&b, "  from there on may write %s / %s\n", r.writesText(p.A), r.writesText(p.B))
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

// writesText is WritesFrom in words: the variables' names, "anything",
// or "-" for none (and for a statement with no step).
func (r *Result) writesText(st *access.Statement) string {
	vars, all, ok := r.WritesFrom(st)
	switch {
	case all:
		return "anything"
	case !ok || len(vars) == 0:
		return "-"
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}
