package sdpor

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestTset checks the windowed bitset against a map, with members near
// each other and far apart (the window moves, grows down and up).
func TestTset(t *testing.T) {
	for _, spread := range []int{10, 70, 300, 100_000} {
		for seed := int64(0); seed < 20; seed++ {
			t.Run(fmt.Sprintf("spread=%d/%d", spread, seed), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				var s, o tset
				want, other := map[int]bool{}, map[int]bool{}
				for step := 0; step < 500; step++ {
					x := rng.Intn(spread)
					switch r := rng.Intn(100); {
					case r < 50:
						s.add(x)
						want[x] = true
					case r < 70:
						s.remove(x)
						delete(want, x)
					case r < 73:
						s.clear()
						clear(want)
					case r < 75:
						// As enter fills a node's enabled set.
						lo := rng.Intn(spread)
						hi := lo + rng.Intn(spread-lo)
						s.clear()
						s.cover(lo, hi)
						clear(want)
						for k := rng.Intn(5); k > 0; k-- {
							y := lo + rng.Intn(hi-lo+1)
							s.set(y)
							want[y] = true
						}
					case r < 85:
						o.add(x)
						other[x] = true
					case r < 90:
						s.union(&o)
						for y := range other {
							want[y] = true
						}
					case r < 93:
						s.copyFrom(&o)
						want = map[int]bool{}
						for y := range other {
							want[y] = true
						}
					default:
						o.clear()
						clear(other)
					}
					for y := range want {
						if !s.has(y) {
							t.Fatalf("step %d: %d missing", step, y)
						}
					}
					var members []int
					for y := s.next(0); y >= 0; y = s.next(y + 1) {
						if !want[y] {
							t.Fatalf("step %d: %d is not a member", step, y)
						}
						members = append(members, y)
					}
					if len(members) != len(want) || s.empty() != (len(want) == 0) {
						t.Fatalf("step %d: members %v, want %v", step, members, want)
					}
					words := map[int]uint64{}
					for y := range want {
						words[y/64] |= 1 << (y % 64)
					}
					for w := max(s.lo-1, 0); w <= s.lo+len(s.w); w++ {
						if s.wordAt(w) != words[w] {
							t.Fatalf("step %d: word %d is %x, want %x", step, w, s.wordAt(w), words[w])
						}
					}
				}
			})
		}
	}
}

// TestLiveThreads checks the list of live threads against a sorted slice
// through random steps (spawning, finishing) and their undoing.
func TestLiveThreads(t *testing.T) {
	for seed := int64(0); seed < 50; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 1 + rng.Intn(5)
		var l liveThreads
		l.reset(n, func(t int) bool { return t != 1 })
		var want []int32
		for i := 0; i < n; i++ {
			if i != 1 {
				want = append(want, int32(i))
			}
		}
		stack := [][]int32{slices.Clone(want)}
		threads := n
		counts := []int{threads}
		for step := 0; step < 300; step++ {
			if len(stack) > 1 && rng.Intn(3) == 0 {
				l.undo()
				stack = stack[:len(stack)-1]
				counts = counts[:len(counts)-1]
				want = slices.Clone(stack[len(stack)-1])
				threads = counts[len(counts)-1]
			} else {
				added, removed := int32(-1), int32(-1)
				if rng.Intn(3) == 0 {
					added = int32(threads)
					threads++
					want = append(want, added)
				}
				if len(want) > 0 && rng.Intn(2) == 0 {
					removed = want[rng.Intn(len(want))]
					if removed == added && rng.Intn(2) == 0 {
						removed = -1
					}
					if i := slices.Index(want, removed); removed >= 0 {
						want = slices.Delete(want, i, i+1)
					}
				}
				l.stepped(added, removed)
				stack = append(stack, slices.Clone(want))
				counts = append(counts, threads)
			}
			var got []int32
			for x := l.first; x >= 0; x = l.next[x] {
				got = append(got, x)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, step %d: live %v, want %v", seed, step, got, want)
			}
		}
	}
}
