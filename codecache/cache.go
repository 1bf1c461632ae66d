// Fragment table and linker: compiled fragment.Code -> placed, linked, enterable fragments.

package codecache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"

	"rvdyn/fragment"
	"rvdyn/fragment/amd64"
)

// DefaultSize is the default code cache capacity in bytes.
const DefaultSize = 32 << 20

// fragmentAlign aligns fragment entries for the instruction fetcher, and
// as much as a looping fragment aligns its head (amd64.LoopAlign).
const fragmentAlign = amd64.LoopAlign

// ErrFull is returned by Insert when the fragment does not fit in the
// space left; the caller flushes (or bails out) and retries.
var ErrFull = errors.New("code cache full")

// A Fragment is a compiled trace placed in the cache.
type Fragment struct {
	Head  uint64  // tag: the guest pc of the trace head
	Entry uintptr // executable address of the entry
	Off   int     // offset in the cache
	Size  int     // bytes of machine code
	Code  *fragment.Code
	// FirstExit is the exit ID of Code.Exits[0]; exit i has ID FirstExit+i.
	FirstExit uint32
	// The dispatcher's tallies, for statistics: native runs entered at
	// this fragment, the guest instructions they retired (in this
	// fragment and in those linked after it), and native runs that
	// returned to the dispatcher through one of its exits.
	Entries, Retired, Exits uint64
	// Built is the dispatcher's too: the guest instructions retired
	// when it installed the fragment (a phase flush keeps the ones
	// built since its window opened; see PolicyOptions.FullPhaseFlush).
	Built uint64
}

// GuestPC returns the guest pc whose code is at executable address
// hostAddr in f (as a PC sample or a perf map sees it), and false if the
// address is outside f. The answer is the guest instruction the code was
// emitted for, or for an exit stub the instruction that leaves through it
// (see fragment.PCMap).
func (f *Fragment) GuestPC(hostAddr uintptr) (pc uint64, ok bool) {
	if hostAddr < f.Entry {
		return 0, false
	}
	return f.Code.GuestPC(int(hostAddr - f.Entry))
}

// An Exit is an exit stub placed in the cache: its global exit ID's
// record of the stub, its fragment and what it links to.
type Exit struct {
	fragment.Stub
	Frag   *Fragment
	Linked bool      // the stub jumps straight to a fragment
	To     *Fragment // the fragment it jumps to, when Linked
}

// Stats counts the cache's work since it was created.
type Stats struct {
	Fragments  uint64 // fragments inserted
	CodeBytes  uint64 // bytes of machine code inserted
	Links      uint64 // exit stubs patched to jump to a fragment
	Flushes    uint64 // whole-cache flushes
	Removed    uint64 // fragments taken out without a flush (Remove, RemoveIf)
	LiveFrags  int    // fragments in the cache now
	LiveBytes  int    // bytes in use now
	Capacity   int    // bytes
	ExitsTaken uint64 // returns from native code to the dispatcher
}

// A Cache holds fragments in executable memory. It is not safe for
// concurrent use.
type Cache struct {
	mem     *region
	iblMem  []byte   // the indirect branch lookup table's mapping
	ibl     []uint64 // the same table: amd64.IBLEntries pairs {tag, entry}
	iblUsed bool     // some slot is filled: reset must empty the table
	noIBL   bool
	size    int
	used    int
	frags   map[uint64]*Fragment
	placed  []*Fragment         // in placement order (increasing Entry) since the last flush
	exits   []Exit              // by exit ID
	pending map[uint64][]uint32 // target pc -> unlinked ExitBranch stubs
	noLink  bool
	stats   Stats
	// history[e] is the placement of epoch e (the fragments placed
	// between flush e-1 and flush e), kept from KeepHistory on so that
	// host addresses sampled before a flush still resolve; nil for
	// epochs before KeepHistory was called.
	history [][]*Fragment
	keep    bool
}

// Options configure a Cache.
type Options struct {
	// Size is the capacity in bytes (default DefaultSize).
	Size int
	// NoLink disables linking: every exit returns to the dispatcher. It
	// implies NoIBL, the indirect form of linking.
	NoLink bool
	// NoIBL disables the indirect branch lookup table: a jalr to a target
	// other than the recorded one returns to the dispatcher. The table
	// stays empty; fragments for such a cache are compiled with
	// fragment.Options.NoIBL, so they do not even read it.
	NoIBL bool
}

// New maps a code cache.
func New(opts Options) (*Cache, error) {
	size := opts.Size
	if size == 0 {
		size = DefaultSize
	}
	if size < 4096 || size > 1<<30 {
		return nil, fmt.Errorf("code cache size %d out of range [4 KiB, 1 GiB]", size)
	}
	size = (size + 4095) &^ 4095
	r, err := newRegion(size)
	if err != nil {
		return nil, err
	}
	c := &Cache{mem: r, size: size, noLink: opts.NoLink, noIBL: opts.NoIBL || opts.NoLink}
	// Outside the Go heap: native code reads it through a raw address.
	b, err := unix.Mmap(-1, 0, amd64.IBLSlotBytes*amd64.IBLEntries, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("code cache: mapping the indirect branch table: %w", err)
	}
	c.iblMem = b
	c.ibl = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), amd64.IBLSlotBytes/8*amd64.IBLEntries)
	amd64.IBLClear(c.ibl, true) // zero pages: only one slot to write
	c.reset()
	return c, nil
}

