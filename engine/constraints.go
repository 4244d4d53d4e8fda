package engine

import "weft/engine/ir"

// ConstraintsApply reports whether cdpor may use some constraint of cs on
// prog: the program cannot race, and cs has a condition that reads no
// shared word for a pair with an atomic block (cdpor merges synchronising
// steps only then, and uses no condition on shared memory for them; its
// own conditions on two single accesses of a word need no table). A
// caller choosing a mode (the language server) runs cdpor where this
// holds: there it explores at most what sdpor does and often less.
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
		if !atomic(pair[0]) && !atomic(pair[1]) {
			continue
		}
		for _, con := range list {
			if len(con.Reads) == 0 { // cdpor uses no other (see its "No-op swaps")
				return true
			}
		}
	}
	return false
}
