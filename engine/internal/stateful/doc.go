// Package stateful is the stateful exploration: a depth-first search over
// the states of a program that remembers the states it has explored and
// does not explore a state twice, with the partial-order reductions of
// Cirisci, Enea, Farzan and Mutluergil (A Pragmatic Approach to Stateful
// Partial Order Reduction, CAV 2023): none (every enabled thread of every
// state, the reference), S-POR (safe sets), DE-S-POR and DL-S-POR
// (safe sets narrowed by source sets tracked eagerly or computed lazily
// by going over the explored state graph again). A model that loops
// forever gets a verdict; interleavings that reach the same state are
// explored from it once.
//
// The contract: the exploration finds every assertion failure, runtime
// error, deadlock and data race the program has within Config.MaxSteps
// steps of its start (the same bugs dfs finds, and, where dfs runs into
// the step bound, the bugs past it as well when the state space is
// finite), each with a replayable schedule (the path on the stack); a
// step that goes past the step bound is a step-bound bug, as in dfs.
// Matching rests on the state key: 128 bits of hash (a missed state has
// the probability engine.Result.MissProbability estimates) or, with
// Config.Exact, the state's whole encoding.
//
// # What a state is
//
// A state is the machine's state as its fingerprint hashes it (package
// interp, "State fingerprint": shared memory, each thread's position,
// live frame slots, pending stop and spin record; not history such as
// step counts), plus the accesses of the path that a future access could
// still race with (package clocks, "Pending races"). The second part is
// what makes data races compose with matching: two paths to one machine
// state may have made different accesses that are still unordered with
// what comes next; with them in the key, a matched state's future
// reports, found once from the first path, are the ones the second path
// would have found. A program whose every location is atomic or a mutex
// has no second part, nor has a run that looks for no data race
// (engine.Options.NoRaceCheck: SPIN's and TLC's checks, where two paths
// to one machine state are one state).
//
// Steps. Every shared access is a step (fine steps, as dfs: coarse steps
// glue accesses on the assumption of a race-free program, which a
// stateful exploration would have to restart on at its first race; the
// states of fine steps are what SPIN's are too). A step with several
// outcomes (a choose, which waiter a signal wakes) is one transition per
// outcome; a thread is explored from a state with all its outcomes.
//
// Safe sets (S-POR)
//
// A step is invisible when no step of another thread can ever be
// dependent with it: spawns (the thread they start cannot step before
// them), joins (enabled only once the joined thread has ended), chooses
// (they touch nothing), and the steps of the statements a static
// analysis finds interfering with no statement of another thread
// (analysis/access: Summary.InvisibleSites, given as Config.Invisible).
// A state where some thread's next step is invisible is reducible: that
// thread alone is explored ({t} is a persistent set, since nothing any
// other thread does can depend on t's step). Otherwise every enabled
// thread is (the safe set is enabled(s)). A stop step (a failed
// assertion, a runtime error) is never invisible: it disables every
// other thread. Whether a step fails is known only once it is made (an
// unlock of a mutex not held, a choose of an empty range): an invisible
// step that failed makes its state expanded fully.
//
// Source sets (DE-S-POR, DL-S-POR)
//
// In an irreducible state s, a thread t is explored first and, as the
// exploration returns to s, current[t] collects the threads of the steps
// dependent with t's step that came after it. The backtrack set grows
// by the current sets; it becomes the safe set if a current set names a
// thread that cannot move in s (its step can only come first after
// another thread's); the state is done when done holds a non-empty set
// T closed under current (every thread dependent with a step of T after
// it is in T): T is then persistent, and done, a superset, a source
// set. DE-S-POR adds to current sets as steps are explored, along the
// stack (and, reaching a stored state, for every step the graph reaches
// from it, Algorithm 2 lines 19-20); DL-S-POR computes current[t] when
// the search returns to s, by going over the explored state graph from
// the successors t reached, each transition once (appendix A's first
// optimisation), stopping early once the current set holds the whole
// safe set or a thread outside it, and not going over at all for the
// last thread of the safe set (appendix A). Both keep the graph's
// transitions (edge: thread, interned footprint, successor).
//
// Where the paper's argument needs more. Its proofs assume an acyclic,
// deadlock-free program in which every step enabled in a state of a full
// execution is taken in it. Weft's programs block, stop and loop, and
// each breaks that assumption in a way that loses interleavings (each
// was found by the differential tests, TestStatefulAgainstDFS*):
//
//   - Blocked steps. After t's step a thread may block for good (a
//     deadlock: its lock(m0) never happens), so the dependent step that
//     ordering t's step later would have let it make never shows up after
//     t's, and {t} looks persistent. Every state records, for each
//     blocked thread, the step it waits to make (a lock's mutex, a
//     wake-up's mutex and condition variable) as a transition of the
//     graph with no successor, counted as coming after every step before
//     it; DE-S-POR also adds it along the stack.
//   - Steps that end an execution. A stop step (or a step past the step
//     bound) ends the execution: no step of another thread comes after
//     it, yet it disables them all. So the current set of a thread whose
//     step from s ended the execution holds every thread enabled in s.
//   - The last dependent step. Algorithm 2's UpdateCurr updates only the
//     last step on the stack dependent with the new one; behind a
//     blocking step (a wait that releases the mutex a later lock takes)
//     that misses the step the new one could have gone before (the lost
//     wake-up). DE-S-POR here updates every dependent step on the stack,
//     as the appendix does for re-traversals; DL-S-POR's re-traversal
//     collects every dependent step anyway.
//   - Cycles (below).
//
// # Waiting alone
//
// A thread parked by spin-assume (package interp, "Spin loops wait")
// stays in the state with what its last iteration read, and every state
// the other threads reach afterwards exists twice: once with it parked,
// once with it still at its loop head. A thread whose next step is a
// whole iteration of its loop that would spin (Machine.SpinsAlone: an
// await that finds its condition false, a test-and-set or trylock that
// finds the lock taken) is instead taken as waiting: in that state it
// does not move, like a lock on a held mutex, until another thread
// changes a word the step reads, and its step is recorded as a blocked
// step (above) so that the reductions order it after that write. This
// is the classic stateful semantics of a guard that is false (SPIN's
// non-executable statement). The step is a stutter: it would bring the
// thread back to the state it left, with nothing changed but history,
// so leaving it out loses no state and no bug, but two:
//
//   - Data races: the step's races would go unreported, so only steps
//     on atomic variables, mutexes and race-free words wait (a spin on
//     a plain word still parks).
//   - Deadlocks: where no thread can move and some wait, they make
//     their step first, as dfs makes it, so that the deadlock (every
//     thread spinning with nobody left to write) is reported and its
//     schedule replays with the same spins.
//
// A loop iteration with several visible steps does not wait: another
// thread's write between two of its steps can send it elsewhere, which
// only stepping it explores.
//
// # Looping again
//
// Such an iteration, if it changed nothing, accessed only words that
// cannot race and stored nothing without reading the word first in the
// step, does not park either: the first pass turns on the
// machine's Looping again (package interp), so the thread starts the
// loop over and the state it comes back to is the one it left (the
// record of what it read since its arrival is no part of the state: it
// decides nothing), matched as any state. The iteration is a cycle of
// the graph, its back edge expanding its source fully (below). Two
// things spin-assume gave for free need doing here:
//
//   - Every thread spinning forever. A state in which every thread that
//     can move, run alone, would finish an iteration that changes
//     nothing and spin (Machine.SpinsForever; the others blocked or
//     waiting alone) leads only to states like itself: it is a
//     deadlock, reported as dfs reports it (each spinner makes its
//     steps until it parks, their races checked as dfs checks them, then
//     the threads that wait alone spin). It is explored all the same:
//     left out, the spinners' steps would be missing from the graph, and
//     the source sets of the states before it, computed from the graph,
//     with them (a random cyclic program lost an assertion so); the
//     steps they make to park are recorded as blocked steps too (above).
//   - Schedules. A path that went round an iteration is no execution of
//     the other modes, where the thread would have parked: each such
//     iteration's steps leave the bug's schedule (interp.Event.Stutter,
//     driver's withoutStutters). They changed nothing and touched no
//     word that can race, and the thread is back where it was, so the
//     schedule without them reaches the same bug; and they only ordered
//     their thread after others (reads), or passed on what they had
//     read (a failed test-and-set), so it has every data race the path
//     had. (An iteration that stored the value a word held without
//     reading it in the step parks: another thread reading from that
//     store is ordered after the storer alone, and without it after the
//     thread that stored the value before, which could hide the race of
//     a race bug.) A path that meets the
//     step bound after such an iteration is not reported (its schedule
//     would not meet the bound); the second pass, which runs without
//     looping again and without waiting alone, reports what dfs does.
//
// # Cycles
//
// A state graph with cycles has two traps. The ignoring problem: a
// reduced state explores only some threads, and if a cycle of such
// states closes, the other threads' steps are postponed forever. And
// the source-set computation: a state on the stack is not done, so the
// transitions reachable from it are not all known yet, and a current
// set computed from them may miss steps. Both are handled by the stack:
//
//   - A step that reaches a state on the stack (a back edge) makes its
//     source state expanded fully, every enabled thread explored. Every
//     cycle of the explored graph contains a back edge (a depth-first
//     search's classic property; a stored state that is done was
//     reached, with all it reaches, while the states it reaches on the
//     stack were on it), so every cycle has a fully expanded state and
//     no enabled step is ignored around it (the cycle proviso C3 of
//     stateful POR, in its stack form).
//   - A current set computed by going over transitions that reach a
//     state still on the stack, or a state of which nothing is kept, is
//     incomplete: the state then takes its whole safe set (DL-S-POR),
//     and, for DE-S-POR, every stack state between the state reached
//     and the top does (their current sets would miss what the state
//     on the stack explores later).
//
// Sleep sets are not used: the paper's algorithms do without, and a
// sleep set carried into a matched state (the classic trap of stateful
// sleep sets: a state explored first with threads asleep is matched
// later by a path that had them awake) cannot arise.
//
// # Why not the SDPOR tree
//
// The stateless modes share package sdpor's Tree: per node of the
// current execution, backtrack, done and sleep sets, and races reversed
// from the execution's happens-before order. A stateful search ends a
// path at a matched state, so the races whose second step lies beyond
// it are not in the execution at all; the tree's sleep sets are the
// trap above; and its nodes die with the execution, while the paper's
// sets belong to states and its re-traversals need the explored graph.
// So this package keeps its own per-state sets (tset) and graph, and
// shares with the other modes what is common: the worker (steps, undo,
// the race clocks and every report), the dependence relation of
// package ir (ir.Dependent over footprints) and the fingerprint.
//
// # The step bound
//
// The fingerprint leaves out history, and the step count is history: a
// state first reached deep, with little of the bound left, and matched
// later from a shallower path, would hide what it leads to within the
// bound. And a reduction reorders steps: the path a reduced exploration
// takes to a bug can be longer than the shortest, past the bound. So
// the exploration runs first as asked; if no step went past the bound,
// every state it matched was explored in full, and every bug of every
// reachable state was found: the verdict holds whatever the depth. (dfs
// may still report a step-bound bug there: a path longer than the bound
// that goes through states this search reached first on a shorter one,
// which is no bug of any state; a review found one at --max-steps 10.)
// If one did (a step-bound bug is then reported, as dfs reports
// it), it starts again (Worker.Restart: the counts start over, the bugs
// found stay) with no reduction, matching a state only if it was
// explored from no deeper, and exploring it again otherwise: every
// state is then explored from its least depth on some path, and every
// path of at most MaxSteps steps is covered, as in dfs. Waiting alone
// changes step counts (dfs counts the spin steps it leaves out), and so
// does looping again, so the second pass does without both, and the first takes it only at states
// more steps short of the bound than there are threads (each parks at
// most once): nearer, every thread steps as in dfs, so the first pass
// meets the bound, and starts the second, where dfs would.
//
// # Memory and bitstate hashing
//
// The visited set (an open-addressing table of 128-bit keys, or keys and
// whole encodings with Config.Exact) and the graph (records, edges,
// footprints) are reported to the worker, which stops the run at its
// memory budget (incomplete, "memory"). A state is stored only if the
// run's memory with the table's next doubling (old and new tables both
// alive while it copies) and the arena's growth stays within the budget;
// otherwise the run stops there. With Config.Bitstate it goes on with
// bitstate hashing instead (three bits per state in an array of an
// eighth of the budget), at the latest when the table and graph would
// pass five eighths of the budget: states met after that are not
// stored, may be taken for one another, and are expanded fully (their
// graph is not kept); the run says it may have skipped states
// (driver.StopBitstate), never that it verified the model.
package stateful
