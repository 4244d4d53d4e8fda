package indep

import (
	"context"
	"errors"
	"fmt"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/icond"
	"weft/engine/ir"
	"weft/grammar"
	"weft/source"
)

// Synthesizer finds the independence conditions of two atomic blocks of
// different threads (q on side 0, r on side 1) by other means than the
// syntactic rules: the SMT synthesis of CDPOR (package analysis/indep/synth
// with z3), plugged in by the caller. Each condition it returns must be
// sufficient for the two blocks, run as single steps from a state where
// it holds, to commute (they go into the engine's table). note, when not
// empty, is shown to the user (a timeout, a construct it does not
// support).
type Synthesizer func(ctx context.Context, q, r *access.Statement) (conds []icond.Condition, note string, err error)

// Options configure Analyze.
type Options struct {
	// Synthesize, when set, is asked about every pair of atomic blocks
	// that may interfere. Nil: syntactic conditions only, and the
	// result's Notes say so with NoSMT.
	Synthesize Synthesizer
	// NoSMT is the note when Synthesize is nil ("z3 not found:
	// syntactic conditions only"); empty: "SMT synthesis not used:
	// syntactic conditions only".
	NoSMT string
}

// Cond is one condition of a pair, in source terms.
type Cond struct {
	icond.Condition
	// Text is the condition in Weft syntax as read at the pair's side 0
	// (icond.Expr.Text in A's scope; see Pair).
	Text string
	// Engine says the engine's table (Result.Constraints) holds it for
	// the pair's sites: it is sufficient for their steps to commute.
	// Display-only conditions (the rules applied to statements of several
	// steps) are false here.
	Engine bool
}

// Pair is two statements of different threads (or two instances of one
// thread array or proc) that may interfere, and the conditions under
// which they commute. A is side 0 of every condition, B side 1.
type Pair struct {
	A, B *access.Statement
	// Threads are B's threads that interfere with A (access.Pair's).
	Threads access.ThreadSet
	// Reason is access.Pair's: why they are dependent, from A's side.
	Reason     string
	Conditions []Cond
	// Notes are the synthesis's notes on this pair.
	Notes []string
}

// Result is the analysis of one program.
type Result struct {
	Summary *access.Summary
	// Pairs holds each interfering pair of statements once (A no later
	// than B in Summary.Statements' order).
	Pairs []*Pair
	// Notes are about the whole analysis ("z3 not found: …").
	Notes []string

	checked *analysis.Program
	locals  map[*analysis.Object]map[string]bool // a body's local names (scopeOf)
	cons    ir.Constraints
	byStmt  map[*access.Statement][]*Pair
	sites   map[*access.Statement][]ir.Site
}

