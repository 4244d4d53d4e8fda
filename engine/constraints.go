package engine

import "weft/engine/ir"

// ConstraintsApply reports whether cdpor may use some constraint of cs on
// prog: cs pairs an atomic block with another step, and the program
// cannot race (cdpor never merges synchronising steps otherwise; its own
// conditions on two single accesses of a word need no table). A caller
// choosing a mode (the language server) runs cdpor where this holds:
// there it explores at most what sdpor does and often less.
func ConstraintsApply(prog *Program, cs *ir.Constraints) bool {
	if cs == nil || !cs.RaceFree {
		return false
	}
	atomic := func(s ir.Site) bool {
		if s.Body < 0 || int(s.Body) >= len(prog.Bodies) {
			return false
		}
		code := prog.Bodies[s.Body].Code
		return s.PC >= 0 && int(s.PC) < len(code) && code[s.PC].Op == ir.OpAtomic
	}
	for pair, list := range cs.Pairs {
		if len(list) > 0 && (atomic(pair[0]) || atomic(pair[1])) {
			return true
		}
	}
	return false
}
