package dpor

import (
	"cmp"
	"slices"

	"weft/engine/internal/clocks"
	"weft/engine/internal/driver"
	"weft/engine/internal/sdpor"
	"weft/engine/interp"
	"weft/engine/ir"
)

// Constrained DPOR
//
// CDPOR (Albert, Gómez-Zamalloa, Isabel, Rubio: "Constrained Dynamic
// Partial Order Reduction", Alg. 1) is SDPOR in which two conflicting
// steps of different threads are independent when an independence
// constraint holds in the state where they are adjacent and is
// transitively uniform there. Here that decision is made where the
// dependence clocks are built (clocks.CondOracle, "Conditional
// dependence" in package clocks): a step left out of another's clock is
// no race of it (the paper's back-set reduction), and the later steps
// that conflict with it race with it directly (the paper records the
// independence in happens-before for the same reason). Sleep sets are
// SDPOR's, propagated by unconditional dependence: sound, and without the
// paper's sleep-set extension.
//
// The constraints: the engine's own for two single accesses of one word
// (two writes of the same value commute; a read and a write commute when
// the word already holds the value written), and those of the front end
// (Options.Constraints, for pairs of sites: atomic blocks, by SMT), each
// evaluated in the state after the steps before the earlier event e and
// the later steps that happen before the new event n (E'.û). Shared words
// in that state are the latest write to them among those steps (or the
// initial value); the locals of a side are its frame when its step
// started, saved then (only the slots the constraints read).
//
// Transitive uniformity (the paper's sufficient condition U⇒, Def. 4): a
// constraint is used only if no other thread that is live there may write
// a word it reads (G(C) ∩ W = ∅, W from Constraints.Writes at the
// thread's position then, or anything when unknown). The same-value
// condition of two writes reads no shared word.
//
// Backward stability: a condition that reads a shared word (the engine's
// own, below) is used only if every earlier write of it happens before
// the earlier event k (stable): uniformity keeps later writers away, this
// keeps the value from depending on a write that a reversal could move
// after k.
//
// No-op swaps: the happens-before relation computed on the explored
// execution must be that of every execution equivalent to it, or a race
// that only an equivalent order shows is never reversed (found by review:
// t1 writes x = 1, t0 reads it, t2 writes x = 1 later; with two writes of
// one value independent, t2's write could move before t1's, which then
// finds 1 there, and t0's read would no longer depend on it). So the
// conditions whose truth depends on shared memory are used only where
// swapping the two steps changes no state in between: a read and a write
// of the value the word holds, two writes of the value it holds (both do
// nothing). Table conditions that read shared words (G(C) not empty) are
// not used at all; those that read only the two sides' locals hold in
// every state, so no order of other steps changes them. But the steps
// they merge do change state in between (two blocks adding to sum), so
// the engine's own conditions are not used on a word that such a step may
// write (swapWrites; found by a second review: a block writing x = 1
// merged with a plain x = 1 changed which write a read of x found its
// value in).
//
// Coarse steps: cdpor runs on the coarse machine as SDPOR does (package
// driver, "Coarse steps"), so it never explores more than SDPOR for
// taking plain accesses one by one. A step that carries a tail is never
// taken as independent (the constraints describe single steps), and a
// word some tail has written is never read by a constraint used (tail
// writes are not on the dependence chains that give valueAt its values).
//
// What is never taken as independent, since its order matters beyond
// the two steps' effects:
//   - steps that stop the execution, and every step that is not a read, a
//     write or an atomic block;
//   - in a program with loops that may spin-wait, a step that only reads:
//     a spinning thread waits for any later write to what it read, and
//     which writes come after its reads decides whether the execution is
//     spin-blocked or a deadlock;
//   - steps that synchronise (atomic blocks, accesses of atomic
//     variables) unless the program cannot have a data race
//     (Constraints.RaceFree): their order decides which plain accesses
//     happen before which.
type cdpor struct {
	w  *driver.Worker
	cs *ir.Constraints

	bodyIndex map[*ir.Body]int32
	initial   []int64 // shared memory before the first step
	spin      bool    // some loop may spin-wait
	raceFree  bool

	need map[ir.Site]int32 // the frame slots [0, n) the constraints read of a thread at the site
	pre  [][]int64         // per depth: those slots when the step began

	// swapWrites marks the words that a step merged by a table condition
	// may write (anyWrites: any word): the engine's own conditions are not
	// used on them (see "No-op swaps").
	swapWrites []bool
	anyWrites  bool

	// tailWrote marks the words a coarse step's tail has written in any
	// execution so far (it only grows): their writes are not all on the
	// dependence chains, so no condition that reads them is used.
	tailWrote []bool

	firstAt []int32 // scratch for uniform: per thread, its first event after e
	stats   map[statKey]*driver.IndepStat
}

