package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// A crash of the Go runtime itself (out of memory, a stack overflow, a
// panic on another goroutine) cannot be recovered from, and the runtime
// exits with code 2, which weft uses for input errors. So weft runs as
// two processes: the first starts the second with the same arguments and
// standard streams and waits; the second does the work and, should it
// crash, also writes the crash report to a pipe the first one reads. A
// crash becomes exit code 4 with a line saying so; every other exit code
// passes through unchanged.

// childEnv marks the working process.
const childEnv = "WEFT_SUPERVISED_CHILD"

// noSupervisorEnv, set to anything, makes weft run in one process (for
// debugging weft itself).
const noSupervisorEnv = "WEFT_NO_SUPERVISOR"

// crashFD is the working process's file descriptor of the crash pipe
// (ExtraFiles start at 3).
const crashFD = 3

// superviseSelf runs weft as a supervised child unless this process is
// that child (then it arranges for a crash report on the pipe and returns
// supervised false, to do the work). If the child cannot be started, weft
// works unsupervised.
func superviseSelf() (code int, supervised bool) {
	if os.Getenv(childEnv) != "" {
		becomeChild()
		return 0, false
	}
	if os.Getenv(noSupervisorEnv) != "" {
		return 0, false
	}
	self, err := os.Executable()
	if err != nil {
		return 0, false
	}
	code, err = supervise(self, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		return 0, false
	}
	return code, true
}

// becomeChild sends the runtime's crash report to the supervisor's pipe
// too.
func becomeChild() {
	if f := os.NewFile(crashFD, "crash-pipe"); f != nil {
		if debug.SetCrashOutput(f, debug.CrashOptions{}) == nil {
			_ = f.Close() // SetCrashOutput keeps its own copy
		}
	}
	os.Unsetenv(childEnv)
}

// supervise runs self with args as the working process, with this
// process's standard input and the given output streams, and returns the
// exit code weft should end with. err is set only when the child could
// not be started.
func supervise(self string, args []string, stdout, stderr *os.File) (int, error) {
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.ExtraFiles = []*os.File{crashW}
	// The child gets the terminal's interrupt itself (same process
	// group); a signal sent to this process alone is passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		crashR.Close()
		crashW.Close()
		return 0, err
	}
	crashW.Close()
	crashed := make(chan bool, 1)
	go func() {
		n, _ := io.Copy(io.Discard, crashR)
		crashR.Close()
		crashed <- n > 0
	}()
	stopForwarding := make(chan struct{})
	defer close(stopForwarding)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-stopForwarding:
				return
			}
		}
	}()
	err = cmd.Wait()
	if <-crashed {
		fmt.Fprintln(stderr, "weft: internal error: the checker crashed (the report is above; this is a bug in weft: please report it with the model)")
		return exitInternal, nil
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return exitOK, nil
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ws.Signal() == syscall.SIGKILL {
				fmt.Fprintln(stderr, "weft: internal error: the checker was killed (by the system's out-of-memory killer?); try a smaller --max-memory")
				return exitInternal, nil
			}
			return 128 + int(ws.Signal()), nil
		}
		return exitErr.ExitCode(), nil
	}
	fmt.Fprintln(stderr, "weft: internal error:", err)
	return exitInternal, nil
}
