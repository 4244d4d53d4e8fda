// Package testmodels holds the small models that tests of several
// packages share (the CLI's, the language server's, the synthesis'), so
// that each is written once. Test support only: no production code
// imports it.
package testmodels

// Overflow has two overflow runtime errors (c + MAX wraps in the order a,
// d), which cdpor misses when it merges the blocks on conditions
// synthesised over unbounded integers (--assume-no-overflow): its verdict
// then must say "assuming no overflow".
const Overflow = `var c int

thread a {
    atomic { c = c + 9223372036854775807 }
}

thread b {
    atomic { c = c - 1 }
}

thread d {
    atomic { c = c + 1 }
}
`

// CondIfWait waits on a condition variable with an if, not a loop: it is
// correct only if no wake-up is spurious, so its verdict must say that it
// assumes none unless they are explored (then the assertion fails).
const CondIfWait = `var m mutex
var cv cond
var ready bool

thread waiter {
    lock(m)
    if !ready {
        wait(cv, m)
    }
    assert ready, "woken before ready"
    unlock(m)
}

thread setter {
    lock(m)
    ready = true
    signal(cv)
    unlock(m)
}
`

// SameNamedCAS is two compare-and-swap blocks whose threads both have
// locals expected, desired and ok. From c = 0, a;b ends with c = 1 and
// b;a with c = 2, so no condition shown for the pair may hold there
// (`c != expected && expected != desired` was once printed, the second
// thread's locals unqualified).
const SameNamedCAS = `var c atomic int

thread a {
    var expected int = 1
    var desired int = 2
    var ok bool = false
    atomic {
        if c == expected {
            c = desired
            ok = true
        }
    }
}

thread b {
    var expected int = 0
    var desired int = 1
    var ok bool = false
    atomic {
        if c == expected {
            c = desired
            ok = true
        }
    }
}
`
