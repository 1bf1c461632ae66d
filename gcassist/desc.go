// The heap descriptor: the guest's struct heap_desc (version 2) in guest memory in, checked addresses out.

package gcassist

import (
	"fmt"

	"rvdyn/interp"
)

// Host-call numbers of the heap contract (bench/guests/rt/rvdyn.h).
const (
	HCHeapAnnounce = interp.HostCallBase + 1 // a0 = descriptor address
	HCTrigger      = interp.HostCallBase + 2 // the allocation trigger fired
	HCSafepoint    = interp.HostCallBase + 3 // answers gc_control.request
	HCFull         = interp.HostCallBase + 4 // allocation failed
	HCLog          = interp.HostCallBase + 5 // the software barrier's log is full
)

// Descriptor constants (docs/heap-contract.md).
const (
	HeapMagic   = 0x3150414548445652 // "RVDHEAP1"
	HeapVersion = 2
	descWords   = 15
)

// Header bits (docs/heap-contract.md, "Objects").
const (
	markBit  = 1 << 8
	typeFree = 0
	maxWords = 0xffffff
	poison   = 0xdeadbeefdeadbeef
)

func hdrType(h uint64) uint64  { return h & 0xff }
func hdrNrefs(h uint64) uint64 { return (h >> 16) & 0xffffff }
func hdrSize(h uint64) uint64  { return h >> 40 }
func makeHdr(typ, nrefs, size uint64) uint64 {
	return typ | nrefs<<16 | size<<40
}

// isRef is the contract's reference test.
func isRef(v uint64) bool { return v != 0 && v&7 == 0 }

// gc_control word offsets.
const (
	ctlRequest   = 0
	ctlAllocBits = 8
	ctlBarrier   = 16
	ctlInterval  = 24
	ctlLogN      = 32
	ctlLogCap    = 40
	ctlLogAddr   = 48
	ctlFlags     = 56
	ctlBytes     = 64

	flagPoison = 1
)

// desc is a checked descriptor: every address in it names words the host
// may load and store.
type desc struct {
	heapStart, heapEnd           uint64
	top, roots, nroots           uint64
	shadow, shadowTop, freeHeads uint64
	nfree, nsmall, stats, ctl    uint64
	logCap, logAddr              uint64
	guestPoison                  bool
}

// A DescriptorError says why the host declined a heap announcement.
type DescriptorError struct {
	Addr   uint64 // the descriptor's guest address
	Reason string
}

func (e *DescriptorError) Error() string {
	return fmt.Sprintf("heap descriptor at 0x%x: %s", e.Addr, e.Reason)
}

// rangeOK reports whether n bytes at a are 8-aligned, loadable and storable.
func rangeOK(mem *interp.Memory, a, n uint64) bool {
	return a&7 == 0 && mem.CanRead(a, n) && mem.CanWrite(a, n)
}

// readDesc reads and checks the descriptor at guest address a.
func readDesc(mem *interp.Memory, a uint64) (*desc, error) {
	bad := func(r string) error { return &DescriptorError{Addr: a, Reason: r} }
	if !rangeOK(mem, a, 8*descWords) {
		return nil, bad("not in guest memory")
	}
	w := make([]uint64, descWords)
	for i := range w {
		w[i] = mem.LoadWord(a + 8*uint64(i))
	}
	if w[0] != HeapMagic {
		return nil, bad("bad magic")
	}
	if w[1] != HeapVersion {
		return nil, bad(fmt.Sprintf("version %d, want %d", w[1], HeapVersion))
	}
	d := &desc{heapStart: w[2], heapEnd: w[3], top: w[4], roots: w[5], nroots: w[6],
		shadow: w[7], shadowTop: w[8], freeHeads: w[9], nfree: w[10], nsmall: w[11],
		stats: w[12], ctl: w[14]}
	switch {
	case d.heapStart >= d.heapEnd || !rangeOK(mem, d.heapStart, d.heapEnd-d.heapStart):
		return nil, bad("heap not in guest memory")
	case d.heapEnd >= 1<<32:
		return nil, bad("heap above 4 GiB (queue 3 carries 32-bit references)")
	case !rangeOK(mem, d.top, 8) || !rangeOK(mem, d.nroots, 8) || !rangeOK(mem, d.shadowTop, 8):
		return nil, bad("top or a root count not in guest memory")
	case d.nfree == 0 || d.nfree > 1024 || d.nsmall > d.nfree || !rangeOK(mem, d.freeHeads, 8*d.nfree):
		return nil, bad("free list heads")
	case !rangeOK(mem, d.stats, 32) || !rangeOK(mem, d.ctl, ctlBytes):
		return nil, bad("stats or control block not in guest memory")
	}
	d.logCap, d.logAddr = mem.LoadWord(d.ctl+ctlLogCap), mem.LoadWord(d.ctl+ctlLogAddr)
	if d.logCap > 1<<20 || !rangeOK(mem, d.logAddr, 8*d.logCap) {
		return nil, bad("barrier log not in guest memory")
	}
	d.guestPoison = mem.LoadWord(d.ctl+ctlFlags)&flagPoison != 0
	return d, nil
}
