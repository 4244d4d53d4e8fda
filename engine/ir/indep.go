package ir

// Independence constraints
//
// An independence constraint (CDPOR, Albert et al.) is a condition on a
// state under which two steps of different threads commute: run in
// either order from that state they reach the same state. The engine's
// CDPOR mode evaluates them on the state in which the two steps are
// adjacent, and skips reversing a race (and records the two steps as
// independent) when one holds there and no other live thread may write
// what it reads (Constraints.Writes).
//
// The constraints come from the front end (analysis/indep: syntactic
// rules and SMT synthesis) as this table, keyed by the sites of the two
// steps. The engine knows some conditions of its own and needs no table
// for them: two single writes of one word commute when they write the
// same value; a single read and a single write of one word, when the word
// already holds the value written.

// Site names what a step executes: the body and the pc of its visible
// instruction (an atomic block's OpAtomic). Every instance of a thread
// array and every spawned thread running one proc share the sites of
// their body.
type Site struct{ Body, PC int32 }

// COp is an operator of a constraint expression.
type COp uint8

// The operators of CExpr. Arithmetic wraps as the interpreter's does;
// comparisons and logical operators give 0 or 1.
const (
	CConst  COp = iota // Value
	CLocal             // slot Slot of the innermost frame of the thread of side Side
	CShared            // the shared word Loc (+ the value of Args[0] when Len > 0: an element of an array of Len words; out of range makes the constraint false)
	CAdd
	CSub
	CMul
	CNeg
	CEq
	CNe
	CLt
	CLe
	CGt
	CGe
	CAnd
	COr
	CNot
)

// CExpr is an expression of a constraint over the state in which the two
// steps of a pair are both about to run: shared memory, and the frames of
// the two threads (side 0 runs the first site of the pair, side 1 the
// second).
type CExpr struct {
	Op    COp
	Side  uint8
	Slot  int32
	Loc   int32
	Len   int32
	Value int64
	Args  []CExpr
}

// Constraint is one independence constraint of a pair of sites.
type Constraint struct {
	Cond CExpr
	// Reads is G(C): the shared words the condition reads (whole
	// variables when an index is not constant). The engine uses a
	// constraint only when no other live thread may write any of them.
	Reads []LocRange
	// Origin says where it came from ("smt", OriginSMTNoOverflow, or the
	// syntactic rule), Text is the condition in Weft syntax, for
	// statistics and messages.
	Origin, Text string
}

// OriginSMTNoOverflow is the Origin of a condition synthesised over
// unbounded integers: it holds only if no arithmetic of the two steps
// overflows. An exploration that merged a pair of steps on such a
// condition rests on that assumption (engine.AssumeNoOverflow).
const OriginSMTNoOverflow = "smt, assuming no overflow"

// Constraints is what the engine's CDPOR mode is given.
type Constraints struct {
	// Pairs holds, for an ordered pair of sites (a, b), the constraints
	// under which a step at a (side 0) and a step at b (side 1) of
	// different threads commute. Add keeps the two orders in step.
	Pairs map[[2]Site][]Constraint
	// Writes is W: for a thread standing at a site, every shared word it
	// or any thread it spawns (transitively) may write from there on,
	// that step included. A site missing from the map may write anything.
	Writes map[Site][]LocRange
	// RaceFree says that no shared word is ever accessed outside atomic
	// code unless it is an atomic variable: no data race can exist. Only
	// then may steps that synchronise (atomic blocks, accesses of atomic
	// variables) be taken as independent: their order decides which
	// write an atomic read synchronises with, and so which plain accesses
	// happen before which, and a data race that only one order shows
	// would be lost with the other order.
	RaceFree bool
}

// Add records that steps at a and b commute when c holds, under both
// orders of the pair.
func (cs *Constraints) Add(a, b Site, c Constraint) {
	if cs.Pairs == nil {
		cs.Pairs = map[[2]Site][]Constraint{}
	}
	cs.Pairs[[2]Site{a, b}] = append(cs.Pairs[[2]Site{a, b}], c)
	if a != b {
		sw := c
		sw.Cond = c.Cond.swapSides()
		cs.Pairs[[2]Site{b, a}] = append(cs.Pairs[[2]Site{b, a}], sw)
	}
}

func (e CExpr) swapSides() CExpr {
	if e.Op == CLocal {
		e.Side = 1 - e.Side
	}
	if len(e.Args) > 0 {
		args := make([]CExpr, len(e.Args))
		for i, a := range e.Args {
			args[i] = a.swapSides()
		}
		e.Args = args
	}
	return e
}

// CState is the state a constraint is evaluated in: a shared word's
// value, and a slot of a side's frame (ok false: none such).
type CState interface {
	Shared(loc int32) (v int64, ok bool)
	Local(side uint8, slot int32) (v int64, ok bool)
}

// Eval evaluates e in st. ok is false when e cannot be evaluated (an
// index out of range, a slot outside its frame, a malformed expression):
// the constraint is then taken not to hold.
func (e *CExpr) Eval(st CState) (v int64, ok bool) {
	arg := func(i int) (int64, bool) {
		if i >= len(e.Args) {
			return 0, false
		}
		return e.Args[i].Eval(st)
	}
	b := func(c bool) int64 {
		if c {
			return 1
		}
		return 0
	}
	switch e.Op {
	case CConst:
		return e.Value, true
	case CLocal:
		if e.Side > 1 || e.Slot < 0 {
			return 0, false
		}
		return st.Local(e.Side, e.Slot)
	case CShared:
		at := int64(e.Loc)
		if e.Len > 0 {
			i, ok := arg(0)
			if !ok || i < 0 || i >= int64(e.Len) {
				return 0, false
			}
			at += i
		}
		if at < 0 || at > 1<<31-1 {
			return 0, false
		}
		return st.Shared(int32(at))
	case CNeg, CNot:
		x, ok := arg(0)
		if e.Op == CNeg {
			return -x, ok
		}
		return b(x == 0), ok
	case CAnd, COr:
		x, ok := arg(0)
		if !ok {
			return 0, false
		}
		if (e.Op == CAnd) == (x == 0) {
			return b(x != 0), true // short circuit
		}
		y, ok := arg(1)
		return b(y != 0), ok
	}
	x, ok1 := arg(0)
	y, ok2 := arg(1)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch e.Op {
	case CAdd:
		return x + y, true
	case CSub:
		return x - y, true
	case CMul:
		return x * y, true
	case CEq:
		return b(x == y), true
	case CNe:
		return b(x != y), true
	case CLt:
		return b(x < y), true
	case CLe:
		return b(x <= y), true
	case CGt:
		return b(x > y), true
	case CGe:
		return b(x >= y), true
	}
	return 0, false
}

// Holds reports whether the constraint's condition evaluates to true.
func (c *Constraint) Holds(st CState) bool {
	v, ok := c.Cond.Eval(st)
	return ok && v != 0
}
