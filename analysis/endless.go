package analysis

import (
	"weft/grammar"
	"weft/source"
)

// EndlessLoops lists the `while` loops of p that never end once reached:
// the condition is the constant true, and neither a break that leaves the
// loop nor a return is in its body. A thread that reaches one runs on
// until it blocks or fails, so a stateless exploration can only stop
// there at the step bound. Loops inside atomic blocks are left out: an
// atomic block is one step, whose local computation no exploration can
// follow round a cycle. Each range is the loop's header, `while true`.
func (p *Program) EndlessLoops() []source.Range {
	if p == nil || p.File == nil {
		return nil
	}
	var out []source.Range
	grammar.Inspect(p.File, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.AtomicStmt:
			return false
		case *grammar.WhileStmt:
			if v, ok := p.ConstValues[n.Cond]; ok && v.IsBool() && v.Bool() && n.Body != nil && !leaves(n.Body) {
				out = append(out, source.Range{Start: n.While, End: n.Cond.End()})
			}
		}
		return true
	})
	return out
}

// leaves reports whether body, a loop's, has a way out of the loop: a
// break not inside a nested loop, or a return anywhere.
func leaves(body *grammar.Block) bool {
	found := false
	grammar.Inspect(body, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.ReturnStmt:
			found = true
		case *grammar.BranchStmt:
			found = found || n.Tok == grammar.BREAK
		case *grammar.WhileStmt, *grammar.ForStmt:
			// Its breaks leave it, not body's loop; its returns still
			// leave the function.
			grammar.Inspect(n, func(m grammar.Node) bool {
				_, ret := m.(*grammar.ReturnStmt)
				found = found || ret
				return !found
			})
			return false
		}
		return !found
	})
	return found
}
