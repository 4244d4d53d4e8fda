package interp

import (
	"strconv"

	"weft/engine/ir"
)

// Alternatives
//
// Some steps have several outcomes, each of which an exploration must
// try: a choose takes any value of its range, a signal wakes any one of
// the threads waiting on its condition variable. Alternatives says how
// many outcomes thread t's next step has, StepAlt makes it with outcome
// alt (0 ≤ alt < Alternatives), and Event.Alt records which; Step is
// StepAlt with alternative 0. Every other step has one alternative. The
// alternatives of a step touch the same locations the same way (the same
// ir.Footprint), which is what lets an exploration treat them as one step
// of the thread for dependence, sleep sets and races.

// MaxChoose bounds the number of values of a choose: a larger range is a
// runtime error (large domains are for a symbolic mode).
const MaxChoose = 1 << 16

// Alternatives is the number of outcomes of thread t's next step (at
// least 1): the values of a choose, the waiters a signal may wake.
func (m *Machine) Alternatives(t int) int {
	th := m.Threads[t]
	if th.Status != Ready {
		return 1
	}
	in := th.Body.Code[th.PC]
	switch in.Op {
	case ir.OpChoose:
		if n, ok := chooseRange(th.Frame[in.B], th.Frame[in.C]); ok {
			return n
		}
	case ir.OpSignal:
		return max(1, m.countWaiters(int32(th.Frame[in.B])))
	}
	return 1
}

// Choosing reports whether thread t stands at a choose whose range is
// valid: its step touches nothing and nothing can disable it, so an
// exploration may take it first, alone (with each of its alternatives).
func (m *Machine) Choosing(t int) bool {
	th := m.Threads[t]
	if th.Status != Ready {
		return false
	}
	in := th.Body.Code[th.PC]
	if in.Op != ir.OpChoose {
		return false
	}
	_, ok := chooseRange(th.Frame[in.B], th.Frame[in.C])
	return ok
}

// chooseRange is the number of values of [lo, hi), and whether it is a
// valid range (1 to MaxChoose values).
func chooseRange(lo, hi int64) (int, bool) {
	if hi <= lo {
		return 0, false
	}
	n := uint64(hi) - uint64(lo) // hi > lo: no overflow in uint64
	if n > MaxChoose {
		return 0, false
	}
	return int(n), true
}

// stepChoose makes th's choose with value lo+alt.
func (m *Machine) stepChoose(th *Thread, in ir.Instr, alt int, ev *Event) bool {
	lo, hi := th.Frame[in.B], th.Frame[in.C]
	ev.Kind = ir.EvChoose
	if hi <= lo {
		ev.Stop, ev.Message = StopRuntimeError, "choose over the empty range "+strconv.FormatInt(lo, 10)+".."+strconv.FormatInt(hi, 10)
		return false
	}
	if _, ok := chooseRange(lo, hi); !ok {
		ev.Stop, ev.Message = StopRuntimeError, "choose over "+strconv.FormatUint(uint64(hi)-uint64(lo), 10)+" values, more than "+strconv.Itoa(MaxChoose)
		return false
	}
	v := lo + int64(alt)
	ev.Value = v
	m.setSlot(th, in.A, v)
	return true
}

// stepTrylock makes thread t's trylock: it takes the mutex if it is free.
// Trying a mutex the thread holds is a runtime error, as locking it is.
func (m *Machine) stepTrylock(t int, th *Thread, in ir.Instr, ev *Event) bool {
	loc := int32(th.Frame[in.B])
	ev.Kind, ev.Loc = ir.EvTrylock, loc
	switch m.Mem[loc] {
	case int64(t) + 1:
		ev.Stop, ev.Message = StopRuntimeError, "trylock of mutex "+m.Prog.Locations[loc].Name+" already held by this thread"
		return false
	case 0:
		m.write(loc, int64(t)+1)
		ev.Value = 1
	}
	m.setSlot(th, in.A, ev.Value)
	return true
}
