// Package examples says of the example models in this folder what the
// tests of other packages need to know without reading their markers
// themselves (examples_test.go reads them all; see README.md).
package examples

import "strings"

// ForeverMarker is the header line of an example whose executions do not
// all end (a server loop, a lock taken and released forever): only the
// stateful mode can finish exploring it; a stateless mode runs into its
// step bound and, without an execution budget, never completes.
const ForeverMarker = "// want loops forever"

// LoopsForever reports whether src, the text of an example, has
// ForeverMarker on a line of its own (spaces around it aside). Tests that
// explore every example to completion in a stateless mode skip such
// examples, or bound their executions.
func LoopsForever(src []byte) bool {
	for line := range strings.Lines(string(src)) {
		if strings.TrimSpace(line) == ForeverMarker {
			return true
		}
	}
	return false
}
