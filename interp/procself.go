// The guest's own /proc files: an open of /proc/self/maps or /proc/self/cmdline -> a read-only file of what Linux would show the guest (its mappings, its argv), not rvdyn's.

package interp

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// An imageSeg is one loaded segment of the program or of its dynamic
// loader, for /proc/self/maps: pages [lo, hi) from file offset off.
type imageSeg struct {
	lo, hi, off uint64
	name        string
	dev, ino    uint64
}

// addImageSeg records a segment the loader mapped from file name.
func (m *Machine) addImageSeg(lo, hi, off uint64, name string) {
	s := imageSeg{lo: lo, hi: hi, off: off, name: name}
	var st unix.Stat_t
	if unix.Stat(name, &st) == nil {
		s.dev, s.ino = st.Dev, st.Ino
	}
	m.images = append(m.images, s)
}

// selfProcFile returns the contents of the /proc file p names when it is
// one rvdyn answers for the guest (/proc/self/maps and cmdline, also as
// /proc/PID/... and /proc/thread-self/...), as qemu-riscv64 answers them.
func (m *Machine) selfProcFile(p string) ([]byte, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return nil, false
	}
	who, file, ok := strings.Cut(rest, "/")
	if !ok || who != "self" && who != "thread-self" && who != strconv.Itoa(os.Getpid()) {
		return nil, false
	}
	switch file {
	case "maps":
		return []byte(m.selfMaps()), true
	case "cmdline":
		var b []byte
		for _, a := range m.args() {
			b = append(append(b, a...), 0)
		}
		return b, true
	}
	return nil, false
}

// args is the guest's argv.
func (m *Machine) args() []string {
	if len(m.cfg.Args) == 0 {
		return []string{"prog"}
	}
	return m.cfg.Args
}

// selfMaps renders the guest's address space as Linux's /proc/PID/maps
// does: one line per run of pages with one protection and one origin
// (the program's or the dynamic loader's segments with their files and
// offsets, each file mapping with its file, the heap, the stack,
// anonymous memory), lowest first, in the kernel's format (the name at
// column 74).
func (m *Machine) selfMaps() string {
	files := map[*mapFile]mapOrigin{} // a file's name and inode: asked of the host once
	originOf := func(a uint64) mapOrigin {
		for _, s := range m.images {
			if a >= s.lo && a < s.hi {
				return mapOrigin{name: s.name, off: s.off, dev: s.dev, ino: s.ino, base: s.lo}
			}
		}
		if v := m.vmaAt(a); v != nil && v.file != nil {
			o, ok := files[v.file]
			if !ok {
				o = m.fileOrigin(v.file)
				files[v.file] = o
			}
			o.off, o.base = v.off, v.lo
			return o
		}
		switch {
		case a >= m.brkStart && a < pageUp(m.brk):
			return mapOrigin{name: "[heap]"}
		case a >= m.Mem.guardHi:
			return mapOrigin{name: "[stack]"}
		}
		return mapOrigin{}
	}
	var b strings.Builder
	line := func(lo, hi uint64, perm uint8, o mapOrigin) {
		rwx := []byte("---p")
		for i, bit := range []uint8{permR, permW, permX} {
			if perm&bit != 0 {
				rwx[i] = "rwx"[i]
			}
		}
		if o.shared {
			rwx[3] = 's'
		}
		off := uint64(0)
		if o.base != 0 || o.off != 0 {
			off = o.off + lo - o.base
		}
		h := fmt.Sprintf("%08x-%08x %s %08x %02x:%02x %d ", lo, hi, rwx, off, unix.Major(o.dev), unix.Minor(o.dev), o.ino)
		b.WriteString(h)
		if o.name != "" {
			b.WriteString(strings.Repeat(" ", max(73-len(h), 0)))
			b.WriteString(o.name)
		}
		b.WriteByte('\n')
	}
	start := uint64(0)
	var cur uint8
	var curO mapOrigin
	for p := uint64(0); p <= uint64(len(m.perm)); p++ {
		var v uint8
		var o mapOrigin
		if p < uint64(len(m.perm)) {
			v = m.perm[p] &^ (permBus | permGone)
			if v&permMap == 0 {
				v = 0
			}
			// The heap's pages below the break are the guest's
			// whether the page table marks them or not.
			if a := p * pageSize; v == 0 && a >= m.brkStart && a < pageUp(m.brk) {
				v = permRW
			}
			if v != 0 {
				o = originOf(p * pageSize)
			}
		}
		contiguous := o.name == curO.name && o.shared == curO.shared && (o.name == "" || o.off-o.base == curO.off-curO.base)
		if v == cur && contiguous {
			continue
		}
		if cur != 0 {
			line(start*pageSize, p*pageSize, cur, curO)
		}
		start, cur, curO = p, v, o
	}
	return b.String()
}

// A mapOrigin is where a /proc/self/maps line's pages come from: a file
// (name, device and inode) at offset off for address base, or a name
// alone ([heap], [stack]), or nothing (anonymous memory).
type mapOrigin struct {
	name          string
	off, dev, ino uint64
	shared        bool
	base          uint64 // the address off refers to
}

// fileOrigin is the name (below --root, a guest path) and inode of a
// mapped file, from its host fd.
func (m *Machine) fileOrigin(f *mapFile) mapOrigin {
	o := mapOrigin{shared: f.shared}
	o.name, _ = os.Readlink("/proc/self/fd/" + strconv.Itoa(f.fd))
	if r := m.fds.root; r != "" {
		if rel, ok := strings.CutPrefix(o.name, strings.TrimRight(r, "/")); ok && strings.HasPrefix(rel, "/") {
			o.name = rel
		}
	}
	var st unix.Stat_t
	if unix.Fstat(f.fd, &st) == nil {
		o.dev, o.ino = st.Dev, st.Ino
	}
	return o
}

// vmaAt returns the mapping holding address a, or nil.
func (m *Machine) vmaAt(a uint64) *vma {
	vs := m.mm.vmas
	lo, hi := 0, len(vs)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case a < vs[mid].lo:
			hi = mid
		case a >= vs[mid].hi:
			lo = mid + 1
		default:
			return &vs[mid]
		}
	}
	return nil
}

// openContent returns a new guest fd open read-only on a file holding b
// (a memfd, reopened read-only), positioned at its start.
func (m *Machine) openContent(b []byte) uint64 {
	w, err := unix.MemfdCreate("rvdyn-proc", unix.MFD_CLOEXEC)
	if err != nil {
		return errno(err)
	}
	defer unix.Close(w)
	for len(b) > 0 {
		n, err := unix.Write(w, b)
		if err != nil {
			return errno(err)
		}
		b = b[n:]
	}
	r, err := unix.Open("/proc/self/fd/"+strconv.Itoa(w), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return errno(err)
	}
	fd := m.fds.install(&gfile{host: r, kind: kindNever}, 0)
	if int64(fd) < 0 {
		unix.Close(r)
	}
	return fd
}
