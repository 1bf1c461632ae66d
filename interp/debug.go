// Debugger access: a write into the program text by a debugger -> the predecoded pages it touched dropped.

package interp

// TextWritten tells the machine that [lo, hi) of guest memory was written
// from outside the guest (a debugger planting or removing a breakpoint):
// the predecoded text pages it overlaps are dropped, decoded again at
// their next fetch, and reported by TextChanged, so that the code built
// from them can be dropped too. Addresses outside the text are ignored.
func (m *Machine) TextWritten(lo, hi uint64) {
	for a := lo &^ (pageSize - 1); a < hi; a += pageSize {
		if m.isExec(a) {
			m.dropCode(a)
		}
	}
}

// IsText reports whether guest address pc lies on an executable page.
func (m *Machine) IsText(pc uint64) bool { return m.isExec(pc) }
