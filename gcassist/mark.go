// Marking: root and barrier values in, mark bits set in object headers out (tri-colour: marked = grey or black, the grey set holds the unscanned).

package gcassist

import (
	"fmt"
	"sync"
)

// greySet holds marked objects whose slots are not yet scanned. The marker
// goroutine, the barrier goroutine and the guest's goroutine (roots, log)
// all push; a mutex orders them (and gives the Go memory model's
// happens-before between a push and the pop that scans the object).
type greySet struct {
	mu    sync.Mutex
	stack []uint64
}

func newGreySet() *greySet { return &greySet{} }

func (g *greySet) push(v uint64) {
	g.mu.Lock()
	g.stack = append(g.stack, v)
	g.mu.Unlock()
}

// popBatch moves up to n objects into buf; empty means the set is empty.
func (g *greySet) popBatch(buf []uint64, n int) []uint64 {
	g.mu.Lock()
	k := min(n, len(g.stack))
	buf = append(buf[:0], g.stack[len(g.stack)-k:]...)
	g.stack = g.stack[:len(g.stack)-k]
	g.mu.Unlock()
	return buf
}

// shade marks the object v refers to, if it is a heap reference not yet
// marked, and puts it in the grey set if it has slots to scan. It is the
// incremental-update barrier's action and marking's step alike. The CAS
// makes exactly one of several concurrent shaders push the object.
func (c *Collector) shade(v uint64) {
	if !isRef(v) || v < c.d.heapStart || v >= c.d.heapEnd {
		return
	}
	mem := c.mem
	for {
		h := mem.LoadWord(v)
		if h&markBit != 0 {
			return
		}
		if mem.CASWord(v, h, h|markBit) {
			c.markedObjects.Add(1)
			if hdrNrefs(h) > 0 {
				c.grey.push(v)
			}
			return
		}
	}
}

// scan shades every value slot of the marked object v. A header that does
// not fit the heap is the guest breaking the contract: an error.
func (c *Collector) scan(v uint64) error {
	h := c.mem.LoadWord(v)
	n, size := hdrNrefs(h), hdrSize(h)
	if n > size || v+8*(size+1) > c.d.heapEnd || hdrType(h) == typeFree {
		return fmt.Errorf("gcassist: object 0x%x has a bad header 0x%x", v, h)
	}
	for i := uint64(0); i < n; i++ {
		c.shade(c.mem.LoadWord(v + 8 + 8*i))
	}
	return nil
}

// markSome scans up to n grey objects (all of them for n < 0) and reports
// whether the grey set is empty.
func (c *Collector) markSome(n int) (empty bool, err error) {
	var buf []uint64
	for n != 0 {
		k := 256
		if n > 0 {
			k = min(k, n)
		}
		buf = c.grey.popBatch(buf, k)
		if len(buf) == 0 {
			return true, nil
		}
		for _, v := range buf {
			if err := c.scan(v); err != nil {
				return false, err
			}
		}
		if n > 0 {
			n -= len(buf)
		}
	}
	return false, nil
}

// rootValues calls f with the value of every root: the global root table
// and the shadow stack (docs/heap-contract.md, "Roots"). The guest is at a
// safepoint.
func (c *Collector) rootValues(f func(uint64)) error {
	mem, d := c.mem, c.d
	for _, r := range [2]struct{ arr, n uint64 }{{d.roots, d.nroots}, {d.shadow, d.shadowTop}} {
		n := mem.LoadWord(r.n)
		if n > 1<<24 || !rangeOK(mem, r.arr, 8*n) {
			return fmt.Errorf("gcassist: root array at 0x%x with %d entries is not in guest memory", r.arr, n)
		}
		for i := uint64(0); i < n; i++ {
			p := mem.LoadWord(r.arr + 8*i)
			if !rangeOK(mem, p, 8) {
				return fmt.Errorf("gcassist: root %d at 0x%x points outside guest memory (0x%x)", i, r.arr, p)
			}
			f(mem.LoadWord(p))
		}
	}
	return nil
}

// markRoots shades every root value.
func (c *Collector) markRoots() error { return c.rootValues(c.shade) }

// startMarker runs marking on a service goroutine until the grey set is
// empty, then asks the guest for a safepoint (the request word) and exits:
// what the barrier shades after that is scanned in the final pause, which
// then never waits for a sleeping goroutine to wake up.
func (c *Collector) startMarker() {
	c.markerDone = make(chan struct{})
	c.stopMark.Store(false)
	go func() {
		defer close(c.markerDone)
		for !c.stopMark.Load() {
			empty, err := c.markSome(1024)
			if err != nil {
				c.markerErr.Store(&err)
				c.mem.StoreWord(c.d.ctl+ctlRequest, 1)
				return
			}
			if empty {
				c.mem.StoreWord(c.d.ctl+ctlRequest, 1)
				return
			}
		}
	}()
}

// stopMarker makes the marker goroutine exit and waits for it; the grey
// set keeps what it had not scanned.
func (c *Collector) stopMarker() error {
	if c.markerDone == nil {
		return nil
	}
	c.stopMark.Store(true)
	<-c.markerDone
	c.markerDone = nil
	if p := c.markerErr.Swap(nil); p != nil {
		return *p
	}
	return nil
}
