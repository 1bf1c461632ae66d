package rvdyn_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"rvdyn"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
	"rvdyn/net"
)

// Hand-made guests for the hardening tests: small programs built with
// rvtest.MakeELF that provoke one corner each, run under the interpreter,
// under the optimizer in several configurations and (when installed)
// under qemu-riscv64, which must all agree.

type I = interp.Inst

// words encodes a program.
func words(prog ...I) []uint32 {
	w := make([]uint32, len(prog))
	for i, in := range prog {
		w[i] = rvtest.Encode(in)
	}
	return w
}

// exitWith returns "li a7,93; ecall" (exit with the status in a0).
func exitWith() []I {
	return []I{{Op: interp.OpADDI, Rd: 17, Imm: 93}, {Op: interp.OpECALL}}
}

// li returns instructions setting rd to the signed 32-bit value v.
func li(rd uint8, v int64) []I {
	lo := v << 52 >> 52
	return []I{{Op: interp.OpLUI, Rd: rd, Imm: int64(int32(v - lo))}, {Op: interp.OpADDIW, Rd: rd, Rs1: rd, Imm: lo}}
}

// cat concatenates instruction lists.
func cat(parts ...[]I) []I {
	var all []I
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// hardeningConfigs are the optimizer configurations a hand-made guest must
// agree under: the default delay, delay 0, and the mechanisms whose code
// paths the hardening tests aim at switched off.
func hardeningConfigs() map[string]rvdyn.Options {
	cfgs := map[string]rvdyn.Options{
		"delay 50": {NET: net.Options{Delay: 50}},
		"delay 0":  {NET: net.Options{Delay: net.NoDelay}},
		"delay 3":  {NET: net.Options{Delay: 3}},
	}
	for _, m := range []string{"ibl", "link", "regalloc", "constfold"} {
		o := rvdyn.Options{NET: net.Options{Delay: 10}}
		if err := o.Disable(m); err != nil {
			panic(err)
		}
		cfgs["no "+m] = o
	}
	return cfgs
}

// faultOf returns the fault in err, or nil.
func faultOf(err error) *interp.Fault {
	var f *interp.Fault
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// sameOutcome reports how got differs from the interpreter's ref ("" if
// it does not): exit status, output, instruction count, and the fault
// (kind, pc, address) or other error.
func sameOutcome(ref, got outcome) string {
	switch {
	case got.code != ref.code:
		return fmt.Sprintf("exit %d (%v), interp %d (%v)", got.code, got.err, ref.code, ref.err)
	case got.stdout != ref.stdout:
		return fmt.Sprintf("output %q, interp %q", got.stdout, ref.stdout)
	case got.insts != ref.insts:
		return fmt.Sprintf("%d instructions, interp %d", got.insts, ref.insts)
	}
	rf, gf := faultOf(ref.err), faultOf(got.err)
	switch {
	case (rf == nil) != (gf == nil):
		return fmt.Sprintf("error %v, interp %v", got.err, ref.err)
	case rf != nil && (rf.Kind != gf.Kind || rf.PC != gf.PC || rf.Addr != gf.Addr):
		return fmt.Sprintf("fault %v, interp %v", gf, rf)
	case rf == nil && !errors.Is(got.err, ref.err) && !errors.Is(ref.err, got.err):
		return fmt.Sprintf("error %v, interp %v", got.err, ref.err)
	}
	return ""
}

// agreeEverywhere runs img under the interpreter and under every configuration in
// cfgs (with base's limits and arguments), requires the same outcome
// everywhere, and returns the interpreter's.
func agreeEverywhere(t *testing.T, img []byte, base rvdyn.Options, cfgs map[string]rvdyn.Options) outcome {
	t.Helper()
	ref := base
	ref.Mode = rvdyn.ModeInterp
	want := run(t, img, ref)
	for name, o := range cfgs {
		o.Mode = rvdyn.ModeDynamo
		o.MaxInstructions, o.Args, o.MemSize, o.StackSize = base.MaxInstructions, base.Args, base.MemSize, base.StackSize
		got := run(t, img, o)
		if d := sameOutcome(want, got); d != "" {
			t.Errorf("dynamo %s: %s", name, d)
		}
	}
	return want
}

// qemuStatus runs img under qemu-riscv64 and returns its exit status (128+
// signal if the guest was killed) and standard output; ok is false if
// qemu-riscv64 is not installed.
func qemuStatus(t *testing.T, img []byte, args ...string) (code int, stdout string, ok bool) {
	t.Helper()
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		return 0, "", false
	}
	p := filepath.Join(t.TempDir(), "prog.elf")
	if err := os.WriteFile(p, img, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(qemu, append([]string{p}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			return 128 + int(ws.Signal()), out.String(), true
		}
		return ws.ExitStatus(), out.String(), true
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), true
}

// checkQemu compares the interpreter's outcome with qemu-riscv64's, when
// it is installed.
func checkQemu(t *testing.T, img []byte, ref outcome) {
	t.Helper()
	code, out, ok := qemuStatus(t, img)
	if !ok {
		t.Log("qemu-riscv64 not installed: skipping the qemu comparison")
		return
	}
	if code != ref.code || out != ref.stdout {
		t.Errorf("qemu-riscv64: exit %d, output %q; rvdyn: exit %d, output %q", code, out, ref.code, ref.stdout)
	}
}

// nullCall is a loop run 300,000 times that calls a function through a
// pointer; near the end the pointer becomes 0 without a branch, so the
// call is compiled code's indirect jump to guest address 0. With table
// set, the pointer is loaded from a two-entry table {f, 0} in the data
// segment instead of masked.
func nullCall(table bool) []byte {
	const T = rvtest.MakeELFText
	const fOff = 0x50 // f's offset in the text
	var pick []I
	if table {
		pick = []I{
			{Op: interp.OpSLTIU, Rd: 5, Rs1: 8, Imm: 100}, // t0 = s0 < 100
			{Op: interp.OpSLLI, Rd: 5, Rs1: 5, Imm: 3},    // t0 *= 8
			{Op: interp.OpADD, Rd: 5, Rs1: 5, Rs2: 18},    // t0 += &table
			{Op: interp.OpLD, Rd: 6, Rs1: 5},              // t1 = table[s0 < 100]
		}
	} else {
		pick = []I{
			{Op: interp.OpSLTIU, Rd: 5, Rs1: 8, Imm: 100}, // t0 = s0 < 100
			{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1},   // t0 = s0 < 100 ? 0 : ^0
			{Op: interp.OpAND, Rd: 6, Rs1: 9, Rs2: 5},     // t1 = s0 < 100 ? 0 : f
		}
	}
	prog := cat(
		li(8, 300000),   // s0 = iterations left
		li(9, T+fOff),   // s1 = f
		li(18, 0x20000), // s2 = &table
		li(10, 0),       // a0 = calls made
		pick,            // loop:
		[]I{{Op: interp.OpJALR, Rd: 1, Rs1: 6}, // call t1
			{Op: interp.OpADDI, Rd: 8, Rs1: 8, Imm: -1}, // s0--
		})
	loop := int64(8 * 4)
	prog = append(prog, I{Op: interp.OpBNE, Rs1: 8, Imm: loop - int64(4*len(prog))})
	prog = append(prog, exitWith()...)
	for len(prog) < fOff/4 {
		prog = append(prog, I{Op: interp.OpFENCE})
	}
	prog = append(prog, I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}, I{Op: interp.OpJALR, Rs1: 1}) // f: a0++; ret
	data := make([]byte, 16)
	binary.LittleEndian.PutUint64(data, T+fOff)
	return rvtest.MakeELF(words(prog...), data, 4096)
}

// TestNullCallInCompiledCode: an indirect call to address 0 from native
// code must be the guest's fault (a bad jump target at pc 0, SIGSEGV),
// never a jump of the host to address 0 through an empty slot of the
// indirect branch lookup table, whether or not the table and linking are
// switched on.
func TestNullCallInCompiledCode(t *testing.T) {
	for _, table := range []bool{false, true} {
		t.Run(fmt.Sprintf("table=%v", table), func(t *testing.T) {
			img := nullCall(table)
			ref := agreeEverywhere(t, img, rvdyn.Options{}, hardeningConfigs())
			f := faultOf(ref.err)
			if f == nil || f.Kind != interp.FaultFetch || f.PC != 0 || ref.code != 139 {
				t.Fatalf("interp: exit %d, %v; want a bad jump target at pc 0 (139)", ref.code, ref.err)
			}
			checkQemu(t, img, ref)
		})
	}
}

// TestInstructionLimitWhileRecording puts the instruction limit at every
// point of the first traces recorded (the "addi; xor; j loop" at
// small limits and around the default delay) and just before a store
// that faults while the recorder steps through it: the optimizer must stop
// at exactly the limit, with the interpreter's registers, and report the
// limit, not the fault beyond it.
func TestInstructionLimitWhileRecording(t *testing.T) {
	loop := rvtest.MakeELF(words(
		I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}, // loop: a0++
		I{Op: interp.OpXOR, Rd: 11, Rs1: 11, Rs2: 10}, //       a1 ^= a0
		I{Op: interp.OpJAL, Imm: -8},                  //       j loop
	), nil, 4096)
	store := rvtest.MakeELF(words(
		I{Op: interp.OpADDI, Rd: 5, Imm: 2},          //       t0 = 2
		I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}, // loop: t0--
		I{Op: interp.OpBNE, Rs1: 5, Imm: -4},         //       bnez t0, loop
		I{Op: interp.OpSD, Rs1: 0, Rs2: 5},           //       sd zero, 0(zero): faults
	), nil, 4096)
	type tc struct {
		img   []byte
		delay int
		limit uint64
	}
	var cases []tc
	for _, d := range []int{0, 1, 2, 50} {
		for l := uint64(1); l <= 12; l++ {
			cases = append(cases, tc{loop, d, l})
		}
		for _, l := range []uint64{150, 151, 152, 153, 154, 155, 156, 157, 158, 1000, 1001, 1002} {
			cases = append(cases, tc{loop, d, l})
		}
	}
	for l := uint64(1); l <= 5; l++ {
		cases = append(cases, tc{store, 0, l})
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s delay %d limit %d", map[bool]string{true: "loop", false: "store"}[&c.img[0] == &loop[0]], c.delay, c.limit)
		regs := func(mode rvdyn.Mode) ([32]uint64, uint64, error) {
			vm, err := rvdyn.New(c.img, rvdyn.Options{Mode: mode, NET: net.Options{Delay: net.DelayOf(c.delay)}, MaxInstructions: c.limit})
			if err != nil {
				t.Fatal(err)
			}
			defer vm.Close()
			_, err = vm.Run()
			return vm.Machine().CPU.X, vm.Stats().GuestInstructions, err
		}
		want, _, err := regs(rvdyn.ModeInterp)
		if !errors.Is(err, interp.ErrLimit) {
			t.Fatalf("%s: interp: %v", name, err)
		}
		got, n, err := regs(rvdyn.ModeDynamo)
		if !errors.Is(err, interp.ErrLimit) || n != c.limit || got != want {
			t.Errorf("%s: dynamo stopped after %d instructions with %v (a0=%d a1=%d; interp a0=%d a1=%d)",
				name, n, err, got[10], got[11], want[10], want[11])
		}
	}
}

