// Instruction-cache simulator: a stream of guest fetch addresses -> hits and misses of a direct-mapped or set-associative LRU cache (the paper's section 4.3, Table 6).

package layout

import (
	"fmt"
	"math/bits"

	"rvdyn/interp"
)

// A CacheConfig describes an instruction cache. The paper's Table 6 uses
// 32 KB, direct-mapped, 32-byte blocks (lines).
type CacheConfig struct {
	Size int // bytes, a power of two
	Line int // bytes per line, a power of two, at most Size
	Ways int // associativity; 1 is direct-mapped; Size/Line is fully associative
}

// String gives the configuration as "32KB/32B/1-way".
func (c CacheConfig) String() string {
	size := fmt.Sprintf("%dB", c.Size)
	if c.Size%1024 == 0 {
		size = fmt.Sprintf("%dKB", c.Size/1024)
	}
	return fmt.Sprintf("%s/%dB/%d-way", size, c.Line, c.Ways)
}

// Validate reports a configuration the simulator cannot model.
func (c CacheConfig) Validate() error {
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 }
	if !pow2(c.Size) || !pow2(c.Line) || c.Line > c.Size || c.Ways < 1 || !pow2(c.Ways) || c.Ways*c.Line > c.Size {
		return fmt.Errorf("layout: bad cache %+v (size, line and ways must be powers of two, ways*line <= size)", c)
	}
	return nil
}

// A Cache is a simulated instruction cache with LRU replacement in each
// set. It is a model: no prefetch, no bus, one access per fetched
// instruction (consecutive fetches from one line count as hits).
type Cache struct {
	cfg       CacheConfig
	lineShift uint
	setMask   uint64
	tags      []uint64 // sets*ways, each set most recently used first; 0 = empty
	last      uint64   // line of the previous access (+1; 0 = none)

	Accesses, Misses uint64
}

// NewCache returns an empty cache, or the error of cfg.Validate.
func NewCache(cfg CacheConfig) (*Cache, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sets := cfg.Size / cfg.Line / cfg.Ways
	return &Cache{cfg: cfg, lineShift: uint(bits.TrailingZeros(uint(cfg.Line))), setMask: uint64(sets - 1),
		tags: make([]uint64, sets*cfg.Ways)}, nil
}

// Config returns the cache's configuration.
func (c *Cache) Config() CacheConfig { return c.cfg }

// Access fetches from address a and reports whether it hit.
func (c *Cache) Access(a uint64) bool {
	c.Accesses++
	line := a>>c.lineShift + 1 // +1: 0 marks an empty way
	if line == c.last {
		return true
	}
	c.last = line
	w := c.cfg.Ways
	set := c.tags[int((line-1)&c.setMask)*w:][:w]
	for i, t := range set {
		if t == line {
			copy(set[1:i+1], set[:i])
			set[0] = line
			return true
		}
	}
	c.Misses++
	copy(set[1:], set[:w-1])
	set[0] = line
	return false
}

// MissRate returns Misses/Accesses (0 before any access).
func (c *Cache) MissRate() float64 {
	if c.Accesses == 0 {
		return 0
	}
	return float64(c.Misses) / float64(c.Accesses)
}

// A Fetcher is an interp.Hook (attach it with the mask AllClasses) that
// feeds the address of every retired instruction to its caches: the
// exact guest fetch stream.
type Fetcher []*Cache

// Event fetches e.PC in every cache.
func (f Fetcher) Event(e *interp.Event) {
	for _, c := range f {
		c.Access(e.PC)
	}
}
