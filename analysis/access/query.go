package access

import (
	"context"
	"slices"
	"sort"
	"strings"

	"weft/analysis"
	"weft/engine/ir"
	"weft/source"
)

// Statements returns every statement with visible steps and the end of
// every body, by position (a statement before those inside it).
func (s *Summary) Statements() []*Statement { return s.stmts }

// StatementAt returns the innermost statement with visible steps (or end
// of a body) whose range holds pos, or nil. As analysis.Program.IdentAt
// does, it takes a position just after a statement as inside it when no
// statement holds it strictly. For a statement of a function's body, it
// returns its copy in the first body (in ir.Program.Bodies order) that
// calls the function; Copies returns them all.
func (s *Summary) StatementAt(pos source.Pos) *Statement {
	var best, atEnd *Statement
	size := func(st *Statement) int { return st.Range.End.Offset - st.Range.Start.Offset }
	for _, st := range s.stmts {
		r := st.Range
		switch {
		case r.Start.Offset <= pos.Offset && pos.Offset < r.End.Offset:
			if best == nil || size(st) < size(best) {
				best = st
			}
		case pos.Offset == r.End.Offset:
			if atEnd == nil || size(st) < size(atEnd) {
				atEnd = st
			}
		}
	}
	if best != nil {
		return best
	}
	return atEnd
}

// Copies returns the statements that are st in each body that runs it:
// for a statement of a function's body, its copy in every thread or proc
// body that calls the function (directly or not), in body order; for
// any other statement, st alone.
func (s *Summary) Copies(st *Statement) []*Statement {
	if st == nil || st.Func == nil {
		return []*Statement{st}
	}
	var out []*Statement
	for _, b := range s.bodies {
		for _, x := range b.stmts {
			if x.Func == st.Func && x.Range == st.Range {
				out = append(out, x)
			}
		}
	}
	return out
}

// StepAt returns the step that instruction pc of body bodyIndex (an index
// in ir.Program.Bodies) makes, and its statement: where an event of the
// engine comes from (an instruction of a function's code gives the
// statement of the function's body, in that body). It returns nils if
// that instruction is not a visible step (or is one inside an atomic
// block: the block is the step). The OpCall of a call outside atomic
// blocks gives its Call step.
func (s *Summary) StepAt(bodyIndex, pc int) (*Statement, *Step) {
	if bodyIndex < 0 || bodyIndex >= len(s.bodies) {
		return nil, nil
	}
	b := s.bodies[bodyIndex]
	if pc < 0 || pc >= len(b.stepAt) || b.stepAt[pc].st == nil {
		return nil, nil
	}
	ref := b.stepAt[pc]
	return ref.st, &ref.st.Steps[ref.i]
}

// Runs reports whether st can run: its body runs (a proc some reachable
// spawn starts) and some path from the start of the body reaches it.
func (s *Summary) Runs(st *Statement) bool {
	if st == nil || st.b == nil || st.b.runs == Never {
		return false
	}
	pc := int(st.b.endPC)
	if len(st.Steps) > 0 {
		pc = st.Steps[0].PC
	}
	return st.b.reached[pc]
}

// pairAcc gathers one Pair of an Interference query.
type pairAcc struct {
	other *Statement
	rows  []bool // of other's body; nil: every thread running it
	rels  []relation
	notes []string // reasons that are not conflicts on a location
}

// relation is how the accesses of the two statements to one location
// (as each names it; own through a call of a function, via) conflict.
type relation struct {
	own, other string
	via        string
	mutex      bool // both use it as a mutex or a condition variable
	cond       bool // a condition variable
	ww, rw, wr bool // both write; own reads what the other writes; own writes what the other reads
}

func (a *pairAcc) addRows(rows []bool) {
	switch {
	case rows == nil:
		a.rows = nil
	case a.rows != nil:
		for r, ok := range rows {
			a.rows[r] = a.rows[r] || ok
		}
	}
}

func (a *pairAcc) note(rows []bool, reason string) {
	a.addRows(rows)
	if !slices.Contains(a.notes, reason) {
		a.notes = append(a.notes, reason)
	}
}

