package stateful

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// key is what identifies a state in the visited set: the machine's
// 128-bit fingerprint with the pending data races mixed in (see
// "What a state is" in the package doc).
type key [2]uint64

// visited is the set of states the exploration has stored: an
// open-addressing table from key to the state's record index. With exact
// set, each state's full encoding is kept beside it in an arena and two
// states are the same only if their encodings are equal (the key is then
// a hash only). Once bits is set (bitstate hashing), states not in the
// table are remembered as three bits each of a bit array, which two
// states may share.
type visited struct {
	slots []slot
	n     int

	exact bool
	arena []byte
	offs  []uint32 // per record: its encoding is arena[offs[i]:offs[i+1]]

	bits []uint64 // bitstate hashing, once the table is full
}

type slot struct {
	k  key
	id int32 // record index + 1; 0: empty
}

func newVisited(exact bool) *visited {
	return &visited{slots: make([]slot, 1024), exact: exact, offs: []uint32{0}}
}

func (v *visited) mask() uint64 { return uint64(len(v.slots) - 1) }

// find returns the record of the state with key k (and encoding enc, if
// exact), or -1.
func (v *visited) find(k key, enc []byte) int32 {
	for i := k[0] & v.mask(); ; i = (i + 1) & v.mask() {
		s := &v.slots[i]
		if s.id == 0 {
			return -1
		}
		if s.k == k && (!v.exact || bytes.Equal(v.encoding(s.id-1), enc)) {
			return s.id - 1
		}
	}
}

func (v *visited) encoding(id int32) []byte { return v.arena[v.offs[id]:v.offs[id+1]] }

// insert adds the state with key k (and encoding enc) as record id, which
// must be the number of states inserted so far.
func (v *visited) insert(k key, enc []byte, id int32) {
	if 4*(v.n+1) > 3*len(v.slots) {
		v.grow()
	}
	v.place(k, id)
	v.n++
	if v.exact {
		v.arena = append(v.arena, enc...)
		v.offs = append(v.offs, uint32(len(v.arena)))
	}
}

func (v *visited) place(k key, id int32) {
	i := k[0] & v.mask()
	for v.slots[i].id != 0 {
		i = (i + 1) & v.mask()
	}
	v.slots[i] = slot{k, id + 1}
}

func (v *visited) grow() {
	old := v.slots
	v.slots = make([]slot, 2*len(old))
	for _, s := range old {
		if s.id != 0 {
			v.place(s.k, s.id-1)
		}
	}
}

// bytes is about what the set holds.
func (v *visited) bytes() int64 {
	return int64(len(v.slots))*int64(unsafe.Sizeof(slot{})) + int64(cap(v.arena)) + 4*int64(cap(v.offs)) + 8*int64(len(v.bits))
}

// insertPeak is how much more memory inserting a state with an encoding
// of n bytes may hold at its peak: a doubling of the table (both tables
// alive while it copies), a growth of the arena and its offsets.
func (v *visited) insertPeak(n int) int64 {
	var peak int64
	if 4*(v.n+1) > 3*len(v.slots) {
		peak += 2 * v.growthBytes()
	}
	if v.exact {
		if len(v.arena)+n > cap(v.arena) {
			peak += int64(2*cap(v.arena) + n)
		}
		if len(v.offs) == cap(v.offs) {
			peak += 8 * int64(cap(v.offs))
		}
	}
	return peak
}

// growthBytes is what the table's next doubling adds.
func (v *visited) growthBytes() int64 {
	return int64(len(v.slots)) * int64(unsafe.Sizeof(slot{}))
}

// testAndSetBits reports whether the three bits of k were all set
// already, and sets them (bitstate hashing).
func (v *visited) testAndSetBits(k key) bool {
	n := uint64(len(v.bits)) * 64
	seen := true
	for _, h := range [3]uint64{k[0], k[1], bits.RotateLeft64(k[0]^k[1], 29) * 0x9e3779b97f4a7c15} {
		b := h % n
		w, m := b/64, uint64(1)<<(b%64)
		if v.bits[w]&m == 0 {
			seen = false
			v.bits[w] |= m
		}
	}
	return seen
}