func (c *Cache) reset() {
	if c.iblUsed {
		amd64.IBLClear(c.ibl, false)
		c.iblUsed = false
	}
	c.used = 0
	c.frags = make(map[uint64]*Fragment)
	if c.keep {
		// The retired epoch keeps its slice; the next one starts afresh.
		for uint64(len(c.history)) < c.stats.Flushes {
			c.history = append(c.history, nil)
		}
		c.history = append(c.history, c.placed)
		c.placed = nil
	}
	c.placed = c.placed[:0]
	c.exits = c.exits[:0]
	c.pending = make(map[uint64][]uint32)
}

// Close unmaps the cache.
func (c *Cache) Close() error {
	if c.iblMem != nil {
		unix.Munmap(c.iblMem)
		c.iblMem, c.ibl = nil, nil
	}
	return c.mem.close()
}

// FragmentAt returns the fragment whose machine code holds executable
// address hostAddr, or nil (an address outside the cache, in alignment
// padding, or in a fragment flushed since). Fragments are placed at
// increasing offsets between flushes, so this is a binary search.
func (c *Cache) FragmentAt(hostAddr uintptr) *Fragment { return fragmentAt(c.placed, hostAddr) }

// fragmentAt finds hostAddr in placed, which is sorted by Entry.
func fragmentAt(placed []*Fragment, hostAddr uintptr) *Fragment {
	i := sort.Search(len(placed), func(i int) bool { return placed[i].Entry > hostAddr }) - 1
	if i < 0 || hostAddr >= placed[i].Entry+uintptr(placed[i].Size) {
		return nil
	}
	return placed[i]
}

// Epoch returns the cache's placement epoch: the number of flushes so
// far. Between two flushes every host address holds at most one
// fragment, so (epoch, host address) names a fragment for the life of
// the cache, whereas a host address alone is reused after a flush.
func (c *Cache) Epoch() uint64 { return c.stats.Flushes }

// KeepHistory makes the cache retain, from now on, every fragment it
// flushes, so that FragmentAtEpoch resolves addresses of fragments that
// are gone (time-based PC samples taken before a flush and read after
// the run). It costs the memory of every fragment built from now on;
// it cannot be undone short of closing the cache.
func (c *Cache) KeepHistory() { c.keep = true }

// FragmentAtEpoch returns the fragment that held executable address
// hostAddr during epoch (see Epoch), or nil: an address in no fragment,
// or an epoch that ended before KeepHistory was called (or has not
// begun). For the current epoch it is FragmentAt.
func (c *Cache) FragmentAtEpoch(hostAddr uintptr, epoch uint64) *Fragment {
	if epoch == c.Epoch() {
		return c.FragmentAt(hostAddr)
	}
	if epoch >= uint64(len(c.history)) {
		return nil
	}
	return fragmentAt(c.history[epoch], hostAddr)
}

// Each calls yield with every fragment in the cache, in placement order,
// until it returns false.
func (c *Cache) Each(yield func(*Fragment) bool) {
	for _, f := range c.placed {
		if !yield(f) {
			return
		}
	}
}

// Lookup returns the fragment whose tag is pc, or nil.
func (c *Cache) Lookup(pc uint64) *Fragment { return c.frags[pc] }

// Replace enters fragment f in the indirect branch lookup table again
// (amd64.IBLPlace), after an indirect exit to its head missed it: a set
// keeps two heads, and a third placed in it dropped f. Nothing is done
// without the table (Options.NoIBL) or for a fragment no longer in the
// cache.
func (c *Cache) Replace(f *Fragment) {
	if c.noIBL || c.frags[f.Head] != f {
		return
	}
	amd64.IBLPlace(c.ibl, f.Head, uint64(f.Entry)+uint64(f.Code.LinkedEntry))
}

// Len returns the number of fragments in the cache.
func (c *Cache) Len() int { return len(c.frags) }

// Exit returns the record of exit ID id.
func (c *Cache) Exit(id uint64) *Exit {
	if id >= uint64(len(c.exits)) {
		return nil
	}
	return &c.exits[id]
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	s := c.stats
	s.LiveFrags, s.LiveBytes, s.Capacity = len(c.frags), c.used, c.size
	return s
}

