//go:build unix

package z3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"weft/internal/z3/z3test"
)

func start(t *testing.T, cfg Config) *Solver {
	t.Helper()
	s, err := Start(context.Background(), cfg)
	if errors.Is(err, ErrNotFound) {
		z3test.Missing(t, "z3 not installed: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// script writes an executable shell script standing in for z3.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-z3")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckAndValues(t *testing.T) {
	s := start(t, Config{})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Declare("x", "Int"))
	must(s.Push())
	must(s.Assert("(and (> x 2) (< x 4))"))
	st, err := s.Check(ctx, time.Second)
	must(err)
	if st != Sat {
		t.Fatalf("check = %v, want sat", st)
	}
	vals, err := s.Values(ctx, "x", "(- x 10)")
	must(err)
	if len(vals) != 2 {
		t.Fatalf("values = %q", vals)
	}
	if v, err := Int(vals[0]); err != nil || v != 3 {
		t.Errorf("x = %q (%v), want 3", vals[0], err)
	}
	if v, err := Int(vals[1]); err != nil || v != -7 {
		t.Errorf("x-10 = %q (%v), want -7", vals[1], err)
	}
	must(s.Assert("(> x 3)"))
	if st, err := s.Check(ctx, 0); err != nil || st != Unsat {
		t.Fatalf("check = %v, %v; want unsat", st, err)
	}
	must(s.Pop())
	if st, err := s.Check(ctx, 0); err != nil || st != Sat {
		t.Fatalf("after pop: check = %v, %v; want sat", st, err)
	}
}

func TestSolverErrorIsReported(t *testing.T) {
	s := start(t, Config{})
	ctx := context.Background()
	if err := s.Assert("(undeclared_thing)"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Check(ctx, time.Second)
	if !errors.Is(err, ErrSolver) || !strings.Contains(err.Error(), "error") {
		t.Fatalf("err = %v, want ErrSolver", err)
	}
	// The session goes on.
	if err := s.Declare("y", "Bool"); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Check(ctx, time.Second); err != nil || st != Sat {
		t.Fatalf("check = %v, %v", st, err)
	}
}

// pigeonhole asserts that n+1 pigeons fit in n holes: unsat, and hard
// for CDCL when n is 10 or more.
func pigeonhole(s *Solver, n int) {
	for i := 0; i <= n; i++ {
		var row []string
		for j := 0; j < n; j++ {
			v := fmt.Sprintf("p%d_%d", i, j)
			_ = s.Declare(v, "Bool")
			row = append(row, v)
		}
		_ = s.Assert("(or " + strings.Join(row, " ") + ")")
	}
	for j := 0; j < n; j++ {
		for a := 0; a <= n; a++ {
			for b := a + 1; b <= n; b++ {
				_ = s.Assert(fmt.Sprintf("(or (not p%d_%d) (not p%d_%d))", a, j, b, j))
			}
		}
	}
}

func TestSolverTimeout(t *testing.T) {
	s := start(t, Config{})
	ctx := context.Background()
	_ = s.Push()
	pigeonhole(s, 11)
	begin := time.Now()
	st, err := s.Check(ctx, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if st != Unknown {
		t.Fatalf("check = %v, want unknown (timeout)", st)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("timed-out check took %v", d)
	}
	if r, err := s.Reason(ctx); err != nil || r != "timeout" && r != "canceled" {
		t.Errorf("reason = %q, %v", r, err)
	}
	_ = s.Pop()
	if st, err := s.Check(ctx, time.Second); err != nil || st != Sat {
		t.Fatalf("after pop: %v, %v", st, err)
	}
}

func TestGoDeadlineKillsAndReset(t *testing.T) {
	// A solver that never answers: the Go-side deadline kills it.
	s := start(t, Config{Path: script(t, `while read line; do case "$line" in *echo*) echo "$line" | sed -n 's/(echo "\(.*\)")/\1/p'; break;; esac; done; sleep 60`), Grace: 50 * time.Millisecond})
	pid := s.pid()
	begin := time.Now()
	_, err := s.Check(context.Background(), 50*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if pid == 0 || syscall.Kill(pid, 0) == nil {
		t.Errorf("process %d still exists after the kill", pid)
	}
	if _, err := s.Check(context.Background(), 0); !errors.Is(err, ErrLost) {
		t.Fatalf("after kill: %v, want ErrLost", err)
	}
}

func TestContextCancel(t *testing.T) {
	s := start(t, Config{})
	_ = s.Push()
	pigeonhole(s, 12)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Check(ctx, 30*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = s.Declare("x", "Int")
	_ = s.Assert("(= x 1)")
	if st, err := s.Check(context.Background(), time.Second); err != nil || st != Sat {
		t.Fatalf("after reset: %v, %v", st, err)
	}
}

func TestKilledProcess(t *testing.T) {
	s := start(t, Config{})
	pid := s.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	_ = s.Declare("x", "Int")
	_, err := s.Check(context.Background(), time.Second)
	if !errors.Is(err, ErrSolver) && !errors.Is(err, ErrLost) {
		t.Fatalf("err = %v, want ErrSolver or ErrLost", err)
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.pid() == pid || s.Generation() != 2 {
		t.Errorf("no fresh process: pid %d, generation %d", s.pid(), s.Generation())
	}
	if st, err := s.Check(context.Background(), time.Second); err != nil || st != Sat {
		t.Fatalf("after reset: %v, %v", st, err)
	}
}

func TestGarbage(t *testing.T) {
	// Answers the start-up marker, then garbage to everything.
	body := `while read line; do case "$line" in *echo*) echo "$line" | sed -n 's/(echo "\(.*\)")/\1/p'; break;; esac; done
while read line; do
  case "$line" in
  *echo*) echo 'sat sat ((((('; echo "$line" | sed -n 's/(echo "\(.*\)")/\1/p';;
  esac
done`
	s, err := Start(context.Background(), Config{Path: script(t, body)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Check(context.Background(), time.Second); !errors.Is(err, ErrSolver) {
		t.Errorf("check: %v, want ErrSolver", err)
	}
	if _, err := s.Values(context.Background(), "x"); !errors.Is(err, ErrSolver) {
		t.Errorf("values: %v, want ErrSolver", err)
	}
	// A process that exits at once.
	if _, err := Start(context.Background(), Config{Path: script(t, "echo hello; exit 3")}); !errors.Is(err, ErrSolver) {
		t.Errorf("start of a dying binary: %v, want ErrSolver", err)
	}
}

func TestNotFound(t *testing.T) {
	_, err := Start(context.Background(), Config{Path: filepath.Join(t.TempDir(), "no-such-z3")})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	t.Setenv(EnvPath, filepath.Join(t.TempDir(), "nope"))
	if _, err := Start(context.Background(), Config{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("with %s: err = %v, want ErrNotFound", EnvPath, err)
	}
}

func TestParseSexp(t *testing.T) {
	for _, in := range []string{"", "(", ")", "((a)", "(a))", "\"abc", strings.Repeat("(", 1000)} {
		if _, err := parseSexp(in); err == nil {
			t.Errorf("parseSexp(%q): no error", in)
		}
	}
	x, err := parseSexp(`((x 3) ((- x 1) (- 2)) (|a b| "s)"))`)
	if err != nil || x.String() != `((x 3) ((- x 1) (- 2)) (|a b| "s)"))` {
		t.Errorf("got %v, %v", x, err)
	}
	if v, err := Int("(- 5)"); err != nil || v != -5 {
		t.Errorf("Int: %d %v", v, err)
	}
	if _, err := Int("(/ 1 2)"); err == nil {
		t.Error("Int accepted a fraction")
	}
}

func TestClose(t *testing.T) {
	s := start(t, Config{})
	pid := s.pid()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("process %d still exists after Close", pid)
	}
	if _, err := s.Check(context.Background(), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("check after close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}
