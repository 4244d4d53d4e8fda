package lower

import (
	"sort"

	"weft/analysis"
	"weft/engine/ir"
	"weft/grammar"
	"weft/source"
)

// Loaded is a source file taken through every front-end stage that
// succeeded: parsed, checked, and (when free of errors) lowered.
type Loaded struct {
	File        *grammar.File
	Program     *analysis.Program
	Exec        *ir.Program // nil when Diagnostics has errors
	Diagnostics []source.Diagnostic
}

// Load parses, checks and lowers src. Diagnostics holds the parser's and
// the checker's diagnostics together, sorted by position; the program is
// lowered only when none of them is an error.
func Load(filename string, src []byte) *Loaded {
	file, diags := grammar.ParseFile(filename, src)
	prog := analysis.Check(file)
	diags = append(diags, prog.Diagnostics...)
	sort.SliceStable(diags, func(i, j int) bool {
		return diags[i].Range.Start.Offset < diags[j].Range.Start.Offset
	})
	ld := &Loaded{File: file, Program: prog, Diagnostics: diags}
	if source.HasErrors(diags) {
		return ld
	}
	exec, err := Lower(prog)
	if err != nil {
		ld.Diagnostics = append(ld.Diagnostics, source.Diagnostic{
			Severity: source.Error, Code: "internal-error", Message: err.Error(),
		})
		return ld
	}
	ld.Exec = exec
	return ld
}
