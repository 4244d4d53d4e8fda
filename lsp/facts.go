package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/indep"
	"weft/analysis/indep/pipeline"
	"weft/source"
)

// factsBudget bounds the static access analysis of one snapshot (it is
// linear in the code; the bound is for absurd inputs).
const factsBudget = 2 * time.Second

// maxPairs bounds the interfering statements a hover lists.
const maxPairs = 12

// facts are the static access facts of an error-free snapshot, for hover.
type facts struct {
	sum  *access.Summary
	prog *analysis.Program
	// ind holds the independence conditions of the interfering pairs
	// (syntactic rules only; the snapshot's constraints add SMT's once
	// computed); nil if their analysis failed.
	ind *indep.Result
}

// factsOutcome is what the computation of a snapshot's facts gives: the
// facts, or why a program without errors has none (missing: it uses
// steps the access analysis does not follow yet), or neither (errors,
// or an analysis over its budget).
type factsOutcome struct {
	f       *facts
	missing string
}

// facts returns the snapshot's access facts, computed once, on first use,
// for every caller; nil for a snapshot with errors or when the analysis
// fails, with missing saying why when the program uses steps it does not
// follow. The error is ctx's when ctx ends first, and ContentModified
// when the snapshot is superseded (a newer version, or the document
// closed): its computation stops then, and nothing is answered from it.
func (snap *snapshot) facts(ctx context.Context) (f *facts, missing string, err error) {
	if snap.ctx.Err() != nil {
		return nil, "", snap.superseded()
	}
	out, err := snap.factsMemo.get(ctx, snap.ctx, snap.computeFacts)
	return out.f, out.missing, err
}

// computeFacts analyses the snapshot's accesses and the syntactic
// independence conditions, within factsBudget; it ends with life (the
// snapshot's context).
func (snap *snapshot) computeFacts(life context.Context) (factsOutcome, error) {
	if snap.hasErrors() {
		return factsOutcome{}, nil
	}
	ctx, cancel := context.WithTimeout(life, factsBudget)
	defer cancel()
	sum, err := access.Analyze(ctx, snap.loaded.Program, snap.loaded.Exec)
	switch {
	case life.Err() != nil:
		return factsOutcome{}, snap.superseded()
	case errors.Is(err, access.ErrUnsupported):
		return factsOutcome{missing: err.Error()}, nil
	case err != nil:
		return factsOutcome{}, nil // over its budget: no facts
	}
	f := &facts{sum: sum, prog: snap.loaded.Program}
	ind, _, err := pipeline.Build(ctx, snap.loaded.Program, snap.loaded.Exec, pipeline.Options{Summary: sum})
	if life.Err() != nil {
		return factsOutcome{}, snap.superseded()
	}
	if err == nil {
		f.ind = ind
	}
	return factsOutcome{f: f}, nil
}

// line1 says where a statement is, 1-based, for a person.
func line1(r source.Range) string { return fmt.Sprintf("line %d", r.Start.Line+1) }