// recursion calls itself forever, pushing a 32-byte frame each time.
func recursion() []byte {
	return rvtest.MakeELF(words(
		I{Op: interp.OpADDI, Rd: 10},                  //    a0 = 0
		I{Op: interp.OpADDI, Rd: 2, Rs1: 2, Imm: -32}, // f: sp -= 32
		I{Op: interp.OpSD, Rs1: 2, Rs2: 1, Imm: 24},   //    sd ra, 24(sp)
		I{Op: interp.OpSD, Rs1: 2, Rs2: 10, Imm: 16},  //    sd a0, 16(sp)
		I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}, //    a0++
		I{Op: interp.OpJAL, Rd: 1, Imm: -16},          //    call f
	), []byte("sentinel"), 4096)
}

// TestStackOverflow: a runaway recursion faults at the first store below
// the stack limit (--stack-size, 8 MiB by default, as Linux and qemu
// give), inside the guard gap, in every mode; it never reaches the heap
// or the globals.
func TestStackOverflow(t *testing.T) {
	img := recursion()
	const top = interp.DefaultMemSize - 4096 // the stack top
	for _, size := range []uint64{0, 64 << 10, 100 << 20} {
		t.Run(fmt.Sprintf("stack %d", size), func(t *testing.T) {
			base := rvdyn.Options{Config: interp.Config{StackSize: size}}
			ref := agreeEverywhere(t, img, base, hardeningConfigs())
			limit := top - size
			if size == 0 {
				limit = top - interp.DefaultStackSize
			}
			f := faultOf(ref.err)
			if f == nil || f.Kind != interp.FaultStore || f.PC != rvtest.MakeELFText+8 || f.Addr >= limit || f.Addr < limit-32 || ref.code != 139 {
				t.Fatalf("interp: exit %d, %v; want a bad store address just below the stack limit %#x", ref.code, ref.err, limit)
			}
			if size == 0 {
				checkQemu(t, img, ref)
			}
		})
	}
	// A stack that does not fit is a load error.
	if _, err := rvdyn.New(img, rvdyn.Options{Config: interp.Config{StackSize: interp.DefaultMemSize}}); err == nil {
		t.Error("a stack as large as the address space was accepted")
	}
}

