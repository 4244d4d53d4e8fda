package interp

import (
	"bytes"
	"encoding/binary"
)

// Exact state encoding
//
// AppendState writes the state the fingerprint hashes (see "State
// fingerprint") as bytes, for an exploration that stores visited states
// exactly (--exact-states) rather than by their 128-bit hash: two states
// have equal encodings iff the fingerprint's terms are equal, so the
// encoding tells apart exactly the states the fingerprint means to tell
// apart, without its collisions. It is the same content, in a canonical
// order:
//
//   - shared memory: every word, by location (the number of locations is
//     the program's);
//   - the number of threads, and for each, by index: its body, pc, call
//     depth, status and whether it waits on a condition variable; for a
//     failing thread the pending stop (kind, pc, the message's bytes);
//     for each frame from the outermost, the site of the call it makes
//     (not for the innermost) and the values of its live slots
//     (ir.Liveness, the sets the fingerprint counts: In at the pc for the
//     innermost frame, Suspended at the site for the others), in slot
//     order;
//   - whether its spin record is live (it arrived at a loop head and has
//     made only pure steps since); if so the head, the depth, the values
//     of the loop's slots then, and its reads as a sorted list of
//     (location, value, stale) records: the fingerprint sums one term per
//     read, so it sees their multiset, not their order.
//
// Numbers are varints (values zig-zag) and every length is given or
// follows from what comes before (the live sets from the body, pc and
// sites), so the encoding is prefix-free and one state has one encoding.
// It is history-free as the fingerprint is: step counts, names, write
// counts (only a read's staleness), who woke a waiter, the memo and the
// settings are not in it. It compares states of one program.
//
// Cost: it takes time in the size of the state (every word, every live
// slot), as RecomputeFingerprint does, and allocates nothing when buf has
// room (the liveness tables are computed once per machine, and shared
// with the fingerprint when Config.Fingerprint is set). An exact visited
// set pays this per state it stores or looks up, beside the fingerprint's
// per-step cost (BenchmarkFingerprint). On the paper suite's models
// (BenchmarkAppendState, the states of a random walk) a call takes 0.05
// to 0.6 µs, for encodings of 35 to 140 bytes.

// spinReadBytes is the size of one read record in the encoding: the
// location (4 bytes), the value (8) and whether it is stale (1), big
// endian, so that the bytes sort as the records do.
const spinReadBytes = 13

// AppendState appends the canonical encoding of the machine's current
// state to buf and returns the extended buffer (see "Exact state
// encoding"). It works whether or not the machine keeps a fingerprint.
func (m *Machine) AppendState(buf []byte) []byte {
	tab := m.stateTables()
	for _, v := range m.Mem {
		buf = binary.AppendVarint(buf, v)
	}
	buf = binary.AppendUvarint(buf, uint64(len(m.Threads)))
	for _, th := range m.Threads {
		body := tab.bodies[th.Body]
		depth := th.depth()
		buf = binary.AppendUvarint(buf, body.index)
		buf = binary.AppendUvarint(buf, uint64(uint32(th.PC)))
		buf = binary.AppendUvarint(buf, uint64(depth))
		waiting := byte(0)
		if th.cond.waiting {
			waiting = 1
		}
		buf = append(buf, byte(th.Status), waiting)
		if th.Status == Failing {
			buf = append(buf, byte(th.fail.kind))
			buf = binary.AppendUvarint(buf, uint64(uint32(th.fail.pc)))
			buf = binary.AppendUvarint(buf, uint64(len(th.fail.msg)))
			buf = append(buf, th.fail.msg...)
		}
		for d := int32(0); d <= depth; d++ {
			set, site := context(th, d, body)
			if site >= 0 {
				buf = binary.AppendUvarint(buf, uint64(uint32(site)))
			}
			words, _ := th.frameAt(d)
			for _, r := range body.sets[set] {
				for s := r.Lo; s < r.Hi; s++ {
					buf = binary.AppendVarint(buf, words[s])
				}
			}
		}
		buf = m.appendSpin(buf, th)
	}
	return buf
}

// stateTables is what AppendState needs to know of the program: the
// fingerprint's tables, made once per machine when it keeps none.
func (m *Machine) stateTables() *fpTables {
	if m.fp != nil {
		return m.fp.tab
	}
	if m.encTab == nil {
		m.encTab = newFPTables(m.Prog)
	}
	return m.encTab
}

// appendSpin appends th's spin record if it is live (as spinKey says), and
// a 0 byte otherwise.
func (m *Machine) appendSpin(buf []byte, th *Thread) []byte {
	s := &th.spin
	if !m.spinKey(s).alive {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	buf = binary.AppendUvarint(buf, uint64(uint32(s.at)))
	buf = binary.AppendUvarint(buf, uint64(uint32(s.depth)))
	buf = binary.AppendUvarint(buf, uint64(uint32(s.slotN)))
	for _, v := range m.spinSlots[s.slotLo : s.slotLo+s.slotN] {
		buf = binary.AppendVarint(buf, v)
	}
	n := 0
	for r := s.reads; r >= 0; r = m.spinReads[r].prev {
		n++
	}
	buf = binary.AppendUvarint(buf, uint64(n))
	lo := len(buf)
	for r := s.reads; r >= 0; r = m.spinReads[r].prev {
		rd := &m.spinReads[r]
		stale := byte(0)
		if m.writes[rd.loc] > rd.writes {
			stale = 1
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(rd.loc))
		// The value's sign bit flipped: the bytes sort as the signed
		// values do (any fixed order would do; this one reads well).
		buf = binary.BigEndian.AppendUint64(buf, uint64(rd.value)^(1<<63))
		buf = append(buf, stale)
	}
	sortRecords(buf[lo:], spinReadBytes)
	return buf
}

// sortRecords sorts b, a sequence of records of size bytes each, by
// their bytes, in place (a heap sort: no allocation, n log n).
func sortRecords(b []byte, size int) {
	n := len(b) / size
	if n < 2 {
		return
	}
	rec := func(i int) []byte { return b[i*size : (i+1)*size] }
	swap := func(i, j int) {
		x, y := rec(i), rec(j)
		for k := range size {
			x[k], y[k] = y[k], x[k]
		}
	}
	less := func(i, j int) bool { return bytes.Compare(rec(i), rec(j)) < 0 }
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && less(c, c+1) {
				c++
			}
			if !less(i, c) {
				return
			}
			swap(i, c)
			i = c
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		swap(0, end)
		down(0, end)
	}
}
