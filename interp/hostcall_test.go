// Tests of host calls: a program making ecall 0x52560009 -> the handler's answer, -ENOSYS without one, an ended run on a handler error.

package interp_test

import (
	"errors"
	"testing"

	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// hostCallProgram makes host call 0x52560009 with a0 = 5 and exits with
// the low byte of the answer:
//
//	lui  a7, 0x52560
//	addi a7, a7, 9
//	addi a0, zero, 5
//	ecall
//	addi a7, zero, 93
//	ecall
func hostCallProgram() []byte {
	return rvtest.MakeELF([]uint32{
		rvtest.Encode(interp.Inst{Op: interp.OpLUI, Rd: 17, Imm: 0x52560 << 12}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Rs1: 17, Imm: 9}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 10, Imm: 5}),
		rvtest.Encode(interp.Inst{Op: interp.OpECALL}),
		rvtest.Encode(interp.Inst{Op: interp.OpADDI, Rd: 17, Imm: 93}),
		rvtest.Encode(interp.Inst{Op: interp.OpECALL}),
	}, nil, 4096)
}

type hostFunc func(m *interp.Machine, num uint64) (uint64, bool, error)

func (f hostFunc) HostCall(m *interp.Machine, num uint64) (uint64, bool, error) { return f(m, num) }

func TestHostCall(t *testing.T) {
	errStop := errors.New("stop")
	for _, tc := range []struct {
		name    string
		h       interp.HostCallHandler
		code    int
		unknown uint64
		err     error
	}{
		{"none", nil, 256 - 38, 1, nil},
		{"answered", hostFunc(func(m *interp.Machine, num uint64) (uint64, bool, error) {
			if num != 0x52560009 || m.CPU.X[10] != 5 {
				t.Errorf("host call %#x a0 %d", num, m.CPU.X[10])
			}
			return 42, true, nil
		}), 42, 0, nil},
		{"declined", hostFunc(func(*interp.Machine, uint64) (uint64, bool, error) { return 42, false, nil }), 256 - 38, 1, nil},
		{"error", hostFunc(func(*interp.Machine, uint64) (uint64, bool, error) { return 0, true, errStop }), 134, 0, errStop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := interp.Load(hostCallProgram(), interp.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			m.SetHostCall(tc.h)
			if err := m.Run(0); err != nil {
				t.Fatal(err)
			}
			if m.ExitCode() != tc.code || m.Syscalls().Unknown[0x52560009] != tc.unknown || !errors.Is(m.HostError(), tc.err) {
				t.Errorf("exit %d, unknown %v, host error %v; want %d, %d, %v", m.ExitCode(), m.Syscalls().Unknown, m.HostError(), tc.code, tc.unknown, tc.err)
			}
		})
	}
	if !interp.IsHostCall(0x52560001) || interp.IsHostCall(93) {
		t.Error("IsHostCall")
	}
}