// TestQemuCorners: small behaviours where rvdyn must do what qemu-riscv64
// (and Linux) do: writev with a NULL vector is EFAULT (the guest exits
// with -a0), and a jump into the zero padding after the text, on the
// text's last page, is an illegal instruction (SIGILL, 132).
func TestQemuCorners(t *testing.T) {
	writev := rvtest.MakeELF(words(cat(
		[]I{{Op: interp.OpADDI, Rd: 10, Imm: 1}, {Op: interp.OpADDI, Rd: 11}, {Op: interp.OpADDI, Rd: 12, Imm: 1},
			{Op: interp.OpADDI, Rd: 17, Imm: interp.SysWritev}, {Op: interp.OpECALL},
			{Op: interp.OpSUB, Rd: 10, Rs1: 0, Rs2: 10}}, // a0 = -a0
		exitWith())...), nil, 4096)
	padding := rvtest.MakeELF(words(
		I{Op: interp.OpADDI, Rd: 5, Imm: 100},        //       t0 = 100
		I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}, // loop: t0--
		I{Op: interp.OpBNE, Rs1: 5, Imm: -4},         //       bnez t0, loop
		I{Op: interp.OpJAL, Imm: 0x100},              //       j text+0x10c: zeros
	), nil, 4096)
	for _, tc := range []struct {
		name string
		img  []byte
		code int
	}{{"writev NULL", writev, 14}, {"zero padding", padding, 132}} {
		t.Run(tc.name, func(t *testing.T) {
			ref := agreeEverywhere(t, tc.img, rvdyn.Options{}, hardeningConfigs())
			if ref.code != tc.code {
				t.Errorf("interp: exit %d (%v), want %d", ref.code, ref.err, tc.code)
			}
			checkQemu(t, tc.img, ref)
		})
	}
}