// Insert copies code into the cache, assigns its exit IDs, links its exits
// to fragments already present and links waiting exits of other fragments
// to it. It returns ErrFull if the code does not fit, and an error if a
// fragment with the same tag exists.
func (c *Cache) Insert(code *fragment.Code) (*Fragment, error) {
	if c.frags[code.Head] != nil {
		return nil, fmt.Errorf("code cache: fragment for 0x%x already present", code.Head)
	}
	off := (c.used + fragmentAlign - 1) &^ (fragmentAlign - 1)
	if off+len(code.Bytes) > c.size {
		return nil, ErrFull
	}
	copy(c.mem.rw[off:], code.Bytes)
	c.used = off + len(code.Bytes)
	f := &Fragment{Head: code.Head, Entry: c.mem.addr(off), Off: off, Size: len(code.Bytes),
		Code: code, FirstExit: uint32(len(c.exits))}
	for i, e := range code.Exits {
		id := f.FirstExit + uint32(i)
		binary.LittleEndian.PutUint32(c.mem.rw[off+e.IDOff:], id)
		c.exits = append(c.exits, Exit{Stub: e, Frag: f})
	}
	c.frags[code.Head] = f
	c.placed = append(c.placed, f)
	if !c.noIBL {
		amd64.IBLPlace(c.ibl, code.Head, uint64(f.Entry)+uint64(code.LinkedEntry)) // where the stubs' probe reads
		c.iblUsed = true
	}
	c.stats.Fragments++
	c.stats.CodeBytes += uint64(len(code.Bytes))
	if c.noLink {
		return f, nil
	}
	for i, e := range code.Exits {
		// A failed value specialization guard stays unlinked: the
		// dispatcher counts every failure and decides when the
		// fragment goes (Remove).
		if e.LinkOff < 0 || e.Spec {
			continue
		}
		id := f.FirstExit + uint32(i)
		if t := c.frags[e.Target]; t != nil {
			c.link(id, t)
		} else {
			c.pending[e.Target] = append(c.pending[e.Target], id)
		}
	}
	for _, id := range c.pending[code.Head] {
		c.link(id, f)
	}
	delete(c.pending, code.Head)
	return f, nil
}

// link patches exit id's link jump to enter fragment t.
func (c *Cache) link(id uint32, t *Fragment) {
	e := &c.exits[id]
	at := e.Frag.Off + e.LinkOff // offset of the rel32 field
	rel := int64(t.Off+t.Code.LinkedEntry) - int64(at+4)
	binary.LittleEndian.PutUint32(c.mem.rw[at:], uint32(int32(rel)))
	e.Linked, e.To = true, t
	c.stats.Links++
}

// Remove takes fragment f out of the cache without a flush: lookups
// miss its tag, the indirect branch table forgets it, and every exit
// linked to it is unlinked (its rel32 set back to 0, falling through to
// the dispatcher) and waits, like an exit to a pc without a fragment, for
// the next fragment inserted at the tag. Its code stays in place, never
// entered again, until the next flush reclaims the space. The caller must
// not be running native code from this cache. Removing a fragment that
// is not in the cache (removed or flushed already) does nothing.
func (c *Cache) Remove(f *Fragment) {
	if c.frags[f.Head] == f {
		c.RemoveIf(func(g *Fragment) bool { return g == f })
	}
}

// RemoveIf removes, as Remove does, every fragment in the cache for which
// drop returns true, in one pass over the exits, and returns how many it
// removed. Exits of removed fragments that waited for a target are
// forgotten: they are never entered again.
func (c *Cache) RemoveIf(drop func(*Fragment) bool) int {
	gone := map[*Fragment]bool{}
	for _, f := range c.placed {
		if c.frags[f.Head] == f && drop(f) {
			gone[f] = true
			delete(c.frags, f.Head)
			if !c.noIBL {
				amd64.IBLRemove(c.ibl, f.Head)
			}
		}
	}
	if len(gone) == 0 {
		return 0
	}
	for id := range c.exits {
		e := &c.exits[id]
		if !e.Linked || !gone[e.To] || gone[e.Frag] {
			continue
		}
		binary.LittleEndian.PutUint32(c.mem.rw[e.Frag.Off+e.LinkOff:], 0)
		e.Linked, e.To = false, nil
		c.pending[e.Target] = append(c.pending[e.Target], uint32(id))
	}
	for pc, ids := range c.pending {
		kept := ids[:0]
		for _, id := range ids {
			if !gone[c.exits[id].Frag] {
				kept = append(kept, id)
			}
		}
		if len(kept) == 0 {
			delete(c.pending, pc)
		} else {
			c.pending[pc] = kept
		}
	}
	c.stats.Removed += uint64(len(gone))
	return len(gone)
}

// Flush removes every fragment. The caller must not be running native code
// from this cache.
func (c *Cache) Flush() {
	c.reset()
	c.stats.Flushes++
}

// Enter runs fragment f on st, with mem the host address of guest address
// 0, until native code returns; it returns the exit taken. State.Budget
// bounds the guest instructions retired (see package fragment).
func (c *Cache) Enter(f *Fragment, st *fragment.State, mem uintptr) *Exit {
	st.Exit = 0xffffffff // stubs write the low 32 bits only
	st.IBL = uintptr(unsafe.Pointer(&c.iblMem[0]))
	enter(f.Entry, st, mem)
	st.AccrueFlags()
	c.stats.ExitsTaken++
	e := c.Exit(st.Exit)
	if e == nil {
		panic(fmt.Sprintf("codecache: native code returned with bad exit ID %d", st.Exit))
	}
	return e
}
