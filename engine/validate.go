package engine

import (
	"fmt"
	"math"
	"strconv"
)

// What a person may give as options: the ranges and defaults of the
// numeric Options and the kinds of bugs, written once for every tool
// that takes them from a person (weft check's flags, the language
// server's settings), so that they accept and refuse the same values.

// MaxMaxMemory is the largest Options.MaxMemory a person may give (2^62
// bytes, 4 EiB): the engine scales the budget by fractions (7/8, 1/8),
// which stay in range below it.
const MaxMaxMemory = 1 << 62

// maxCount bounds the counts given as int (K, MaxBugs, MaxTraces,
// LocalBudget): far more than any exploration can reach, and an int on
// every platform.
const maxCount = math.MaxInt32

// Limit is the range of values of one numeric option, as a person gives
// it, and the value when none is given. (Explore also takes 0 for the
// options whose Default is not 0, meaning that default.)
type Limit struct {
	Min, Max int64
	Default  int64
}

// Contains says whether v lies in the range.
func (l Limit) Contains(v int64) bool { return l.Min <= v && v <= l.Max }

// String is the range in words, a maximum that is a power of two named
// as such: "1 to 1073741824 (2^30)".
func (l Limit) String() string { return fmt.Sprintf("%d to %s", l.Min, l.MaxText()) }

// MaxText is the maximum in words: "1073741824 (2^30)" for a power of
// two, the number otherwise.
func (l Limit) MaxText() string {
	s := strconv.FormatInt(l.Max, 10)
	for e := 10; e < 63; e++ {
		if l.Max == 1<<e {
			return fmt.Sprintf("%s (2^%d)", s, e)
		}
	}
	return s
}

// Limits are the ranges of the numeric Options, by field name.
type Limits struct {
	// MaxSteps: 1 to MaxMaxSteps, DefaultMaxSteps.
	MaxSteps Limit
	// MaxExecutions: 0 (no limit) to the largest int64.
	MaxExecutions Limit
	// MaxBugs: 0 (no limit) to 2^31-1.
	MaxBugs Limit
	// MaxMemory, in bytes: 0 (a quarter of the machine's memory,
	// DefaultMaxMemory) to MaxMaxMemory.
	MaxMemory Limit
	// MaxTraces: 1 to 2^31-1, DefaultMaxTraces.
	MaxTraces Limit
	// LocalBudget: 1 to 2^31-1, DefaultLocalBudget.
	LocalBudget Limit
	// K: 1 to 2^31-1, 1.
	K Limit
}

// OptionLimits returns the ranges of the numeric Options.
func OptionLimits() Limits {
	return Limits{
		MaxSteps:      Limit{Min: 1, Max: MaxMaxSteps, Default: DefaultMaxSteps},
		MaxExecutions: Limit{Min: 0, Max: math.MaxInt64},
		MaxBugs:       Limit{Min: 0, Max: maxCount},
		MaxMemory:     Limit{Min: 0, Max: MaxMaxMemory},
		MaxTraces:     Limit{Min: 1, Max: maxCount, Default: DefaultMaxTraces},
		LocalBudget:   Limit{Min: 1, Max: maxCount, Default: DefaultLocalBudget},
		K:             Limit{Min: 1, Max: maxCount, Default: 1},
	}
}

// BugKinds returns the kinds of bugs the engine reports, in the order
// people see them listed.
func BugKinds() []BugKind {
	return []BugKind{BugAssertion, BugDeadlock, BugDataRace, BugRuntimeError, BugStepBound}
}

// IsBugKind says whether s names a kind of bug the engine reports.
func IsBugKind(s string) bool {
	for _, k := range BugKinds() {
		if string(k) == s {
			return true
		}
	}
	return false
}