// TestSyscallLoopStaysInterpreted: a loop making a system call every few
// instructions would return from native code to the dispatcher on every
// iteration (4x slower than interpreting it): its head is given up and
// interpreted on without stops, so the run costs no dispatcher round trip
// per iteration, and counts stay exact.
func TestSyscallLoopStaysInterpreted(t *testing.T) {
	const iterations = 100000
	img := rvtest.MakeELF(words(cat(li(5, iterations), []I{
		{Op: interp.OpADDI, Rd: 17, Imm: interp.SysGetpid}, // loop: getpid
		{Op: interp.OpECALL},
		{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}, //       t0--
		{Op: interp.OpBNE, Rs1: 5, Imm: -12},        //       bnez t0, loop
		{Op: interp.OpADDI, Rd: 10}}, exitWith())...), nil, 4096)
	ref := agreeEverywhere(t, img, rvdyn.Options{}, hardeningConfigs())
	if ref.code != 0 || ref.insts != 4*iterations+5 {
		t.Fatalf("interp: exit %d after %d instructions (%v)", ref.code, ref.insts, ref.err)
	}
	got := run(t, img, rvdyn.Options{NET: net.Options{Delay: 50}})
	if got.stats.CacheExits+got.stats.Traces > 1000 || got.stats.Quieted == 0 {
		t.Errorf("%d cache exits, %d traces, %d heads given up: a dispatcher round trip per iteration",
			got.stats.CacheExits, got.stats.Traces, got.stats.Quieted)
	}
}

