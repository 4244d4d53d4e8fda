// Package z3test decides what a test does when z3, the SMT solver the
// synthesis of independence constraints runs as a subprocess, cannot be
// used: it skips, saying why, unless the environment requires z3
// (WEFT_REQUIRE_Z3=1, which .ci/run sets after installing it, or CI=true,
// as CI services set); then the test fails. A CI run whose z3 is missing
// must not pass with the SMT tests skipped.
//
// It imports nothing of the repository, so that package z3's own tests
// can use it.
package z3test

import (
	"fmt"
	"os"
	"testing"
)

// EnvRequire is the environment variable that makes a missing z3 fail
// the tests that need it.
const EnvRequire = "WEFT_REQUIRE_Z3"

// Required reports whether the environment requires z3: WEFT_REQUIRE_Z3=1
// or CI=true.
func Required() bool {
	return os.Getenv(EnvRequire) == "1" || os.Getenv("CI") == "true"
}

// Missing ends a test that needs z3 and cannot use it (the message, from
// format and args, says why): a skip, or a failure when Required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (z3 is required here: %s=1 or CI=true)", msg, EnvRequire)
	}
	t.Skip(msg)
}
