package stateful

import "math/bits"

// tset is a set of threads, a bit per thread index. Sets of one frame
// share the frame's width (the threads of its state); a thread beyond a
// set's words is not in it.
type tset []uint64

func words(n int) int { return (n + 63) / 64 }

// sized returns s emptied and with room for n threads, reusing its array.
func (s tset) sized(n int) tset {
	w := words(n)
	if cap(s) < w {
		return make(tset, w)
	}
	s = s[:w]
	clear(s)
	return s
}

func (s tset) has(t int32) bool {
	i := int(t) / 64
	return i < len(s) && s[i]&(1<<(uint(t)%64)) != 0
}

// add adds t, which must be within s's width.
func (s tset) add(t int32) { s[t/64] |= 1 << (uint(t) % 64) }

func (s tset) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// addAll adds every thread of o (within s's width).
func (s tset) addAll(o tset) {
	for i := range min(len(s), len(o)) {
		s[i] |= o[i]
	}
}

// copyFrom makes s equal to o (same width).
func (s tset) copyFrom(o tset) {
	clear(s)
	copy(s, o)
}

// subsetOf reports whether every thread of s is in o.
func (s tset) subsetOf(o tset) bool {
	for i, w := range s {
		var ow uint64
		if i < len(o) {
			ow = o[i]
		}
		if w&^ow != 0 {
			return false
		}
	}
	return true
}

// firstNotIn returns the lowest thread of s not in o, or -1.
func (s tset) firstNotIn(o tset) int32 {
	for i, w := range s {
		var ow uint64
		if i < len(o) {
			ow = o[i]
		}
		if r := w &^ ow; r != 0 {
			return int32(i*64 + bits.TrailingZeros64(r))
		}
	}
	return -1
}

// each calls f for each thread of s, in increasing order.
func (s tset) each(f func(t int32)) {
	for i, w := range s {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			f(int32(i*64 + b))
			w &= w - 1
		}
	}
}
