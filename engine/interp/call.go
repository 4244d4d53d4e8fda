package interp

import (
	"strconv"

	"weft/engine/ir"
)

// Function calls
//
// A thread's frames form a stack: frame 0 is its body's own frame, frame d
// (d ≥ 1) the frame of the d-th call in progress. Thread.Frame is always
// the current (innermost) frame, so every instruction addresses its slots
// as th.Frame[slot] whether it belongs to the body or to a function, and
// Thread.saved is that frame's bits of the frame undo log. The frames of
// functions live in per-depth buffers that are kept after a return and
// reused by the next call at the same depth, so a loop of calls
// allocates nothing; a call record is just the pc of the ir.OpCall that
// made the frame (the result slot and the function are that instruction's
// A and C).
//
// Undo. The frame undo log (Machine.frameUndo) holds each overwritten word
// with its depth, and each overwritten call record. Undoing a step that
// started at depth d needs the frames 0..d and their records as they were
// after the step, so a step must log what it overwrites in every frame up
// to the deepest depth at which any step still on the undo stack started
// (the thread's mark: a step raises it to its starting depth, and Undo
// brings back the mark from before the step). A frame deeper than the mark
// holds nothing any state on the stack needs: a call that pushes one marks
// every word of it saved (like a spawned child's) instead of logging the
// words it initialises and every later write to them, and Step clears
// those bits when it ends (endStep). So a recursion that runs within one
// step, above the depths its thread's steps started at, logs nothing of
// its frames. A call at a depth within the mark initialises the frame word
// by word through the first-write rule and logs the call record it
// overwrites (once a step: frameBuf.siteSaved). Undo writes the words and
// records back and returns to the depth and the mark before the step.

// MaxCallDepth bounds the calls in progress in one thread: a call deeper
// than that is a runtime error (recursion without a base case would
// otherwise only end with the local step bound or the memory).
const MaxCallDepth = 1000

// fword is an entry of the frame undo log: the value slot at of the
// frame at depth d had before a step; or, when at is siteOf, the call
// record (the call's pc) of frame d; or, when at is stepStart (the first
// entry of a step, absent when both are 0), the call depth d and the mark
// v of the thread when the step began.
type fword struct {
	at int32
	d  int32
	v  int64
}

const (
	siteOf    = -1
	stepStart = -2
)

// callStack is a thread's stack of function frames (see "Function calls").
type callStack struct {
	depth int32
	sites []int32    // sites[d-1]: pc of the ir.OpCall that made frame d
	bufs  []frameBuf // bufs[d-1]: the buffer of frame d; the function's frame is its first words
	// base and baseSaved are the body's frame and its bits while depth >
	// 0 (at depth 0 they are Thread.Frame and Thread.saved).
	base      []int64
	baseSaved []uint64
	// mark: frames deeper than it are dead for every state on the undo
	// stack; hi ≥ mark: the frames in (mark, hi] had their bits set in
	// this step.
	mark, hi int32
	// low is the lowest depth the current step has returned to: frames
	// at that depth and above it are the ones the step may have changed
	// (the state fingerprint recomputes them).
	low   int32
	bytes int64 // bytes of bufs
}

// frameBuf holds the frame of one depth; words has its full capacity as
// length.
type frameBuf struct {
	words     []int64
	bits      []uint64
	siteSaved bool // the current step has logged the call record of this depth
}

// CallDepth is the number of function calls in progress in the thread.
func (th *Thread) CallDepth() int { return int(th.depth()) }

// depth is CallDepth. A thread that never called has no callStack.
func (th *Thread) depth() int32 {
	if th.calls == nil {
		return 0
	}
	return th.calls.depth
}

// BaseFrame is the frame of the thread's body (its own locals, the slots
// of Body.Locals), whatever function it is running. It belongs to the
// machine: read it, never write it.
func (th *Thread) BaseFrame() []int64 {
	if th.depth() == 0 {
		return th.Frame
	}
	return th.calls.base
}

// BasePC is where the thread stands in its body's own code: its pc, or
// while it runs a function the pc of the outermost call in progress.
func (th *Thread) BasePC() int32 {
	if th.depth() == 0 {
		return th.PC
	}
	return th.calls.sites[0]
}

// CallFrame is one function call in progress.
type CallFrame struct {
	Func *ir.Func
	// Site is the pc of the ir.OpCall that made the call (in the body's
	// code, or in the calling function's).
	Site int32
	// PC is where the call stands: the pc of the call it is making in
	// turn, or for the innermost one the thread's pc.
	PC int32
	// Frame is the function's frame (the slots of Func.Locals). It
	// belongs to the machine: read it, never write it.
	Frame []int64
}

// Calls lists the function calls in progress, outermost first.
func (th *Thread) Calls() []CallFrame {
	cs := th.calls
	if cs == nil {
		return nil
	}
	calls := make([]CallFrame, cs.depth)
	for i := range calls {
		site := cs.sites[i]
		fn := &th.Body.Funcs[th.Body.Code[site].C]
		pc := th.PC
		if i+1 < len(calls) {
			pc = cs.sites[i+1]
		}
		calls[i] = CallFrame{Func: fn, Site: site, PC: pc, Frame: cs.bufs[i].words[:len(fn.Frame)]}
	}
	return calls
}

