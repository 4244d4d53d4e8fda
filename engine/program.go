package engine

import "weft/engine/ir"

// The program form lives in package ir; these names keep the engine's API
// (and its callers) speaking of engine.Program, engine.Access, ….
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
