package access

import (
	"fmt"
	"strconv"
	"strings"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// StepKind is the kind of a visible step.
type StepKind uint8

// The kinds of visible steps.
const (
	Read   StepKind = iota // a read of a shared word
	Write                  // a write of a shared word
	Lock                   // lock(m)
	Unlock                 // unlock(m)
	Spawn                  // spawn P(…)
	Join                   // join t
	Atomic                 // a whole atomic block
	// Language version 2.
	Choose    // choose LO..HI: touches nothing
	Trylock   // trylock(m): writes m, whether it takes it or not
	Wait      // wait(cv, m), first step: releases m, waits on cv (writes both)
	Wake      // wait(cv, m), second step: wakes up from cv, locks m again (writes both)
	Signal    // signal(cv): writes cv
	Broadcast // broadcast(cv): writes cv
	// Call is a function call: not a step of its own but every step the
	// function (and those it calls) may make, summed up (see Step).
	Call
)

var stepKindNames = [...]string{
	Read: "read", Write: "write", Lock: "lock", Unlock: "unlock",
	Spawn: "spawn", Join: "join", Atomic: "atomic",
	Choose: "choose", Trylock: "trylock", Wait: "wait", Wake: "wake",
	Signal: "signal", Broadcast: "broadcast", Call: "call",
}

func (k StepKind) String() string {
	if int(k) < len(stepKindNames) {
		return stepKindNames[k]
	}
	return "step(" + strconv.Itoa(int(k)) + ")"
}

// Loc is a set of shared words that a step may access, as the source
// names it.
type Loc struct {
	// Var is the shared variable the words belong to; nil if the analysis
	// could not tell (Name is then "?": any word of shared memory).
	Var *analysis.Object
	// Name is "c" for a scalar, "a[2]" for a constant index, "x[w]" for an
	// index fixed by the thread index of a thread array, "a[*]" where an
	// index is computed at run time.
	Name string
	// Lo and Hi bound the words, offsets in shared memory: [Lo, Hi) holds
	// every word any instance may access (empty when none can: every
	// instance's index is out of range).
	Lo, Hi int32
	// Exact says that each instance of the thread accesses exactly one
	// word; then two exact Locs of one instance denote the same word when
	// they overlap.
	Exact bool
	// PerInstance says that the word depends on the instance of a thread
	// array (x[w]): instances of the array touch different words.
	PerInstance bool

	inst []span // per evaluation row of the body (nil: the same in every row)
}

// span is a range [lo, hi) of words; empty when lo >= hi.
type span struct{ lo, hi int32 }

func (s span) empty() bool          { return s.lo >= s.hi }
func (s span) overlaps(t span) bool { return s.lo < t.hi && t.lo < s.hi && !s.empty() && !t.empty() }
func (l *Loc) hull() span           { return span{l.Lo, l.Hi} }

// rowSpan is the words the access may touch in evaluation row r of its
// body.
func (l *Loc) rowSpan(r int) span {
	if l.inst == nil {
		return span{l.Lo, l.Hi}
	}
	return l.inst[r]
}

func (l Loc) String() string { return l.Name }

// Step is one visible step of a statement: one instruction of the
// lowered body; or, of kind Call, a function call standing for every step
// the function may make.
type Step struct {
	Kind StepKind
	// Range is what the step comes from: the expression read or written,
	// the mutex of a lock or trylock, the spawn, the choose, the call, the
	// whole join, wait, signal or broadcast statement or atomic block.
	Range source.Range
	// PC is the step's instruction in its body (ir.Body.Code): an event
	// of the engine at this pc is this step. A Call's PC is its OpCall,
	// which no event has: the function's steps are events at the pcs of
	// its code in the body (the statements of the function's body, see
	// Statement.Func).
	PC int
	// Reads and Writes are the words the step may read and write (for an
	// atomic block, every access inside it; for a call, every word the
	// steps of the functions it may reach read and write).
	Reads, Writes []Loc
	// Mutex is the mutex of a lock, an unlock, a trylock, a wait or a
	// wake.
	Mutex Loc
	// Cond is the condition variable of a wait, a wake, a signal or a
	// broadcast.
	Cond Loc
	// Proc is the proc a spawn starts.
	Proc *analysis.Object
	// Joins are the threads a join (or the joins of a call) may wait for;
	// JoinsAny says it may wait for a thread the analysis cannot name (a
	// handle read from shared memory or passed as a parameter).
	Joins    []ThreadSet
	JoinsAny bool
	// Stable says, of an atomic block, that the words it accesses do not
	// depend on what it reads (ir.AtomicFootprint.Stable). For an
	// unstable block, Reads and Writes are everything it may access, as
	// the engine's dependence takes it.
	Stable bool
	// Func is the function a call calls. Sync lists the mutexes and
	// condition variables the steps of a call may use (lock, unlock,
	// trylock, wait, signal, broadcast), each once; Spawns the procs it
	// may spawn.
	Func   *analysis.Object
	Sync   []Loc
	Spawns []*analysis.Object

	// inner are the steps a call stands for: those of the statements of
	// every function it may reach (in the same body).
	inner []stepRef
}

func (s *Step) String() string {
	var b strings.Builder
	b.WriteString(s.Kind.String())
	switch s.Kind {
	case Read:
		writeLocs(&b, " ", s.Reads)
	case Write:
		writeLocs(&b, " ", s.Writes)
	case Lock, Unlock, Trylock:
		b.WriteString(" " + s.Mutex.Name)
	case Wait, Wake:
		b.WriteString(" " + s.Cond.Name + ", " + s.Mutex.Name)
	case Signal, Broadcast:
		b.WriteString(" " + s.Cond.Name)
	case Spawn:
		if s.Proc != nil {
			b.WriteString(" " + s.Proc.Name)
		}
	case Join:
		var names []string
		for _, t := range s.Joins {
			names = append(names, t.String())
		}
		if s.JoinsAny {
			names = append(names, "any thread")
		}
		b.WriteString(" " + strings.Join(names, ", "))
	case Atomic:
		if len(s.Reads) > 0 {
			writeLocs(&b, " reads ", s.Reads)
		}
		if len(s.Writes) > 0 {
			writeLocs(&b, " writes ", s.Writes)
		}
		if !s.Stable {
			b.WriteString(" (unstable)")
		}
	case Call:
		if s.Func != nil {
			b.WriteString(" " + s.Func.Name)
		}
		if len(s.Reads) > 0 {
			writeLocs(&b, " reads ", s.Reads)
		}
		if len(s.Writes) > 0 {
			writeLocs(&b, " writes ", s.Writes)
		}
		if len(s.Sync) > 0 {
			writeLocs(&b, " uses ", s.Sync)
		}
		for i, p := range s.Spawns {
			if i == 0 {
				b.WriteString(" spawns ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(p.Name)
		}
		if len(s.Joins) > 0 || s.JoinsAny {
			var names []string
			for _, t := range s.Joins {
				names = append(names, t.String())
			}
			if s.JoinsAny {
				names = append(names, "any thread")
			}
			b.WriteString(" joins " + strings.Join(names, ", "))
		}
	}
	return b.String()
}

func writeLocs(b *strings.Builder, prefix string, locs []Loc) {
	b.WriteString(prefix)
	for i, l := range locs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(l.Name)
	}
}

// Statement is a statement of a thread or proc body that makes visible
// steps (for a loop or an if, its header: the condition, or a for loop's
// bounds), or the end of a body. A statement of a function's body is one
// Statement per thread or proc body that calls the function (directly or
// not): each such body holds a copy of the function's code
// (ir.Body.Funcs), and its steps are events of that body's threads.
type Statement struct {
	// Range is the statement's (a header's for a loop or an if; the
	// closing brace for the end of a body).
	Range source.Range
	// Owner is the thread declaration or proc whose body holds it, or
	// whose body calls the function that holds it.
	Owner *analysis.Object
	// Func is the function whose body holds the statement (nil for a
	// statement of a thread or proc body).
	Func *analysis.Object
	// Node is the statement (the whole loop or if for a header); nil for
	// the end of a body, and where the analysis could not match the code
	// to the syntax (then Steps' ranges are the statement's).
	Node grammar.Node
	// End says that this is the end of the body, where the thread
	// finishes: what a join waits for.
	End   bool
	Steps []Step

	b    *body
	recs []*rec // the accesses of its steps
}

// Reads returns the words the statement's steps may read, each name
// once, in step order.
func (st *Statement) Reads() []Loc { return st.locs(func(s *Step) []Loc { return s.Reads }) }

// Writes returns the words the statement's steps may write, each name
// once, in step order.
func (st *Statement) Writes() []Loc { return st.locs(func(s *Step) []Loc { return s.Writes }) }

func (st *Statement) locs(of func(*Step) []Loc) []Loc {
	var out []Loc
	seen := map[string]bool{}
	for i := range st.Steps {
		for _, l := range of(&st.Steps[i]) {
			if !seen[l.Name] {
				seen[l.Name] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// String is "owner line:col: steps", 1-based, for tests and logs
// ("owner via f line:col: steps" for a statement of function f).
func (st *Statement) String() string {
	if st.Owner == nil {
		return st.where()
	}
	if st.Func != nil {
		return st.Owner.Name + " via " + st.Func.Name + " " + st.where()
	}
	return st.Owner.Name + " " + st.where()
}

// where is "line:col: steps".
func (st *Statement) where() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d", st.Range.Start.Line+1, st.Range.Start.Col+1)
	if st.End {
		b.WriteString(": end")
	}
	for i := range st.Steps {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(st.Steps[i].String())
	}
	return b.String()
}

// ThreadSet is some of the threads that run one body: instances of a
// declared thread (array), or the threads spawned to run a proc.
type ThreadSet struct {
	Owner *analysis.Object // a thread declaration or a proc
	// Instances are the instances of a declared thread, in index order;
	// nil for a proc. The slice may be shared with the program: do not
	// modify it.
	Instances []*analysis.ThreadInstance
}

// String is "master", "writer[1]", "writer[0..3]" (half-open, as in the
// language: writer[0], writer[1], writer[2]), "writer[0], writer[2]", or
// "spawned worker" for a proc's threads.
func (ts ThreadSet) String() string {
	if ts.Owner == nil {
		return "?"
	}
	if ts.Owner.Kind == analysis.Proc {
		return "spawned " + ts.Owner.Name
	}
	if !ts.Owner.IsArray {
		return ts.Owner.Name
	}
	var parts []string
	in := ts.Instances
	for i := 0; i < len(in); {
		j := i + 1
		for j < len(in) && in[j].Index == in[j-1].Index+1 {
			j++
		}
		switch {
		case j-i >= 3:
			parts = append(parts, fmt.Sprintf("%s[%d..%d]", ts.Owner.Name, in[i].Index, in[j-1].Index+1))
		default:
			for k := i; k < j; k++ {
				parts = append(parts, in[k].Name)
			}
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

// Pair is a statement of another thread that a statement is dependent
// with.
type Pair struct {
	Other *Statement
	// Threads are the threads whose steps at Other are dependent with
	// the statement: other instances of the same thread array, or spawned
	// threads of a proc, when Other is in the same body.
	Threads ThreadSet
	// Reason says why, from the statement's side: "both write c",
	// "reads x, which it writes", "same mutex m", "waits for its end".
	// Several reasons are separated by "; ".
	Reason string
	// Condition is the condition under which the two statements commute
	// although their accesses may conflict (the independence constraints
	// of constrained DPOR). Empty means no condition is known: the pair is
	// always treated as dependent.
	Condition string
}

func (p Pair) String() string {
	s := p.Threads.String() + " " + p.Other.where() + " (" + p.Reason + ")"
	if p.Condition != "" {
		s += " unless " + p.Condition
	}
	return s
}

// Multiplicity says how many threads may run a body.
type Multiplicity uint8

// The multiplicities.
const (
	Never Multiplicity = iota // a proc that no reachable spawn starts
	Once
	Many
)

func (m Multiplicity) String() string {
	switch m {
	case Never:
		return "never"
	case Once:
		return "once"
	}
	return "many"
}

// VarAccess is one step that may access a shared variable.
type VarAccess struct {
	Statement *Statement
	Step      *Step
	Threads   ThreadSet // the threads that may make it
	Loc       Loc
	// Kind is Read or Write for a plain access or an atomic block's
	// (InAtomic); the step's kind for a mutex or a condition variable
	// (Lock, Unlock, Trylock, Wait, Wake, Signal, Broadcast).
	Kind     StepKind
	InAtomic bool // inside an atomic block
	// Held are the mutexes held at the access, by the static lockset
	// pass; those whose word is not known ("m[*]") are listed but protect
	// nothing in the Lockset.
	Held []Loc
}

// verb says what the access does to its Loc: "reads", "locks", "waits on"…
func (a VarAccess) verb() string {
	cond := a.Loc.Var != nil && analysis.ScalarOf(a.Loc.Var.Type) == analysis.Cond
	switch {
	case a.Kind == Wait && cond:
		return "waits on"
	case a.Kind == Wait:
		return "releases (waiting)"
	case a.Kind == Wake && cond:
		return "wakes up from"
	case a.Kind == Wake:
		return "locks again (woken)"
	case a.Kind == Broadcast:
		return "broadcasts"
	}
	return a.Kind.String() + "s"
}

func (a VarAccess) String() string {
	s := a.Threads.String() + " " + a.verb() + " " + a.Loc.Name
	if a.InAtomic {
		s += " in an atomic block"
	}
	if len(a.Held) > 0 {
		var names []string
		for _, h := range a.Held {
			names = append(names, h.Name)
		}
		s += " holding " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s at %d:%d", s, a.Statement.Range.Start.Line+1, a.Statement.Range.Start.Col+1)
}

// Variable is what the program does with a shared variable.
type Variable struct {
	Object *analysis.Object
	Atomic bool // declared atomic: its accesses never race
	Mutex  bool // a mutex (array): Accesses are its locks, unlocks, trylocks and what waits do with it
	// Cond says it is a condition variable (array): Accesses are the
	// waits, wake-ups, signals and broadcasts on it.
	Cond bool
	// Readers and Writers are the threads that may read and write it
	// (lock, unlock, trylock, wait for a mutex; wait, wake-up, signal,
	// broadcast for a condition variable: all count as writes), one
	// ThreadSet per body, in declaration order.
	Readers, Writers []ThreadSet
	// Accesses are every step that may access it, in source order.
	Accesses []VarAccess
	// Lockset holds the mutex words held at every access (not for a
	// mutex); empty: no common lock.
	Lockset []Loc
	// Elements holds, for an array of at most maxElementLocksets words,
	// each accessed word's own lockset (Eraser's, per word).
	Elements []ElementLockset
	// InAtomicBlocks says that every access is inside an atomic block.
	InAtomicBlocks bool
}

// ElementLockset is the lockset of one word of an array.
type ElementLockset struct {
	Loc     Loc
	Lockset []Loc
}

func (v *Variable) String() string {
	var b strings.Builder
	b.WriteString(v.Object.Name)
	if v.Atomic {
		b.WriteString(" (atomic)")
	}
	list := func(label string, ts []ThreadSet) {
		if len(ts) == 0 {
			return
		}
		var names []string
		for _, t := range ts {
			names = append(names, t.String())
		}
		b.WriteString("; " + label + " " + strings.Join(names, ", "))
	}
	if v.Mutex {
		list("locked by", v.Writers)
		return b.String()
	}
	if v.Cond {
		list("used by", v.Writers)
		return b.String()
	}
	list("read by", v.Readers)
	list("written by", v.Writers)
	if len(v.Accesses) == 0 {
		b.WriteString("; never accessed")
		return b.String()
	}
	b.WriteString("; lockset ")
	b.WriteString(locksetString(v.Lockset))
	if v.InAtomicBlocks {
		b.WriteString("; every access in an atomic block")
	}
	for _, e := range v.Elements {
		b.WriteString("; " + e.Loc.Name + ": " + locksetString(e.Lockset))
	}
	return b.String()
}

func locksetString(ls []Loc) string {
	if len(ls) == 0 {
		return "no common lock"
	}
	var names []string
	for _, l := range ls {
		names = append(names, l.Name)
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// Thread is what a thread declaration or a proc does as a thread.
type Thread struct {
	Object *analysis.Object
	// Instances are a declared thread's instances (nil for a proc).
	Instances []*analysis.ThreadInstance
	// Runs says how many threads run the body: a declared thread runs once
	// per instance; a proc as often as the spawns that start it (Many if
	// one is in a loop or in a body that runs more than once).
	Runs Multiplicity
	// SpawnedBy are the spawns of this proc in reachable code.
	SpawnedBy []*Statement
	// Spawns and Joins are the statements of its body that spawn and join.
	Spawns, Joins []*Statement
	// JoinedBy are the statements that may join one of its threads.
	JoinedBy []*Statement
	// End is the end of its body (nil when it has no instances).
	End *Statement
}

func (t *Thread) String() string {
	var b strings.Builder
	b.WriteString(t.Object.Name)
	if t.Object.Kind == analysis.Proc {
		b.WriteString(": proc, runs " + t.Runs.String())
	} else {
		fmt.Fprintf(&b, ": %d instance", len(t.Instances))
		if len(t.Instances) != 1 {
			b.WriteString("s")
		}
	}
	stmts := func(label string, sts []*Statement) {
		if len(sts) == 0 {
			return
		}
		var parts []string
		for _, st := range sts {
			parts = append(parts, fmt.Sprintf("%d:%d", st.Range.Start.Line+1, st.Range.Start.Col+1))
		}
		b.WriteString("; " + label + " " + strings.Join(parts, ", "))
	}
	stmts("spawned at", t.SpawnedBy)
	stmts("spawns at", t.Spawns)
	stmts("joins at", t.Joins)
	stmts("joined at", t.JoinedBy)
	return b.String()
}