func (a *pairAcc) conflict(rows []bool, r1, r2 *rec) {
	a.addRows(rows)
	via := ""
	if r1.via != nil {
		via = r1.via.Name
	}
	var rel *relation
	for i := range a.rels {
		if a.rels[i].own == r1.loc.Name && a.rels[i].other == r2.loc.Name && a.rels[i].via == via {
			rel = &a.rels[i]
		}
	}
	if rel == nil {
		a.rels = append(a.rels, relation{own: r1.loc.Name, other: r2.loc.Name, via: via})
		rel = &a.rels[len(a.rels)-1]
	}
	switch {
	case r1.sync:
		rel.mutex = true
		rel.cond = r1.loc.Var != nil && analysis.ScalarOf(r1.loc.Var.Type) == analysis.Cond
	case r1.write() && r2.write():
		rel.ww = true
	case r2.write():
		rel.rw = true
	default:
		rel.wr = true
	}
}

// reason says why the statements are dependent, from the queried one's
// side: one phrase per location, the strongest conflict first; "(in f)"
// when the queried statement's access is a step of a function it calls.
func (a *pairAcc) reason() string {
	var parts []string
	for _, rel := range a.rels {
		as := ""
		if rel.other != rel.own {
			as = " as " + rel.other
		}
		what := "mutex "
		if rel.cond {
			what = "condition variable "
		}
		in := ""
		if rel.via != "" {
			in = " (in " + rel.via + ")"
		}
		switch {
		case rel.mutex && as == "":
			parts = append(parts, "same "+what+rel.own+in)
		case rel.mutex:
			parts = append(parts, what+rel.own+in+", which it uses"+as)
		case rel.ww && as == "":
			parts = append(parts, "both write "+rel.own+in)
		case rel.ww:
			parts = append(parts, "writes "+rel.own+in+", which it writes"+as)
		case rel.rw:
			parts = append(parts, "reads "+rel.own+in+", which it writes"+as)
		default:
			parts = append(parts, "writes "+rel.own+in+", which it reads"+as)
		}
	}
	return strings.Join(append(parts, a.notes...), "; ")
}

// Interference returns the statements of other threads that st is
// dependent with (see the package doc), by position. For the end of a
// body, they are the joins that wait for it. Statements that cannot run
// (see Runs) have none and are in none.
func (s *Summary) Interference(st *Statement) []Pair {
	if st == nil || st.b == nil || !s.Runs(st) {
		return nil
	}
	var accs []*pairAcc
	byStmt := make(map[*Statement]*pairAcc)
	acc := func(other *Statement, all bool) *pairAcc {
		a := byStmt[other]
		if a == nil {
			a = &pairAcc{other: other}
			if !all {
				a.rows = make([]bool, other.b.rows)
			}
			byStmt[other] = a
			accs = append(accs, a)
		}
		return a
	}
	b1 := st.b
	for _, r1 := range st.recs {
		if !r1.live() {
			continue
		}
		cands := s.anyVar
		if r1.v >= 0 {
			cands = append(slices.Clip(s.byVar[r1.v]), s.anyVar...)
		} else {
			cands = nil
			for _, list := range s.byVar {
				cands = append(cands, list...)
			}
			cands = append(cands, s.anyVar...)
		}
		for _, r2 := range cands {
			if !r1.write() && !r2.write() || !r2.live() {
				continue
			}
			rows := conflictRows(r1.loc, b1, r2.loc, r2.st.b)
			if rows == nil {
				continue
			}
			acc(r2.st, false).conflict(rows, r1, r2)
		}
	}
	// Joins: a join (or a call that may join) is dependent with the end
	// of the thread it waits for.
	for i := range st.Steps {
		step := &st.Steps[i]
		if step.Kind != Join && step.Kind != Call {
			continue
		}
		for _, ts := range step.Joins {
			b2 := s.ofObject[ts.Owner]
			if b2 == nil || !s.Runs(b2.end) || b2 == b1 && b1.runs != Many {
				continue
			}
			rows := b2.rowsOf(ts.Instances)
			acc(b2.end, rows == nil).note(rows, "waits for its end")
		}
		if step.JoinsAny {
			for _, b2 := range s.bodies {
				if !s.Runs(b2.end) || b2 == b1 && b1.runs != Many {
					continue
				}
				acc(b2.end, true).note(nil, "may wait for its end (a handle not known statically)")
			}
		}
	}
	if st.End {
		for _, j := range s.joins {
			if !j.liveJoin() {
				continue
			}
			b2 := j.st.b
			if b2 == b1 && b1.runs != Many {
				continue
			}
			step := &j.st.Steps[j.step]
			targets := false
			for _, ts := range step.Joins {
				targets = targets || ts.Owner == b1.owner
			}
			switch {
			case targets:
				acc(j.st, true).note(nil, "joined there")
			case step.JoinsAny:
				acc(j.st, true).note(nil, "may be joined there (a handle not known statically)")
			}
		}
	}
	pairs := make([]Pair, 0, len(accs))
	for _, a := range accs {
		pairs = append(pairs, Pair{Other: a.other, Threads: a.other.b.threads(a.rows), Reason: a.reason()})
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		return pairs[i].Other.Range.Start.Offset < pairs[j].Other.Range.Start.Offset
	})
	return pairs
}

