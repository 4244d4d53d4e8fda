// Package z3 runs the z3 SMT solver as a subprocess and talks SMT-LIB 2 to
// it over pipes (`z3 -in -smt2`).
//
// Contract:
//
//   - Start finds the binary (Config.Path, else $WEFT_Z3, else "z3" on
//     $PATH); when there is none the error wraps ErrNotFound.
//   - Commands that answer nothing (Push, Pop, Declare, Assert, Exec) are
//     buffered and sent with the next query; a query (Check, Values, Sync)
//     sends them followed by `(echo "<marker>")` and reads the answers up
//     to the marker, so one query is one round trip. An `(error …)` line in
//     that answer, whichever command caused it, is returned as an error
//     wrapping ErrSolver; the pending commands' effects up to that command
//     stand, as z3 keeps going after an error.
//   - Every query is time-boxed: z3's own `:timeout` (Check answers
//     Unknown when it hits it) and a Go-side deadline (the solver's time
//     box plus a grace period, and the context's deadline). When the
//     deadline passes or the context is cancelled before z3 answers, the
//     process is killed and reaped and the query returns an error wrapping
//     ErrTimeout (or the context's error). The declarations and assertions
//     are then gone, so every later query fails with ErrLost until the
//     caller calls Reset, which starts a fresh process: a query never
//     silently runs without the assertions it was given.
//   - Output the package does not understand is an error wrapping
//     ErrSolver, never a panic; a process that died is treated like a
//     killed one (ErrLost until Reset).
//   - Close ends the process (end of input, then kill after a short wait) and
//     reaps it; a Solver is safe for use by one goroutine at a time (a
//     mutex serialises callers).
package z3

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors the package wraps.
var (
	// ErrNotFound: no z3 binary at the configured path or on $PATH.
	ErrNotFound = errors.New("z3 not found (install the Debian package z3, or set WEFT_Z3 to the binary)")
	// ErrTimeout: the solver did not answer within its time box and was
	// killed.
	ErrTimeout = errors.New("z3 did not answer in time")
	// ErrSolver: the solver reported an error, answered something
	// unexpected, or died.
	ErrSolver = errors.New("z3 solver error")
	// ErrLost: an earlier query killed the process (or it died), so the
	// declarations and assertions made before are gone; every query
	// fails with it until Reset.
	ErrLost = errors.New("z3 was restarted and lost its assertions; Reset first")
	// ErrClosed: the Solver was closed.
	ErrClosed = errors.New("z3 solver closed")
)

// EnvPath is the environment variable that overrides the binary's path.
const EnvPath = "WEFT_Z3"

// Status is the answer of check-sat.
type Status int

// The answers of check-sat.
const (
	Unknown Status = iota
	Sat
	Unsat
)

func (s Status) String() string {
	switch s {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	}
	return "unknown"
}

// Config says how to start the solver.
type Config struct {
	// Path of the binary; "" means $WEFT_Z3, else "z3" looked up on $PATH.
	Path string
	// Timeout is the default time box of a query (0: 10 s).
	Timeout time.Duration
	// Grace is how long past a query's time box the Go side waits before
	// killing the process (0: 1 s).
	Grace time.Duration
}

// Solver is one z3 process.
type Solver struct {
	mu     sync.Mutex
	path   string
	cfg    Config
	proc   *process
	gen    int
	seq    int
	closed bool
	lost   bool          // the process was killed or died: queries fail until Reset
	curTO  time.Duration // the :timeout the live process has, 0 if unset
	buf    bytes.Buffer  // pending commands
}

type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // stdout, line by line; closed at EOF
	done   chan struct{} // closed when Wait has returned
	quit   chan struct{} // closed when the process is being ended: the reader stops
	stderr *limitedBuffer
}

// Start starts a solver. ctx bounds the start only.
func Start(ctx context.Context, cfg Config) (*Solver, error) {
	path, err := findBinary(cfg.Path)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = time.Second
	}
	s := &Solver{path: path, cfg: cfg}
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Available says whether Start would find a z3 binary with cfg (nil), or
// why not (an error wrapping ErrNotFound), without starting it.
func Available(cfg Config) error {
	_, err := findBinary(cfg.Path)
	return err
}

