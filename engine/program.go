package engine

import (
	"weft/engine/interp"
	"weft/engine/ir"
)

// The program form lives in package ir and the interpreter in package
// interp; these names keep the engine's API (and its callers) speaking of
// engine.Program, engine.Event, engine.Machine, ….
type (
	Program         = ir.Program
	Body            = ir.Body
	Instr           = ir.Instr
	Op              = ir.Op
	LocalVar        = ir.LocalVar
	Location        = ir.Location
	SharedVar       = ir.SharedVar
	ThreadSpec      = ir.ThreadSpec
	AtomicFootprint = ir.AtomicFootprint
	LocRange        = ir.LocRange
	Access          = ir.Access
)

type (
	Machine      = interp.Machine
	Thread       = interp.Thread
	CallFrame    = interp.CallFrame
	ThreadStatus = interp.ThreadStatus
	Event        = interp.Event
	TailStep     = interp.TailStep
	StopKind     = interp.StopKind
)

const (
	Ready    = interp.Ready
	Failing  = interp.Failing
	Finished = interp.Finished
	Spinning = interp.Spinning

	NoStop           = interp.NoStop
	StopAssertion    = interp.StopAssertion
	StopAssume       = interp.StopAssume
	StopRuntimeError = interp.StopRuntimeError
	StopStepBound    = interp.StopStepBound
	StopMemory       = interp.StopMemory

	DefaultLocalBudget = interp.DefaultLocalBudget
	maxTail            = interp.MaxTail
)

// NewMachine returns a machine in the initial state of prog (see
// interp.NewMachine), with the default local budget.
func NewMachine(prog *Program) *Machine { return interp.NewMachine(prog, 0) }