// Analyze computes the access summaries' W, the syntactic independence
// conditions of every interfering pair of statements, the synthesised
// ones when opts.Synthesize is set, and the engine's table. sum must be
// access.Analyze's summary of checked and prog.
func Analyze(ctx context.Context, checked *analysis.Program, prog *ir.Program, sum *access.Summary, opts Options) (*Result, error) {
	if checked == nil || prog == nil || sum == nil {
		return nil, errors.New("indep: no program")
	}
	r := &Result{Summary: sum, checked: checked, byStmt: map[*access.Statement][]*Pair{}, sites: map[*access.Statement][]ir.Site{}, locals: localNames(checked)}
	for bi, b := range prog.Bodies {
		for pc := range b.Code {
			if st, sp := sum.StepAt(bi, pc); st != nil && sp.PC == pc {
				r.sites[st] = append(r.sites[st], ir.Site{Body: int32(bi), PC: int32(pc)})
			}
		}
	}
	w, err := writeSets(ctx, prog, sum)
	if err != nil {
		return nil, fmt.Errorf("indep: write sets: %w", err)
	}
	r.cons.Writes = w
	r.cons.RaceFree = raceFree(checked, sum)
	if opts.Synthesize == nil {
		note := opts.NoSMT
		if note == "" {
			note = "SMT synthesis not used: syntactic conditions only"
		}
		r.Notes = append(r.Notes, note)
	}
	order := map[*access.Statement]int{}
	for i, st := range sum.Statements() {
		order[st] = i
	}
	models := map[[2]any]*model{}
	modelOf := func(st *access.Statement, side int) *model {
		k := [2]any{st, side}
		if m := models[k]; m != nil {
			return m
		}
		m := newModel(checked, st, side)
		models[k] = m
		return m
	}
	for _, st := range sum.Statements() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, ap := range sum.Interference(st) {
			if o, ok := order[ap.Other]; !ok || o < order[st] {
				continue
			}
			p := &Pair{A: st, B: ap.Other, Threads: ap.Threads, Reason: ap.Reason}
			m0, m1 := modelOf(st, 0), modelOf(ap.Other, 1)
			if e, origin := pairCond(m0, m1, false); e != nil {
				p.Conditions = append(p.Conditions, Cond{Condition: icond.Condition{Expr: e, Origin: origin}, Text: r.text(e, st)})
			}
			if stepLevel(m0) && stepLevel(m1) && (m0.atomic || m1.atomic) {
				if e, origin := pairCond(m0, m1, true); e != nil {
					r.addEngine(p, e, origin, inRange(icond.AndOf(placesOf(m0, m1)...)))
				}
			}
			if opts.Synthesize != nil && isAtomic(st) && isAtomic(ap.Other) {
				conds, note, err := opts.Synthesize(ctx, st, ap.Other)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					p.Notes = append(p.Notes, "synthesis failed: "+err.Error())
				}
				if note != "" {
					p.Notes = append(p.Notes, note)
				}
				for _, c := range conds {
					if c.Expr == nil {
						continue
					}
					if e := icond.Simplify(c.Expr); c.DisplayOnly {
						p.Conditions = append(p.Conditions, Cond{Condition: icond.Condition{Expr: e, Origin: c.Origin}, Text: r.text(e, st)})
					} else {
						r.addEngine(p, e, c.Origin, icond.True())
					}
				}
			}
			r.Pairs = append(r.Pairs, p)
			r.byStmt[st] = append(r.byStmt[st], p)
			if ap.Other != st {
				r.byStmt[ap.Other] = append(r.byStmt[ap.Other], p)
			}
		}
	}
	return r, nil
}

// addEngine records e as a condition of p that the engine may use, for
// every pair of sites of p's statements (guard, which e implies at run
// time, is evaluated too: the indexes are in range).
//
// A condition that reads shared words is not given to the engine: its
// truth would depend on the order of other steps, which cdpor cannot
// allow (engine/internal/dpor, "No-op swaps"); it stays for people.
func (r *Result) addEngine(p *Pair, e *icond.Expr, origin string, guard *icond.Expr) {
	text := r.text(e, p.A)
	full := icond.Simplify(icond.AndOf(guard, e))
	cexpr, reads, err := compile(full)
	if err != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("condition %s not usable by the engine: %v", text, err))
		return
	}
	found := false
	for i := range p.Conditions {
		if p.Conditions[i].Text == text && p.Conditions[i].Origin == origin {
			p.Conditions[i].Engine, found = len(reads) == 0, true
		}
	}
	if len(reads) > 0 {
		if !found {
			p.Conditions = append(p.Conditions, Cond{Condition: icond.Condition{Expr: e, Origin: origin}, Text: text})
		}
		return
	}
	if !found {
		p.Conditions = append(p.Conditions, Cond{Condition: icond.Condition{Expr: e, Origin: origin}, Text: text, Engine: true})
	}
	for _, a := range r.sites[p.A] {
		for _, b := range r.sites[p.B] {
			r.cons.Add(a, b, ir.Constraint{Cond: cexpr, Reads: reads, Origin: origin, Text: text})
		}
	}
}

// stepLevel says that the model is exactly what the statement's single
// engine step does: one read or one write, or an atomic block of one
// assignment, all of its accesses known.
func stepLevel(m *model) bool {
	if len(m.st.Steps) != 1 || m.opaqueAll || len(m.opaque) > 0 {
		return false
	}
	switch m.st.Steps[0].Kind {
	case access.Read, access.Write:
		return !m.atomic
	case access.Atomic:
		return m.simple
	}
	return false
}

// placesOf lists the shared places of both models' accesses.
func placesOf(ms ...*model) []*icond.Expr {
	var out []*icond.Expr
	for _, m := range ms {
		for _, a := range m.accs {
			if a.place != nil {
				out = append(out, a.place)
			}
		}
	}
	return out
}

