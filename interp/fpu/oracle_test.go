// Differential test against qemu-riscv64: testdata/oracle.txt.gz (cases and the reference's answers) -> mismatches.

package fpu

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate "+goldenPath+" by running every case under qemu-riscv64 (needs riscv64-linux-gnu-gcc and qemu-riscv64)")

const goldenPath = "testdata/oracle.txt.gz"

// The golden file is gzipped text, one case a line:
//
//	<mnemonic> <rm> <operand>... <result> <fflags>
//
// all numbers in hex, with as many operands as the instruction takes.
// Lines starting with # are comments.
const goldenHeader = `# Reference results of RISC-V F/D instructions, for package fpu's TestOracle.
# Produced by testdata/oracle/oracle.c (riscv64-linux-gnu-gcc -O2 -static)
# run under %s, from genCases; regenerate with: go test -run TestOracle -update
# Format: mnemonic rm operand... result fflags (hex; rm 0=rne 1=rtz 2=rdn 3=rup 4=rmm)
`

// TestOracleUpdate regenerates the golden file when -update is given;
// it runs before TestOracle, which then checks the fresh file.
func TestOracleUpdate(t *testing.T) {
	if !*update {
		t.Skip("rewrites " + goldenPath + " only with -update")
	}
	regenerate(t)
}

// TestOracle runs every case of the golden file through the package and
// compares result bits and flags with what the real instruction gave.
// It needs no cross tools.
func TestOracle(t *testing.T) {
	cases, err := readGolden(goldenPath)
	if err != nil {
		t.Fatalf("%v (regenerate with go test -run TestOracle -update)", err)
	}
	byInstr := map[string][]ocase{}
	for _, c := range cases {
		byInstr[c.in.name] = append(byInstr[c.in.name], c)
	}
	total, bad := 0, 0
	for i := range instrs {
		in := &instrs[i]
		t.Run(in.name, func(t *testing.T) {
			cs := byInstr[in.name]
			if len(cs) == 0 {
				t.Fatalf("no cases")
			}
			n := 0
			for _, c := range cs {
				res, fl := in.run(c.a, c.b, c.c, c.rm)
				if res != c.res || fl != c.fl {
					if n++; n <= 20 {
						t.Errorf("%s: got %#x %v, want %#x %v", c, res, fl, c.res, c.fl)
					}
				}
			}
			if n > 20 {
				t.Errorf("... %d mismatches of %d cases", n, len(cs))
			}
			total += len(cs)
			bad += n
		})
	}
	t.Logf("%d cases, %d mismatches", total, bad)
}

func (c ocase) String() string {
	ops := []uint64{c.a, c.b, c.c}[:c.in.arity]
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %v", c.in.name, c.rm)
	for _, o := range ops {
		fmt.Fprintf(&sb, " %#x", o)
	}
	return sb.String()
}

// line is the golden-file form of c, without the result when withResult
// is false (which is the oracle program's input).
func (c ocase) line(withResult bool) string {
	var b []byte
	b = append(b, c.in.name...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(c.rm), 10)
	for _, o := range []uint64{c.a, c.b, c.c}[:c.in.arity] {
		b = append(b, ' ')
		b = strconv.AppendUint(b, o, 16)
	}
	if withResult {
		b = append(b, ' ')
		b = strconv.AppendUint(b, c.res, 16)
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(c.fl), 16)
	}
	return string(b)
}

func readGolden(path string) ([]ocase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cases []ocase
	sc := bufio.NewScanner(zr)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		c, err := parseCase(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, ln, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cases, nil
}

func parseCase(line string) (ocase, error) {
	fs := strings.Fields(line)
	if len(fs) < 2 {
		return ocase{}, fmt.Errorf("short line %q", line)
	}
	in := instrByName[fs[0]]
	if in == nil {
		return ocase{}, fmt.Errorf("unknown instruction %q", fs[0])
	}
	if len(fs) != 2+in.arity+2 {
		return ocase{}, fmt.Errorf("%s wants %d operands: %q", in.name, in.arity, line)
	}
	var v [6]uint64
	for i, s := range fs[1:] {
		base := 16
		if i == 0 {
			base = 10
		}
		x, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			return ocase{}, fmt.Errorf("%q: %w", line, err)
		}
		v[i] = x
	}
	var ops [3]uint64
	copy(ops[:], v[1:1+in.arity])
	c := ocase{in: in, rm: RM(v[0]), a: ops[0], b: ops[1], c: ops[2]}
	c.res, c.fl = v[1+in.arity], Flags(v[2+in.arity])
	return c, nil
}

// regenerate builds the oracle program, runs genCases through it under
// qemu-riscv64 and rewrites the golden file.
func regenerate(t *testing.T) {
	cc, err1 := exec.LookPath("riscv64-linux-gnu-gcc")
	qemu, err2 := exec.LookPath("qemu-riscv64")
	if err1 != nil || err2 != nil {
		t.Skip("-update needs riscv64-linux-gnu-gcc and qemu-riscv64")
	}
	bin := filepath.Join(t.TempDir(), "oracle")
	if out, err := exec.Command(cc, "-O2", "-static", "-Wall", "-o", bin, "testdata/oracle/oracle.c").CombinedOutput(); err != nil {
		t.Fatalf("building the oracle: %v\n%s", err, out)
	}
	version, err := exec.Command(qemu, "--version").Output()
	if err != nil {
		t.Fatalf("qemu-riscv64 --version: %v", err)
	}
	cases := genCases()
	var input bytes.Buffer
	for _, c := range cases {
		input.WriteString(c.line(false))
		input.WriteByte('\n')
	}
	cmd := exec.Command(qemu, bin)
	cmd.Stdin = &input
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running the oracle: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("oracle answered %d of %d cases", len(lines), len(cases))
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	firstLine, _, _ := strings.Cut(string(version), "\n")
	fmt.Fprintf(zw, goldenHeader, firstLine)
	for i, l := range lines {
		var res, fl uint64
		if _, err := fmt.Sscanf(l, "%x %x", &res, &fl); err != nil {
			t.Fatalf("oracle output line %d %q: %v", i+1, l, err)
		}
		cases[i].res, cases[i].fl = res, Flags(fl)
		io.WriteString(zw, cases[i].line(true)+"\n")
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d cases, %d bytes", goldenPath, len(cases), buf.Len())
}
