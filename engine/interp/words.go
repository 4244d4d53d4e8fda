package interp

import (
	"strconv"
	"strings"

	"weft/engine/ir"
)

// Steps and values in words, for traces and replays.

// DescribeEvent says what a step did, in words: "read c → 1", "write c = 1",
// "lock mx[2]", "spawn worker#1", "join worker#0", "atomic: read x → 0,
// write x = 1", "choose v = 3", "trylock(m) = true", "wait(cv, m)",
// "wake from cv, lock m", "signal(cv) wakes consumer", "broadcast(cv) wakes
// 2", "assertion failed: …".
func DescribeEvent(prog *ir.Program, m *Machine, ev *Event) string {
	name := func(loc int32) string {
		if loc >= 0 && int(loc) < len(prog.Locations) {
			return prog.Locations[loc].Name
		}
		return "?"
	}
	value := func(loc int32, v int64) string { return formatValue(prog, m, loc, v) }
	threadName := func(t int32) string {
		if t >= 0 && int(t) < len(m.Threads) {
			return m.Threads[t].Name
		}
		return "thread " + strconv.Itoa(int(t)+1)
	}
	var s string
	switch ev.Kind {
	case ir.EvRead:
		s = "read " + name(ev.Loc) + " → " + value(ev.Loc, ev.Value)
	case ir.EvWrite:
		s = "write " + name(ev.Loc) + " = " + value(ev.Loc, ev.Value)
	case ir.EvLock:
		s = "lock " + name(ev.Loc)
	case ir.EvUnlock:
		s = "unlock " + name(ev.Loc)
	case ir.EvSpawn:
		s = "spawn " + threadName(ev.Loc)
	case ir.EvJoin:
		s = "join " + threadName(ev.Loc)
	case ir.EvAtomic:
		parts := make([]string, 0, len(ev.Acc))
		for _, a := range ev.Acc {
			if a.Write {
				parts = append(parts, "write "+name(a.Loc)+" = "+value(a.Loc, a.Value))
			} else {
				parts = append(parts, "read "+name(a.Loc)+" → "+value(a.Loc, a.Value))
			}
		}
		s = "atomic"
		if len(parts) > 0 {
			s += ": " + strings.Join(parts, ", ")
		}
	case ir.EvStop:
		s = ""
	case ir.EvChoose, ir.EvTrylock, ir.EvWait, ir.EvWake, ir.EvSignal, ir.EvBroadcast:
		s = describeSync(prog, m, ev, name, threadName)
	}
	switch ev.Stop {
	case StopAssertion:
		s = joinWords(s, "assertion failed: "+ev.Message)
	case StopAssume:
		s = joinWords(s, "assume failed")
	case StopRuntimeError:
		s = joinWords(s, "runtime error: "+ev.Message)
	case StopStepBound, StopMemory:
		s = joinWords(s, ev.Message)
	}
	return s
}

func joinWords(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// FormatValue renders the value v of shared location loc as traces show
// it: "true", "free", "held by t1", "worker#0", "3".
func FormatValue(prog *ir.Program, m *Machine, loc int32, v int64) string {
	return formatValue(prog, m, loc, v)
}

func formatValue(prog *ir.Program, m *Machine, loc int32, v int64) string {
	if loc >= 0 && int(loc) < len(prog.Locations) {
		l := prog.Locations[loc]
		if l.Mutex {
			return formatMutex(m, v)
		}
		return formatWord(m, l.Bool, l.Tid, v)
	}
	return strconv.FormatInt(v, 10)
}

// formatMutex renders a mutex's word (its owner's index plus one, 0 when
// free): "free", "held by t1".
func formatMutex(m *Machine, v int64) string {
	switch {
	case v == 0:
		return "free"
	case m != nil && v > 0 && int(v) <= len(m.Threads):
		return "held by " + m.Threads[v-1].Name
	}
	return "held by thread " + strconv.FormatInt(v, 10)
}

// formatWord renders one word as a bool, a thread handle or an integer.
func formatWord(m *Machine, isBool, isTid bool, v int64) string {
	switch {
	case isBool:
		return strconv.FormatBool(v != 0)
	case isTid:
		if v == 0 {
			return "no thread"
		}
		if m != nil && v > 0 && int(v) <= len(m.Threads) {
			return m.Threads[v-1].Name
		}
	}
	return strconv.FormatInt(v, 10)
}

// FormatWords renders size words of shared memory from offset (an array
// with dims, or a scalar) for display: "3", "{0, 7, 7}", "{{1, 2}, {3, 4}}",
// "free" and "held by t1" for a mutex. An array of more than limit
// elements shows its first limit elements and how many more there are
// ("{0, 0, … 998 more}"); limit 0 shows every element.
func FormatWords(prog *ir.Program, m *Machine, offset, size int, dims []int, limit int) string {
	words := m.Mem[offset : offset+size]
	return formatNested(words, dims, limit, func(i int, v int64) string {
		return formatValue(prog, m, int32(offset+i), v)
	})
}

// FormatLocal renders a local variable of a thread's body (one of
// Body.Locals, in the body's own frame even while the thread runs a
// function), eliding arrays of more than limit elements as FormatWords
// does.
func FormatLocal(m *Machine, th *Thread, lv ir.LocalVar, limit int) string {
	return FormatFrameLocal(m, th.BaseFrame(), lv, limit)
}

// FormatFrameLocal renders a local variable of frame: a function's local
// (one of ir.Func.Locals) in its CallFrame.Frame, or a body's in
// Thread.BaseFrame.
func FormatFrameLocal(m *Machine, frame []int64, lv ir.LocalVar, limit int) string {
	if lv.Slot < 0 || lv.Slot+lv.Size > len(frame) {
		return "?"
	}
	words := frame[lv.Slot : lv.Slot+lv.Size]
	return formatNested(words, lv.Dims, limit, func(_ int, v int64) string {
		return formatWord(m, lv.Bool, lv.Tid, v)
	})
}

func formatNested(words []int64, dims []int, limit int, elem func(int, int64) string) string {
	if len(dims) == 0 {
		if len(words) == 0 {
			return "?"
		}
		return elem(0, words[0])
	}
	var sb strings.Builder
	shown, elided := 0, false
	var rec func(lo int, d int)
	rec = func(lo int, d int) {
		sb.WriteByte('{')
		stride := 1
		for _, n := range dims[d+1:] {
			stride *= n
		}
		for i := 0; i < dims[d]; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			if limit > 0 && shown >= limit {
				sb.WriteString("… " + strconv.Itoa(len(words)-shown) + " more")
				elided = true
				break
			}
			if d == len(dims)-1 {
				sb.WriteString(elem(lo+i, words[lo+i]))
				shown++
			} else {
				rec(lo+i*stride, d+1)
				if elided {
					break
				}
			}
		}
		sb.WriteByte('}')
	}
	rec(0, 0)
	return sb.String()
}