func findBinary(p string) (string, error) {
	if p == "" {
		p = os.Getenv(EnvPath)
	}
	if p == "" {
		p = "z3"
	}
	found, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrNotFound, p, err)
	}
	return found, nil
}

// Path returns the binary in use.
func (s *Solver) Path() string { return s.path }

// Generation counts the processes started so far: it changes when a
// process was killed or died and a fresh one (with no declarations and an
// empty assertion stack) took its place.
func (s *Solver) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// ensure starts a process if none is running. Called with mu held.
func (s *Solver) ensure(ctx context.Context) error {
	if s.closed {
		return ErrClosed
	}
	if s.lost {
		return ErrLost
	}
	if s.proc != nil {
		select {
		case <-s.proc.done:
			s.kill()
			return fmt.Errorf("%w: %w", ErrSolver, ErrLost)
		default:
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cmd := exec.Command(s.path, "-in", "-smt2")
	// A killed solver's children (a wrapper script's) may keep the stderr
	// pipe open: Wait gives up on it after this long.
	cmd.WaitDelay = 500 * time.Millisecond
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("z3: stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("z3: stdout pipe: %w", err)
	}
	stderr := &limitedBuffer{max: 4096}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: starting %s: %v", ErrNotFound, s.path, err)
	}
	p := &process{cmd: cmd, stdin: stdin, lines: make(chan string, 64), done: make(chan struct{}), quit: make(chan struct{}), stderr: stderr}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			case <-p.quit:
				_, _ = io.Copy(io.Discard, stdout)
				close(p.lines)
				return
			}
		}
		// Drain whatever is left so that the process never blocks on a
		// full pipe, then report EOF.
		_, _ = io.Copy(io.Discard, stdout)
		close(p.lines)
	}()
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	s.proc = p
	s.gen++
	s.curTO = 0
	s.buf.Reset()
	// A first round trip: the binary is really an SMT-LIB solver.
	s.buf.WriteString("(set-option :print-success false)\n")
	if _, err := s.roundTrip(ctx, s.cfg.Timeout); err != nil {
		return fmt.Errorf("z3: starting %s: %w", s.path, err)
	}
	return nil
}

// kill ends the current process and reaps it. Called with mu held.
func (s *Solver) kill() {
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	s.lost = true
	close(p.quit)
	_ = p.stdin.Close()
	killGroup(p.cmd)
	<-p.done
}

// roundTrip sends the pending commands and a marker and returns the lines
// answered before the marker. It kills the process on a timeout, a
// cancelled context, EOF or a write error. Called with mu held and a live
// process.
func (s *Solver) roundTrip(ctx context.Context, box time.Duration) ([]string, error) {
	p := s.proc
	s.seq++
	marker := "weft-sync-" + strconv.Itoa(s.seq)
	s.buf.WriteString("(echo \"" + marker + "\")\n")
	data := append([]byte(nil), s.buf.Bytes()...)
	s.buf.Reset()
	timer := time.NewTimer(box + s.cfg.Grace)
	defer timer.Stop()
	werr := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(data)
		werr <- err
	}()
	var out []string
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				msg := strings.TrimSpace(p.stderr.String())
				s.kill()
				if msg != "" {
					return out, fmt.Errorf("%w: process ended: %s", ErrSolver, msg)
				}
				return out, fmt.Errorf("%w: process ended", ErrSolver)
			}
			if strings.TrimSpace(line) == marker {
				if werr != nil {
					if err := <-werr; err != nil {
						s.kill()
						return out, fmt.Errorf("%w: write: %v", ErrSolver, err)
					}
				}
				return out, nil
			}
			if len(out) < 100000 {
				out = append(out, line)
			}
		case err := <-werr:
			if err != nil {
				s.kill()
				return out, fmt.Errorf("%w: write: %v", ErrSolver, err)
			}
			werr = nil // written; keep reading (a nil channel never fires)
		case <-timer.C:
			s.kill()
			return out, fmt.Errorf("%w (after %v)", ErrTimeout, box+s.cfg.Grace)
		case <-ctx.Done():
			s.kill()
			return out, fmt.Errorf("z3: %w", ctx.Err())
		}
	}
}

