package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"rvdyn"
	"rvdyn/codecache"
	"rvdyn/gdb"
	"rvdyn/internal/rvtest"
	"rvdyn/interp"
)

// fuzzGuest calls a function 1000 times in a loop (compiled in dynamo
// mode), writes 4 bytes and exits with the low byte of the sum.
var fuzzGuest = rvtest.MakeELF([]uint32{
	enc(I{Op: interp.OpADDI, Rd: 5, Imm: 1000}),             //       t0 = 1000
	enc(I{Op: interp.OpJAL, Rd: 1, Imm: 44}),                // loop: call f
	enc(I{Op: interp.OpADDI, Rd: 5, Rs1: 5, Imm: -1}),       //       t0--
	enc(I{Op: interp.OpBNE, Rs1: 5, Imm: -8}),               //       bnez t0, loop
	enc(I{Op: interp.OpADDI, Rd: 10, Imm: 1}),               //       write(1, data, 4)
	enc(I{Op: interp.OpLUI, Rd: 11, Imm: 0x20000}),          //
	enc(I{Op: interp.OpADDI, Rd: 12, Imm: 4}),               //
	enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysWrite}), //
	enc(I{Op: interp.OpECALL}),                              //
	enc(I{Op: interp.OpADDI, Rd: 17, Imm: interp.SysExit}),  //       exit(a0 = sum)
	enc(I{Op: interp.OpADDI, Rd: 10, Rs1: 13}),              //
	enc(I{Op: interp.OpECALL}),                              //
	enc(I{Op: interp.OpADD, Rd: 13, Rs1: 13, Rs2: 5}),       // f:   a3 += t0
	enc(I{Op: interp.OpJALR, Rd: 0, Rs1: 1}),                //       ret
}, []byte("done"), 4096)

// FuzzGDBStub drives a running guest through the gdb stub with arbitrary
// packets (one per line of the input, framed with the right checksum; the
// first byte picks the mode): registers, memory, breakpoints, steps and
// continues included. rvdyn must never panic or hang, every packet gets a
// well-formed reply (k none), and one longer than PacketSize gets E07.
// The guest is confined to a scratch root and to 200000 instructions
// and a few seconds per run, whatever the packets make it do.
func FuzzGDBStub(f *testing.F) {
	for _, s := range []string{
		"\x00qSupported:multiprocess+;swbreak+\n?\ng\np20\nm10000,40\nZ0,10030,4\nc\ng\nz0,10030,4\nc",
		"\x01qSupported\nQStartNoAckMode\nvCont?\nvCont;s:1\nvCont;c\n?\nvCont;",
		"\x01Z0,10004,4\nc\nc\nc\nM20000,4:41424344\nz0,10004,4\nD",
		"\x00P5=0300000000000000\ns\ns\nm20000,4\nG" + strings.Repeat("00", 33*8) + "\nk",
		"\x01M10030,4:73001000\nc\nc\nqXfer:features:read:target.xml:0,100\nvKill;1",
		"\x00vCont;:1\nZ0,ffffffffffffffff,4\nmffffffffffffff00,ff\nM0,1:00\nX0,0:\nk",
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		opts := rvdyn.Options{Mode: rvdyn.ModeDynamo, MaxInstructions: 200000, Timeout: 3 * time.Second,
			Cache:  codecache.Options{Size: 1 << 20},
			Config: interp.Config{Args: []string{"fuzz"}, Stdin: strings.NewReader(""), MemSize: 16 << 20, Root: root}}
		if in[0]&1 == 0 {
			opts.Mode = rvdyn.ModeInterp
		}
		vm, err := rvdyn.New(fuzzGuest, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Close()
		d, err := vm.Debugger()
		if err != nil {
			t.Fatal(err)
		}
		a, b := net.Pipe()
		done := make(chan error, 1)
		go func() {
			err := gdb.Serve(a, debugTarget{d})
			a.Close()
			done <- err
		}()
		r := bufio.NewReader(b)
		for _, p := range strings.Split(string(in[1:]), "\n") {
			framed := frame(p)
			if _, err := b.Write([]byte(framed)); err != nil {
				break // the session is over
			}
			if p == "k" {
				break
			}
			reply, err := readReply(r)
			if err != nil {
				if errors.Is(err, errMalformed) {
					t.Fatalf("after %q: %v", p, err)
				}
				break // the session is over
			}
			b.Write([]byte("+"))
			if len(framed)-4 > gdb.MaxPacket && reply != "E07" {
				t.Fatalf("a %d-byte packet got %q, want E07", len(framed)-4, reply)
			}
		}
		b.Close()
		select {
		case err := <-done:
			// The client hangs up after its last packet, maybe while
			// the stub still writes an acknowledgement.
			if err != nil && !errors.Is(err, gdb.ErrKilled) && !errors.Is(err, io.ErrClosedPipe) {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(time.Minute): // only a hang gets here
			t.Fatal("the stub did not end with its connection")
		}
	})
}

// frame makes a packet of payload p: "$p#cs", with '$' and '#' escaped
// ('}' is left alone, so the fuzzer writes its own escapes).
func frame(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '$' || c == '#' {
			b.WriteByte('}')
			b.WriteByte(c ^ 0x20)
		} else {
			b.WriteByte(c)
		}
	}
	body := b.String()
	var cs byte
	for i := 0; i < len(body); i++ {
		cs += body[i]
	}
	return fmt.Sprintf("$%s#%02x", body, cs)
}

var errMalformed = errors.New("malformed reply")

// readReply skips acknowledgements and reads one reply packet, checking
// its checksum; it fails when the connection ends.
func readReply(r *bufio.Reader) (string, error) {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		if c == '+' {
			continue
		}
		if c != '$' {
			return "", fmt.Errorf("%w: byte %q before a packet", errMalformed, c)
		}
		body, err := r.ReadString('#')
		if err != nil {
			return "", err
		}
		body = body[:len(body)-1]
		var cs [2]byte
		if _, err := r.Read(cs[:1]); err != nil {
			return "", err
		}
		if _, err := r.Read(cs[1:]); err != nil {
			return "", err
		}
		want, err := strconv.ParseUint(string(cs[:]), 16, 8)
		var sum byte
		for i := 0; i < len(body); i++ {
			sum += body[i]
		}
		if err != nil || byte(want) != sum {
			return "", fmt.Errorf("%w: bad checksum in %q", errMalformed, body)
		}
		return body, nil
	}
}
