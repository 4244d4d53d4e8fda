package z3test

import (
	"runtime"
	"testing"
)

// recorder is a testing.TB that records how a test ended: Fatalf and
// Skip end the goroutine, as testing's do. (Missing calls nothing else;
// any other method is the nil embedded TB's, and panics.)
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }
func (r *recorder) Skip(...any)           { r.skipped = true; runtime.Goexit() }

// run runs f on a recorder in a goroutine of its own, as a test runs.
func run(f func(testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// TestMissing: a missing z3 skips the test, unless WEFT_REQUIRE_Z3=1 or
// CI=true, where it fails it.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		require, ci string
		fail        bool
	}{
		{"", "", false},
		{"0", "false", false},
		{"1", "", true},
		{"", "true", true},
		{"1", "true", true},
	} {
		t.Setenv(EnvRequire, tc.require)
		t.Setenv("CI", tc.ci)
		r := run(func(tb testing.TB) { Missing(tb, "z3 not found") })
		if r.failed != tc.fail || r.skipped == tc.fail {
			t.Errorf("%s=%q CI=%q: failed %v, skipped %v; want failed %v", EnvRequire, tc.require, tc.ci, r.failed, r.skipped, tc.fail)
		}
	}
}