// query runs the pending commands plus cmds and returns the answer lines,
// after checking them for `(error …)`. box is the Go-side time box.
func (s *Solver) query(ctx context.Context, box time.Duration, cmds string) ([]string, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	s.buf.WriteString(cmds)
	lines, err := s.roundTrip(ctx, box)
	if err != nil {
		return nil, err
	}
	var rest []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "(error") {
			return nil, fmt.Errorf("%w: %s", ErrSolver, t)
		}
		if t != "" && t != "success" {
			rest = append(rest, t)
		}
	}
	return rest, nil
}

func (s *Solver) pending(cmd string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.buf.WriteString(cmd)
	s.buf.WriteByte('\n')
	return nil
}

// Exec queues SMT-LIB commands that answer nothing (declarations,
// assertions, options); errors surface at the next query.
func (s *Solver) Exec(cmds ...string) error {
	return s.pending(strings.Join(cmds, "\n"))
}

// Push queues (push 1).
func (s *Solver) Push() error { return s.pending("(push 1)") }

// Pop queues (pop 1).
func (s *Solver) Pop() error { return s.pending("(pop 1)") }

// Declare queues (declare-const name sort).
func (s *Solver) Declare(name, sort string) error {
	return s.pending("(declare-const " + name + " " + sort + ")")
}

// Assert queues (assert term).
func (s *Solver) Assert(term string) error { return s.pending("(assert " + term + ")") }

// Sync sends the pending commands and reports the first error they
// caused.
func (s *Solver) Sync(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.query(ctx, s.cfg.Timeout, "")
	return err
}

// Check runs (check-sat) with time box timeout (0: the Config's). A query
// z3 gives up on (its own timeout included) answers Unknown with a nil
// error; Reason then tells why.
func (s *Solver) Check(ctx context.Context, timeout time.Duration) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if timeout <= 0 {
		timeout = s.cfg.Timeout
	}
	if err := s.ensure(ctx); err != nil {
		return Unknown, err
	}
	var cmds strings.Builder
	if s.curTO != timeout {
		ms := timeout.Milliseconds()
		if ms < 1 {
			ms = 1
		}
		fmt.Fprintf(&cmds, "(set-option :timeout %d)\n", ms)
		s.curTO = timeout
	}
	cmds.WriteString("(check-sat)\n")
	lines, err := s.query(ctx, timeout, cmds.String())
	if err != nil {
		return Unknown, err
	}
	if len(lines) != 1 {
		return Unknown, fmt.Errorf("%w: unexpected answer to check-sat: %q", ErrSolver, strings.Join(lines, " "))
	}
	switch lines[0] {
	case "sat":
		return Sat, nil
	case "unsat":
		return Unsat, nil
	case "unknown":
		return Unknown, nil
	}
	return Unknown, fmt.Errorf("%w: unexpected answer to check-sat: %q", ErrSolver, lines[0])
}

// Reason returns z3's :reason-unknown after a check that answered Unknown
// ("timeout", "canceled", "(incomplete …)").
func (s *Solver) Reason(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines, err := s.query(ctx, s.cfg.Timeout, "(get-info :reason-unknown)\n")
	if err != nil {
		return "", err
	}
	t := strings.Join(lines, " ")
	t = strings.TrimPrefix(strings.TrimSuffix(t, ")"), "(:reason-unknown")
	return strings.Trim(strings.TrimSpace(t), "\""), nil
}

