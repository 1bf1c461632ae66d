// Time-based PC sampling: a thread or process id -> perf_event cpu-clock interrupts at a fixed rate -> an eBPF program that counts user-mode PCs in a kernel hash map -> a host PC histogram.

package layout

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// ErrClockUnavailable wraps the reason the time-based sampler cannot run
// (no permission for bpf or perf_event_open, an old kernel): callers fall
// back to the frequency-based sampler.
var ErrClockUnavailable = errors.New("layout: time-based sampler unavailable")

// DefaultHz is the paper's sampling rate: one sample per clock interrupt
// at 1000 Hz (section 3.1).
const DefaultHz = 1000

// MaxHz is the highest sampling rate NewClockSampler accepts (Linux's
// default kernel.perf_event_max_sample_rate).
const MaxHz = 100000

// clockMaxPCs bounds the distinct PCs the kernel map holds; samples at
// new PCs beyond it are dropped (and counted in Dropped).
const clockMaxPCs = 1 << 16

// ptRegsIP is the offset of ip in struct pt_regs on x86-64, the first
// member of struct bpf_perf_event_data a perf_event program receives.
const ptRegsIP = 16 * 8

// A ClockSampler is the paper's monitor (section 3.1) on Linux: a
// software cpu-clock perf_event per monitored thread, firing every 1/Hz
// seconds of the thread's CPU time (user-mode PCs only), with an eBPF program
// attached that adds one to the count of the interrupted PC in a hash
// map, in the kernel (the analogue of the paper's hardclock() hook).
// Each count is keyed by the PC and the sampler's current epoch
// (SetEpoch), so that a process that reuses code memory (rvdyn's code
// cache after a flush) can tell apart samples taken at one address in
// different epochs.
// Nothing crosses to user space until Counts reads the map. It is not
// safe for concurrent use.
type ClockSampler struct {
	hz     int
	counts *ebpf.Map // ClockKey -> samples
	epoch  *ebpf.Map // one entry: the epoch the program puts in each key
	prog   *ebpf.Program
	fds    []int
}

// NewClockSampler loads the eBPF program and creates its map. hz <= 0
// means DefaultHz. The error wraps ErrClockUnavailable when the kernel
// refuses (no CAP_BPF / CAP_PERFMON, or no BPF support).
func NewClockSampler(hz int) (*ClockSampler, error) {
	if hz <= 0 {
		hz = DefaultHz
	}
	if hz > MaxHz {
		return nil, fmt.Errorf("layout: time-based sampler: %d Hz is above the %d Hz limit", hz, MaxHz)
	}
	removeMemlock()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Hash, KeySize: 16, ValueSize: 8, MaxEntries: clockMaxPCs})
	if err != nil {
		return nil, fmt.Errorf("%w: bpf map: %v", ErrClockUnavailable, err)
	}
	ep, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1})
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%w: bpf map: %v", ErrClockUnavailable, err)
	}
	// The stack frame: the key {ip, epoch} at fp-16, the value 1 at
	// fp-24, the epoch map's index 0 at fp-28.
	insns := asm.Instructions{
		// key.ip = regs->ip
		asm.LoadMem(asm.R6, asm.R1, ptRegsIP, asm.DWord),
		asm.StoreMem(asm.RFP, -16, asm.R6, asm.DWord),
		// key.epoch = epoch[0] (0 if the lookup fails, which it cannot)
		asm.StoreImm(asm.RFP, -28, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, ep.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -28),
		asm.FnMapLookupElem.Call(),
		asm.Mov.Imm(asm.R7, 0),
		asm.JEq.Imm(asm.R0, 0, "keyed"),
		asm.LoadMem(asm.R7, asm.R0, 0, asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R7, asm.DWord).WithSymbol("keyed"),
		// r0 = lookup(counts, &key)
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "new"),
		// Present: atomic add 1 (two CPUs may sample one PC at once).
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		// Absent: update(counts, &key, &one, BPF_NOEXIST). A race with
		// another CPU inserting the same key loses this one sample.
		asm.Mov.Imm(asm.R1, 1).WithSymbol("new"),
		asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -24),
		asm.Mov.Imm(asm.R4, 1), // BPF_NOEXIST
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.PerfEvent, License: "GPL", Instructions: insns})
	if err != nil {
		m.Close()
		ep.Close()
		return nil, fmt.Errorf("%w: bpf program: %v", ErrClockUnavailable, err)
	}
	return &ClockSampler{hz: hz, counts: m, epoch: ep, prog: prog}, nil
}