func (r *rec) liveJoin() bool { return r.st.b.runs != Never && r.st.b.reached[r.pc] }

// rowsOf returns the rows of some of a thread array's instances (nil:
// every thread running b).
func (b *body) rowsOf(insts []*analysis.ThreadInstance) []bool {
	if b.rows == 1 || b.owner.Kind != analysis.Thread {
		return nil
	}
	rows := make([]bool, b.rows)
	for _, in := range insts {
		if r := in.Index - b.owner.Lo; r >= 0 && r < int64(b.rows) {
			rows[r] = true
		}
	}
	return rows
}

// threads is the ThreadSet of the rows of b (nil: every thread).
func (b *body) threads(rows []bool) ThreadSet {
	ts := ThreadSet{Owner: b.owner}
	if b.owner.Kind != analysis.Thread {
		return ts
	}
	all := rows == nil || b.rows == 1
	for r := 0; !all && r < len(b.insts); r++ {
		if r < len(rows) && rows[r] {
			ts.Instances = append(ts.Instances, b.insts[r])
		}
	}
	if all || len(ts.Instances) == len(b.insts) {
		ts.Instances = b.insts // shared: every instance
	}
	return ts
}

// conflictRows returns, for each evaluation row of b2, whether an access
// to l2 there and an access to l1 by another thread running b1 may touch
// a common word; nil if none may.
func conflictRows(l1 *Loc, b1 *body, l2 *Loc, b2 *body) []bool {
	same := b1 == b2
	if same && b1.runs != Many {
		return nil
	}
	res := make([]bool, b2.rows)
	found := false
	set := func(r int) { res[r], found = true, true }
	switch {
	case same && b1.rows == 1:
		if l1.hull().overlaps(l2.hull()) {
			set(0)
		}
	case l1.inst == nil:
		// Any row of b1 (there is another than r when same) touches l1.
		for r := range b2.rows {
			if l2.rowSpan(r).overlaps(l1.hull()) {
				set(r)
			}
		}
	case l2.inst == nil:
		first, count := -1, 0
		for r := range b1.rows {
			if l1.rowSpan(r).overlaps(l2.hull()) {
				if first < 0 {
					first = r
				}
				count++
			}
		}
		if count == 0 {
			return nil
		}
		for r := range b2.rows {
			if !same || count > 1 || r != first {
				set(r)
			}
		}
	default:
		conflictPerRow(l1, b1, l2, b2, same, set)
	}
	if !found {
		return nil
	}
	return res
}

// conflictPerRow handles two accesses that both differ by row: for each
// row r of b2, is there a row of b1 (another than r if same) whose words
// overlap? The rows of b1 are sorted by their first word; among those
// starting before r's words end, the two that reach furthest say it.
func conflictPerRow(l1 *Loc, b1 *body, l2 *Loc, b2 *body, same bool, set func(int)) {
	type item struct {
		sp  span
		row int
	}
	var items []item
	for r := range b1.rows {
		if sp := l1.rowSpan(r); !sp.empty() {
			items = append(items, item{sp, r})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].sp.lo < items[j].sp.lo })
	// best[i], second[i]: the items among items[:i+1] whose words reach
	// furthest, and the next one.
	best := make([]int, len(items))
	second := make([]int, len(items))
	for i := range items {
		b, s := i, -1
		if i > 0 {
			b, s = best[i-1], second[i-1]
			switch {
			case items[i].sp.hi > items[b].sp.hi:
				b, s = i, b
			case s < 0 || items[i].sp.hi > items[s].sp.hi:
				s = i
			}
		}
		best[i], second[i] = b, s
	}
	for r := range b2.rows {
		q := l2.rowSpan(r)
		if q.empty() {
			continue
		}
		n := sort.Search(len(items), func(i int) bool { return items[i].sp.lo >= q.hi })
		if n == 0 {
			continue
		}
		b, s := best[n-1], second[n-1]
		switch {
		case items[b].sp.hi > q.lo && (!same || items[b].row != r):
			set(r)
		case same && s >= 0 && items[s].sp.hi > q.lo:
			set(r)
		}
	}
}

// maxElementLocksets bounds the words of an array whose locksets
// Variable reports one by one.
const maxElementLocksets = 64

