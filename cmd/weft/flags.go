package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"weft/engine"
)

// The ranges of the numeric flags that are weft's own; those of the
// engine's options (--max-steps, --k, --max-executions, --max-bugs,
// --max-memory) come from engine.OptionLimits, as the language server's
// settings do.
const (
	// maxCountLimit bounds the counts given as int that are not engine
	// options (--bug): far more than any exploration can reach.
	maxCountLimit = math.MaxInt32
	// maxTimeout bounds every duration flag: about 11 years, far from the
	// 292 years where time.Duration overflows, so that the margins added
	// to it (bench gives each run 30 s more before it kills it) cannot
	// overflow.
	maxTimeout = 100_000 * time.Hour
)

// rangeDescriber is a flag value that accepts a range of values; the
// help says which.
type rangeDescriber interface {
	describeRange() string
}

// intFlag is an integer flag whose values lie in [min, max]. Set refuses
// any other, with an error that names the range (the flag package names
// the flag).
type intFlag[T ~int | ~int64] struct {
	p        *T
	min, max T
}

// newIntFlag returns the flag value for *p with the default def, which
// may lie outside the range (a default of 0 meaning "no limit" where 0
// cannot be given is not one; 0 is then in the range).
func newIntFlag[T ~int | ~int64](p *T, def, min, max T) *intFlag[T] {
	*p = def
	return &intFlag[T]{p: p, min: min, max: max}
}

// newLimitFlag is the flag value for *p of an engine option: its range
// and default are the engine's (engine.OptionLimits).
func newLimitFlag[T ~int | ~int64](p *T, lim engine.Limit) *intFlag[T] {
	return newIntFlag(p, T(lim.Default), T(lim.Min), T(lim.Max))
}

func (v *intFlag[T]) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < int64(v.min) || n > int64(v.max) {
		return fmt.Errorf("want an integer from %s", v.describeRange())
	}
	*v.p = T(n)
	return nil
}

func (v *intFlag[T]) String() string {
	if v == nil || v.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v *intFlag[T]) describeRange() string {
	return fmt.Sprintf("%d to %s", v.min, bigInt(int64(v.max)))
}

// bigInt writes n, and a power of two as such too.
func bigInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for e := 10; e < 63; e++ {
		if n == 1<<e {
			return fmt.Sprintf("%s (2^%d)", s, e)
		}
	}
	return s
}

// durationFlag is a duration flag whose values lie in [min, max].
type durationFlag struct {
	p        *time.Duration
	min, max time.Duration
}

func newDurationFlag(p *time.Duration, def, min, max time.Duration) *durationFlag {
	*p = def
	return &durationFlag{p: p, min: min, max: max}
}

func (v *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < v.min || d > v.max {
		return fmt.Errorf("want a duration such as 90s or 5m, from %s", v.describeRange())
	}
	*v.p = d
	return nil
}

func (v *durationFlag) String() string {
	if v == nil || v.p == nil {
		return "0s"
	}
	return shortDuration(*v.p)
}

func (v *durationFlag) describeRange() string {
	return fmt.Sprintf("%s to %s", shortDuration(v.min), shortDuration(v.max))
}

// shortDuration writes d without the zero units time.Duration.String
// adds ("5m", not "5m0s").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
