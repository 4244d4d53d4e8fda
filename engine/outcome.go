package engine

import "fmt"

// Status is what a finished exploration amounts to, in the words the CLI's
// JSON and the language server's status use.
type Status string

const (
	StatusVerified   Status = "verified"   // complete, no bug, and something was checked
	StatusVacuous    Status = "vacuous"    // complete, no bug, but nothing was checked (see the warnings)
	StatusBugs       Status = "bugs"       // at least one bug (complete or not)
	StatusIncomplete Status = "incomplete" // no bug found, but not every execution was explored
)

// Verdict says what res, an exploration of prog, amounts to, with the
// warnings a user must see beside it: a model with no thread, or whose
// every execution ended in a failed assume, is never called verified.
func Verdict(prog *Program, res *Result) (Status, []string) {
	var warnings []string
	if len(prog.Threads) == 0 {
		warnings = append(warnings, "the model declares no thread: there was nothing to check")
	} else if res.Executions > 0 && res.AssumeBlocked == res.Executions {
		warnings = append(warnings, fmt.Sprintf("every execution (%d) ended in a failed assume: nothing was checked past the assumes", res.Executions))
	}
	switch {
	case len(res.Bugs) > 0:
		return StatusBugs, warnings
	case !res.Complete:
		return StatusIncomplete, warnings
	case len(warnings) > 0:
		return StatusVacuous, warnings
	}
	return StatusVerified, warnings
}

// StoppedWords says in words why an exploration stopped early
// (Result.Stopped).
func StoppedWords(stopped string) string {
	switch stopped {
	case "timeout":
		return "the time budget ran out"
	case "cancelled":
		return "cancelled"
	case "max-executions":
		return "the execution budget ran out"
	case StoppedMaxBugs:
		return "the bug budget was reached"
	case StoppedMemory:
		return "the memory budget ran out"
	case StoppedExecutionLength:
		return "an execution grew past the step bound times its number of threads (threads beside a looping one went on)"
	}
	return stopped
}