// Values runs (get-value (terms…)) after a Sat check and returns each
// term's value as z3 prints it ("3", "(- 2)", "true"), in the order of
// terms.
func (s *Solver) Values(ctx context.Context, terms ...string) ([]string, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lines, err := s.query(ctx, s.cfg.Timeout, "(get-value ("+strings.Join(terms, " ")+"))\n")
	if err != nil {
		return nil, err
	}
	sx, err := parseSexp(strings.Join(lines, " "))
	if err != nil {
		return nil, fmt.Errorf("%w: get-value: %v", ErrSolver, err)
	}
	if sx.atom != "" || len(sx.list) != len(terms) {
		return nil, fmt.Errorf("%w: get-value: unexpected answer %q", ErrSolver, strings.Join(lines, " "))
	}
	vals := make([]string, len(terms))
	for i, pair := range sx.list {
		if pair.atom != "" || len(pair.list) != 2 {
			return nil, fmt.Errorf("%w: get-value: unexpected pair %q", ErrSolver, pair.String())
		}
		vals[i] = pair.list[1].String()
	}
	return vals, nil
}

// Int parses an integer value as z3 prints it: "3" or "(- 3)".
func Int(v string) (int64, error) {
	v = strings.TrimSpace(v)
	neg := false
	if strings.HasPrefix(v, "(-") && strings.HasSuffix(v, ")") {
		neg = true
		v = strings.TrimSpace(v[2 : len(v)-1])
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: not an int64: %q", ErrSolver, v)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Reset drops every declaration and assertion and the pending commands
// ((reset)); after a killed or dead process it starts a fresh one. It is
// how a caller acknowledges ErrLost.
func (s *Solver) Reset(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.buf.Reset()
	if s.lost {
		s.lost = false
		return s.ensure(ctx)
	}
	_, err := s.query(ctx, s.cfg.Timeout, "(reset)\n(set-option :print-success false)\n")
	s.curTO = 0
	return err
}

// Close ends the process and reaps it. It is safe to call more than once.
func (s *Solver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	p := s.proc
	if p == nil {
		return nil
	}
	s.proc = nil
	close(p.quit)
	_ = p.stdin.Close() // z3 exits at the end of its input
	select {
	case <-p.done:
	case <-time.After(500 * time.Millisecond):
		killGroup(p.cmd)
		<-p.done
	}
	return nil
}

// pid returns the live process's id, or 0 (for tests).
func (s *Solver) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.cmd.Process == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sexp is a parsed S-expression: an atom or a list.
type sexp struct {
	atom string
	list []*sexp
}

func (x *sexp) String() string {
	if x.list == nil {
		return x.atom
	}
	parts := make([]string, len(x.list))
	for i, e := range x.list {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// parseSexp parses one S-expression (strings and |quoted| symbols kept
// as atoms); nesting is bounded.
func parseSexp(text string) (*sexp, error) {
	p := &sexpParser{s: text}
	x, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("trailing text %q", p.s[p.i:])
	}
	return x, nil
}

type sexpParser struct {
	s string
	i int
}

func (p *sexpParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *sexpParser) parse(depth int) (*sexp, error) {
	if depth > 200 {
		return nil, errors.New("nested too deep")
	}
	p.skip()
	if p.i >= len(p.s) {
		return nil, errors.New("unexpected end")
	}
	switch c := p.s[p.i]; c {
	case '(':
		p.i++
		x := &sexp{list: []*sexp{}}
		for {
			p.skip()
			if p.i >= len(p.s) {
				return nil, errors.New("unclosed (")
			}
			if p.s[p.i] == ')' {
				p.i++
				return x, nil
			}
			e, err := p.parse(depth + 1)
			if err != nil {
				return nil, err
			}
			x.list = append(x.list, e)
		}
	case ')':
		return nil, errors.New("unexpected )")
	case '"', '|':
		j := strings.IndexByte(p.s[p.i+1:], c)
		if j < 0 {
			return nil, errors.New("unclosed quote")
		}
		a := p.s[p.i : p.i+j+2]
		p.i += j + 2
		return &sexp{atom: a}, nil
	default:
		j := p.i
		for j < len(p.s) && !strings.ContainsRune(" \t\r\n()\"|", rune(p.s[j])) {
			j++
		}
		a := p.s[p.i:j]
		p.i = j
		return &sexp{atom: a}, nil
	}
}
