// Package stateful holds the models of the comparison of Weft's stateful
// exploration with SPIN (issue 29): each model twice, NAME.weft and its
// Promela twin NAME.pml, kept faithful to each other as README.md says.
// scripts/stateful-vs-spin.py runs both tools on them and prints the
// table; this package's test checks that every model loads, has its twin,
// and verifies in SPIN and in Weft's stateful mode, and that a broken
// variant of some of them fails in both.
package stateful