func isAtomic(st *access.Statement) bool {
	_, ok := st.Node.(*grammar.AtomicStmt)
	return ok
}

// Constraints returns the engine's form: W for every site, and the
// conditions the engine may use for pairs of sites.
func (r *Result) Constraints() *ir.Constraints {
	c := r.cons
	return &c
}

// WritesFrom is W of a statement in source terms: the shared variables
// that a thread about to run st, or a thread it spawns from then on, may
// write (st included), in declaration order. all says that it may write
// anything (a step whose words the summary cannot place); ok is false
// for a statement with no step (the end of a body).
func (r *Result) WritesFrom(st *access.Statement) (vars []*analysis.Object, all, ok bool) {
	sites := r.sites[st]
	if len(sites) == 0 {
		return nil, false, false
	}
	seen := map[*analysis.Object]bool{}
	for _, s := range sites {
		ranges, known := r.cons.Writes[s]
		if !known {
			return nil, true, true
		}
		for _, rg := range ranges {
			for _, v := range r.checked.Shared {
				size := int32(analysis.SizeOf(v.Type))
				if v.Offset >= 0 && int32(v.Offset) < rg.Hi && rg.Lo < int32(v.Offset)+size {
					seen[v] = true
				}
			}
		}
	}
	for _, v := range r.checked.Shared {
		if seen[v] {
			vars = append(vars, v)
		}
	}
	return vars, false, true
}

// Sites returns the engine's sites of st's steps (in its body).
func (r *Result) Sites(st *access.Statement) []ir.Site { return r.sites[st] }

// Stat is the engine's count of one condition of a pair of sites, as
// engine.IndepStat gives it (the caller copies it: this package does not
// import the engine).
type Stat struct {
	Pair          [2]ir.Site
	Origin, Text  string
	Checked, Held int64
}

// Interfering is a statement of another thread that a statement may
// interfere with, seen from the statement.
type Interfering struct {
	Other      *access.Statement
	Threads    access.ThreadSet
	Reason     string
	Conditions []CondStat
	Notes      []string
}

// CondStat is a condition seen from the queried statement, and how often
// it held in the explorations counted.
type CondStat struct {
	Text, Origin string
	Engine       bool
	// Counted says the explorations evaluated it (Checked > 0 times);
	// the engine's own conditions (same value written, a read of the
	// value being written) appear only counted.
	Counted       bool
	Checked, Held int64
}

// Interference returns the statements that st (and, for a statement of
// a function, each of its copies) may interfere with, each with its
// conditions from st's side (st's locals plain, the other's qualified
// where a plain name could mean something else at st: see
// icond.Expr.Text), joined with stats, the
// counts of the explorations so far (nil: none).
func (r *Result) Interference(st *access.Statement, stats []Stat) []Interfering {
	if st == nil {
		return nil
	}
	var out []Interfering
	for _, c := range r.Summary.Copies(st) {
		for _, p := range r.byStmt[c] {
			for _, side := range []int{0, 1} {
				self, other := p.A, p.B
				if side == 1 {
					self, other = p.B, p.A
				}
				if self != c || side == 1 && p.A == p.B {
					continue
				}
				it := Interfering{Other: other, Threads: p.Threads, Reason: p.Reason, Notes: p.Notes}
				if side == 1 {
					it.Threads, it.Reason = r.threadsOf(c, other), r.reasonOf(c, other)
				}
				for _, cd := range p.Conditions {
					text := cd.Text
					if side == 1 {
						text = r.text(swapSides(cd.Expr), self)
					}
					it.Conditions = append(it.Conditions, CondStat{Text: text, Origin: cd.Origin, Engine: cd.Engine})
				}
				r.count(&it, p, side, stats)
				out = append(out, it)
			}
		}
	}
	return out
}

