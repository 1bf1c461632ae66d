package main

import (
	"bytes"
	"fmt"
	stdnet "net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDropInGDB: gdb-multiarch debugs the same program through -g PORT
// under qemu-riscv64 and under rvdyn (both modes) and sees the same: a
// breakpoint on main's first instruction, argc and argv[1] there, the
// exit status.
func TestDropInGDB(t *testing.T) {
	gdbPath, err := exec.LookPath("gdb-multiarch")
	if err != nil {
		t.Skip("gdb-multiarch not installed: skipping the -g comparison")
	}
	qemu, err := exec.LookPath("qemu-riscv64")
	if err != nil {
		t.Skip("qemu-riscv64 not installed: skipping the -g comparison")
	}
	guest, err := filepath.Abs(testGuest)
	if err != nil {
		t.Fatal(err)
	}
	session := func(t *testing.T, emulator []string) string {
		port := freePort(t)
		cmd := exec.Command(emulator[0], append(emulator[1:], "-g", fmt.Sprint(port), guest, "exit", "3")...)
		cmd.Env = baseEnv
		if emulator[0] != qemu {
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], asMain+"=1")
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		defer func() { cmd.Process.Kill(); <-exited }() // if gdb failed
		if !waitListening(port, exited) {
			t.Fatalf("%v exited without listening on port %d:\n%s", emulator, port, out.String())
		}
		g, err := exec.Command(gdbPath, "-batch", "-nx",
			"-ex", "file "+guest,
			"-ex", fmt.Sprintf("target remote 127.0.0.1:%d", port),
			"-ex", "break *main",
			"-ex", "continue",
			"-ex", "print $a0",
			"-ex", "x/s *(char **)($a1 + 8)",
			"-ex", "continue").CombinedOutput()
		if err != nil {
			t.Fatalf("gdb-multiarch: %v\n%s\nemulator: %s", err, g, out.String())
		}
		// What both must agree on: the stop at main, the values, the exit.
		var keep []string
		re := regexp.MustCompile(`^(Breakpoint 1, 0x[0-9a-f]+ in main \(\)|\$1 = 3|0x[0-9a-f]+:\s+"exit"|\[Inferior 1 \(.*\) exited with code 03\])$`)
		for _, l := range strings.Split(string(g), "\n") {
			if re.MatchString(l) {
				keep = append(keep, regexp.MustCompile(`0x[0-9a-f]+|\(process \d+\)|\(Remote target\)`).ReplaceAllString(l, "X"))
			}
		}
		return strings.Join(keep, "\n")
	}
	want := session(t, []string{qemu})
	if strings.Count(want, "\n") != 3 {
		t.Fatalf("under qemu-riscv64, gdb saw\n%s", want)
	}
	for _, mode := range []string{"interp", "dynamo"} {
		if got := session(t, []string{mustExecutable(t), "--mode=" + mode}); got != want {
			t.Errorf("%s: gdb saw\n%s\nunder rvdyn, and\n%s\nunder qemu-riscv64", mode, got, want)
		}
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*stdnet.TCPAddr).Port
}

// waitListening waits until a socket listens on port, looking in
// /proc/net (a probe connection would be taken for the debugger's), and
// reports false if the emulator exits first. A hang is the test
// binary's timeout's to catch.
func waitListening(port int, exited <-chan struct{}) bool {
	local := fmt.Sprintf(":%04X ", port)
	for {
		for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			b, _ := os.ReadFile(f)
			for _, l := range strings.Split(string(b), "\n") {
				if fs := strings.Fields(l); len(fs) > 3 && strings.HasSuffix(fs[1]+" ", local) && fs[3] == "0A" {
					return true
				}
			}
		}
		select {
		case <-exited:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}