type statKey struct {
	pair         [2]ir.Site
	origin, text string
}

func newCDPOR(w *driver.Worker, constraints *ir.Constraints) *cdpor {
	c := &cdpor{w: w, cs: constraints, bodyIndex: map[*ir.Body]int32{},
		initial: slices.Clone(w.M().Mem), need: map[ir.Site]int32{}, stats: map[statKey]*driver.IndepStat{},
		tailWrote: make([]bool, len(w.M().Mem))}
	for i, b := range w.Prog.Bodies {
		c.bodyIndex[b] = int32(i)
		for _, l := range b.Loops {
			if l.Await || !w.Opts.NoSpinWait {
				c.spin = true
			}
		}
	}
	c.swapWrites = make([]bool, len(w.M().Mem))
	if c.cs != nil {
		c.raceFree = c.cs.RaceFree
		for pair, list := range c.cs.Pairs {
			used := false
			for i := range list {
				c.noteSlots(pair, &list[i].Cond)
				used = used || len(list[i].Reads) == 0
			}
			if used && c.raceFree {
				c.noteWrites(pair[0])
				c.noteWrites(pair[1])
			}
		}
	}
	return c
}

// noteWrites marks what a thread at site s may write from there on (its
// step included) in swapWrites.
func (c *cdpor) noteWrites(s ir.Site) {
	w, ok := c.cs.Writes[s]
	if !ok {
		c.anyWrites = true
		return
	}
	for _, r := range w {
		for loc := max(r.Lo, 0); loc < r.Hi && int(loc) < len(c.swapWrites); loc++ {
			c.swapWrites[loc] = true
		}
	}
}

// ownWord says whether the engine's own conditions may be used on word
// loc: no step a table condition merges may write it.
func (c *cdpor) ownWord(loc int32) bool {
	return !c.anyWrites && (int(loc) >= len(c.swapWrites) || !c.swapWrites[loc])
}

// noteSlots records the slots e reads of each side of pair.
func (c *cdpor) noteSlots(pair [2]ir.Site, e *ir.CExpr) {
	if e.Op == ir.CLocal && e.Side <= 1 && e.Slot >= 0 {
		s := pair[e.Side]
		c.need[s] = max(c.need[s], e.Slot+1)
	}
	for i := range e.Args {
		c.noteSlots(pair, &e.Args[i])
	}
}

// snapshot saves, before thread t makes the step of depth d, the frame
// slots the constraints of its site read.
func (c *cdpor) snapshot(d, t int) {
	for len(c.pre) <= d {
		c.pre = append(c.pre, nil)
	}
	c.pre[d] = c.pre[d][:0]
	th := c.w.M().Threads[t]
	if n := c.need[ir.Site{Body: c.bodyIndex[th.Body], PC: th.PC}]; n > 0 {
		c.pre[d] = append(c.pre[d], th.Frame[:min(int(n), len(th.Frame))]...)
	}
}

// stepped notes the words the tail of a step just made wrote.
func (c *cdpor) stepped(ev *interp.Event) {
	for i := range ev.Tail {
		if a := &ev.Tail[i]; a.Write && int(a.Loc) < len(c.tailWrote) {
			c.tailWrote[a.Loc] = true
		}
	}
}

// Site implements sdpor.Conditional: the site of event e.
func (c *cdpor) Site(e int32) ir.Site {
	ev := &c.w.Evs[e]
	return ir.Site{Body: c.bodyIndex[c.w.M().Threads[ev.Thread].Body], PC: ev.PC}
}

func pureRead(ev *interp.Event) bool {
	if ev.Kind == ir.EvRead {
		return true
	}
	for _, a := range ev.Acc {
		if a.Write {
			return false
		}
	}
	return ev.Kind == ir.EvAtomic
}

func dataStep(k ir.EventKind) bool { return k == ir.EvRead || k == ir.EvWrite || k == ir.EvAtomic }