// Variable returns what the program does with a shared variable, or nil
// if obj is not one. Accesses that cannot run (see Runs) are left out.
func (s *Summary) Variable(obj *analysis.Object) *Variable {
	vi, ok := s.varIndex[obj]
	if !ok {
		return nil
	}
	scalar := analysis.ScalarOf(obj.Type)
	v := &Variable{Object: obj, Atomic: obj.Atomic, Mutex: scalar == analysis.Mutex, Cond: scalar == analysis.Cond}
	vs, _ := s.varSpan(vi)
	var recs []*rec
	for _, r := range append(slices.Clip(s.byVar[vi]), s.anyVar...) {
		// A call's accesses are those of its function's statements,
		// which are listed themselves.
		if r.via == nil && r.gate < 0 && r.live() && r.loc.hull().overlaps(vs) {
			recs = append(recs, r)
		}
	}
	readers := make(map[*body][]bool)
	writers := make(map[*body][]bool)
	// lockset intersects the held words over every access; nil until the
	// first.
	var lockset []int32
	first := true
	perWord := vs.hi-vs.lo > 1 && vs.hi-vs.lo <= maxElementLocksets && !v.Mutex && !v.Cond
	var words [][]int32
	var seen []bool
	if perWord {
		words = make([][]int32, vs.hi-vs.lo)
		seen = make([]bool, vs.hi-vs.lo)
	}
	var scratch []int32
	v.InAtomicBlocks = len(recs) > 0
	for _, r := range recs {
		b := r.st.b
		rows := make([]bool, b.rows)
		for row := range b.rows {
			sp := r.loc.rowSpan(row)
			sp = span{max(sp.lo, vs.lo), min(sp.hi, vs.hi)}
			if sp.empty() {
				continue
			}
			rows[row] = true
			held := heldWords(b, r.pc, row, scratch)
			scratch = held
			if first {
				lockset, first = slices.Clone(held), false
			} else {
				lockset, _ = intersect(lockset, held)
			}
			for w := sp.lo; perWord && w < sp.hi; w++ {
				k := w - vs.lo
				if !seen[k] {
					seen[k], words[k] = true, slices.Clone(held)
				} else {
					words[k], _ = intersect(words[k], held)
				}
			}
		}
		group := readers
		if r.write() {
			group = writers
		}
		if g, ok := group[b]; ok {
			for row, x := range rows {
				g[row] = g[row] || x
			}
		} else {
			group[b] = rows
		}
		v.InAtomicBlocks = v.InAtomicBlocks && r.inAtomic
		a := VarAccess{Statement: r.st, Step: &r.st.Steps[r.step], Threads: b.threads(rows), Loc: *r.loc,
			Kind: r.kind, InAtomic: r.inAtomic}
		for _, id := range b.held[r.pc] {
			a.Held = append(a.Held, *b.lockLoc[id])
		}
		v.Accesses = append(v.Accesses, a)
	}
	sort.SliceStable(v.Accesses, func(i, j int) bool {
		return v.Accesses[i].Statement.Range.Start.Offset < v.Accesses[j].Statement.Range.Start.Offset
	})
	for _, b := range s.bodies {
		if rows, ok := readers[b]; ok {
			v.Readers = append(v.Readers, b.threads(rows))
		}
		if rows, ok := writers[b]; ok {
			v.Writers = append(v.Writers, b.threads(rows))
		}
	}
	if v.Mutex || v.Cond {
		return v
	}
	v.Lockset = s.wordLocs(lockset)
	for k := range seen {
		if seen[k] {
			w := vs.lo + int32(k)
			v.Elements = append(v.Elements, ElementLockset{Loc: s.wordLoc(w), Lockset: s.wordLocs(words[k])})
		}
	}
	return v
}

func (s *Summary) wordLocs(words []int32) []Loc {
	var out []Loc
	for _, w := range words {
		out = append(out, s.wordLoc(w))
	}
	return out
}

func (s *Summary) wordLoc(w int32) Loc {
	l := s.prog.Locations[w]
	_, obj := s.varSpan(l.Var)
	return Loc{Var: obj, Name: l.Name, Lo: w, Hi: w + 1, Exact: true}
}