// selfModifying rewrites an instruction of its own loop between runs of
// the loop, with fence.i after each rewrite: "addi a0,a0,1" becomes
// "addi a0,a0,2", then 3. The text segment is writable and executable.
func selfModifying() []byte {
	const T = rvtest.MakeELFText
	site := I{Op: interp.OpADDI, Rd: 10, Rs1: 10, Imm: 1}
	prog := cat(
		li(8, T+0x30),                             // s0 = &site
		li(9, int64(rvtest.Encode(site))),         // s1 = the site's word
		li(18, 3),                                 // s2 = rewrites left
		[]I{{Op: interp.OpADDI, Rd: 10}},          // a0 = 0
		[]I{{Op: interp.OpADDI, Rd: 5, Imm: 100}}, // outer: t0 = 100
	)
	for len(prog) < 0x30/4 {
		prog = append(prog, I{Op: interp.OpFENCE})
	}
	prog = append(prog, site, // site: addi a0,a0,k
		I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}, //       t0--
		I{Op: interp.OpBNE, Rs1: 5, Imm: -8},         //       bnez t0, site
		I{Op: interp.OpLUI, Rd: 6, Imm: 0x100000},    //       t1 = 1<<20: the immediate's 1
		I{Op: interp.OpADD, Rd: 9, Rs1: 9, Rs2: 6},   //       s1: imm + 1
		I{Op: interp.OpSW, Rs1: 8, Rs2: 9},           //       rewrite the site
		I{Op: interp.OpFENCEI},                       //       make it visible
		I{Op: interp.OpADDI, Rd: 18, Rs1: 18, Imm: -1},
		I{Op: interp.OpADDI, Rd: 5, Imm: 100},     //       t0 = 100
		I{Op: interp.OpBNE, Rs1: 18, Imm: -4 * 9}, //       again, from site
		I{Op: interp.OpANDI, Rd: 10, Rs1: 10, Imm: 0xff})
	prog = append(prog, exitWith()...)
	img := rvtest.MakeELF(words(prog...), nil, 4096)
	binary.LittleEndian.PutUint32(img[64+4:], 7) // the text: read, write, execute
	return img
}

// TestSelfModifyingCode: a program that rewrites its code and runs it
// after fence.i loads (writable code is the guest's; rvdyn's own pages
// stay W^X) and gives the same answer in every mode and under qemu, while
// fence.i in a program whose code never changes flushes nothing.
func TestSelfModifyingCode(t *testing.T) {
	img := selfModifying()
	ref := agreeEverywhere(t, img, rvdyn.Options{}, hardeningConfigs())
	if want := (100*1 + 100*2 + 100*3) & 0xff; ref.code != want || ref.err != nil {
		t.Fatalf("interp: exit %d (%v), want %d", ref.code, ref.err, want)
	}
	checkQemu(t, img, ref)
	got := run(t, img, rvdyn.Options{NET: net.Options{Delay: net.NoDelay}})
	if got.stats.StaleRemoved == 0 || got.stats.Fragments < 2 {
		t.Errorf("rewritten code compiled: %d fragments, %d removed as stale", got.stats.Fragments, got.stats.StaleRemoved)
	}
	// fence.i in a loop, code unchanged: no flush, and the loop compiles.
	loop := rvtest.MakeELF(words(cat(li(5, 1000), []I{
		{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}, {Op: interp.OpFENCEI},
		{Op: interp.OpBNE, Rs1: 5, Imm: -8}, {Op: interp.OpADDI, Rd: 10}}, exitWith())...), nil, 4096)
	if st := run(t, loop, rvdyn.Options{NET: net.Options{Delay: net.NoDelay}}).stats; st.StaleRemoved != 0 {
		t.Errorf("unchanged code: %d fragments removed as stale", st.StaleRemoved)
	}
}