// Eligible implements clocks.CondOracle.
func (c *cdpor) Eligible(k, d int32) bool {
	ek, en := &c.w.Evs[k], &c.w.Evs[d]
	if ek.Stop != interp.NoStop || en.Stop != interp.NoStop || !dataStep(ek.Kind) || !dataStep(en.Kind) || ek.Thread == en.Thread ||
		len(ek.Tail) > 0 || len(en.Tail) > 0 {
		return false
	}
	if c.spin && (pureRead(ek) || pureRead(en)) {
		return false
	}
	if ek.Kind != ir.EvAtomic && en.Kind != ir.EvAtomic {
		return ek.Loc == en.Loc && (c.raceFree || !c.w.Prog.Locations[ek.Loc].Atomic)
	}
	return c.raceFree && c.cs != nil && len(c.cs.Pairs[[2]ir.Site{c.Site(k), c.Site(d)}]) > 0
}

// Independent implements clocks.CondOracle.
func (c *cdpor) Independent(k, d int32, _ clocks.Clock) bool {
	ek, en := &c.w.Evs[k], &c.w.Evs[d]
	pair := [2]ir.Site{c.Site(k), c.Site(d)}
	if ek.Kind != ir.EvAtomic && en.Kind != ir.EvAtomic {
		w := ek
		if en.Kind == ir.EvWrite {
			w = en
		}
		word := []ir.LocRange{{Lo: w.Loc, Hi: w.Loc + 1}}
		held := c.ownWord(w.Loc) && c.uniform(k, d, word) && c.stable(k, word) && c.valueAt(w.Loc, k) == w.Value
		if ek.Kind == ir.EvWrite && en.Kind == ir.EvWrite {
			// Two writes of one value commute in any state, but the
			// first changes the word unless it holds the value already:
			// then which of them finds the value there depends on their
			// order, and so does every read's dependence on them (see
			// "No-op swaps").
			held = held && ek.Value == en.Value
			return c.count(pair, "same-value", "the word already holds the value both write", held)
		}
		return c.count(pair, "same-value", "the word already holds the value written", held)
	}
	st := condState{c, k, d}
	for i := range c.cs.Pairs[pair] {
		con := &c.cs.Pairs[pair][i]
		if len(con.Reads) > 0 {
			continue // reads shared words: see "No-op swaps"
		}
		held := con.Holds(st)
		if c.count(pair, con.Origin, con.Text, held) {
			return true
		}
	}
	return false
}

// count records an evaluation of a condition of pair and returns held.
func (c *cdpor) count(pair [2]ir.Site, origin, text string, held bool) bool {
	key := statKey{pair, origin, text}
	s := c.stats[key]
	if s == nil {
		s = &driver.IndepStat{Pair: pair, Origin: origin, Text: text}
		c.stats[key] = s
	}
	s.Checked++
	if held {
		s.Held++
	}
	return held
}

// statistics lists the counts, sorted.
func (c *cdpor) statistics() []driver.IndepStat {
	out := make([]driver.IndepStat, 0, len(c.stats))
	for _, s := range c.stats {
		out = append(out, *s)
	}
	site := func(a, b ir.Site) int { return cmp.Or(cmp.Compare(a.Body, b.Body), cmp.Compare(a.PC, b.PC)) }
	slices.SortFunc(out, func(a, b driver.IndepStat) int {
		return cmp.Or(site(a.Pair[0], b.Pair[0]), site(a.Pair[1], b.Pair[1]), cmp.Compare(a.Origin, b.Origin), cmp.Compare(a.Text, b.Text))
	})
	return out
}

// valueAt is the value of shared word loc after the events before k:
// where k and a later event meet (E'.û) when stable holds, since then no
// write of loc comes between them.
func (c *cdpor) valueAt(loc, k int32) int64 {
	w := c.w.Clocks().LastWrite(loc, func(e int32) bool { return e < k })
	if w < 0 {
		return c.initial[loc]
	}
	ev := &c.w.Evs[w]
	if ev.Kind == ir.EvWrite {
		return ev.Value
	}
	for i := len(ev.Acc) - 1; i >= 0; i-- {
		if a := ev.Acc[i]; a.Write && a.Loc == loc {
			return a.Value
		}
	}
	return c.initial[loc] // not reached: w wrote loc
}

// uniform is U⇒ for a constraint that reads the shared words reads, for
// events k and d: no thread but theirs that is live after the events
// before k may write one of them from where it stands then (or, for a
// thread that moved since, from its first step after k: it only stood
// further on in E'.û).
func (c *cdpor) uniform(k, d int32, reads []ir.LocRange) bool {
	if len(reads) == 0 {
		return true
	}
	ths := c.w.M().Threads
	c.firstAt = slices.Grow(c.firstAt[:0], len(ths))[:len(ths)]
	for i := range c.firstAt {
		c.firstAt[i] = -1
	}
	for j := k + 1; j < d; j++ {
		if t := c.w.Evs[j].Thread; c.firstAt[t] < 0 {
			c.firstAt[t] = j
		}
	}
	return c.noOtherWrites(c.w.Evs[k].Thread, c.w.Evs[d].Thread, reads, func(t int) (ir.Site, bool) {
		if j := c.firstAt[t]; j >= 0 {
			return c.Site(j), true
		}
		return c.standsAt(t)
	})
}

