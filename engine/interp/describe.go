package interp

import (
	"strconv"

	"weft/engine/ir"
)

// describeSync says in words what a step of language version 2 did (see
// DescribeEvent): a choose, a trylock, a wait, a wake-up, a signal or a
// broadcast.
func describeSync(prog *ir.Program, m *Machine, ev *Event, name func(int32) string, threadName func(int32) string) string {
	switch ev.Kind {
	case ir.EvChoose:
		if ev.Stop != NoStop {
			return "choose"
		}
		if v := chooseTarget(m, ev); v != "" {
			return "choose " + v + " = " + strconv.FormatInt(ev.Value, 10)
		}
		return "choose " + strconv.FormatInt(ev.Value, 10)
	case ir.EvTrylock:
		if ev.Stop != NoStop {
			return "trylock(" + name(ev.Loc) + ")"
		}
		return "trylock(" + name(ev.Loc) + ") = " + strconv.FormatBool(ev.Value != 0)
	case ir.EvWait:
		// The mutex is in the step's accesses: the thread's frame now may
		// be another function's (a wait made inside a call).
		mx := "?"
		for _, a := range ev.Acc {
			if a.Loc != ev.Loc && int(a.Loc) < len(prog.Locations) && prog.Locations[a.Loc].Mutex {
				mx = name(a.Loc)
				break
			}
		}
		return "wait(" + name(ev.Loc) + ", " + mx + ")"
	case ir.EvWake:
		mx := "?"
		if len(ev.Acc) > 1 {
			mx = name(ev.Acc[1].Loc)
		}
		if ev.Waker < 0 {
			return "spurious wake-up from " + name(ev.Loc) + ", lock " + mx
		}
		return "wake from " + name(ev.Loc) + ", lock " + mx
	case ir.EvSignal:
		if ev.Value == 0 {
			return "signal(" + name(ev.Loc) + ") wakes nobody"
		}
		return "signal(" + name(ev.Loc) + ") wakes " + threadName(int32(ev.Value-1))
	case ir.EvBroadcast:
		if ev.Value == 0 {
			return "broadcast(" + name(ev.Loc) + ") wakes nobody"
		}
		return "broadcast(" + name(ev.Loc) + ") wakes " + strconv.FormatInt(ev.Value, 10)
	}
	return ev.Kind.String()
}

func threadOf(m *Machine, ev *Event) *Thread {
	if m == nil || ev.Thread < 0 || int(ev.Thread) >= len(m.Threads) {
		return nil
	}
	return m.Threads[ev.Thread]
}

// chooseTarget names the local a choose sets: the named local in its
// result slot, or the one the next instruction copies it to; "" if none.
func chooseTarget(m *Machine, ev *Event) string {
	th := threadOf(m, ev)
	if th == nil || int(ev.PC) >= len(th.Body.Code) {
		return ""
	}
	code := th.Body.Code
	slot := code[ev.PC].A
	if n := localNamed(th.Body, slot, ev.PC); n != "" {
		return n
	}
	if next := ev.PC + 1; int(next) < len(code) && code[next].Op == ir.OpMov && code[next].B == slot {
		return localNamed(th.Body, code[next].A, next)
	}
	return ""
}

// localNamed is the name of the scalar local of b in slot at pc, or "".
func localNamed(b *ir.Body, slot, pc int32) string {
	var at int
	if int(pc) < len(b.Ranges) {
		at = b.Ranges[pc].Start.Offset
	}
	locals := b.Locals
	for _, f := range b.Funcs { // a function's code has its own frame
		if pc >= f.Entry && pc < f.End {
			locals = f.Locals
		}
	}
	for _, lv := range locals {
		if lv.Slot == int(slot) && lv.Size == 1 && len(lv.Dims) == 0 && at >= lv.Scope.Start.Offset && at <= lv.Scope.End.Offset {
			return lv.Name
		}
	}
	return ""
}
