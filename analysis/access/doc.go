// Package access computes the static facts about shared memory that the
// language server's hover shows: for each statement of a thread, proc or
// function body, the visible steps it makes and what they read, write, lock,
// spawn and join; which statements of other threads it is dependent with;
// for each shared variable, which threads read and write it and under
// which locks; for each thread or proc, its instances and what it spawns
// and joins.
//
// Analyze builds a Summary once per error-free program, from the checked
// program (package analysis) and its lowered form (package engine/ir, as
// analysis/lower makes it). The queries (StatementAt, Interference,
// Variable, Thread) read it.
//
// # Steps and locations
//
// A Step is one visible step (language.md, "Visible steps"): one
// instruction of the lowered body, so that a step the engine reports
// (a thread's body and pc) maps back to its Step with StepAt. A Loc is a
// set of shared words named as the source names them: "c", "a[2]" for a
// constant index, "x[w]" for an index fixed by the thread index w of a
// thread array (exact in each instance), "a[*]" for an index computed at
// run time. Addresses are evaluated by an abstract interpretation of the
// lowered code over intervals: constants, the thread index (per instance
// of a thread array, within a work budget; beyond it, over the range of
// indexes), and the bounds that every computed index is checked against.
// Locals are not tracked (a local's value is unknown), except tid values,
// which are followed through tid-typed locals to the procs whose spawns
// produced them.
//
// # Dependence
//
// Interference lifts the engine's dependence relation (ir.Dependent, and
// the ordering of a join after the end of the thread it joins) from
// executed steps to what statements may access: two statements of
// different threads are dependent when some step of each may touch a
// common word and one of them writes it (a lock, an unlock, a trylock, a
// wait and a wake-up count as writes of their mutex, and a wait, a
// wake-up, a signal and a broadcast as writes of their condition
// variable, as in ir.Footprint), or one joins the thread whose end the
// other is. Another instance of the same thread array, or
// another spawned thread running the same proc, is another thread. An
// atomic block whose accesses depend on what it reads (not
// ir.AtomicFootprint.Stable) is taken with everything it may access, as
// the engine takes it. The result is a sound over-approximation: every
// dependent pair of steps of different threads in some execution belongs
// to statements that Interference reports for each other, and so do the
// call statements that stand for a function's steps (the tests check it
// against the engine's explorations, with and without spurious
// wake-ups). A step that stops an
// execution (a failed assertion, a runtime error) is dependent with every
// step of every thread; Interference does not list those pairs.
//
// # Locksets
//
// The locks held at each access come from a forward must-analysis over
// each body's code: a lock adds its mutex, an unlock removes every held
// mutex it may denote, and where paths meet (after a branch, at a loop's
// head) only the mutexes held on every incoming path stay held. A lock of
// a mutex whose element is computed at run time ("m[*]") is tracked but
// protects nothing: only locks of one known word per thread count. A
// Variable's Lockset is the intersection, over every access of any of its
// words by any thread (Eraser's candidate set, computed statically), of
// the mutex words held; empty means "no common lock". The analysis does
// not relate a computed lock to a computed access (lock(m[i]) then x[i]):
// such an access counts as unprotected. Nor does it know about ordering
// by spawn and join: a read after joining every writer still empties the
// lockset, as in Eraser.
//
// # Code that never runs
//
// A proc that no reachable spawn starts (Thread.Runs is Never), and code
// that no path from the start of its body reaches (after a return), keep
// their statements and steps, so that hovering over them works, but take
// part in no Pair, no Variable and no Thread relation (Summary.Runs).
//
// # Language version 2
//
// A choose is a step of its own that touches nothing (dependent with no
// step). A trylock writes its mutex, taken or not. wait(cv, m) makes two
// steps: the wait releases m and waits on cv (writing both), and the
// wake-up locks m again and reads cv — and writes it when spurious
// wake-ups are explored, so it counts as a write. A signal or a
// broadcast writes cv. In the locksets, a trylock holds its mutex only
// along the branch that tests its result right after it and finds it
// true (`if trylock(m)`, `if !trylock(m)`, `ok := trylock(m); if ok`…);
// elsewhere its mutex is not held (the must-hold direction). A wait
// releases its mutex and the wake-up takes it back. While loops and
// await are analyzed as the loops they lower to (a loop head is not a
// step).
//
// Functions: a body holds the code of every function it calls (directly
// or not: ir.Body.Funcs), each in its own frame. Each function is
// analyzed once per body that calls it: a statement of a function's body
// is a Statement of that body (Statement.Func names the function;
// Copies lists one per calling body), whose steps are the events of that
// body's threads at the function's code. A call statement has, besides
// the steps of its own expressions, a Call step standing for every step
// of the functions the call may reach — each once, whatever the
// recursion, all taken as possible at every call — with their reads,
// writes, mutexes, condition variables, spawns and joins; Interference
// pairs a call statement with whatever those steps are dependent with
// (the reason says "(in f)"). Variable lists a function's accesses once,
// at the function's statements. The interval evaluation starts each
// function's code from its own initial frame: a parameter or local is
// unknown (an index computed from it is "a[*]"), a call's result is
// unknown. The lockset pass enters a function with the caller's held
// locks (so a function's accesses hold what every call holds) and, after
// a call, keeps what the caller held less what the functions it reaches
// may release (a lock taken in a function is not counted after it). A
// spawn inside a function called more than once (in a loop, from two
// calls, recursively) counts as spawning many threads.
//
// ErrUnsupported remains for an operation this package does not know (a
// later addition to engine/ir): rather than give facts that miss it,
// Analyze gives none.
//
// # Cost
//
// Analyze is linear in the code of the program, plus a bounded amount of
// work per instance of each thread array (beyond the budget, instances
// are evaluated together); it checks its context as it goes. The queries
// cost what they look at: Interference scans the accesses of the
// variables its statement touches.
package access
