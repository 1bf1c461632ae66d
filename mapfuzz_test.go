// Random programs of mmap, munmap, mprotect and mremap calls and of accesses in loops (testdata/mapfuzz) -> the same output and the same fault in every mode as under qemu-riscv64.

package rvdyn_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/interp"
)

// mapfuzzELF runs a program of memory operations given as hex (see
// testdata/mapfuzz/mapfuzz.c).
const mapfuzzELF = "testdata/mapfuzz/mapfuzz.elf"

// mapConfigs are the optimizer configurations (names from dynamoConfigs)
// the memory programs run under. Each program's access loops are
// compiled while one layout holds and run on under the next: a fragment
// whose checks were hoisted or widened for pages now unmapped or
// read-only must fault where the interpreter faults. So are the
// functions the programs write and call: one rewritten, moved, unmapped
// or made non-executable must not run from the code cache as it was.
//   - delay 0 and 10: the loops are fragments from their first runs;
//   - delay 50: the default;
//   - no checkhoist, no checkwiden: the checks of every access, not one
//     per loop or per base;
//   - no cut-flush, no cut-retranslate: the fragments a cut leaves in the
//     cache, or those it records afresh, must still fault exactly;
//   - 16 KiB cache: flushed again and again;
//   - async: a fragment compiled on the service thread may be installed
//     after the guest unmapped, re-protected or rewrote what it was
//     built from.
var mapConfigs = []string{"delay 0", "delay 10", "delay 50", "no checkhoist", "no checkwiden", "no cut-flush", "no cut-retranslate", "16 KiB cache", "async"}

// mapOp kinds of mapfuzz.c, in its numbering.
const (
	mapMmap = iota
	mapMunmap
	mapMprotect
	mapMremap
	mapMremapFixed
	mapStore
	mapLoad
	mapMemset
	mapWriteFunc
	mapCall
	mapFile
	mapTruncate
	mapReadFile
)

// randomMapProgram returns a program for mapfuzz of 8 to 40 operations:
// for every two memory system calls, two accesses, one function written
// or called and one operation on the file, so that most programs run a
// while before an access faults; and protections that are mostly
// readable.
func randomMapProgram(rng *rand.Rand) []byte {
	n := 8 + rng.IntN(33)
	prog := make([]byte, 0, 4*n)
	for range n {
		var kind int
		switch k := rng.IntN(6); {
		case k < 2:
			kind = mapStore + rng.IntN(3)
		case k == 2:
			kind = mapWriteFunc + rng.IntN(2)
		case k == 3:
			kind = mapFile + rng.IntN(3)
		default:
			kind = rng.IntN(mapStore)
		}
		c := byte(rng.IntN(256))
		if kind == mapMmap || kind == mapMprotect || kind == mapFile {
			// PROT_READ, PROT_WRITE, PROT_EXEC: readable three times in
			// four, write-only too (which RISC-V and x86 cannot map).
			c = c&^7 | []byte{1, 3, 3, 5, 7, 0, 2, 3}[rng.IntN(8)]
		}
		prog = append(prog, byte(kind), byte(rng.IntN(256)), byte(rng.IntN(256)), c)
	}
	return prog
}

// TestMappingPrograms runs 40 random memory programs (randomMapProgram,
// fixed seed) under the interpreter and the optimizer configurations of
// mapConfigs, whose output, exit status (139 for a fault), fault,
// instruction count and registers must equal the interpreter's; and,
// when qemu-riscv64 is installed, with mapfuzz -q under the interpreter
// and qemu-riscv64, whose output and status must be equal. RVDYN_MAPFUZZ=N
// runs N programs instead, from a seed of the clock (logged), for a
// longer search than the fuzzer's (which pays for coverage on every
// guest instruction).
func TestMappingPrograms(t *testing.T) {
	image := mapfuzzImage(t)
	n, seed := 40, uint64(27)
	if s := os.Getenv("RVDYN_MAPFUZZ"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			t.Fatalf("RVDYN_MAPFUZZ=%q: want a count of programs", s)
		}
		seed = uint64(time.Now().UnixNano())
		t.Logf("%d programs from seed %d", n, seed)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		prog := randomMapProgram(rng)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			checkMapProgram(t, image, prog, mapConfigs)
		})
	}
}

