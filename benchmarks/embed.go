// Package benchmarks carries the benchmark models of this folder and
// their expected trace counts (expected.tsv, see README.md) into the
// weft binary, so that weft bench runs wherever it is installed.
package benchmarks

import "embed"

// Files holds expected.tsv and the .weft files of this folder (not those
// of cdpor/).
//
//go:embed expected.tsv *.weft
var Files embed.FS
