// Exact counting: a tuple in, its running count out (an open-addressing table with O(1) reset).

package profhw

// tupleTable maps tuples to 64-bit values with linear probing. It grows at
// half load, clears in O(1) by bumping a generation number, and deletes by
// backward shifting, so the per-tuple path allocates nothing once the table
// has grown to the working set. A slot keeps key, value and generation
// together: one cache line per probe. Iteration order is a function of the
// contents and insertion order only, never of map randomization.
type tupleTable struct {
	slots []slot
	cur   uint32
	n     int // occupied slots
	shift uint
}

type slot struct {
	key Tuple
	val uint64
	gen uint64 // occupied iff gen == cur (64 bits: pads the slot to 32 bytes)
}

func newTupleTable(capacity int) *tupleTable {
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	t := &tupleTable{}
	t.alloc(size)
	return t
}

func (t *tupleTable) alloc(size int) {
	t.slots = make([]slot, size)
	t.cur = 1
	t.n = 0
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
}

func (t *tupleTable) home(k Tuple) int {
	h := k.PC*0x9e3779b97f4a7c15 ^ k.Val
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return int(h >> t.shift)
}

// find returns the slot of k and whether it is occupied by k; if not, the
// slot is the free one where k would go.
func (t *tupleTable) find(k Tuple) (int, bool) {
	mask := len(t.slots) - 1
	cur := uint64(t.cur)
	for i := t.home(k); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != cur {
			return i, false
		}
		if s.key == k {
			return i, true
		}
	}
}

// Get returns the value of k and whether k is present.
func (t *tupleTable) Get(k Tuple) (uint64, bool) {
	i, ok := t.find(k)
	if !ok {
		return 0, false
	}
	return t.slots[i].val, true
}

// Add adds d to the value of k, inserting k with value d if absent, and
// returns the new value and whether k was inserted.
func (t *tupleTable) Add(k Tuple, d uint64) (uint64, bool) {
	i, ok := t.find(k)
	s := &t.slots[i]
	if ok {
		s.val += d
		return s.val, false
	}
	*s = slot{key: k, val: d, gen: uint64(t.cur)}
	t.n++
	if 2*t.n > len(t.slots) {
		t.grow()
	}
	return d, true
}

// Set sets the value of k, inserting it if absent.
func (t *tupleTable) Set(k Tuple, v uint64) {
	i, ok := t.find(k)
	t.slots[i] = slot{key: k, val: v, gen: uint64(t.cur)}
	if !ok {
		t.n++
		if 2*t.n > len(t.slots) {
			t.grow()
		}
	}
}

// Delete removes k if present.
func (t *tupleTable) Delete(k Tuple) {
	i, ok := t.find(k)
	if !ok {
		return
	}
	mask := len(t.slots) - 1
	cur := uint64(t.cur)
	// Backward-shift deletion: move later members of the probe run into
	// the hole when their home is not in the cyclic range (i, j].
	for j := (i + 1) & mask; t.slots[j].gen == cur; j = (j + 1) & mask {
		h := t.home(t.slots[j].key)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i].gen = 0
	t.n--
}

// Len returns the number of keys.
func (t *tupleTable) Len() int { return t.n }

// Reset removes every key in O(1).
func (t *tupleTable) Reset() {
	t.n = 0
	t.cur++
	if t.cur == 0 { // wrapped: generations of old slots could match again
		clear(t.slots)
		t.cur = 1
	}
}

func (t *tupleTable) grow() {
	old, cur := t.slots, uint64(t.cur)
	t.alloc(2 * len(old))
	for i := range old {
		if old[i].gen == cur {
			j, _ := t.find(old[i].key)
			t.slots[j] = slot{key: old[i].key, val: old[i].val, gen: uint64(t.cur)}
			t.n++
		}
	}
}

// Each calls fn for every key and value, in slot order.
func (t *tupleTable) Each(fn func(k Tuple, v uint64)) {
	cur := uint64(t.cur)
	for i := range t.slots {
		if t.slots[i].gen == cur {
			fn(t.slots[i].key, t.slots[i].val)
		}
	}
}
