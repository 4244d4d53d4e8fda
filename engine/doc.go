// Package engine runs Weft programs and explores their interleavings.
//
// A program comes in the executable form of package ir (built from
// source by package analysis/lower). The Machine interprets it: it runs a
// thread to its next visible step, keeps an undo log so that backtracking
// costs only the undone suffix, and reports each step as an Event.
// Explore explores the program's executions in one of the Algorithms and
// returns a Result: statistics, whether the exploration was complete,
// and the bugs found (assertion failures, deadlocks, runtime errors, data
// races, step-bound hits), each with a schedule that Replay and Reproduce
// re-execute and a trace in words.
//
// # What every mode promises
//
// Every mode reports each bug once per kind and place with a trace that
// reproduces it, and sets Result.Complete only when it explored everything
// it set out to: a budget, a cancellation or a resource bound ends it with
// Complete false and Result.Stopped saying why. Memory is one such bound
// (Options.MaxMemory, by default a quarter of the machine's memory):
// reaching it ends the exploration with Stopped StoppedMemory, not a
// crash. A deadline or a cancellation ends every mode within about a
// second, however long its executions or operations. Bugs past
// Options.MaxTraces (or past a quarter of the memory budget in traces)
// are counted in Result.Omitted rather than kept with a trace; a kept
// bug holds its schedule, and its trace in words is rebuilt from it when
// it is shown (Bug.Trace, Bug.TraceEnds). Explore
// refuses option values it cannot honour (negative counts, MaxSteps past
// MaxMaxSteps). A complete exploration
// that reports no bug at all (no step-bound bug either) has explored every
// execution: "verified" means it. Where some execution reaches
// Options.MaxSteps steps, every mode reports a step-bound bug and still
// finds every bug that an execution of at most MaxSteps steps reaches.
//
// Where no execution stops early (at an assertion, a runtime error or a
// failed assume), the executions counted in Stats.Executions that end
// without a stop are:
//
//   - DFS: every interleaving (the reference for the others), except that
//     a thread standing at a choose moves first (see below).
//   - SDPOR (Source-DPOR with sleep sets): exactly one per Mazurkiewicz
//     trace, plus sleep-set-blocked ones counted apart in Stats.SSB.
//   - CDPOR (Constrained DPOR, Albert et al.): at most SDPOR's, and at
//     least one per class of traces that differ only in the order of
//     steps that commute where they meet (an independence constraint
//     holds there, uniformly: "Constrained DPOR" in package dpor). It
//     finds every bug dfs finds and reaches every final state dfs
//     reaches; of a data race it may report more pairs of statements
//     than the other modes (every unordered pair it sees, not the
//     nearest). Result.Independence counts the conditions it evaluated.
//   - QPOR (unfolding-based, k-partial alternatives, Options.QPOR.K): exactly
//     one per trace; fewer sleep-set-blocked executions as K grows.
//   - Optimal (unfolding-based, every alternative): exactly one per trace
//     and no sleep-set-blocked execution.
//   - Stateful (a depth-first search that stores the states it explored
//     and explores each once; Options.Stateful.POR picks none, S-POR,
//     DE-S-POR or DL-S-POR): it counts states (Stats.States,
//     Transitions, Matched); Stats.Executions counts the paths it
//     explored, each ending at a state visited before, a state where no
//     thread can move, a stop or the step bound (so MaxExecutions bounds
//     its work too). It finds exactly
//     the bugs dfs finds (the step-bound bug aside: a model that loops
//     forever through finitely many states is verified, not cut), and
//     its verdict rests on the fingerprint (AssumeNoFingerprintCollision,
//     Result.MissProbability) unless Options.Stateful.ExactStates.
//     Package engine/internal/stateful argues it.
//
// # Causal slices
//
// A bug's schedule (Bug.Schedule) is not the execution that found it but
// its causal slice: the steps the failing step depends on, directly or
// through other steps, by program order, spawn and join, and every pair
// of conflicting accesses (the same word, one a write; every operation
// on a mutex or condition variable writes it), in the order they had;
// for a deadlock, what each blocked thread's next step waits on; for a
// data race, the later access (the earlier one conflicts with it). A
// step-bound bug is not sliced. The steps left out are moved after the
// slice without crossing a step they depend on, so the slice alone is
// an execution that makes each of its steps as the whole one did and
// reaches the same failure: the same assertion and message, the same
// unordered pair of accesses, the same threads blocked at the same
// places (the others may still move there; in the whole execution they
// unblock none of them). Package engine/internal/slicing argues it and
// lists the corner cases (spurious wake-ups, choose, stop steps, locks
// held by threads that go on, condition variables, spin loops, step
// counts). The slice runs in one order of its own, the canonical one of
// its trace (the lowest thread that can go first), so every mode shows a
// bug's slice alike, and each bug keeps the shortest slice found, ties
// broken by the whole execution's schedule (which decides the slice).
// Bug.FullSchedule keeps the whole execution (Bug.Full shows it;
// Options.FullTraces keeps whole executions only); Reproduce checks a
// slice against it; Slice slices a schedule from elsewhere.
//
// Atomic blocks whose accesses depend on the values they read make
// dependence conservative: then a mode may explore more executions than
// there are traces, never fewer. Executions that stop early are counted
// differently by different modes (a stop disables every other thread),
// each ending at its stop; Stats.AssumeBlocked counts those ending in a
// failed assume.
//
// DFS cuts each execution at MaxSteps steps. The POR modes explore one
// order per trace, and a cut order may hide a bug that another order
// reaches within the bound, so they bound each step's causal past instead
// (SDPOR: "The step bound" in package dpor; QPOR and Optimal: in package
// unfolding). Their executions may run longer beside a thread that is
// cut, and one longer than MaxSteps times its threads plus one (at most
// eight times MaxSteps) goes no further and
// ends the exploration incomplete (StoppedExecutionLength).
//
// Steps with several outcomes. A choose takes each value of its range and
// a signal wakes each of the threads waiting on its condition variable,
// in turn (interp.Machine.Alternatives): every mode explores each
// alternative, and a bug's schedule records the alternative of each step
// (Bug.Choices, parallel to Bug.Schedule) so that Replay, Reproduce and
// StepStates follow it (Bug.ReplayOptions). A choose touches nothing and
// nothing can disable it, so DFS and SDPOR take a thread standing at one
// first, alone: DFS explores every interleaving in which choose steps are
// taken as soon as they can be, which are every interleaving up to moving
// chooses earlier (the same traces); QPOR and Optimal make a choose's
// values, and the threads a signal may wake, mutually conflicting events
// of its thread ("Choose" and "Condition variables" in package
// unfolding). Options.SpuriousWakeups also explores a waiting thread
// waking up without a signal, in DFS and SDPOR: Explore refuses it in
// QPOR and Optimal for a program with condition variables, with an
// *UnsupportedError (Unsupported), rather than explore it wrongly. Spinning and
// waiting threads that no step can release end the execution in a
// deadlock whose message says what each waits for.
//
// Spin loops wait (see "Spin loops wait" in package interp): a thread
// whose loop iteration changed no shared word (reads, writes of the value
// the word held, trylocks that found the mutex held) and left the loop's
// relevant locals as they were is parked at the loop head for the rest of
// the execution (Options.NoSpinWait turns this off for while loops; an
// await always waits). An execution that ends with such a thread having
// read a location changed since is spin-blocked: the thread would have
// read the new value and gone on, which another execution explores. It
// is counted in Stats.SpinBlocked, not in Stats.Executions, reports no
// bug and is not handed to OnExecution; the counts above are of the
// executions that are not spin-blocked. An execution that ends with
// spinning threads that no write can release is a deadlock.
//
// Programs with a data race are explored with every shared access a
// scheduling point; race-free ones with coarse steps first (see "Coarse
// steps" in package driver), which changes no count and no bug.
package engine
