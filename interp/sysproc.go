// Process system calls: uname, ids, getrandom, prlimit64, sysinfo, getrusage, times, getpgid, getsid, umask, nanosleep -> answers about the guest process and its host.

package interp

import (
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"
	"time"

	"golang.org/x/sys/unix"
)

// initOS prepares the kernel-side state: the fd table and the signal
// wake-up.
func (m *Machine) initOS() error {
	if err := m.initSignals(); err != nil {
		return err
	}
	return m.initFiles()
}

func (m *Machine) sysUname(buf uint64) uint64 {
	const field = 65
	if !m.Mem.CanWrite(buf, 6*field) {
		return neg(eFAULT)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return errno(err)
	}
	b := m.Mem.Bytes(buf, 6*field)
	clear(b)
	for i, f := range [][]byte{u.Sysname[:], u.Nodename[:], u.Release[:], u.Version[:], []byte("riscv64"), u.Domainname[:]} {
		copy(b[i*field:i*field+field-1], cstr(f))
	}
	return 0
}

func cstr(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// sysGetrandom fills the buffer from the host's random source; flags
// GRND_NONBLOCK, GRND_RANDOM and GRND_INSECURE are accepted.
func (m *Machine) sysGetrandom(buf, n, flags uint64) uint64 {
	if flags&^7 != 0 || flags&6 == 6 {
		return neg(eINVAL)
	}
	n = min(n, 1<<25-1) // Linux returns at most 32 MiB - 1
	if n == 0 {
		return 0
	}
	if !m.Mem.CanWrite(buf, n) {
		return neg(eFAULT)
	}
	if m.cfg.RandSeed != 0 {
		if m.rng == nil {
			var seed [32]byte
			binary.LittleEndian.PutUint64(seed[:], m.cfg.RandSeed)
			m.rng = mrand.NewChaCha8(seed)
		}
		m.rng.Read(m.Mem.Bytes(buf, n))
		return n
	}
	if _, err := rand.Read(m.Mem.Bytes(buf, n)); err != nil {
		return neg(eIO)
	}
	return n
}

const (
	rlimitStack  = 3
	rlimitNofile = 7
	rlimitAS     = 9
	rlimNlimits  = 16
)

// sysPrlimit64 reports the guest's own limits for the stack, the address
// space and open files, and the host's for the others; new limits are
// checked and ignored (rvdyn's limits are its flags).
func (m *Machine) sysPrlimit64(pid, res, newp, oldp uint64) uint64 {
	if pid != 0 && pid != uint64(unix.Getpid()) {
		return neg(eSRCH)
	}
	if res >= rlimNlimits {
		return neg(eINVAL)
	}
	if newp != 0 && !m.Mem.CanRead(newp, 16) {
		return neg(eFAULT)
	}
	if newp != 0 {
		cur, _ := m.Mem.Read64(newp)
		max, _ := m.Mem.Read64(newp + 8)
		if cur > max {
			return neg(eINVAL)
		}
	}
	if oldp == 0 {
		return 0
	}
	if !m.Mem.CanWrite(oldp, 16) {
		return neg(eFAULT)
	}
	var cur, max uint64
	switch res {
	case rlimitStack:
		cur, max = m.stackTop+pageSize-m.Mem.guardHi, ^uint64(0)
	case rlimitAS:
		cur, max = m.Mem.size, m.Mem.size
	case rlimitNofile:
		cur, max = maxFds, maxFds
	default:
		var r unix.Rlimit
		if err := unix.Getrlimit(int(res), &r); err != nil {
			return errno(err)
		}
		cur, max = r.Cur, r.Max
	}
	m.Mem.store64(oldp, cur)
	m.Mem.store64(oldp+8, max)
	return 0
}

// sysGetrlimit is prlimit64 for this process without a new limit, except
// that the result must go somewhere: a NULL pointer is -EFAULT, where
// prlimit64 accepts it.
func (m *Machine) sysGetrlimit(res, p uint64) uint64 {
	if res >= rlimNlimits {
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(p, 16) {
		return neg(eFAULT)
	}
	return m.sysPrlimit64(0, res, 0, p)
}

// readTimespec reads a struct timespec, -EFAULT or -EINVAL.
func (m *Machine) readTimespec(a uint64) (time.Duration, uint64) {
	return m.readTime(a, time.Nanosecond)
}

// readTimeval reads a struct timeval (seconds, microseconds).
func (m *Machine) readTimeval(a uint64) (time.Duration, uint64) {
	return m.readTime(a, time.Microsecond)
}

// readTime reads seconds and a count of unit below a second (16 bytes)
// at a as a duration (seconds past 2^32 count as 2^32), or gives -EFAULT,
// or -EINVAL for negative seconds or a fraction of a second or more.
func (m *Machine) readTime(a uint64, unit time.Duration) (time.Duration, uint64) {
	if !m.Mem.CanRead(a, 16) {
		return 0, neg(eFAULT)
	}
	sec, _ := m.Mem.Read64(a)
	frac, _ := m.Mem.Read64(a + 8)
	if int64(sec) < 0 || frac >= uint64(time.Second/unit) {
		return 0, neg(eINVAL)
	}
	return time.Duration(min(sec, 1<<32))*time.Second + time.Duration(frac)*unit, 0
}

// sysNanosleep sleeps. A signal with a handler ends it early with -EINTR
// and the time left in rem (if not NULL), as Linux does.
func (m *Machine) sysNanosleep(req, rem uint64) uint64 {
	d, e := m.readTimespec(req)
	if e != 0 {
		return e
	}
	return m.sleepLeft(m.sleep(d), rem)
}

// sleepLeft is a relative sleep's answer: 0, or -EINTR with the time left
// written to rem when a handler cut it short.
func (m *Machine) sleepLeft(left time.Duration, rem uint64) uint64 {
	if left <= 0 || !m.interrupted() {
		return 0
	}
	if rem != 0 {
		if !m.Mem.CanWrite(rem, 16) {
			return neg(eFAULT)
		}
		m.Mem.store64(rem, uint64(left/time.Second))
		m.Mem.store64(rem+8, uint64(left%time.Second))
	}
	return neg(eINTR)
}

// sysClockNanosleep sleeps relative to now, or until an absolute time
// (TIMER_ABSTIME) of a realtime or monotonic clock.
func (m *Machine) sysClockNanosleep(clk, flags, req, rem uint64) uint64 {
	d, e := m.readTimespec(req)
	if e != 0 {
		return e
	}
	if flags&1 != 0 {
		switch clk {
		case 0:
			d -= time.Duration(time.Now().UnixNano())
		case 1, 7:
			d -= time.Since(processStart)
		default:
			return neg(eINVAL)
		}
	} else if clk > 11 {
		return neg(eINVAL)
	}
	if d <= 0 {
		return 0
	}
	left := m.sleep(d)
	if flags&1 != 0 {
		rem = 0 // an absolute sleep has no time left to report
	}
	return m.sleepLeft(left, rem)
}

// sysSysinfo fills a struct sysinfo (112 bytes on RV64): uptime and load
// averages are the host's, as under qemu-riscv64; the memory is the
// guest's own address space, since that is all it can have (totalram
// Memory.Size, freeram its pages nothing maps, no swap, one process,
// mem_unit 1), where qemu-riscv64 reports the host's. glibc reads it for
// sysconf(_SC_PHYS_PAGES) and _SC_AVPHYS_PAGES (its qsort, for one,
// sizes its scratch buffer against them).
func (m *Machine) sysSysinfo(buf uint64) uint64 {
	const size = 112
	if !m.Mem.CanWrite(buf, size) {
		return neg(eFAULT)
	}
	var host unix.Sysinfo_t
	if err := unix.Sysinfo(&host); err != nil {
		return errno(err)
	}
	var free uint64
	for _, p := range m.perm {
		if p&permMap == 0 {
			free += pageSize
		}
	}
	b := m.Mem.Bytes(buf, size)
	clear(b)
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(host.Uptime))
	for i, l := range host.Loads {
		le.PutUint64(b[8+8*i:], l)
	}
	le.PutUint64(b[32:], m.Mem.size) // totalram
	le.PutUint64(b[40:], free)       // freeram
	le.PutUint16(b[80:], 1)          // procs
	le.PutUint32(b[104:], 1)         // mem_unit
	return 0
}

// sysGetrusage answers with the host's accounting of rvdyn's process
// (or its children, or the calling thread), as qemu-riscv64 answers with
// its own: the guest's time is rvdyn's. The RISC-V struct rusage (144
// bytes: two timevals and fourteen longs) has x86-64's layout.
func (m *Machine) sysGetrusage(who, buf uint64) uint64 {
	const size = 144
	var w int
	switch int32(who) {
	case 0, -1, 1: // RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD
		w = int(int32(who))
	default:
		return neg(eINVAL)
	}
	if !m.Mem.CanWrite(buf, size) {
		return neg(eFAULT)
	}
	var ru unix.Rusage
	if err := unix.Getrusage(w, &ru); err != nil {
		return errno(err)
	}
	b := m.Mem.Bytes(buf, size)
	le := binary.LittleEndian
	for i, v := range []int64{ru.Utime.Sec, ru.Utime.Usec, ru.Stime.Sec, ru.Stime.Usec,
		ru.Maxrss, ru.Ixrss, ru.Idrss, ru.Isrss, ru.Minflt, ru.Majflt, ru.Nswap,
		ru.Inblock, ru.Oublock, ru.Msgsnd, ru.Msgrcv, ru.Nsignals, ru.Nvcsw, ru.Nivcsw} {
		le.PutUint64(b[8*i:], uint64(v))
	}
	return 0
}

// sysTimes fills a struct tms (four clock_t, in ticks of 1/100 s) with
// the host's times of rvdyn's process and returns the host's tick count,
// as qemu-riscv64 does; a NULL buffer only returns the count.
func (m *Machine) sysTimes(buf uint64) uint64 {
	if buf != 0 && !m.Mem.CanWrite(buf, 32) {
		return neg(eFAULT)
	}
	var t unix.Tms
	r, err := unix.Times(&t)
	if err != nil {
		return errno(err)
	}
	if buf != 0 {
		b := m.Mem.Bytes(buf, 32)
		for i, v := range []int64{t.Utime, t.Stime, t.Cutime, t.Cstime} {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
	}
	return uint64(r)
}

// sysSessionID is getpgid or getsid (sid) of this process (pid 0 or its
// own pid): the host's answer for rvdyn's process. Any other pid is
// -ESRCH: the guest sees no other process.
func (m *Machine) sysSessionID(pid uint64, sid bool) uint64 {
	if p := int32(pid); p != 0 && int(p) != unix.Getpid() {
		return neg(eSRCH)
	}
	get := unix.Getpgid
	if sid {
		get = unix.Getsid
	}
	r, err := get(0)
	if err != nil {
		return errno(err)
	}
	return uint64(r)
}
