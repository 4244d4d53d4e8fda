package interp

import (
	"math/bits"
	"slices"
	"unsafe"

	"weft/engine/ir"
)

// State fingerprint
//
// A machine made with Config.Fingerprint keeps a 128-bit hash of its
// state (Machine.Fingerprint), for an exploration that remembers the
// states it has visited. Two states that no sequence of steps can tell
// apart (the same steps enabled, with the same events, stops and
// verdicts, forever) should hash equal; two states that some sequence
// can tell apart hash differently but with probability about 2^-128 per
// pair (see "Why 128 bits").
//
// Machine.AppendState writes the same content as canonical bytes (see
// "Exact state encoding" in encode.go): a change of what is hashed here
// is a change there too.
//
// What is hashed, each part a term added (mod 2^64, lane by lane) to the
// sum, so that removing a term is exact:
//
//   - shared memory: one term per location and value (lock owners and the
//     waiter counts of condition variables are words of it);
//   - each thread, by its index: its body, status, pc, call depth, whether
//     it waits on a condition variable (not who woke it: that is the
//     index of a step, history), and for a failing thread the pending
//     stop (kind, pc, message);
//   - each frame of each thread: the live slots only (ir.Liveness), one
//     term per (thread, depth, slot, value). The innermost frame counts
//     the slots live at the thread's pc (In), each calling frame those
//     live while its call runs (Suspended at the call's pc, which is
//     hashed too). A slot that no instruction writes holds its initial
//     value and is never counted;
//   - each thread's record of spin detection while it can still make the
//     thread spin (it arrived at a loop head and has made only pure steps
//     since; otherwise the record is inert: the next arrival starts over,
//     as with none): the head, the depth, the values of the loop's slots
//     then, and each read since (location, value, and whether the
//     location has been changed since, which decides between a deadlock
//     and a spin-blocked execution when the thread spins).
//
// Not hashed, being history or settings rather than state: step counts
// (Thread.Steps, StepCount, Depth), spawn counters and thread names,
// Parent and SpawnIndex, who woke a waiter, the per-location write
// counts (only whether a spin read is stale), the memo of local
// computations and its hot set, BigSteps, the undo log, and the
// machine's settings (Coarse, TailBound, NoSpinWait, SpuriousWakeups,
// the budgets). An exploration whose bounds depend on history (a step
// bound, TailBound) must take them into account itself.
//
// Dead slots. A slot's term is counted only where the slot is live, so a
// value a thread no longer needs stops counting when the thread moves to
// where it is dead, and no value is ever zeroed (that would change what
// the frame holds, and Undo). Two states that differ only in dead slots
// hash equal: nothing the thread does from there reads them before
// writing them, so they cannot differ in the future.
//
// Cost. Off by default (Config.Fingerprint), no mode pays for it: the
// hooks are a nil test in StepAlt, Undo and Bytes, and two words the
// machine keeps anyway (the lowest call depth a step returned to, where a
// spin record's reads start). On, the hash is updated
// once per step, from what the undo log already records: each memory word
// the step overwrote (with its old value), each slot of the frames it
// wrote (the frame undo log), and the set of live slots before and after
// (a merge of two sorted range lists, only where the set changed). A step
// costs O(words it wrote + live ranges of the moving frame at its two
// pcs + frames it pushed or popped); spin reads made stale by a write
// are found through a per-location chain of fresh reads. Undo restores
// the sum and the per-thread caches from a log of the old values (the
// sum itself is saved per step, so removing a step's terms costs
// nothing). The liveness of the program's bodies is computed once per
// machine. On the paper suite's models (BenchmarkFingerprint, the same
// random walk of steps and undos with the hash off and on) it costs
// about 1,000 instructions a step, 1.5 to 1.8 times a bare Step and its
// Undo; off, the nil tests cost under 1%.
//
// Why 128 bits. An exploration keeping 10^8 to 10^9 states in a visited
// set with 64-bit hashes would see a collision with probability about
// n^2/2^65: 3·10^-4 for 10^8 and 3% for 10^9, and a collision prunes a
// state never explored, which can hide a bug behind a verdict of
// "verified". With 128 bits it is about 10^-21. The two lanes are mixed
// by different finalisers (MurmurHash3's and SplitMix64's) from
// different keys. These figures treat the terms as random: the mixers
// are good non-cryptographic ones with fixed keys, not a keyed hash, so
// they hold for programs, not against an adversary choosing values.

