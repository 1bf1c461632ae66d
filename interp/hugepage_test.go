// Tests of the guest memory's page size: transparent huge pages by default, 4 KiB pages with Config.SmallPages.

package interp_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// smapsField returns field (e.g. "AnonHugePages", "THPeligible") of the
// mapping that holds host address addr, from /proc/self/smaps.
func smapsField(t *testing.T, addr uintptr, field string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		var v int
		if in && strings.HasPrefix(line, field+":") {
			if n, _ := fmt.Sscanf(strings.TrimPrefix(line, field+":"), "%d", &v); n == 1 {
				return v
			}
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return 0
}

// TestHugePages touches 8 MiB of guest memory. With the default the
// mapping is eligible for huge pages (the advice was taken), and the host
// backs some of it with them if it has any free; with SmallPages, under
// THP's "madvise" mode, it is not eligible and has none.
func TestHugePages(t *testing.T) {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(b), "[madvise]") {
		t.Skip("transparent huge pages are not in madvise mode on this host")
	}
	for _, small := range []bool{false, true} {
		m, err := interp.Load(rvtest.MakeELF([]uint32{rvtest.Encode(interp.Inst{Op: interp.OpECALL})}, nil, 4096),
			interp.Config{SmallPages: small, MemSize: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		const lo, n = 16 << 20, 8 << 20
		buf := m.Mem.Bytes(lo, n)
		for i := 0; i < n; i += 4096 {
			buf[i] = 1
		}
		eligible := smapsField(t, m.Mem.Base()+lo, "THPeligible")
		kb := smapsField(t, m.Mem.Base()+lo, "AnonHugePages")
		m.Close()
		t.Logf("SmallPages %v: eligible %d, %d kB in huge pages", small, eligible, kb)
		if small && (eligible != 0 || kb != 0) {
			t.Errorf("SmallPages: eligible %d, %d kB in huge pages", eligible, kb)
		}
		if !small && eligible != 1 {
			t.Errorf("default: the guest memory is not eligible for huge pages")
		}
	}
}
