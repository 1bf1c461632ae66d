// Test hooks: unexported machine state and ABI constants -> exported names for the external tests (package interp_test).

package interp

// BrkLimit returns the address the program break may not pass.
func (m *Machine) BrkLimit() uint64 { return m.brkLimit }

// ReadOK and WriteOK report whether the byte at a may be read or written.
func (m *Memory) ReadOK(a uint64) bool  { return m.readOK(a) }
func (m *Memory) WriteOK(a uint64) bool { return m.writeOK(a) }

// Auxiliary vector keys Load puts on the stack (Linux AT_*).
const (
	AtPhnum  = atPhnum
	AtPagesz = atPagesz
	AtEntry  = atEntry
	AtRandom = atRandom
)

// SyscallNumbers returns the numbers of the system calls the table
// answers (the exit calls included).
func SyscallNumbers() []uint64 {
	var n []uint64
	for k := range sysTable {
		n = append(n, k)
	}
	return n
}

// AccessFault is accessFault for a load or store (kind) at addr.
func (m *Machine) AccessFault(kind FaultKind, addr uint64) *Fault {
	return m.accessFault(kind, 0, addr, 0).(*Fault)
}

// HeapWriteHi returns the end of the heap's fast interval for stores.
func (m *Machine) HeapWriteHi() uint64 { return m.writeHi }