// Fingerprint is a 128-bit hash of a machine's state (see "State
// fingerprint"); it is comparable, and a map key.
type Fingerprint [2]uint64

func (f *Fingerprint) add(g Fingerprint) { f[0] += g[0]; f[1] += g[1] }
func (f *Fingerprint) sub(g Fingerprint) { f[0] -= g[0]; f[1] -= g[1] }

// Fingerprint returns the hash of the current state, and false if the
// machine was made without Config.Fingerprint (then it keeps none).
func (m *Machine) Fingerprint() (Fingerprint, bool) {
	if m.fp == nil {
		return Fingerprint{}, false
	}
	return m.fp.sum, true
}

// RecomputeFingerprint computes the hash of the current state from
// scratch, without the incremental bookkeeping (for tests: it must equal
// Fingerprint after every Step and Undo). It works on any machine, and
// takes time in the size of the state.
func (m *Machine) RecomputeFingerprint() Fingerprint {
	var tab *fpTables
	if m.fp != nil {
		tab = m.fp.tab
	} else {
		tab = newFPTables(m.Prog)
	}
	f := &fingerprint{tab: tab}
	f.rebuild(m)
	return f.sum
}

// The mixers of the two lanes: MurmurHash3's 64-bit finaliser and
// SplitMix64's; both are bijections.
func mixA(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func mixB(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Kinds of terms: each starts its hash from its own seed.
const (
	kindMem = iota + 1
	kindFrame
	kindSite
	kindThread
	kindSpin
	kindSpinSlot
	kindReadFresh
	kindReadStale
)

// hasher hashes a sequence of words into both lanes.
type hasher struct{ a, b uint64 }

func newHasher(kind uint64) hasher {
	return hasher{a: 0x243f6a8885a308d3 ^ kind*0x9e3779b97f4a7c15, b: 0x13198a2e03707344 + kind*0xd6e8feb86659fd93}
}

func (h hasher) add(w uint64) hasher {
	return hasher{a: mixA(h.a ^ w), b: mixB(h.b + bits.RotateLeft64(w, 29))}
}

func (h hasher) sum() Fingerprint { return Fingerprint{h.a, h.b} }

// fpKey is the base of the terms of one frame (or of shared memory): the
// term of slot s holding v is a mix of the base, s and v.
type fpKey [2]uint64

func frameKey(t, d int32) fpKey {
	return fpKey(newHasher(kindFrame).add(uint64(uint32(t))<<32 | uint64(uint32(d))).sum())
}

func (k fpKey) term(s int32, v int64) Fingerprint {
	return Fingerprint{
		mixA((k[0] + uint64(s)*0x9e3779b97f4a7c15) ^ uint64(v)),
		mixB((k[1] + uint64(s)*0xd6e8feb86659fd93) ^ bits.RotateLeft64(uint64(v), 29)),
	}
}

func siteTerm(t, d, site int32) Fingerprint {
	return newHasher(kindSite).add(uint64(uint32(t))<<32 | uint64(uint32(d))).add(uint64(uint32(site))).sum()
}

func stringHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// fpTables are what the fingerprint knows of the program: each body's
// index and liveness.
type fpTables struct {
	bodies map[*ir.Body]*fpBody
	memKey fpKey
}

type fpBody struct {
	index uint64
	live  *ir.Liveness
	sets  []ir.SlotSet
}

func newFPTables(prog *ir.Program) *fpTables {
	tab := &fpTables{bodies: make(map[*ir.Body]*fpBody, len(prog.Bodies)), memKey: fpKey(newHasher(kindMem).sum())}
	for i, lv := range prog.Liveness() {
		b := prog.Bodies[i]
		if _, ok := tab.bodies[b]; !ok {
			tab.bodies[b] = &fpBody{index: uint64(i), live: lv, sets: lv.Sets()}
		}
	}
	return tab
}

// fingerprint is the incremental state of the hash.
type fingerprint struct {
	tab     *fpTables
	sum     Fingerprint
	threads []fpThread
	// freshHead is, per location, the newest entry of freshEnts about it
	// (-1: none): the chain of spin reads of the location, which a write
	// makes stale.
	freshHead []int32
	freshEnts []freshEnt
	steps     []fpStep
	terms     []termLog  // thread terms of other threads than the mover's, before a step changed them
	spins     []spinLog  // spin parts before a step changed them
	frames    []frameLog // the mover's frames before a step changed them
	frameCap  int        // frames held by the threads' caches, for Bytes
	scratch   []int32    // spin reads being entered
}

// fpThread is what one thread adds to the sum, part by part.
type fpThread struct {
	body   *fpBody
	key0   fpKey       // the key of its frame at depth 0
	term   Fingerprint // the thread term
	frames []fpFrame   // per depth
	spin   fpSpin
}

// fpFrame is one frame's part: the live slots of its context, and for a
// calling frame the site.
type fpFrame struct {
	h    Fingerprint
	set  int32 // the live set counted, an index in fpBody.sets
	site int32 // the call's pc for a calling frame; -1 for the innermost
}

// fpSpin is a spin record's part.
type fpSpin struct {
	h    Fingerprint
	key  spinKey
	last int32 // the newest read counted; -1: none
}

// spinKey identifies a record: equal keys, the same record (the newer
// having perhaps more reads).
type spinKey struct {
	at, depth, slotLo, slotN, readsLo int32
	alive                             bool
}

func (m *Machine) spinKey(s *spinState) spinKey {
	if s.at == 0 || !s.pure || m.loopAgain != nil && !s.plain {
		// No record, or one that cannot make the thread spin: looping
		// again, it starts over where it would (see "Looping again").
		return spinKey{}
	}
	return spinKey{s.at, s.depth, s.slotLo, s.slotN, s.readsLo, true}
}

// freshEnt is a spin read not stale when it was entered: thread t's read
// r (an index in Machine.spinReads) of location loc.
type freshEnt struct {
	r, t, loc, prev int32
}

// fpStep is what Undo needs to restore of one step: the sum, the
// mover's term and number of frames, where the step's parts of the logs
// start, and the number of threads.
type fpStep struct {
	sum, term                        Fingerprint
	lowFrame                         fpFrame // the mover's frame at depth low
	mover, numFrames, low            int32
	termLo, spinLo, frameLo, freshLo int32
	numThreads                       int32
}

// termLog, spinLog and frameLog are old values of the caches, restored
// by Undo: the term of thread t, its spin part, the mover's frame d.
type termLog struct {
	t    int32
	term Fingerprint
}

type spinLog struct {
	t    int32
	spin fpSpin
}

type frameLog struct {
	d     int32
	frame fpFrame
}

func newFingerprint(m *Machine) *fingerprint {
	f := &fingerprint{tab: newFPTables(m.Prog)}
	f.rebuild(m)
	return f
}

// rebuild computes the sum and every cache from the state.
func (f *fingerprint) rebuild(m *Machine) {
	f.sum = Fingerprint{}
	f.threads = f.threads[:0]
	f.freshHead = make([]int32, len(m.Mem))
	for i := range f.freshHead {
		f.freshHead[i] = -1
	}
	f.freshEnts = f.freshEnts[:0]
	f.frameCap = 0
	for loc, v := range m.Mem {
		f.sum.add(f.tab.memKey.term(int32(loc), v))
	}
	for t := range m.Threads {
		f.addThread(m, int32(t))
	}
	// The fresh reads of every live record, oldest first, so that each
	// location's chain is in the order of the reads.
	var ents []freshEnt
	for t, th := range m.Threads {
		if !m.spinKey(&th.spin).alive {
			continue
		}
		for r := th.spin.reads; r >= 0; r = m.spinReads[r].prev {
			if rd := &m.spinReads[r]; m.writes[rd.loc] == rd.writes {
				ents = append(ents, freshEnt{r: r, t: int32(t), loc: rd.loc})
			}
		}
	}
	slices.SortFunc(ents, func(a, b freshEnt) int { return int(a.r - b.r) })
	for _, e := range ents {
		f.pushFresh(e.r, e.t, e.loc)
	}
}

// pushFresh enters thread t's fresh read r of loc. Each location's chain
// must be in the order of the reads (oldest first, the newest at the
// head), as staleAfterWrite stops at the first read already stale.
func (f *fingerprint) pushFresh(r, t, loc int32) {
	f.freshEnts = append(f.freshEnts, freshEnt{r: r, t: t, loc: loc, prev: f.freshHead[loc]})
	f.freshHead[loc] = int32(len(f.freshEnts) - 1)
}

// addThread adds thread t (the newest, or every one in rebuild) to the
// sum and the caches.
func (f *fingerprint) addThread(m *Machine, t int32) {
	th := m.Threads[t]
	ft := fpThread{body: f.tab.bodies[th.Body], key0: frameKey(t, 0)}
	ft.term = threadTerm(t, th, ft.body)
	f.sum.add(ft.term)
	for d := int32(0); d <= th.depth(); d++ {
		fr := f.frameOf(th, t, d, ft.body)
		ft.frames = append(ft.frames, fr)
		f.sum.add(fr.h)
	}
	f.frameCap += cap(ft.frames)
	ft.spin = spinOf(m, t, th)
	f.sum.add(ft.spin.h)
	f.threads = append(f.threads, ft)
}

// threadTerm is the term of thread t's own state.
func threadTerm(t int32, th *Thread, body *fpBody) Fingerprint {
	waiting := uint64(0)
	if th.cond.waiting {
		waiting = 1
	}
	h := newHasher(kindThread).
		add(uint64(uint32(t))<<32 | uint64(uint32(th.PC))).
		add(body.index<<32 | uint64(uint16(th.depth()))<<16 | uint64(th.Status)<<8 | waiting)
	if th.Status == Failing {
		h = h.add(uint64(th.fail.kind)<<32 | uint64(uint32(th.fail.pc))).add(stringHash(th.fail.msg))
	}
	return h.sum()
}

// context is the live set counted for th's frame at depth d, and the
// site of the call it makes (-1 for the innermost frame).
func context(th *Thread, d int32, body *fpBody) (set, site int32) {
	if d == th.depth() {
		return int32(body.live.InID(th.PC)), -1
	}
	site = th.calls.sites[d]
	return int32(body.live.SuspendedID(site)), site
}

// frameOf computes thread t's frame at depth d from scratch.
func (f *fingerprint) frameOf(th *Thread, t, d int32, body *fpBody) fpFrame {
	set, site := context(th, d, body)
	fr := fpFrame{set: set, site: site}
	if site >= 0 {
		fr.h = siteTerm(t, d, site)
	}
	words, _ := th.frameAt(d)
	key := frameKey(t, d)
	for _, r := range body.sets[set] {
		for s := r.Lo; s < r.Hi; s++ {
			fr.h.add(key.term(s, words[s]))
		}
	}
	return fr
}

// readTerm is the term of a spin read of thread t.
func readTerm(t int32, rd *spinRead, stale bool) Fingerprint {
	kind := uint64(kindReadFresh)
	if stale {
		kind = kindReadStale
	}
	return newHasher(kind).add(uint64(uint32(t))<<32 | uint64(uint32(rd.loc))).add(uint64(rd.value)).sum()
}

// spinOf computes thread t's spin part from scratch.
func spinOf(m *Machine, t int32, th *Thread) fpSpin {
	s := &th.spin
	sp := fpSpin{key: m.spinKey(s), last: -1}
	if !sp.key.alive {
		return sp
	}
	sp.h = newHasher(kindSpin).add(uint64(uint32(t))<<32 | uint64(uint32(s.at))).add(uint64(uint32(s.depth))).sum()
	for i, v := range m.spinSlots[s.slotLo : s.slotLo+s.slotN] {
		sp.h.add(newHasher(kindSpinSlot).add(uint64(uint32(t))<<32 | uint64(i)).add(uint64(v)).sum())
	}
	for r := s.reads; r >= 0; r = m.spinReads[r].prev {
		rd := &m.spinReads[r]
		sp.h.add(readTerm(t, rd, m.writes[rd.loc] > rd.writes))
	}
	sp.last = s.reads
	return sp
}

// afterStep brings the sum up to date after the step of thread t that
// has just been made (its undo record on top; frameLo and memLo where its
// parts of the undo logs start; the bits of the frame words it saved
// still set).
func (f *fingerprint) afterStep(m *Machine, t int32, frameLo, memLo int) {
	rec := &m.undo[len(m.undo)-1]
	ft := &f.threads[t]
	f.steps = append(f.steps, fpStep{sum: f.sum, term: ft.term, mover: t, numFrames: int32(len(ft.frames)),
		termLo: int32(len(f.terms)), spinLo: int32(len(f.spins)), frameLo: int32(len(f.frames)),
		freshLo: int32(len(f.freshEnts)), numThreads: int32(len(f.threads))})
	written := m.memUndo[memLo:]
	for _, w := range written {
		if v := m.Mem[w.at]; v != w.v {
			f.sum.add(f.tab.memKey.term(w.at, v))
			f.sum.sub(f.tab.memKey.term(w.at, w.v))
		}
	}
	if len(f.freshEnts) > 0 {
		for _, w := range written {
			if w.changed {
				f.staleAfterWrite(m, w.at)
			}
		}
	}
	if rec.aux >= 0 {
		// A signal or broadcast woke other threads.
		for _, w := range m.wokeUndo[m.aux[rec.aux].wokeLo:] {
			f.reterm(m, w.thread)
		}
	}
	f.moverFrames(m, t, rec, frameLo)
	if rec.aux >= 0 {
		f.moverSpin(m, t)
	}
	if rec.newChild {
		f.addThread(m, int32(len(m.Threads)-1))
	}
}

// reterm recomputes thread t's term.
func (f *fingerprint) reterm(m *Machine, t int32) {
	ft := &f.threads[t]
	f.terms = append(f.terms, termLog{t, ft.term})
	f.sum.sub(ft.term)
	ft.term = threadTerm(t, m.Threads[t], ft.body)
	f.sum.add(ft.term)
}

// staleAfterWrite turns stale the fresh spin reads of loc, which the
// step has changed (its first write to loc that changed it incremented
// Machine.writes[loc] once; a write of the value the word held makes no
// read stale: see "Writes that change nothing").
func (f *fingerprint) staleAfterWrite(m *Machine, loc int32) {
	was := m.writes[loc] - 1
	for e := f.freshHead[loc]; e >= 0; e = f.freshEnts[e].prev {
		ent := &f.freshEnts[e]
		rd := &m.spinReads[ent.r]
		if rd.writes != was {
			break // older reads were stale already
		}
		th := m.Threads[ent.t]
		if s := &th.spin; s.at == 0 || !s.pure || ent.r < s.readsLo {
			continue // its record is no longer live
		}
		ft := &f.threads[ent.t]
		f.spins = append(f.spins, spinLog{ent.t, ft.spin})
		var d Fingerprint
		d.add(readTerm(ent.t, rd, true))
		d.sub(readTerm(ent.t, rd, false))
		ft.spin.h.add(d)
		f.sum.add(d)
	}
}

// moverFrames brings up to date the term and the frames of thread t,
// which made the step.
func (f *fingerprint) moverFrames(m *Machine, t int32, rec *undoRecord, frameLo int) {
	th := m.Threads[t]
	ft := &f.threads[t]
	f.sum.sub(ft.term) // the old term is in the step's record
	ft.term = threadTerm(t, th, ft.body)
	f.sum.add(ft.term)

	d0, d1, low := int32(len(ft.frames)-1), th.depth(), int32(0)
	if th.calls != nil {
		low = min(th.calls.low, d0, d1)
	}
	// Frames above low were popped (and those now there pushed) in the
	// step.
	st := &f.steps[len(f.steps)-1]
	st.low, st.lowFrame = low, ft.frames[low]
	for d := d0; d > low; d-- {
		f.frames = append(f.frames, frameLog{d, ft.frames[d]})
	}
	for d := d0; d > low; d-- {
		f.sum.sub(ft.frames[d].h)
	}
	// Frame low lived through the step: update it from the words the
	// step overwrote in it and the change of its live set.
	old := ft.frames[low]
	set, site := context(th, low, ft.body)
	h := old.h
	if old.site >= 0 {
		h.sub(siteTerm(t, low, old.site))
	}
	if site >= 0 {
		h.add(siteTerm(t, low, site))
	}
	words, saved := th.frameAt(low)
	key := ft.key0
	if low > 0 {
		key = frameKey(t, low)
	}
	oldSet, newSet := ft.body.sets[old.set], ft.body.sets[set]
	for _, w := range m.frameUndo[frameLo:] {
		if w.at < 0 || w.d != low {
			continue
		}
		if oldSet.Has(w.at) {
			h.sub(key.term(w.at, w.v))
		}
		if newSet.Has(w.at) {
			h.add(key.term(w.at, words[w.at]))
		}
	}
	if set != old.set {
		// Slots that died or came alive without being written.
		var died, born Fingerprint
		unwritten(&died, oldSet, newSet, key, words, saved)
		unwritten(&born, newSet, oldSet, key, words, saved)
		h.sub(died)
		h.add(born)
	}
	f.sum.sub(old.h)
	f.sum.add(h)
	oldCap := cap(ft.frames)
	ft.frames = append(ft.frames[:low], fpFrame{h: h, set: set, site: site})
	for d := low + 1; d <= d1; d++ {
		fr := f.frameOf(th, t, d, ft.body)
		ft.frames = append(ft.frames, fr)
		f.sum.add(fr.h)
	}
	f.frameCap += cap(ft.frames) - oldCap
}

// unwritten adds to h the terms of the slots of a that are not in b and
// that the step did not write (their bit in saved is clear).
func unwritten(h *Fingerprint, a, b ir.SlotSet, key fpKey, words []int64, saved []uint64) {
	j := 0
	for _, r := range a {
		s := r.Lo
		for s < r.Hi {
			for j < len(b) && b[j].Hi <= s {
				j++
			}
			if j < len(b) && b[j].Lo <= s {
				s = b[j].Hi // covered up to there
				continue
			}
			end := r.Hi
			if j < len(b) {
				end = min(end, b[j].Lo)
			}
			for ; s < end; s++ {
				if saved[uint32(s)>>6]&(1<<(uint32(s)&63)) == 0 {
					h.add(key.term(s, words[s]))
				}
			}
		}
	}
}

// moverSpin brings up to date the spin part of thread t, which made the
// step and changed its spin or condition-variable state.
func (f *fingerprint) moverSpin(m *Machine, t int32) {
	th := m.Threads[t]
	ft := &f.threads[t]
	key := m.spinKey(&th.spin)
	if key == ft.spin.key && key.alive {
		// The same record, perhaps with new reads (all made in this step,
		// after the last one counted).
		if th.spin.reads == ft.spin.last {
			return
		}
		f.spins = append(f.spins, spinLog{t, ft.spin})
		f.scratch = f.scratch[:0]
		for r := th.spin.reads; r > ft.spin.last; r = m.spinReads[r].prev {
			f.scratch = append(f.scratch, r)
		}
		for i := len(f.scratch) - 1; i >= 0; i-- { // oldest first: see pushFresh
			r := f.scratch[i]
			rd := &m.spinReads[r]
			stale := m.writes[rd.loc] > rd.writes
			tm := readTerm(t, rd, stale)
			ft.spin.h.add(tm)
			f.sum.add(tm)
			if !stale {
				f.pushFresh(r, t, rd.loc)
			}
		}
		ft.spin.last = th.spin.reads
		return
	}
	if key == ft.spin.key {
		return // inert before and after
	}
	f.spins = append(f.spins, spinLog{t, ft.spin})
	f.sum.sub(ft.spin.h)
	ft.spin = spinOf(m, t, th)
	f.sum.add(ft.spin.h)
	if key.alive {
		// A new record: its reads were all made in this step.
		f.scratch = f.scratch[:0]
		for r := th.spin.reads; r >= 0; r = m.spinReads[r].prev {
			f.scratch = append(f.scratch, r)
		}
		for i := len(f.scratch) - 1; i >= 0; i-- {
			r := f.scratch[i]
			if rd := &m.spinReads[r]; m.writes[rd.loc] == rd.writes {
				f.pushFresh(r, t, rd.loc)
			}
		}
	}
}

// undo restores the sum and the caches as they were before the last
// step (Machine.Undo has undone it).
func (f *fingerprint) undo() {
	st := f.steps[len(f.steps)-1]
	f.steps = f.steps[:len(f.steps)-1]
	for i := len(f.terms) - 1; i >= int(st.termLo); i-- {
		f.threads[f.terms[i].t].term = f.terms[i].term
	}
	f.terms = f.terms[:st.termLo]
	for i := len(f.spins) - 1; i >= int(st.spinLo); i-- {
		f.threads[f.spins[i].t].spin = f.spins[i].spin
	}
	f.spins = f.spins[:st.spinLo]
	mv := &f.threads[st.mover]
	mv.term = st.term
	mv.frames = resize(mv.frames, int(st.numFrames))
	for i := len(f.frames) - 1; i >= int(st.frameLo); i-- {
		mv.frames[f.frames[i].d] = f.frames[i].frame
	}
	mv.frames[st.low] = st.lowFrame
	f.frames = f.frames[:st.frameLo]
	for i := len(f.freshEnts) - 1; i >= int(st.freshLo); i-- {
		f.freshHead[f.freshEnts[i].loc] = f.freshEnts[i].prev
	}
	f.freshEnts = f.freshEnts[:st.freshLo]
	for i := int(st.numThreads); i < len(f.threads); i++ {
		f.frameCap -= cap(f.threads[i].frames)
	}
	f.threads = f.threads[:st.numThreads]
	f.sum = st.sum
}

func resize(s []fpFrame, n int) []fpFrame {
	if n <= cap(s) {
		return s[:n]
	}
	return append(s[:cap(s)], make([]fpFrame, n-cap(s))...)
}

// bytes is about what the fingerprint holds.
func (f *fingerprint) bytes() int64 {
	return int64(unsafe.Sizeof(fpThread{}))*int64(cap(f.threads)) + int64(unsafe.Sizeof(fpFrame{}))*int64(f.frameCap) +
		4*int64(cap(f.freshHead)) + int64(unsafe.Sizeof(freshEnt{}))*int64(cap(f.freshEnts)) +
		int64(unsafe.Sizeof(fpStep{}))*int64(cap(f.steps)) + int64(unsafe.Sizeof(termLog{}))*int64(cap(f.terms)) +
		int64(unsafe.Sizeof(spinLog{}))*int64(cap(f.spins)) + int64(unsafe.Sizeof(frameLog{}))*int64(cap(f.frames))
}
