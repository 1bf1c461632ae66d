// Tests of the cache simulator on address streams with known hit and miss counts.

package layout

import "testing"

func TestCache(t *testing.T) {
	tests := []struct {
		name   string
		cfg    CacheConfig
		addrs  []uint64
		misses uint64
	}{
		{"same line hits", CacheConfig{64, 16, 1}, []uint64{0, 4, 8, 12}, 1},
		{"direct-mapped conflict", CacheConfig{64, 16, 1}, []uint64{0, 64, 0, 64}, 4},
		{"2-way holds the conflict", CacheConfig{64, 16, 2}, []uint64{0, 64, 0, 64}, 2},
		{"LRU evicts least recent", CacheConfig{64, 16, 2}, []uint64{0, 32, 0, 64, 0, 32}, 4},
		{"capacity", CacheConfig{64, 16, 4}, []uint64{0, 16, 32, 48, 64, 0}, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCache(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range tc.addrs {
				c.Access(a)
			}
			if c.Misses != tc.misses || c.Accesses != uint64(len(tc.addrs)) {
				t.Errorf("%d misses in %d accesses, want %d", c.Misses, c.Accesses, tc.misses)
			}
		})
	}
	for _, bad := range []CacheConfig{{0, 32, 1}, {1000, 32, 1}, {64, 128, 1}, {64, 32, 4}, {64, 16, 3}} {
		if _, err := NewCache(bad); err == nil {
			t.Errorf("NewCache(%+v) accepted", bad)
		}
	}
}