// Thread returns what a thread declaration or a proc does as a thread,
// or nil if obj is neither.
func (s *Summary) Thread(obj *analysis.Object) *Thread {
	if obj == nil || obj.Kind != analysis.Thread && obj.Kind != analysis.Proc {
		return nil
	}
	t := &Thread{Object: obj}
	if obj.Kind == analysis.Thread {
		t.Instances = obj.Instances
		t.Runs = Once
		if len(obj.Instances) > 1 {
			t.Runs = Many
		}
	}
	b := s.ofObject[obj]
	if b == nil {
		if len(obj.Instances) == 0 {
			t.Runs = Never
		}
		return t
	}
	t.Runs, t.End = b.runs, b.end
	for _, st := range b.stmts {
		for i := range st.Steps {
			switch st.Steps[i].Kind {
			case Spawn:
				if len(t.Spawns) == 0 || t.Spawns[len(t.Spawns)-1] != st {
					t.Spawns = append(t.Spawns, st)
				}
			case Join:
				if len(t.Joins) == 0 || t.Joins[len(t.Joins)-1] != st {
					t.Joins = append(t.Joins, st)
				}
			}
		}
	}
	for _, b2 := range s.bodies {
		if b2.runs == Never {
			continue
		}
		for _, st := range b2.stmts {
			for i := range st.Steps {
				step := &st.Steps[i]
				if !b2.reached[step.PC] {
					continue
				}
				switch {
				case step.Kind == Spawn && step.Proc == obj:
					if len(t.SpawnedBy) == 0 || t.SpawnedBy[len(t.SpawnedBy)-1] != st {
						t.SpawnedBy = append(t.SpawnedBy, st)
					}
				case step.Kind == Join && joinsOwner(step, obj):
					if len(t.JoinedBy) == 0 || t.JoinedBy[len(t.JoinedBy)-1] != st {
						t.JoinedBy = append(t.JoinedBy, st)
					}
				}
			}
		}
	}
	sortStmts(t.Spawns)
	sortStmts(t.Joins)
	sortStmts(t.SpawnedBy)
	sortStmts(t.JoinedBy)
	return t
}

func joinsOwner(step *Step, obj *analysis.Object) bool {
	for _, ts := range step.Joins {
		if ts.Owner == obj {
			return true
		}
	}
	return false
}

func sortStmts(list []*Statement) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Range.Start.Offset < list[j].Range.Start.Offset })
}

// InvisibleSites returns the instructions (by body index in
// ir.Program.Bodies and pc) whose steps no step of another thread is
// dependent with: the steps of statements that can run and interfere
// with no statement (Interference is empty). A stateful exploration
// may explore such a step alone (S-POR's invisible steps: see package
// engine/internal/stateful). ok is false if ctx ended first.
func (s *Summary) InvisibleSites(ctx context.Context) (sites map[ir.Site]bool, ok bool) {
	sites = map[ir.Site]bool{}
	quiet := map[*Statement]bool{}
	for bi, b := range s.bodies {
		for pc := range b.stepAt {
			st, step := s.StepAt(bi, pc)
			if st == nil || step == nil || step.Kind == Call {
				continue
			}
			if ctx.Err() != nil {
				return nil, false
			}
			q, seen := quiet[st]
			if !seen {
				q = s.Runs(st) && len(s.Interference(st)) == 0
				quiet[st] = q
			}
			if q {
				sites[ir.Site{Body: int32(bi), PC: int32(pc)}] = true
			}
		}
	}
	return sites, true
}

// RaceFreeWords returns, per word of shared memory (an ir.Program
// location), whether no two accesses of it can form a data race: every
// access inside an atomic block, or every access holding one same mutex
// word (the variable's lockset, or, in an array, the word's own). A
// stateful exploration leaves such words out of the data races it keeps
// pending in a state (package engine/internal/stateful), which are then
// fewer and cheaper. ok is false if ctx ended first.
func (s *Summary) RaceFreeWords(ctx context.Context) (free []bool, ok bool) {
	free = make([]bool, len(s.prog.Locations))
	oneWord := func(ls []Loc) bool {
		for _, l := range ls {
			if l.Hi-l.Lo == 1 && !l.PerInstance {
				return true
			}
		}
		return false
	}
	for vi, obj := range s.checked.Shared {
		if ctx.Err() != nil {
			return nil, false
		}
		v := s.Variable(obj)
		if v == nil || v.Mutex || v.Cond {
			continue
		}
		vs, _ := s.varSpan(vi)
		if v.Atomic || v.InAtomicBlocks || oneWord(v.Lockset) {
			for w := vs.lo; w < vs.hi && int(w) < len(free); w++ {
				free[w] = true
			}
			continue
		}
		for _, e := range v.Elements {
			if e.Loc.Hi-e.Loc.Lo == 1 && int(e.Loc.Lo) < len(free) && oneWord(e.Lockset) {
				free[e.Loc.Lo] = true
			}
		}
	}
	return free, true
}
