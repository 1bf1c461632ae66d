// Request handling: one RSP packet -> the Target calls it asks for -> the reply packet.

package gdb

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// maxMem bounds one memory read or write, in bytes (about MaxPacket/2:
// each byte is two hex digits).
const maxMem = 0x800

// targetXML is the target description: gdb's own riscv 64-bit CPU and FPU
// features (org.gnu.gdb.riscv.cpu and org.gnu.gdb.riscv.fpu, the names and
// numbers gdb expects): x0..x31 and pc (0..32), f0..f31 as doubles (33..64;
// gdb shows a NaN-boxed single through the register's float view) and the
// fflags, frm and fcsr CSRs (66..68, gdb's 65 + CSR number).
var targetXML = func() string {
	names := []string{"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1",
		"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7",
		"s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
<architecture>riscv:rv64</architecture>
<osabi>GNU/Linux</osabi>
<feature name="org.gnu.gdb.riscv.cpu">
`)
	for i, n := range names {
		typ := "int"
		switch n {
		case "ra":
			typ = "code_ptr"
		case "sp", "gp", "tp", "fp":
			typ = "data_ptr"
		}
		fmt.Fprintf(&b, "<reg name=\"%s\" bitsize=\"64\" type=\"%s\" regnum=\"%d\"/>\n", n, typ, i)
	}
	b.WriteString("<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"32\"/>\n</feature>\n")
	b.WriteString(`<feature name="org.gnu.gdb.riscv.fpu">
<union id="riscv_double">
<field name="float" type="ieee_single"/>
<field name="double" type="ieee_double"/>
</union>
`)
	fnames := []string{"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1",
		"fa0", "fa1", "fa2", "fa3", "fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7",
		"fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"}
	for i, n := range fnames {
		fmt.Fprintf(&b, "<reg name=\"%s\" bitsize=\"64\" type=\"riscv_double\" regnum=\"%d\"/>\n", n, RegF0+i)
	}
	for i, n := range []string{"fflags", "frm", "fcsr"} {
		fmt.Fprintf(&b, "<reg name=\"%s\" bitsize=\"32\" type=\"int\" regnum=\"%d\" group=\"float\"/>\n", n, RegFflags+i)
	}
	b.WriteString("</feature>\n</target>\n")
	return b.String()
}()

// regBits returns the width of register n in bits, 0 for a number the
// target description does not have.
func regBits(n uint64) int {
	switch {
	case n < RegF0+32:
		return 64
	case n >= RegFflags && n <= RegFcsr:
		return 32
	}
	return 0
}

// handle answers one packet; done ends the session.
func (s *stub) handle(p string) (reply string, done bool, err error) {
	if p == "" {
		return "", false, nil
	}
	t := s.t
	arg := p[1:]
	switch p[0] {
	case '?':
		return "S05", false, nil
	case 'g':
		var b strings.Builder
		for n := 0; n < NumRegs; n++ {
			b.WriteString(reg64(t.Reg(n)))
		}
		return b.String(), false, nil
	case 'G':
		if len(arg) < 16*NumRegs {
			return "E16", false, nil
		}
		for n := 0; n < NumRegs; n++ {
			v, ok := parseReg(arg[16*n : 16*n+16])
			if !ok {
				return "E16", false, nil
			}
			t.SetReg(n, v)
		}
		return "OK", false, nil
	case 'p':
		n, err := strconv.ParseUint(arg, 16, 32)
		if err != nil || regBits(n) == 0 {
			return "E16", false, nil
		}
		if regBits(n) == 32 {
			return reg32(uint32(t.Reg(int(n)))), false, nil
		}
		return reg64(t.Reg(int(n))), false, nil
	case 'P':
		ns, vs, _ := strings.Cut(arg, "=")
		n, err := strconv.ParseUint(ns, 16, 32)
		if err != nil || regBits(n) == 0 {
			return "E16", false, nil
		}
		v, ok := parseReg(vs)
		if regBits(n) == 32 {
			var w uint32
			w, ok = parseReg32(vs)
			v = uint64(w)
		}
		if !ok {
			return "E16", false, nil
		}
		t.SetReg(int(n), v)
		return "OK", false, nil
	case 'm':
		addr, n, ok := addrLen(arg)
		if !ok {
			return "E16", false, nil
		}
		b := make([]byte, min(n, maxMem))
		if t.ReadMem(addr, b) != nil {
			return "E0e", false, nil // EFAULT
		}
		return hex.EncodeToString(b), false, nil
	case 'M':
		where, data, _ := strings.Cut(arg, ":")
		addr, n, ok := addrLen(where)
		b, err := hex.DecodeString(data)
		if !ok || err != nil || uint64(len(b)) != n {
			return "E16", false, nil
		}
		if t.WriteMem(addr, b) != nil {
			return "E0e", false, nil
		}
		return "OK", false, nil
	case 'Z', 'z':
		// Z0,ADDR,KIND: software breakpoint (only kind 0 is offered).
		f := strings.Split(arg, ",")
		if len(f) < 2 || f[0] != "0" {
			return "", false, nil
		}
		addr, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			return "E16", false, nil
		}
		if p[0] == 'Z' {
			err = t.SetBreakpoint(addr)
		} else {
			err = t.ClearBreakpoint(addr)
		}
		if err != nil {
			return "E16", false, nil
		}
		return "OK", false, nil
	case 's':
		return s.resume(arg, t.Step)
	case 'c':
		return s.resume(arg, s.cont)
	case 'v':
		return s.handleV(arg)
	case 'k':
		s.killed = true
		return "", true, nil
	case 'D':
		return "OK", true, nil
	case 'H', 'T':
		return "OK", false, nil
	case 'q', 'Q':
		return s.query(p), false, nil
	}
	return "", false, nil // not supported: gdb falls back or reports it
}

// resume runs a step or continue ("s" or "c", optionally at ADDR).
func (s *stub) resume(arg string, run func() Stop) (string, bool, error) {
	if arg != "" {
		addr, err := strconv.ParseUint(arg, 16, 64)
		if err != nil {
			return "E16", false, nil
		}
		s.t.SetReg(32, addr)
	}
	st := run()
	return stopReply(st), st.Exited, nil
}

// handleV answers the v packets: vCont (c, s and C/S without a signal
// for the one thread), vKill, and "not supported" for the rest.
func (s *stub) handleV(arg string) (string, bool, error) {
	switch {
	case arg == "Cont?":
		return "vCont;c;C;s;S", false, nil
	case strings.HasPrefix(arg, "Cont;"):
		// The first action is the one for our thread; an empty one
		// ("vCont;" or "vCont;:1") is malformed.
		action, _, _ := strings.Cut(arg[len("Cont;"):], ";")
		action, _, _ = strings.Cut(action, ":")
		switch {
		case action == "":
			return "E16", false, nil
		case action[0] == 's' || action[0] == 'S':
			return s.resume("", s.t.Step)
		case action[0] == 'c' || action[0] == 'C':
			return s.resume("", s.cont)
		}
		return "E16", false, nil
	case strings.HasPrefix(arg, "Kill"):
		s.killed = true
		return "OK", true, nil
	}
	return "", false, nil
}

// query answers the q and Q packets gdb sends while it connects.
func (s *stub) query(p string) string {
	switch {
	case strings.HasPrefix(p, "qSupported"):
		return fmt.Sprintf("PacketSize=%x;qXfer:features:read+;QStartNoAckMode+;vContSupported+", MaxPacket)
	case p == "QStartNoAckMode":
		s.noAck = true
		return "OK"
	case strings.HasPrefix(p, "qXfer:features:read:target.xml:"):
		off, n, ok := addrLen(strings.TrimPrefix(p, "qXfer:features:read:target.xml:"))
		if !ok {
			return "E16"
		}
		if off >= uint64(len(targetXML)) {
			return "l"
		}
		chunk := targetXML[off:]
		if uint64(len(chunk)) > n {
			return "m" + chunk[:n]
		}
		return "l" + chunk
	case p == "qAttached":
		return "1"
	case p == "qC":
		return "QC1"
	case p == "qfThreadInfo":
		return "m1"
	case p == "qsThreadInfo":
		return "l"
	case strings.HasPrefix(p, "qSymbol"):
		return "OK"
	}
	return ""
}
