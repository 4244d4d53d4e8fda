package access

import (
	"context"
	"errors"
	"strings"
	"testing"

	"weft/analysis/lower"
)

// TestUnsupported: a program with a step of language version 2 that the
// analysis does not follow gets no facts (ErrUnsupported, saying what and
// where), and one whose only version 2 construct is a loop head (while,
// await) is analyzed.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"var x int\nfunc f() int {\n    return x\n}\nthread t {\n    x = f()\n}\n", "t uses a function call at 6:5"},
		{"var x int\nthread t {\n    x = choose 0..2\n}\n", "t uses choose at 3:5"},
		{"var m mutex\nthread t {\n    if trylock(m) {\n        unlock(m)\n    }\n}\n", "t uses trylock at 3:5"},
		{"var m mutex\nvar cv cond\nthread t {\n    lock(m)\n    wait(cv, m)\n    unlock(m)\n}\n", "t uses a condition variable at 5:5"},
		{"var cv cond\nproc p() {\n    signal(cv)\n}\nthread t {\n    spawn p()\n}\n", "p uses a condition variable at 3:5"},
		{"var x int\nthread t {\n    while x < 2 {\n        x++\n    }\n    await x > 1\n}\n", ""},
	} {
		ld := lower.Load("v2.weft", []byte(tc.src))
		if ld.Exec == nil {
			t.Fatalf("not lowered: %v\n%s", ld.Diagnostics, tc.src)
		}
		_, err := Analyze(context.Background(), ld.Program, ld.Exec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.want != "" && (!errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want ErrUnsupported with %q", tc.src, err, tc.want)
		}
	}
}
