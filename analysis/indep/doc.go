// Package indep computes the independence constraints of a checked,
// lowered Weft program (issue 18): for each pair of statements of
// different threads (or of two instances of one thread array or proc)
// that may interfere, conditions on the state under which the two
// commute; and the engine's form of them, ir.Constraints, for the CDPOR
// exploration.
//
// Analyze builds a Result from the checked program, its lowering and its
// access summary (package analysis/access, whose steps and symbolic
// locations it reuses). The language server asks Result.Interference
// about a statement; `weft ics` prints Result.WriteText or the pairs as
// JSON; the engine is given Result.Constraints.
//
// # W: what a thread may write from a site on
//
// Constraints.Writes holds, for every site (a body and the pc of a
// visible instruction or of an atomic block's OpAtomic) of every body,
// the shared variables, whole, that a thread standing there, or a thread
// it spawns later (transitively), may write: its step included
// (mutexes and condition variables count). It is a fixed point over the
// lowered code of every body (jumps, calls into a function's code and
// returns to after each of its calls, atomic blocks) and the spawn graph
// (CDPOR Sec. 3.2, W(b)). A site from which anything may be written (an
// access the summary cannot place) is left out of the map: the engine
// then assumes everything. TestWritesSound checks it against every
// execution DFS explores of the examples and targeted models.
//
// # The syntactic rules
//
// A statement is seen as one transition (Peephole POR, Sec. 2.2): an
// assignment `P = e` (or `P op= e`, `P++`, `P--`, which read P too and
// write P op e), a declaration's initialiser, the header of an if, a
// while, an await, an assert or an assume (a branch on its condition),
// a for loop's bounds, an atomic block. For every conflicting pair of
// accesses (same variable, one a write) the condition is one of:
//
//   - index: the words differ, `i != j` for a[i] against a[j] (constant
//     indexes fold: a[1] against a[2] never conflict, "disjoint");
//   - read-write: the write stores the value already there, `x == e`
//     for a read of x against `x = e`;
//   - write-write: both writes store the same value, `e1 == e2`;
//   - branch-write: a branch on c takes the same way either side of the
//     write, `c == c[x→e]` (only when c reads the variable at one place);
//
// or the disjunction of index with one of the others; and the pair's
// condition is their conjunction, simplified (constants folded, `x == 3`
// propagated into the other conjuncts). Origin names the rules used,
// joined by "+" ("index+write-write"); "disjoint" when nothing
// conflicts. No condition is given (the pair is always dependent) when
// some conflict has none: a value that conditions cannot express (a
// call, a division, a local array, an element of a multi-dimensional
// array), an access through a call, a lock, a wait, a signal, an atomic
// block of several statements (whose values are not followed: only the
// index rule applies there, and only to indexes that read no shared
// variable and no local the block assigns).
//
// Why the conjunction suffices for transitions: a statement writes at
// most one shared word; each read of a word the other writes is then of
// another word or of an unchanged one (index, read-write), so every
// expression has the same value in both orders, and both orders store
// the same values in the same words (write-write). Branch-write keeps
// only the branch's direction.
//
// Locals are per side (icond: side 0 is the statement asked about). A
// condition's text reads as at the statement asked about
// (icond.Expr.Text in its scope): a local of the other side whose plain
// name could mean something else there prints as `other.NAME`, a shared
// variable that one of its body's locals hides as `shared.NAME`.
//
// Arithmetic: conditions mean unbounded integers; the engine computes in
// int64 with wrapping, so compile puts in front of each condition the
// test that none of its arithmetic overflows (a condition is then false
// where it would wrap).
//
// # What the engine is given
//
// A condition enters Constraints.Pairs only when it is sufficient for
// the two engine steps at the pair's sites to commute, evaluated where
// both are about to run. For two single reads or writes the engine has
// its own exact rules and no entry is made. Syntactic conditions are
// entered for a pair of statements that are each one engine step whose
// effect the model states exactly, one of them an atomic block: an atomic
// block of one assignment (or ++/--) without calls, or a plain statement
// of one read or one write step; then the argument above holds for the
// steps themselves, with the branch-write rule left out (a read step
// keeps the value it read in its frame), and with the indexes of the
// accessed elements in range as a guard (a step out of range stops the
// execution). Conditions from the Synthesizer (SMT) are entered for the
// sites of the two atomic blocks as they come. TestTableCommutes runs
// both orders wherever an entry holds, over the states of the examples
// and targeted models, and compares the states.
//
// In the engine's form, a local is a slot of the thread's innermost
// frame at the step: analysis.Object.Slot in the frame of its thread,
// proc or function; a thread array's index the slot after the body's own
// (TestLocalSlots). A shared scalar is its word; an element of an array,
// the array's words with the index (out of range: the condition does not
// hold). Reads (G(C)) lists the words read, a whole array for a computed
// index.
//
// # Cost
//
// Linear in the pairs Interference reports, plus the fixed point of W
// (the code of every body times the shared variables, over 64).
package indep
