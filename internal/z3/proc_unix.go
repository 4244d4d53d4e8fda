//go:build unix

package z3

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the solver in a process group of its own, so that
// killGroup also ends whatever it started (a wrapper script's children).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
