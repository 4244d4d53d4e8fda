// Package unfolding is the qpor and optimal exploration modes: Alg. 1 of
// Nguyen, Rodríguez, Sousa, Coti and Petrucci, "Quasi-Optimal Partial
// Order Reduction" (CAV'18), over the unfolding (prime event structure)
// of Def. 1, extended from lock/unlock/create/join programs to Weft's
// read/write dependence. Files: events.go (events and U), config.go (the
// configuration C), extensions.go, alternatives.go (spikes and clues),
// index.go (spike candidates), prune.go, explore.go (Alg. 1, the step
// bound), check.go (checkIndexes). This comment argues soundness.
//
// Language version 2: trylock (see Independence), spin-waiting, choose
// and condition variables (their sections) are explored here. Spurious
// wake-ups are not (a wake-up's footprint would depend on its history):
// engine.Explore refuses them in these modes (engine.Unsupported) rather
// than explore them as something else.
//
// # Events
//
// An event is ⟨a, H⟩: an action a of one thread after a history H (a
// configuration). It is named canonically by its thread, its thread
// predecessor p (the previous event of the same thread, or none) and the
// set of ⊆-maximal events of H other than p; two discoveries of the same
// ⟨a, H⟩ give the same *uevent (the index `byKey`). The action a is
// determined by H: the thread's local state after p fixes the instruction
// and the locations it touches, and state(H) fixes the values read.
// Values do not matter for dependence, so an event's footprint (kind,
// location, read/write) is known from p alone and the values are learnt
// when the event is executed on the Machine. Atomic blocks are the
// exception: their locations may depend on the values they read. For a
// Stable block (Program AtomicFootprint: addresses fixed by the frame when
// it starts) the accesses observed when it is first run after p are its
// footprint after p; for an unstable one the footprint is everything the
// block may read or write (AtomicFootprint.Reads/Writes), the same for every
// history. Over-approximating dependence is sound (the independence stays
// an under-approximation of commutation); it only adds events, so on
// programs with unstable atomic blocks the number of executions may exceed
// the number of Mazurkiewicz traces of the exact dependence.
//
// Threads are named by a stable id (uid): declared threads by their index,
// spawned threads by (parent uid, spawn index). Machine indices depend on
// the interleaving of spawns and are mapped to uids per execution.
//
// # Independence
//
// Two actions of different threads are dependent exactly as in
// language.md: they touch the same shared location and one writes it
// (lock, unlock and trylock are writes of the mutex, a trylock whether it
// takes the mutex or not; an atomic block touches each location it
// accesses; a wait writes its mutex and its condition variable, a
// wake-up reads the condition variable and writes the mutex, a signal
// and a broadcast write the condition variable), or one is `join T` and
// the other is T's last step, or one spawns the other's thread. This relation is symmetric and irreflexive
// across threads, and independent actions commute at every reachable
// state (reads of one location commute; accesses to different locations
// commute; a lock is enabled iff the mutex is free, which only events on
// the mutex change; a trylock is always enabled, and what it does, take
// the mutex or not, depends on the mutex alone; a wake-up is enabled iff
// its thread was woken and the mutex is free, which only events on the
// condition variable and the mutex change; which threads a signal can
// wake is who waits, which only events on the condition variable change;
// a join is enabled iff T has finished, which only T's last step
// changes). So it is an independence in the sense of
// Sec. 2 of the paper, and Def. 1 yields a PES whose configurations are
// exactly the Mazurkiewicz traces of Weft executions. In this PES:
//
//   - e < f iff e is in f's history. Each event keeps tmax (Def. 7): for
//     every thread, the last event of that thread in its local
//     configuration. Events of one thread form a tree (thread tree; two
//     events of one thread are ordered or in conflict), so e ≤ f iff e is
//     an ancestor of tmax(f, thread(e)) in its thread tree; ancestors are
//     found with skip pointers at distances 1, 2, 4, … (Sec. 5.2).
//   - Immediate conflict is "dependent and causally unordered"; conflict
//     is inherited. Hence X ∪ Y (X, Y configurations) is a configuration
//     iff for every thread the tmax of X and Y are ordered, and no event of
//     X \ Y is dependent with an event of Y \ X: an immediate conflict
//     a # b with a ∈ X, b ∈ Y has a ∉ Y and b ∉ X, since a configuration
//     holds no conflict. This generalises Theorem 6 (the lock trees become
//     the per-location access order).
//
// # Extensions
//
// When e is added to the explored configuration C (C' = C ∪ {e}), the new
// extensions ex(C') \ ex(C) are the events ⟨a, H⟩ with e ∈ H ⊆ C'; e is
// then ⊆-maximal in H, so a depends on e (or e is a's thread predecessor,
// or spawns a's thread). For each thread t and each position p of t in C'
// (an event of t, or t's start) whose next action a depends on e, every
// H = [p] ∪ [e] ∪ [M] is enumerated, where M is an antichain of C'-events
// dependent with a, none below [p] ∪ [e] and none after p's successor in
// C'; then every ⊆-maximal event of H depends on a, as Def. 1 requires,
// and a is enabled at state(H) when a is a lock of a free mutex (the last
// event on the mutex in H leaves it free: uevent.holder, which a trylock
// sets too) or a join of a finished thread.
// The ⊆-maximal configurations of C' ∪ {antichains} are small in practice:
// events on one location with a write are totally ordered in C', so M
// only ranges over sets of concurrent reads (for a write) and over
// combinations of locations (for atomic blocks). The positions of C are
// indexed by the locations and join targets of their next action
// (config.nextOn, config.joinOn), so only those that depend on e are
// visited; positions before the last event of t in [e] are skipped (their
// successor in C' is below e, so no history there can hold e). Whether an
// event is added depends on its history alone, so an enumeration that
// comes back with a subset of the C it had (per thread, C's last event is
// the earlier one's or an ancestor of it) finds only events of U: one
// that yielded many is remembered and not done again until U is pruned
// ("Enumerations remembered" in extensions.go: the write that ends a spin
// loop has one version per read of the loop).
//
// # Alternatives (Def. 5 and 6, the comb)
//
// Alt(C, D) (alternatives.go) picks k events of D that are enabled at C (the
// event just explored first, then the most recently added; "optimal" takes
// all of them: events of D already in conflict with C need no partner) and
// builds one spike per picked event d: the events a of U in immediate
// conflict with d (dependent, unordered) such that [a] ∪ C is a
// configuration and [a] ∩ D = ∅. A combination of pairwise compatible
// spike elements (C ∪ [a1] ∪ … ∪ [ak] a configuration, checked on the
// small sets [ai] \ C) gives the clue J; J \ C is the set A of the next
// call. Restricting spikes to immediate conflicts loses nothing: if ê
// conflicts with d and [ê] ∪ C is a configuration, the immediate conflict
// behind it is a # d with a ≤ ê (the other side lies in [d] ⊆ C ∪ {d} and
// cannot be in C), and a satisfies every constraint ê does. Likewise a may
// be taken to be the first access outside C, in [ê], to a location that d
// accesses (the first write, if d only reads it): its history holds the
// last write to that location in C and no later one. Events of d's own
// thread need no spike of their own: a sibling of d (same predecessor, so
// the same action) compatible with C has in its history an event outside C
// that d depends on, which is in immediate conflict with d. So U is indexed
// by (location, last write of it in the history), and a spike is read from
// one group per location of d, one list per thread there. A candidate a of
// thread t compatible with C extends C's events of t: it is a child of
// C's last event cm of t (found in cm's children, uevent.kids) or comes
// later (the list's buckets of index above cm's plus one); the other
// buckets are not visited. A candidate found in C, incompatible with C or
// above an event of D stays so while C holds the event that excludes it
// (or while D holds it: until the call of Explore that added it
// returns), so it leaves its bucket until the exploration backtracks
// above that event (qexplorer.hidden). Each call puts the event it added
// to C into D once that branch is explored (line 9 of Alg. 1), so a
// candidate holding the last events of C in its past stays out until
// the call that added the last of them not in its past returns
// (qexplorer.outlive). A spin loop needs that: the candidates above its
// reads would otherwise be taken up and turned down again at every read
// (and a long list's buckets left empty leave it, candList.sparse). The
// spike of the last picked event is scanned lazily: the scan stops at
// the first element that completes a combination (for k = 1, at the
// first element).
//
// # Pruning
//
// Line 13 of Alg. 1 keeps Q_{C,D}: C ∪ D and, following Rodríguez et al.
// (CONCUR'15), the local configurations of the events in immediate
// conflict with C ∪ D, the only events spikes ever hold. (With inherited
// conflicts every event after an event of D conflicts with the other
// events of D, and almost nothing would go.) The test for immediate
// conflict (qexplorer.inConflictCD) may say yes wrongly, never no
// wrongly: e #ⁱ g needs [e) ∪ [g) to have ordered maxima on every
// thread, no maximal event of [e) in conflict with g (else [e) ∪ [g] is
// no configuration) nor of [g) with e, and, when e and g access one
// location each, the same one, the same last write of it in their
// histories (if the last writes differ, the later one is in one past and
// conflicts with the other event, so the conflict is inherited); of C's
// events on that location only those after that write, up to the next
// write, qualify, and of a run of one thread's reads there only the first
// outside [e], if e writes (the others have it in their past); a join or
// a spawn is only in immediate conflict with its siblings in its thread
// tree, and a pending failure (a stop that accesses nothing) with no
// event: it depends on none, so it has no sibling. We prune when U
// has grown by half since the last pruning (at least 50,000 events), so
// that the cost is amortised (a pass over U); each dropped event takes
// itself out of the indexes, knowing its place in each, so that kept
// events are not visited twice. The tests also prune after every call.
// A pruned event that is
// discovered again is a new object; the events kept keep their whole
// causal past, so an event and a stale copy are never both reachable.
//
// # Spin-waiting
//
// With spin loops that wait ("Spin loops wait" in package interp), a
// thread that comes back to a loop head after an iteration whose visible
// steps changed no shared word (reads, writes of the value the word held,
// trylocks that found the mutex held), its loop's compared slots
// unchanged, becomes Spinning and never moves again in the execution
// (spin-assume). That is a change of the threads' local states only:
// whether thread t spins after its event e depends on t's own steps since
// the loop head, the values they read and the values their writes found
// (each fixed by the last write of the word before, which is in [e]), so,
// like the action after e, it is fixed by [e]. To
// the unfolding a spinning thread is a thread without a next action
// (uevent.next is nil, learnt when e is first executed; peekAction), so
// no event of it is ever made after e, as after a thread's last step;
// unlike a finished thread, a join of it is never enabled. Independence
// is unchanged: spinning writes nothing another thread reads (no shared
// word, no mutex) and is not "finished", so independent actions still
// commute, a lock is still enabled iff its mutex is free and a join iff
// its target finished, which only the target's last step changes (a
// spinning thread never finishes). Def. 1 then gives the unfolding of the
// spin-assume semantics, whose configurations are its Mazurkiewicz
// traces, and Alg. 1 explores each maximal configuration once.
//
// A maximal configuration without stops in which some thread spins is
// handed to driver.Deadlock like a deadlock: if a spinning thread read a
// location that an event after its read changed (interp's StaleSpin), the
// execution is spin-blocked (the real thread would have read the new
// value and gone on: that is the configuration in which the read comes
// after the write, which Alg. 1 reaches as an alternative to the read,
// since the two are in immediate conflict), counted apart, no bug;
// otherwise it is a deadlock that names the spinning threads. Which it is
// depends on the configuration, not on the order C was built in: a read
// and a later write of its location are dependent, so every
// linearisation of C orders them alike (and the machine counts the writes
// that change a location in the order of C; whether a write changes it
// depends on the write before it, which is dependent with it too). So qpor and optimal count one execution
// per maximal configuration that is not spin-blocked, and one
// spin-blocked execution per spin-blocked one: what SDPOR counts (one per
// trace, not spin-blocked), and the same bugs as DFS, in every execution
// of the spin-assume semantics. A configuration with stops ends real
// executions at its stops (below) whatever spins. A spinning thread makes
// no more events, so a spin no longer runs into the step bound; with
// Options.NoSpinWait the machine never parks a thread and nothing here
// changes.
//
// # Choose
//
// A choose of n values (interp.Machine.Alternatives) is n actions of its
// thread at one point, one per value: after predecessor p, the events
// c_0 … c_{n-1}, told apart by their alternative (action.alt, in their
// names: keyHash, named). A choose touches nothing, so it depends on no
// event of another thread: each c_i has the history [p] and its
// alternatives as its only immediate conflicts (siblings in the thread
// tree: ordered or in conflict, as events of one thread are). Nothing
// disables it or is disabled by it. This is Def. 1's unfolding of the
// semantics in which a thread at a choose has n enabled transitions, all
// independent of other threads' transitions; its configurations are the
// Mazurkiewicz traces with their values, and Alg. 1 runs on it unchanged,
// with the choose's alternatives where Alg. 1 needs them:
//
//   - en(C) holds one event per thread, for a choose its alternative
//     first found (enabledOf); every alternative is enabled at C
//     (enabledIn, when a clue holds one), and the free choice takes one
//     not in D (freeAlternative).
//   - Alt: the spike of an alternative d in D is the other alternatives,
//     made on demand (alternativeOf), that D does not hold: they are
//     d's immediate conflicts, and [a] ∪ C is a configuration for each
//     (its past is p's, in C). The index of spike candidates, by
//     location, never holds a choose, and need not: a choose is in no
//     other event's spike. For the events of D enabled at C, one of a
//     choose's alternatives in D stands for all of them, the latest in
//     (or none if the event just explored is one): a clue that holds an
//     alternative not in D conflicts with every one of them.
//   - Pruning keeps an alternative while C or D holds another (the only
//     events it is in immediate conflict with), and, with a choose of
//     many values all in D at one point, does not look at them for the
//     other events (none is in immediate conflict with a choose).
//
// Alternatives made later than Alg. 1 on the whole unfolding would have
// them change nothing: an alternative is only ever in a spike of its
// siblings, or in the past of events that exist only once it was in C.
// Each execution records its alternatives (Event.Alt) and the step is
// replayed with it (driver.StepAlt), so bugs carry their choices
// (Bug.Choices).
//
// # Condition variables
//
// Who waits on a condition variable, and has not been woken, changes only
// with the events that write it: a wait adds its thread, a signal takes
// out the thread it wakes, a broadcast all of them. These writes are
// totally ordered in a configuration, so who waits after the events of a
// history H is who waits after H's last write of the variable; each such
// event of U keeps it (uids, learnt when it is first executed:
// qexplorer.cvWaiters, noteWaiters). Then:
//
//   - A wake-up of thread T (the step after T's wait) is enabled at
//     state(H) iff T no longer waits after H's last write of the variable
//     (a signal or a broadcast in H woke it) and the mutex is free after
//     H's last event on it (uevent.holder, which waits and wake-ups set
//     too): emit checks both, as it does a lock's mutex.
//   - A signal is one step per thread it may wake (the threads waiting
//     after its history's last write of the variable, lastW: a signal
//     touches one location) or, if none waits, one step that wakes nobody.
//     Its events are told apart by the uid of the thread they wake
//     (action.alt), like a choose's values, and are its alternatives (the
//     "Choose" section, choices.go): siblings with one history and one
//     footprint, mutually in conflict, made all at once by emit; each is
//     also dependent, as any signal, with the events on its variable. A
//     clue that conflicts with one of them in D conflicts with all of
//     them, so one stands for all in Alt. On the machine the alternative
//     is the woken thread's place among the waiters in thread order
//     (machineAlt): thread order depends on the interleaving of spawns,
//     uids do not.
//   - Waits and wake-ups touch two locations each (multiLoc), as atomic
//     blocks do; their positions in C's per-location lists are found by
//     their place in C (config.posOn), not lpos, which is one per event.
//
// A thread that waits and is never woken leaves a maximal configuration
// that driver.Deadlock reports, naming the condition variable.
//
// # Steps that stop the execution
//
// A stop (a failed assertion or assume, a runtime error, the local step
// bound) happens in the real program only as the last step. For the
// unfolding we use a different, equally sound LTS: a stop ends its own
// thread only and has no effect on the state; its footprint is the
// accesses it made (dependence with them is needed because, for an atomic
// block, whether it fails depends on the values it read). Every prefix of
// a real execution is an execution of this LTS and conversely every event
// other than a stop that happens after a stop in this LTS also happens, at
// the same state, in a real execution where the stopping thread has not
// made its failing step yet. So the same stops, data races and deadlocks
// (we never report one in a configuration holding a stop: there, the
// stopping thread could still move) are reachable. On the Machine a stop
// is executed (to report the bug with a trace that ends in it) and undone
// at once; configurations are replayed without their stops.
package unfolding