// FuzzMappingPrograms is TestMappingPrograms on programs the fuzzer
// writes: any bytes are a program (four per operation).
func FuzzMappingPrograms(f *testing.F) {
	image := mapfuzzImage(f)
	rng := rand.New(rand.NewPCG(29, 1))
	for range 8 {
		f.Add(randomMapProgram(rng))
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4*64 {
			prog = prog[:4*64]
		}
		checkMapProgram(t, image, prog, fuzzMapConfigs)
	})
}

// fuzzMapConfigs are the configurations of mapConfigs that
// FuzzMappingPrograms runs, fewer for speed: the loops compiled from
// their first runs, and the default.
var fuzzMapConfigs = []string{"delay 0", "delay 50"}

func mapfuzzImage(t testing.TB) []byte {
	image, err := os.ReadFile(mapfuzzELF)
	if err != nil {
		t.Fatal(err)
	}
	return image
}

// checkMapProgram runs mapfuzz with prog under the interpreter and the
// configurations configs, which must agree; then with -q (which skips
// what qemu-riscv64 answers otherwise than Linux, see mapfuzz.c) under
// the interpreter and qemu-riscv64, which must agree too (see
// TestMappingPrograms).
func checkMapProgram(t *testing.T, image, prog []byte, configs []string) {
	t.Helper()
	all := dynamoConfigs(t)
	program := hex.EncodeToString(prog)
	args := []string{mapfuzzELF, program}
	// Each run its own $TMPDIR for the program's file
	// ($TMPDIR/mapfuzz.file): parallel runs would truncate each other's.
	env := func() []string { return []string{"TMPDIR=" + t.TempDir()} }
	ref := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: args, Env: env()}})
	if ref.code == 2 {
		t.Fatalf("mapfuzz refused its program: %s", ref.stderr)
	}
	for _, cname := range configs {
		opts, ok := all[cname]
		if !ok {
			t.Fatalf("dynamoConfigs has no configuration %q", cname)
		}
		opts.Mode, opts.Args, opts.Env = rvdyn.ModeDynamo, args, env()
		got := run(t, image, opts)
		if got.code != ref.code || got.stdout != ref.stdout || fmt.Sprint(got.err) != fmt.Sprint(ref.err) {
			t.Errorf("program %s, dynamo %s: exit %d (%v); interp: exit %d (%v)\n%s", program, cname, got.code, got.err, ref.code, ref.err, outputDiff("interp", ref.stdout, "dynamo", got.stdout))
		}
		if got.insts != ref.insts || got.cpu != ref.cpu {
			t.Errorf("program %s, dynamo %s: %d instructions (interp %d), registers equal: %v", program, cname, got.insts, ref.insts, got.cpu == ref.cpu)
		}
	}
	if _, err := exec.LookPath("qemu-riscv64"); err != nil {
		t.Log("qemu-riscv64 not installed: interp and dynamo compared with each other only")
		return
	}
	abs, err := filepath.Abs(mapfuzzELF)
	if err != nil {
		t.Fatal(err)
	}
	safe := run(t, image, rvdyn.Options{Mode: rvdyn.ModeInterp, Config: interp.Config{Args: []string{mapfuzzELF, "-q", program}, Env: env()}})
	// A minute, in case a qemu bug mapfuzz -q does not yet avoid makes it
	// spin (it has: see mapfuzz.c's list).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "qemu-riscv64", abs, "-q", program)
	cmd.Dir = t.TempDir() // a core file lands there
	cmd.Env = []string{"TMPDIR=" + cmd.Dir}
	out, _ := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("program %s: qemu-riscv64 -q did not finish in a minute (interp: exit %d)", program, safe.code)
	}
	want := fmt.Sprintf("%sexit %d\n", out, shellStatus(cmd.ProcessState))
	if got := fmt.Sprintf("%sexit %d\n", safe.stdout, safe.code); got != want {
		t.Errorf("program %s: interp differs from qemu-riscv64 (both with -q):\n%s", program, outputDiff("qemu", want, "interp", got))
	}
}
