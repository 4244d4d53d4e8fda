package indep

import (
	"fmt"

	"weft/analysis"
	"weft/analysis/icond"
	"weft/engine/ir"
)

// compile turns a condition into the engine's form, with the shared
// words it reads (G(C): a whole array when an index is not constant). A
// local of either side is a slot of the frame the thread is in at the
// step: its own slot (analysis.Object.Slot) in its thread's, proc's or
// function's frame, and a thread array's index the slot after the
// body's frame (where lowering puts it, ir.Body.ArgSlot).
func compile(e *icond.Expr) (ir.CExpr, []ir.LocRange, error) {
	var reads []ir.LocRange
	var walk func(e *icond.Expr) (ir.CExpr, error)
	walk = func(e *icond.Expr) (ir.CExpr, error) {
		if e == nil {
			return ir.CExpr{}, fmt.Errorf("missing operand")
		}
		switch e.Op {
		case icond.Const:
			return ir.CExpr{Op: ir.CConst, Value: e.Value}, nil
		case icond.Var:
			obj := e.Obj
			if obj == nil {
				return ir.CExpr{}, fmt.Errorf("variable without object")
			}
			switch obj.Kind {
			case analysis.SharedVar:
				if obj.Offset < 0 {
					return ir.CExpr{}, fmt.Errorf("%s has no place in shared memory", obj.Name)
				}
				size := int32(analysis.SizeOf(obj.Type))
				c := ir.CExpr{Op: ir.CShared, Loc: int32(obj.Offset)}
				if e.Index == nil {
					reads = append(reads, ir.LocRange{Lo: c.Loc, Hi: c.Loc + 1})
					return c, nil
				}
				idx, err := walk(e.Index)
				if err != nil {
					return ir.CExpr{}, err
				}
				if idx.Op == ir.CConst && idx.Value >= 0 && idx.Value < int64(size) {
					c.Loc += int32(idx.Value)
					reads = append(reads, ir.LocRange{Lo: c.Loc, Hi: c.Loc + 1})
					return c, nil
				}
				reads = append(reads, ir.LocRange{Lo: c.Loc, Hi: c.Loc + size})
				c.Len, c.Args = size, []ir.CExpr{idx}
				return c, nil
			case analysis.LocalVar, analysis.Param, analysis.LoopVar:
				if obj.Slot < 0 {
					return ir.CExpr{}, fmt.Errorf("%s has no slot", obj.Name)
				}
				return ir.CExpr{Op: ir.CLocal, Side: uint8(e.Side), Slot: int32(obj.Slot)}, nil
			case analysis.ThreadIndex:
				if obj.Owner == nil {
					return ir.CExpr{}, fmt.Errorf("thread index %s without its thread", obj.Name)
				}
				return ir.CExpr{Op: ir.CLocal, Side: uint8(e.Side), Slot: int32(obj.Owner.FrameSize)}, nil
			}
			return ir.CExpr{}, fmt.Errorf("%s (%v) cannot be evaluated", obj.Name, obj.Kind)
		}
		op, ok := cops[e.Op]
		if !ok {
			return ir.CExpr{}, fmt.Errorf("operator %d", e.Op)
		}
		c := ir.CExpr{Op: op, Args: make([]ir.CExpr, len(e.Args))}
		for i, a := range e.Args {
			x, err := walk(a)
			if err != nil {
				return ir.CExpr{}, err
			}
			c.Args[i] = x
		}
		return c, nil
	}
	c, err := walk(e)
	return c, mergeRanges(reads), err
}

var cops = map[icond.Op]ir.COp{
	icond.Add: ir.CAdd, icond.Sub: ir.CSub, icond.Mul: ir.CMul, icond.Neg: ir.CNeg,
	icond.Eq: ir.CEq, icond.Ne: ir.CNe, icond.Lt: ir.CLt, icond.Le: ir.CLe,
	icond.Gt: ir.CGt, icond.Ge: ir.CGe, icond.And: ir.CAnd, icond.Or: ir.COr, icond.Not: ir.CNot,
}

// mergeRanges sorts and merges overlapping or adjacent ranges.
func mergeRanges(rs []ir.LocRange) []ir.LocRange {
	if len(rs) == 0 {
		return nil
	}
	sorted := append([]ir.LocRange(nil), rs...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].Lo < sorted[j-1].Lo; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	out := sorted[:1]
	for _, r := range sorted[1:] {
		last := &out[len(out)-1]
		if r.Lo <= last.Hi {
			if r.Hi > last.Hi {
				last.Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// inRange is the condition that every index of a shared array element in
// e is within its array (a step whose index is out of range stops the
// execution: no constraint may call it independent).
func inRange(e *icond.Expr) *icond.Expr {
	var conj []*icond.Expr
	var walk func(e *icond.Expr)
	walk = func(e *icond.Expr) {
		if e == nil {
			return
		}
		if e.Op == icond.Var && e.Index != nil && e.Obj != nil {
			if arr, ok := e.Obj.Type.(*analysis.Array); ok {
				conj = append(conj, icond.Bin(icond.Ge, e.Index, icond.Int(0)), icond.Bin(icond.Lt, e.Index, icond.Int(arr.Len)))
			}
		}
		walk(e.Index)
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	return icond.Simplify(icond.AndOf(conj...))
}