// count adds to it the stats of the sites of p (the engine's texts are
// from the side of the pair's first site; a text of the pair's table
// matches its condition whatever the side).
func (r *Result) count(it *Interfering, p *Pair, side int, stats []Stat) {
	if len(stats) == 0 {
		return
	}
	sa, sb := siteSet(r.sites[p.A]), siteSet(r.sites[p.B])
	for _, s := range stats {
		if !(sa[s.Pair[0]] && sb[s.Pair[1]] || sb[s.Pair[0]] && sa[s.Pair[1]]) || s.Checked == 0 {
			continue
		}
		matched := false
		for i := range p.Conditions {
			c := &it.Conditions[i]
			if c.Origin == s.Origin && p.Conditions[i].Text == s.Text {
				c.Counted = true
				c.Checked += s.Checked
				c.Held += s.Held
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		for i := len(p.Conditions); i < len(it.Conditions); i++ {
			c := &it.Conditions[i]
			if c.Origin == s.Origin && c.Text == s.Text {
				c.Checked += s.Checked
				c.Held += s.Held
				matched = true
				break
			}
		}
		if !matched {
			it.Conditions = append(it.Conditions, CondStat{Text: s.Text, Origin: s.Origin, Counted: true, Checked: s.Checked, Held: s.Held})
		}
	}
}

func siteSet(sites []ir.Site) map[ir.Site]bool {
	m := make(map[ir.Site]bool, len(sites))
	for _, s := range sites {
		m[s] = true
	}
	return m
}

// threadsOf and reasonOf give access's view of a pair from st's side.
func (r *Result) threadsOf(st, other *access.Statement) access.ThreadSet {
	for _, ap := range r.Summary.Interference(st) {
		if ap.Other == other {
			return ap.Threads
		}
	}
	return access.ThreadSet{Owner: other.Owner}
}

func (r *Result) reasonOf(st, other *access.Statement) string {
	for _, ap := range r.Summary.Interference(st) {
		if ap.Other == other {
			return ap.Reason
		}
	}
	return ""
}

// At returns the statement at pos (access.Summary.StatementAt).
func (r *Result) At(pos source.Pos) *access.Statement { return r.Summary.StatementAt(pos) }

// text is e as the reader of st's conditions reads it, st on side 0
// (icond.Expr.Text in st's scope).
func (r *Result) text(e *icond.Expr, st *access.Statement) string {
	body := st.Owner
	if st.Func != nil {
		body = st.Func
	}
	own := r.locals[body]
	return e.Text(icond.Scope{
		Local: func(name string) bool { return own[name] },
		Top:   func(name string) bool { return r.checked.Lookup(name) != nil },
	})
}

// localNames maps each thread, proc and function to the names of the
// locals, parameters, loop variables and thread index its body declares
// (wherever in the body: a name declared after a statement still makes
// its conditions qualify, which is never wrong).
func localNames(checked *analysis.Program) map[*analysis.Object]map[string]bool {
	out := map[*analysis.Object]map[string]bool{}
	for _, obj := range checked.Uses {
		switch obj.Kind {
		case analysis.LocalVar, analysis.Param, analysis.LoopVar, analysis.ThreadIndex:
		default:
			continue
		}
		if obj.Owner == nil {
			continue
		}
		m := out[obj.Owner]
		if m == nil {
			m = map[string]bool{}
			out[obj.Owner] = m
		}
		m[obj.Name] = true
	}
	return out
}

// swapSides returns e with the locals of side 0 and side 1 exchanged.
func swapSides(e *icond.Expr) *icond.Expr {
	if e == nil {
		return nil
	}
	c := *e
	if c.Op == icond.Var && c.Obj != nil && c.Obj.Kind != analysis.SharedVar {
		c.Side = 1 - c.Side
	}
	c.Index = swapSides(e.Index)
	if len(e.Args) > 0 {
		c.Args = make([]*icond.Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = swapSides(a)
		}
	}
	return &c
}

// raceFree reports whether no shared variable that is not atomic is
// accessed outside atomic blocks (ir.Constraints.RaceFree): then no data
// race can exist.
func raceFree(checked *analysis.Program, sum *access.Summary) bool {
	for _, obj := range checked.Shared {
		v := sum.Variable(obj)
		if v == nil {
			return false
		}
		if v.Atomic || v.Mutex || v.Cond {
			continue
		}
		for _, a := range v.Accesses {
			if !a.InAtomic && (a.Kind == access.Read || a.Kind == access.Write) {
				return false
			}
		}
	}
	return true
}