func locNames(locs []access.Loc) string {
	var names []string
	for _, l := range locs {
		names = append(names, "`"+l.Name+"`")
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// describeObject adds what the threads do with a shared variable, thread
// or proc.
func (f *facts) describeObject(b *strings.Builder, obj *analysis.Object) {
	switch obj.Kind {
	case analysis.SharedVar:
		v := f.sum.Variable(obj)
		if v == nil {
			return
		}
		b.WriteString("\n**Accesses**\n\n")
		fmt.Fprintf(b, "%s\n", v.String())
	case analysis.Thread, analysis.Proc:
		th := f.sum.Thread(obj)
		if th == nil {
			return
		}
		b.WriteString("\n")
		fmt.Fprintf(b, "%s\n", th.String())
	}
}

// describeStatement describes the statement at pos: its visible steps,
// what it reads and writes, and the statements of other threads it is
// dependent with, each with the conditions under which they commute and,
// when stats has counts of the explorations run so far, how often each
// held.
func (f *facts) describeStatement(b *strings.Builder, pos source.Pos, docURI string, ind *indep.Result, stats []indep.Stat) (source.Range, bool) {
	st := f.sum.StatementAt(pos)
	if st == nil {
		return source.Range{}, false
	}
	owner := "?"
	if st.Owner != nil {
		owner = st.Owner.Name
	}
	if st.End {
		fmt.Fprintf(b, "**End of %s**: a `join` of its threads waits for this.\n", owner)
	} else {
		fmt.Fprintf(b, "**%s** of %s, in %s\n\n", plural(len(st.Steps), "visible step"), owner, line1(st.Range))
		for _, step := range st.Steps {
			fmt.Fprintf(b, "- %s\n", step.String())
		}
		fmt.Fprintf(b, "\nReads %s; writes %s.\n", locNames(st.Reads()), locNames(st.Writes()))
	}
	if !f.sum.Runs(st) {
		b.WriteString("\nThis statement never runs (no spawn starts its proc, or no path reaches it).\n")
		return st.Range, true
	}
	pairs := f.sum.Interference(st)
	if len(pairs) == 0 {
		b.WriteString("\nIndependent of every statement of the other threads: its order with them never matters.\n")
		return st.Range, true
	}
	conds := map[*access.Statement][]indep.CondStat{}
	if ind == nil {
		ind = f.ind
	}
	if ind != nil {
		// A function's statement is one per calling body: the same
		// condition of several copies is shown once, its counts summed.
		for _, it := range ind.Interference(st, stats) {
			for _, c := range it.Conditions {
				list := conds[it.Other]
				i := slices.IndexFunc(list, func(d indep.CondStat) bool { return d.Text == c.Text && d.Origin == c.Origin })
				if i < 0 {
					conds[it.Other] = append(list, c)
					continue
				}
				list[i].Counted = list[i].Counted || c.Counted
				list[i].Checked += c.Checked
				list[i].Held += c.Held
			}
		}
	}
	fmt.Fprintf(b, "\n**Dependent with** (%d):\n\n", len(pairs))
	for i, p := range pairs {
		if i == maxPairs {
			fmt.Fprintf(b, "- … and %d more\n", len(pairs)-maxPairs)
			break
		}
		link := fmt.Sprintf("[%s](%s#L%d)", line1(p.Other.Range), docURI, p.Other.Range.Start.Line+1)
		cond := ""
		if p.Condition != "" {
			cond = fmt.Sprintf(" — commute when `%s`", p.Condition)
		}
		fmt.Fprintf(b, "- %s of %s: %s%s\n", link, p.Threads.String(), p.Reason, cond)
		for _, c := range conds[p.Other] {
			fmt.Fprintf(b, "  - %s\n", condLine(c))
		}
	}
	if ind != nil {
		for _, n := range ind.Notes {
			fmt.Fprintf(b, "\n*%s.*\n", strings.TrimSuffix(n, "."))
		}
	}
	return st.Range, true
}

// condLine is one condition of a pair for the hover: the condition, where
// it comes from, and how often it held in the explorations so far (only
// when they evaluated it).
func condLine(c indep.CondStat) string {
	var s string
	switch {
	case c.Text == "true":
		s = "always commute"
	case c.Text != "":
		s = fmt.Sprintf("commute when `%s`", c.Text)
	default:
		s = "commute"
	}
	origin := c.Origin
	switch {
	case origin == "smt" || strings.HasPrefix(origin, "smt,"):
		origin = "SMT" + strings.TrimPrefix(origin, "smt")
	case isRule(origin):
		origin = "rule: " + origin
	default:
		origin = "engine: " + origin
	}
	s += " (" + origin + ")"
	if c.Counted {
		s += fmt.Sprintf(" — held %d of %d times in the explorations so far", c.Held, c.Checked)
	}
	return s
}

// isRule says an origin names syntactic rules ("index+write-write").
func isRule(origin string) bool {
	for _, r := range strings.Split(origin, "+") {
		switch r {
		case indep.RuleDisjoint, indep.RuleIndex, indep.RuleReadWrite, indep.RuleWriteWrite, indep.RuleBranchWrite:
		default:
			return false
		}
	}
	return true
}
