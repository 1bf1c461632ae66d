// Collector options: a mode name in, the Mode and its settings out.

package gcassist

import "fmt"

// A Mode selects who collects the guest heap and which store barrier the
// concurrent marking relies on. The zero value is ModeGuest.
type Mode uint8

const (
	// ModeGuest declines the heap (the announcement is answered -ENOSYS,
	// as under qemu-riscv64): the guest runs its own stop-the-world
	// collector. The mode (a) as the guest does it.
	ModeGuest Mode = iota
	// ModeSTW collects on the host, stop-the-world, at each trigger:
	// mode (a) on the host.
	ModeSTW
	// ModeSoft marks concurrently; the guest's software store barrier
	// (REF_STORE's log) reports stored references: mode (b).
	ModeSoft
	// ModeRPA marks concurrently; the relational profiler's store
	// barrier (BarrierQuery on queue 3) reports stored references, and
	// no barrier instruction runs in the guest: mode (c), the paper's.
	ModeRPA
	// ModeNone marks concurrently with no store barrier at all. It is
	// wrong on purpose (a stored reference into an already scanned object
	// is missed) and exists for the test that shows it.
	ModeNone
)

var modeNames = [...]string{"guest", "stw", "soft", "rpa", "none"}

// String returns the mode's command-line name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Concurrent reports whether the mode marks while the guest runs.
func (m Mode) Concurrent() bool { return m >= ModeSoft && m <= ModeNone }

// MarshalText makes a Mode appear by name in JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ParseMode parses a mode name: guest, stw, soft, rpa or none.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown collector mode %q (want guest, stw, soft, rpa or none)", s)
}

// Options configure a Collector. The zero value is ModeGuest.
type Options struct {
	// Mode selects the collector and the barrier.
	Mode Mode
	// Interval is the number of bytes the guest allocates between two
	// triggers (written to gc_control.interval); 0 keeps the guest's own
	// rule, max(4 MiB, live bytes after the last collection).
	Interval uint64
	// Deterministic runs marking on the guest's goroutine instead of a
	// service goroutine: Step objects scanned at every guest safepoint
	// while a cycle is on (the request word stays set), so the
	// interleaving of collector and guest is the same in every run and
	// in interp and dynamo mode alike. In ModeRPA the barrier's messages
	// are then handled at those safepoints too (before the marking
	// steps), once the handled count catches up with the sent count.
	Deterministic bool
	// Step is the number of objects scanned per safepoint in
	// deterministic mode (default 4).
	Step int
	// Poison fills the payload of every block the sweep frees with
	// 0xdeadbeefdeadbeef (the guest's -poison also asks for it, and then
	// checks the pattern when it reuses a block).
	Poison bool
	// Verify walks the heap from the roots after every sweep and ends the
	// run with an error if a reachable object was freed: how the tests
	// catch a lost object at once, rather than by its consequences.
	Verify bool
}

func (o Options) step() int {
	if o.Step <= 0 {
		return 4
	}
	return o.Step
}

// UnmarshalText reads a Mode by name (see ParseMode).
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err == nil {
		*m = v
	}
	return err
}
