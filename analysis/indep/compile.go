package indep

import (
	"fmt"
	"math"

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
	if err != nil {
		return c, nil, err
	}
	if g := noOverflow(c); g != nil {
		c = ir.CExpr{Op: ir.CAnd, Args: []ir.CExpr{*g, c}}
	}
	return c, mergeRanges(reads), nil
}

// noOverflow is the condition that no addition, subtraction, negation
// or product of c overflows int64 (nil: c has none). The engine
// evaluates a condition in wrapping arithmetic, and a condition is
// sufficient only where its arithmetic means what it says: `l + m == 3`
// must not hold where l + m wraps around to 3 (the synthesis's
// conditions are over unbounded integers, and the range literals of
// Options.Int64 compare the very sums that would wrap). Each test is
// written so that it cannot overflow itself, and the guards of a term's
// operands come before its own (CAnd evaluates left to right and stops
// at the first false).
func noOverflow(c ir.CExpr) *ir.CExpr {
	var guards []ir.CExpr
	var walk func(c ir.CExpr)
	walk = func(c ir.CExpr) {
		for _, a := range c.Args {
			walk(a)
		}
		guards = append(guards, opGuard(c)...)
	}
	walk(c)
	if len(guards) == 0 {
		return nil
	}
	g := guards[0]
	for _, x := range guards[1:] {
		g = ir.CExpr{Op: ir.CAnd, Args: []ir.CExpr{g, x}}
	}
	return &g
}

// opGuard is the test that c's own operation does not overflow, given
// operands that did not.
func opGuard(c ir.CExpr) []ir.CExpr {
	k := func(v int64) ir.CExpr { return ir.CExpr{Op: ir.CConst, Value: v} }
	bin := func(op ir.COp, x, y ir.CExpr) ir.CExpr { return ir.CExpr{Op: op, Args: []ir.CExpr{x, y}} }
	or := func(x, y ir.CExpr) ir.CExpr { return bin(ir.COr, x, y) }
	const maxFactor = 3037000499 // maxFactor² < 2⁶³
	if len(c.Args) == 0 {
		return nil
	}
	a := c.Args[0]
	switch c.Op {
	case ir.CNeg:
		if a.Op == ir.CConst {
			if a.Value == math.MinInt64 {
				return []ir.CExpr{k(0)}
			}
			return nil
		}
		return []ir.CExpr{bin(ir.CNe, a, k(math.MinInt64))}
	case ir.CAdd, ir.CSub, ir.CMul:
	default:
		return nil
	}
	if len(c.Args) != 2 {
		return nil
	}
	b := c.Args[1]
	switch c.Op {
	case ir.CAdd:
		// b > 0: a <= max - b; b < 0: a >= min - b.
		return []ir.CExpr{
			or(bin(ir.CLe, b, k(0)), bin(ir.CLe, a, bin(ir.CSub, k(math.MaxInt64), b))),
			or(bin(ir.CGe, b, k(0)), bin(ir.CGe, a, bin(ir.CSub, k(math.MinInt64), b))),
		}
	case ir.CSub:
		// b < 0: a <= max + b; b > 0: a >= min + b.
		return []ir.CExpr{
			or(bin(ir.CGe, b, k(0)), bin(ir.CLe, a, bin(ir.CAdd, k(math.MaxInt64), b))),
			or(bin(ir.CLe, b, k(0)), bin(ir.CGe, a, bin(ir.CAdd, k(math.MinInt64), b))),
		}
	}
	// A product: by a constant, the exact bounds of the other factor
	// (Go's division truncates toward zero, which is the floor of a
	// positive quotient and the ceiling of a negative one); otherwise
	// both factors within maxFactor, which suffices.
	if a.Op == ir.CConst {
		a, b = b, a
	}
	if b.Op == ir.CConst {
		switch f := b.Value; {
		case f == 0 || f == 1:
			return nil
		case f == -1:
			return []ir.CExpr{bin(ir.CNe, a, k(math.MinInt64))}
		case f > 1:
			return []ir.CExpr{bin(ir.CLe, a, k(math.MaxInt64/f)), bin(ir.CGe, a, k(math.MinInt64/f))}
		default:
			return []ir.CExpr{bin(ir.CGe, a, k(math.MaxInt64/f)), bin(ir.CLe, a, k(math.MinInt64/f))}
		}
	}
	return []ir.CExpr{
		bin(ir.CLe, a, k(maxFactor)), bin(ir.CGe, a, k(-maxFactor)),
		bin(ir.CLe, b, k(maxFactor)), bin(ir.CGe, b, k(-maxFactor)),
	}
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
