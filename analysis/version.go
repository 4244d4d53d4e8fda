package analysis

// LanguageVersion is the version of the Weft language this front end
// implements (docs/language.md): version 2 added atomics that
// synchronise, spin-waits, condition variables, choose, functions and
// trylock.
const LanguageVersion = 2