// Attach starts sampling thread (or single-threaded process) tid: a
// perf_event_open of the software cpu-clock event at the sampler's rate,
// user mode only, with the program attached and enabled. Errors wrap
// ErrClockUnavailable when perf_event_open is refused.
func (s *ClockSampler) Attach(tid int) error {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		// A fixed period in nanoseconds of the thread's CPU time, as the
		// paper's clock interrupt is: in frequency mode (PerfBitFreq) the
		// kernel starts from a long period and adapts it tick by tick,
		// which leaves runs of a few tens of milliseconds, such as our
		// training runs, with a handful of samples.
		Sample: uint64(1e9 / s.hz),
		Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	fd, err := unix.PerfEventOpen(&attr, tid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("%w: perf_event_open(cpu-clock, tid %d): %w", ErrClockUnavailable, tid, err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, s.prog.FD()); err != nil {
		unix.Close(fd)
		return fmt.Errorf("%w: PERF_EVENT_IOC_SET_BPF: %v", ErrClockUnavailable, err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		unix.Close(fd)
		return fmt.Errorf("layout: PERF_EVENT_IOC_ENABLE: %w", err)
	}
	s.fds = append(s.fds, fd)
	return nil
}

// AttachThread samples the calling OS thread (Attach(gettid())); lock the
// goroutine to its thread (runtime.LockOSThread) around the work to
// sample.
func (s *ClockSampler) AttachThread() error { return s.Attach(unix.Gettid()) }

// Stop disables and closes every perf event; the counts stay readable.
func (s *ClockSampler) Stop() {
	for _, fd := range s.fds {
		unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_DISABLE, 0)
		unix.Close(fd)
	}
	s.fds = nil
}

// Counts reads the kernel's histogram: samples per host PC, summed over
// epochs.
func (s *ClockSampler) Counts() (map[uint64]uint64, error) {
	ec, err := s.EpochCounts()
	out := make(map[uint64]uint64, len(ec))
	for k, n := range ec {
		out[k.IP] += n
	}
	return out, err
}

// EpochCounts reads the kernel's histogram: samples per host PC and
// epoch.
func (s *ClockSampler) EpochCounts() (map[ClockKey]uint64, error) {
	out := map[ClockKey]uint64{}
	var k ClockKey
	var v uint64
	it := s.counts.Iterate()
	for it.Next(&k, &v) {
		out[k] = v
	}
	return out, it.Err()
}

// SetEpoch sets the epoch that samples taken from now on carry (0 when
// the sampler is made). The map write is a system call made by the
// caller's thread, complete before the call returns; a sample of that
// thread interrupts it later in its own program order, so every sample
// taken after SetEpoch returns carries e, and every one before carries
// the old epoch. Call it on the sampled thread before reusing code
// memory (rvdyn does, at each code cache flush).
func (s *ClockSampler) SetEpoch(e uint64) error { return s.epoch.Put(uint32(0), e) }

// Reset empties the histogram for the next sample set.
func (s *ClockSampler) Reset() error {
	var keys []ClockKey
	var k ClockKey
	var v uint64
	it := s.counts.Iterate()
	for it.Next(&k, &v) {
		keys = append(keys, k)
	}
	if err := it.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.counts.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Close stops sampling and releases the program and the map.
func (s *ClockSampler) Close() error {
	s.Stop()
	s.prog.Close()
	s.epoch.Close()
	return s.counts.Close()
}

// removeMemlock lifts RLIMIT_MEMLOCK, against which kernels before 5.11
// account BPF maps; newer kernels ignore it, and a failure (no
// CAP_SYS_RESOURCE) shows up as the map creation's error. This is what
// cilium/ebpf's rlimit.RemoveMemlock does, without importing its
// package: that one probes the kernel with a bpf() call in its init, which
// every rvdyn process, `rvdyn run` included, would pay at start.
func removeMemlock() {
	inf := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	_ = unix.Setrlimit(unix.RLIMIT_MEMLOCK, &inf)
}