// threadBytes is what the machine holds for th's frames and their bits.
func threadBytes(th *Thread) int64 {
	cs := th.calls
	if cs == nil {
		return 8 * int64(cap(th.Frame)+cap(th.saved))
	}
	base, bits := th.Frame, th.saved
	if cs.depth > 0 {
		base, bits = cs.base, cs.baseSaved
	}
	return 8*int64(cap(base)+cap(bits)) + cs.bytes
}

// frameAt returns the words and bits of th's frame at depth d (≤ the
// buffers' depth).
func (th *Thread) frameAt(d int32) ([]int64, []uint64) {
	cs := th.calls
	if d == 0 {
		if cs == nil || cs.depth == 0 {
			return th.Frame, th.saved
		}
		return cs.base, cs.baseSaved
	}
	b := &cs.bufs[d-1] // whole: a logged slot may lie past the current function's frame
	return b.words, b.bits
}

// setDepth makes frame d current, with the call records as they are.
func (th *Thread) setDepth(d int32) {
	cs := th.calls
	if cs == nil {
		return // d is 0
	}
	if cs.depth == 0 && d > 0 {
		cs.base, cs.baseSaved = th.Frame, th.saved
	}
	switch {
	case d == 0 && cs.depth > 0:
		th.Frame, th.saved = cs.base, cs.baseSaved
	case d > 0:
		fn := &th.Body.Funcs[th.Body.Code[cs.sites[d-1]].C]
		b := &cs.bufs[d-1]
		th.Frame, th.saved = b.words[:len(fn.Frame)], b.bits
	}
	cs.depth = d
}

// beginCalls starts a step of th: it logs the call depth and the mark
// for Undo (unless both are 0), and raises the mark to the depth.
func (m *Machine) beginCalls(th *Thread) {
	cs := th.calls
	if cs == nil {
		return
	}
	if cs.depth != 0 || cs.mark != 0 {
		m.frameUndo = append(m.frameUndo, fword{at: stepStart, d: cs.depth, v: int64(cs.mark)})
	}
	cs.mark = max(cs.mark, cs.depth)
	cs.hi = cs.mark
	cs.low = cs.depth
}

// emptyCalls returns th to its body's frame and returns its call stack
// emptied, with its buffers, for a new thread in th's place (nil if th
// never called).
func (th *Thread) emptyCalls() *callStack {
	cs := th.calls
	if cs == nil {
		return nil
	}
	th.setDepth(0)
	cs.base, cs.baseSaved = nil, nil
	cs.mark, cs.hi, cs.low = 0, 0, 0
	return cs
}

// callOrRet performs the ir.OpCall or ir.OpRet at th's pc, as one local
// instruction of budget. exec stops at both, so that its loop keeps its
// frame in registers; its callers run them. It returns true if the
// thread failed, with th.fail set.
func (m *Machine) callOrRet(th *Thread, budget *int) bool {
	pc := th.PC
	if *budget <= 0 {
		th.fail = failure{StopStepBound, pc, "ran " + strconv.Itoa(m.LocalBudget) + " local instructions without a visible step (an infinite local loop?)"}
		return true
	}
	*budget--
	in := th.Body.Code[pc]
	if in.Op == ir.OpCall {
		return m.call(th, pc, in)
	}
	return m.ret(th, pc, in)
}

