package interp

import (
	"weft/engine/ir"
)

// Condition variables
//
// A condition variable's word of shared memory holds the number of
// threads waiting on it and not yet woken. wait (ir.OpWait) releases the
// mutex, counts the thread in and leaves it at its ir.OpWake, which is
// not enabled until the thread has been woken (or at any time with
// Machine.SpuriousWakeups) and the mutex is free; then it takes the mutex.
// signal wakes one waiter: with n waiters it has n alternatives, the i-th
// waking the i-th waiter in thread order; with none it does nothing (the
// signal is lost). broadcast wakes them all. A spurious wake-up counts the
// thread out itself.
//
// Which thread is waiting and who woke it is per thread (condState); a
// signal changes other threads' records, so it logs them in
// Machine.wokeUndo, which Undo replays backwards.

// condState is a thread's part in a condition variable.
type condState struct {
	waiting bool  // it waits and has not been woken
	waker   int32 // 1 + the index of the step that woke it; 0: none
}

// wokeRec is a thread's condState before a signal or broadcast woke it.
type wokeRec struct {
	thread int32
	old    condState
}

// Waiting reports whether thread t waits on a condition variable and has
// not been woken.
func (m *Machine) Waiting(t int) bool { return m.Threads[t].cond.waiting }

// waiters appends to out the threads waiting on the condition variable at
// cv and not yet woken, in thread order.
func (m *Machine) waiters(cv int32, out []int32) []int32 {
	for i, th := range m.Threads {
		if th.cond.waiting && m.waitsOn(th) == cv {
			out = append(out, int32(i))
		}
	}
	return out
}

func (m *Machine) countWaiters(cv int32) int {
	n := 0
	for _, th := range m.Threads {
		if th.cond.waiting && m.waitsOn(th) == cv {
			n++
		}
	}
	return n
}

// waitsOn is the condition variable of th's OpWake, or -1.
func (m *Machine) waitsOn(th *Thread) int32 {
	if th.Status != Ready {
		return -1
	}
	if in := th.Body.Code[th.PC]; in.Op == ir.OpWake {
		return int32(th.Frame[in.B])
	}
	return -1
}

// wakeEnabled reports whether thread t, at the ir.OpWake in, can wake up.
func (m *Machine) wakeEnabled(th *Thread, in ir.Instr) bool {
	return (!th.cond.waiting || m.SpuriousWakeups) && m.Mem[th.Frame[in.A]] == 0
}

// stepWait makes thread t's wait on a condition variable.
func (m *Machine) stepWait(t int, th *Thread, in ir.Instr, ev *Event) bool {
	mx, cv := int32(th.Frame[in.A]), int32(th.Frame[in.B])
	ev.Kind, ev.Loc = ir.EvWait, cv
	if o := m.Mem[mx]; o != int64(t)+1 {
		msg := "wait on " + m.Prog.Locations[cv].Name + " without holding mutex " + m.Prog.Locations[mx].Name
		if o > 0 && int(o) <= len(m.Threads) {
			msg += " (held by " + m.Threads[o-1].Name + ")"
		}
		ev.Stop, ev.Message = StopRuntimeError, msg
		return false
	}
	m.auxSave()
	m.write(mx, 0)
	n := m.Mem[cv] + 1
	m.write(cv, n)
	th.cond = condState{waiting: true}
	ev.Value = n
	ev.Acc = append(ev.Acc, ir.Access{Loc: mx, Write: true}, ir.Access{Loc: cv, Write: true, Value: n})
	return true
}

// stepWake makes thread t's wake-up: it takes the mutex back; if nothing
// woke it (a spurious wake-up), it counts itself out of the waiters.
func (m *Machine) stepWake(t int, th *Thread, in ir.Instr, ev *Event) bool {
	mx, cv := int32(th.Frame[in.A]), int32(th.Frame[in.B])
	ev.Kind, ev.Loc = ir.EvWake, cv
	m.auxSave()
	spurious := th.cond.waiting
	if spurious {
		m.write(cv, m.Mem[cv]-1)
	}
	ev.Waker = th.cond.waker - 1
	ev.Value = m.Mem[cv]
	m.write(mx, int64(t)+1)
	ev.Acc = append(ev.Acc, ir.Access{Loc: cv, Write: spurious, Value: m.Mem[cv]}, ir.Access{Loc: mx, Write: true, Value: int64(t) + 1})
	th.cond = condState{}
	return true
}

// stepSignal makes th's signal (alternative alt: which waiter it wakes)
// or broadcast.
func (m *Machine) stepSignal(th *Thread, in ir.Instr, alt int, ev *Event) {
	cv := int32(th.Frame[in.B])
	ev.Loc = cv
	m.waitBuf = m.waiters(cv, m.waitBuf[:0])
	ws := m.waitBuf
	if in.Op == ir.OpBroadcast {
		ev.Kind = ir.EvBroadcast
		ev.Value = int64(len(ws))
	} else {
		ev.Kind = ir.EvSignal
		if len(ws) > 0 {
			ws = ws[alt : alt+1]
			ev.Value = int64(ws[0]) + 1
		}
	}
	if len(ws) == 0 {
		return
	}
	m.auxSave()
	step := int32(len(m.undo)) // this step's index (its undo record comes next)
	for _, w := range ws {
		wt := m.Threads[w]
		m.wokeUndo = append(m.wokeUndo, wokeRec{w, wt.cond})
		wt.cond = condState{waker: step + 1}
	}
	m.write(cv, m.Mem[cv]-int64(len(ws)))
}
