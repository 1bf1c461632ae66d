// Host calls: an ecall whose number is in the rvdyn range 0x5256xxxx -> the handler the embedder installed, result in a0.

package interp

import (
	"sync/atomic"
	"unsafe"
)

// HostCallBase is the first host-call number: ecall numbers
// HostCallBase..HostCallBase+0xffff (0x5256 is "RV") are rvdyn's host
// calls, which no Linux system call uses. bench/guests/rt/rvdyn.h names
// them on the guest side.
const HostCallBase = 0x52560000

// IsHostCall reports whether the ecall number num is in the host-call
// range.
func IsHostCall(num uint64) bool { return num>>16 == HostCallBase>>16 }

// A HostCallHandler answers host calls. HostCall runs on the guest's
// goroutine with the guest stopped at the ecall (its pc is that of the
// ecall, a7 the number, a0..a5 the arguments); it may read and write
// guest memory and registers. It returns the value for a0 and handled =
// true, or handled = false to let the call be answered -ENOSYS like any
// unknown system call (and counted as one). A non-nil error ends the run:
// the guest exits with status 134 (as if aborted) and Machine.HostError
// returns the error.
type HostCallHandler interface {
	HostCall(m *Machine, num uint64) (a0 uint64, handled bool, err error)
}

// SetHostCall installs h as the machine's host-call handler (nil removes
// it). Without a handler every host call is answered -ENOSYS, which is
// what qemu-riscv64 and Linux answer.
func (m *Machine) SetHostCall(h HostCallHandler) { m.hostCall = h }

// HostError returns the error a host-call handler ended the run with, or
// nil.
func (m *Machine) HostError() error { return m.hostErr }

// hostcall answers ecall number num if a handler takes it. It reports
// whether it did (r is then the value for a0) and whether the run ends.
func (m *Machine) hostcall(num uint64) (r uint64, handled, exit bool) {
	if m.hostCall == nil || !IsHostCall(num) {
		return 0, false, false
	}
	r, handled, err := m.hostCall.HostCall(m, num)
	if err != nil {
		m.hostErr = err
		m.exited, m.exitCode = true, 134
		return 0, true, true
	}
	return r, handled, false
}

// LoadWord loads the aligned 64-bit word at guest address a atomically,
// for another goroutine than the guest's while the guest runs (a
// concurrent collector, package gcassist). The caller must have checked
// the address: 8-aligned, and inside a range that passed CanRead and
// CanWrite.
//
// On x86-64 an aligned 8-byte access is single-copy atomic, whether it is
// a plain MOV (the interpreter's and native code's guest stores) or a Go
// atomic (MOV for a load, XCHG for a store, LOCK CMPXCHG for a CAS), so a
// word read this way is either the guest's old or its new value, never a
// mix.
func (m *Memory) LoadWord(a uint64) uint64 { return atomic.LoadUint64((*uint64)(m.ptr(a))) }

// StoreWord stores v at the checked, aligned guest address a atomically
// (see LoadWord).
func (m *Memory) StoreWord(a, v uint64) { atomic.StoreUint64((*uint64)(m.ptr(a)), v) }

// CASWord compares and swaps the word at the checked, aligned guest
// address a (see LoadWord).
func (m *Memory) CASWord(a, old, new uint64) bool {
	return atomic.CompareAndSwapUint64((*uint64)(unsafe.Add(m.base, a)), old, new)
}
