package sdpor

import "math/bits"

// tset is a set of thread indices: a bitset over a window of words, from
// word lo on. Threads are numbered in creation order and the members of
// a node's sets are often a narrow band of them (in a chain of spawns,
// the few threads alive among thousands), so a set costs the span of its
// members, not the number of threads.
type tset struct {
	lo int      // the window's first word
	w  []uint64 // words lo, lo+1, …
}

// clear empties s, keeping its memory (and a window of the first word,
// where the sets of a program of up to 64 threads stay).
func (s *tset) clear() {
	s.lo = 0
	s.w = append(s.w[:0], 0)
}

// copyFrom makes s a copy of o.
func (s *tset) copyFrom(o *tset) {
	s.lo = o.lo
	s.w = append(s.w[:0], o.w...)
}

func (s *tset) add(t int) {
	if i := uint(t>>6 - s.lo); i < uint(len(s.w)) {
		s.w[i] |= 1 << (uint(t) & 63)
		return
	}
	s.addOutside(t)
}

// addOutside adds t, which is outside the window: the window moves or
// grows.
func (s *tset) addOutside(t int) {
	i := t >> 6
	switch {
	case len(s.w) == 0 || len(s.w) == 1 && s.w[0] == 0: // empty: move the window
		s.lo = i
		s.w = append(s.w[:0], 0)
	case i < s.lo:
		n := s.lo - i
		old := len(s.w)
		for range n {
			s.w = append(s.w, 0)
		}
		copy(s.w[n:], s.w[:old])
		clear(s.w[:n])
		s.lo = i
	}
	for i-s.lo >= len(s.w) {
		s.w = append(s.w, 0)
	}
	s.w[i-s.lo] |= 1 << (uint(t) & 63)
}

// cover makes the window of s, which is empty, span threads lo to hi.
func (s *tset) cover(lo, hi int) {
	s.lo = lo >> 6
	s.w = s.w[:0]
	for range hi>>6 - s.lo + 1 {
		s.w = append(s.w, 0)
	}
}

// set adds t, which is in the window.
func (s *tset) set(t int) {
	s.w[t>>6-s.lo] |= 1 << (uint(t) & 63)
}

func (s *tset) remove(t int) {
	if i := uint(t>>6 - s.lo); i < uint(len(s.w)) {
		s.w[i] &^= 1 << (uint(t) & 63)
	}
}

func (s *tset) empty() bool {
	for _, w := range s.w {
		if w != 0 {
			return false
		}
	}
	return true
}

func (s *tset) has(t int) bool {
	i := uint(t>>6 - s.lo)
	return i < uint(len(s.w)) && s.w[i]&(1<<(uint(t)&63)) != 0
}

// wordAt is the i-th word of the whole bitset.
func (s *tset) wordAt(i int) uint64 {
	if j := uint(i - s.lo); j < uint(len(s.w)) {
		return s.w[j]
	}
	return 0
}

// union adds o's members to s.
func (s *tset) union(o *tset) {
	for j, w := range o.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			s.add((o.lo+j)*64 + b)
			w &^= 1 << b
		}
	}
}

// next returns the least member of s that is at least t, or -1.
func (s *tset) next(t int) int {
	if t < s.lo*64 {
		t = s.lo * 64
	}
	for j := t/64 - s.lo; j < len(s.w); j++ {
		w := s.w[j]
		if base := (s.lo + j) * 64; base < t {
			w &^= 1<<(t-base) - 1
		}
		if w != 0 {
			return (s.lo+j)*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}