// stable reports whether the shared words reads have where event k runs
// are fixed by the events that happen before k: every earlier write of
// them happens before k. Uniformity looks forward (no later write by a
// third thread); this looks back. Without it, a condition that held
// because of an earlier write that does not happen before k (say a write
// of the same value by another thread, itself independent of k) would be
// taken to hold in the executions that move that write after k, where
// it may not: the reversal of a race with that write would then compute
// its initials with an independence that no longer holds there, and
// lose an execution (found by TestCDPORAnalysisRandom).
func (c *cdpor) stable(k int32, reads []ir.LocRange) bool {
	for _, r := range reads {
		for loc := r.Lo; loc < r.Hi; loc++ {
			if c.tailWrote[loc] || !c.w.Clocks().WritesBefore(loc, k) {
				return false
			}
		}
	}
	return true
}

// standsAt is the site thread t stands at now (false: finished).
func (c *cdpor) standsAt(t int) (ir.Site, bool) {
	th := c.w.M().Threads[t]
	if th.Status == interp.Finished {
		return ir.Site{}, false
	}
	return ir.Site{Body: c.bodyIndex[th.Body], PC: th.PC}, true
}

// noOtherWrites reports whether no thread but a and b, standing where pos
// says (false: not live), may write a word of reads.
func (c *cdpor) noOtherWrites(a, b int32, reads []ir.LocRange, pos func(t int) (ir.Site, bool)) bool {
	if len(reads) == 0 {
		return true
	}
	for t := range c.w.M().Threads {
		if int32(t) == a || int32(t) == b {
			continue
		}
		s, live := pos(t)
		if !live {
			continue
		}
		if c.cs == nil {
			return false // what it may write is not known
		}
		w, ok := c.cs.Writes[s]
		if !ok {
			return false
		}
		for _, r := range reads {
			for _, x := range w {
				if r.Lo < x.Hi && x.Lo < r.Hi {
					return false
				}
			}
		}
	}
	return true
}

// SleepIndependent implements sdpor.Conditional: it is the paper's
// sleep-set extension (Alg. 1, line 17)
// for the engine's own conditions: sleeper s, a single access explored
// from the node before ev, stays asleep after ev, a single access of
// the same word, if the two commute in that node's state, uniformly.
// Both ran from that state, so the value a read returned is the word's
// value there.
func (c *cdpor) SleepIndependent(s *sdpor.Sleeper, ev *interp.Event, evSite ir.Site) bool {
	k := s.FP.Kind
	if ev.Stop != interp.NoStop || s.FP.Stop || s.Tail || len(ev.Tail) > 0 || k != ir.EvRead && k != ir.EvWrite || ev.Kind != ir.EvRead && ev.Kind != ir.EvWrite ||
		s.FP.Loc != ev.Loc || k == ir.EvRead && ev.Kind == ir.EvRead {
		return false
	}
	if c.spin && (k == ir.EvRead || ev.Kind == ir.EvRead) || !c.raceFree && c.w.Prog.Locations[ev.Loc].Atomic {
		return false
	}
	pair := [2]ir.Site{s.Site, evSite}
	if k == ir.EvWrite && ev.Kind == ir.EvWrite {
		return false // the node's value of the word is not at hand ("No-op swaps")
	}
	held := s.Value == ev.Value && c.ownWord(ev.Loc) && c.noOtherWrites(s.Thread, ev.Thread, []ir.LocRange{{Lo: ev.Loc, Hi: ev.Loc + 1}}, c.standsAt)
	return c.count(pair, "same-value", "the word already holds the value written", held)
}

// condState is the state of Independent's question (ir.CState): the two
// sides' locals. No condition cdpor uses reads a shared word ("No-op
// swaps"), so none is given.
type condState struct {
	c    *cdpor
	k, d int32
}

func (s condState) Shared(int32) (int64, bool) { return 0, false }

func (s condState) Local(side uint8, slot int32) (int64, bool) {
	e := s.k
	if side == 1 {
		e = s.d
	}
	if int(e) >= len(s.c.pre) || int(slot) >= len(s.c.pre[e]) {
		return 0, false
	}
	return s.c.pre[e][slot], true
}