// call performs the ir.OpCall in at pc of th: it pushes a frame for the
// function, initialised from ir.Func.Frame and the arguments, and moves
// th to the function's entry. It returns true if the call failed instead
// (the call depth bound, or the memory budget), with th.fail set.
func (m *Machine) call(th *Thread, pc int32, in ir.Instr) bool {
	if th.calls == nil {
		th.calls = &callStack{}
	}
	cs := th.calls
	fn := &th.Body.Funcs[in.C]
	d := cs.depth + 1
	if d > MaxCallDepth {
		th.fail = failure{StopRuntimeError, pc, "call depth bound of " + strconv.Itoa(MaxCallDepth) + " exceeded in " + fn.Name + " (unbounded recursion?)"}
		return true
	}
	n := len(fn.Frame)
	if int(d) > len(cs.bufs) {
		cs.bufs = append(cs.bufs, frameBuf{})
	}
	b := &cs.bufs[d-1]
	grown := false
	if len(b.words) < n {
		// Grow the buffer, keeping its words: they may be the frame of an
		// earlier call at this depth that Undo brings back.
		grow := wordsBytes(n) - 8*int64(len(b.words)+len(b.bits))
		if m.MemoryBudget > 0 && m.Bytes()+grow > m.MemoryBudget {
			th.fail = failure{StopMemory, pc, "the frame of " + fn.Name + " (call depth " + strconv.Itoa(int(d)) + ") would take the machine past its memory budget"}
			return true
		}
		words := make([]int64, n)
		copy(words, b.words)
		bits := make([]uint64, bitWords(n))
		copy(bits, b.bits)
		cs.bytes += grow
		m.frameBytes += grow
		b.words, b.bits = words, bits
		grown = true
	}
	if d > cs.mark && (d > cs.hi || grown) {
		// Deeper than the mark: nothing of it needs saving.
		fill(b.bits)
		cs.hi = max(cs.hi, d)
	}
	if cs.depth == 0 {
		cs.base, cs.baseSaved = th.Frame, th.saved
	}
	if int(d) > len(cs.sites) {
		cs.sites = append(cs.sites, pc)
	} else {
		if d <= cs.mark && !b.siteSaved {
			m.frameUndo = append(m.frameUndo, fword{at: siteOf, d: d, v: int64(cs.sites[d-1])})
			b.siteSaved = true
		}
		cs.sites[d-1] = pc
	}
	caller := th.Frame
	cs.depth = d
	th.Frame, th.saved = b.words[:n], b.bits
	if d > cs.mark {
		copy(th.Frame, fn.Frame)
		copy(th.Frame[:fn.NumParams], caller[in.B:])
	} else {
		for s := range int32(n) {
			v := fn.Frame[s]
			if int(s) < fn.NumParams {
				v = caller[in.B+s]
			}
			if th.Frame[s] != v {
				m.setSlot(th, s, v)
			}
		}
	}
	th.PC = fn.Entry
	return false
}

// ret performs the ir.OpRet in of th: it pops the current frame, writes
// the returned value to the call's result slot in the caller's frame and
// moves th past the call. It returns true if it failed (a return outside
// any function), with th.fail set.
func (m *Machine) ret(th *Thread, pc int32, in ir.Instr) bool {
	cs := th.calls
	if cs == nil || cs.depth == 0 {
		th.fail = failure{StopRuntimeError, pc, "return outside a function"}
		return true
	}
	d := cs.depth
	v := th.Frame[in.A]
	site := cs.sites[d-1]
	d--
	cs.depth = d
	cs.low = min(cs.low, d)
	if th.spin.at != 0 && th.spin.depth > d {
		// Leaving the frame of the loop the thread last passed the head
		// of: its next arrival there (in another call) is no iteration of
		// that loop, so it starts afresh (see "Spin loops wait").
		m.auxSave()
		th.spin.at = 0
	}
	if d == 0 {
		th.Frame, th.saved = cs.base, cs.baseSaved
	} else {
		fn := &th.Body.Funcs[th.Body.Code[cs.sites[d-1]].C]
		b := &cs.bufs[d-1]
		th.Frame, th.saved = b.words[:len(fn.Frame)], b.bits
	}
	m.setSlot(th, th.Body.Code[site].A, v)
	th.PC = site + 1
	return false
}

// endStep clears the bits of the frame words the step that ends saved
// (log is its part of the frame undo log), of the call records it logged
// and of the frames it pushed above the mark.
func (th *Thread) endStep(log []fword) {
	if th.calls != nil {
		th.endCallStep(log)
		return
	}
	sv := th.saved // every word is the body's
	for i := range log {
		sv[uint32(log[i].at)>>6] = 0
	}
}

// endCallStep is endStep for a thread with a call stack.
func (th *Thread) endCallStep(log []fword) {
	cs := th.calls
	for _, w := range log {
		if w.at >= 0 {
			_, bits := th.frameAt(w.d)
			bits[uint32(w.at)>>6] = 0
		} else if w.at == siteOf {
			cs.bufs[w.d-1].siteSaved = false
		}
	}
	for d := cs.mark + 1; d <= cs.hi; d++ {
		clear(cs.bufs[d-1].bits)
	}
	cs.hi = cs.mark
}

// created ends the creation of th (a declared thread, or a spawned child,
// whose words were all marked saved): it clears every bit.
func (th *Thread) created() {
	_, bits := th.frameAt(0)
	clear(bits)
	th.endStep(nil)
}

// undoFrames writes back the frame words and call records of log (the
// frame undo log of the step being undone), last first, and returns th to
// the depth and the mark it had before the step.
func (th *Thread) undoFrames(log []fword) {
	if th.calls != nil {
		th.undoCallFrames(log)
		return
	}
	f := th.Frame // every word is the body's
	for i := len(log) - 1; i >= 0; i-- {
		f[log[i].at] = log[i].v
	}
}

// undoCallFrames is undoFrames for a thread with a call stack.
func (th *Thread) undoCallFrames(log []fword) {
	var d, mark int32
	for i := len(log) - 1; i >= 0; i-- {
		switch w := log[i]; w.at {
		case siteOf:
			th.calls.sites[w.d-1] = int32(w.v)
		case stepStart:
			d, mark = w.d, int32(w.v)
		default:
			words, _ := th.frameAt(w.d)
			words[w.at] = w.v
		}
	}
	th.setDepth(d)
	th.calls.mark, th.calls.hi = mark, mark
}
