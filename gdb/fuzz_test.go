package gdb

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"
)

// FuzzPackets feeds arbitrary bytes to the stub, as a client that
// connected could send them (framing, checksums, escapes, acks and
// interrupt bytes included), over a fake target: the stub must never
// panic, must end at the end of its input, and must write nothing but
// acknowledgements and well-formed packets, none longer than it could
// have been asked for.
func FuzzPackets(f *testing.F) {
	for _, s := range []string{
		"",
		packet("qSupported:multiprocess+;swbreak+") + "+" + packet("?") + "+",
		packet("vCont;") + packet("vCont;:1") + packet("vCont;s:1") + "+",
		packet("QStartNoAckMode") + packet("g") + packet("m1000,40") + packet("k"),
		"$M1000,2:ff}]#00" + packet("M1000,2:ff}]") + "+" + packet("c"),
		"\x03+-$#zz$G" + packet("P20=0000010000000000"),
		packet("Z0,1000,4") + packet("z0,1000,4") + packet("qXfer:features:read:target.xml:0,40"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ft := &fakeTarget{bps: map[uint64]bool{}}
		var out bytes.Buffer
		rw := struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(in), &out}
		done := make(chan error, 1)
		go func() { done <- Serve(rw, ft) }()
		select {
		case err := <-done:
			if err != nil && err != ErrKilled {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second): // only a hang gets here
			t.Fatal("Serve did not end at the end of its input")
		}
		if err := wellFormed(out.Bytes()); err != nil {
			t.Fatalf("%v in the stub's output %q", err, out.Bytes())
		}
	})
}

// wellFormed checks a stub's output: '+' and '-' acknowledgements and
// "$payload#cs" packets with the right checksum, whose payloads escape
// '$', '#', '}' and '*' and are at most as long as the largest reply (a
// register file, memory of maxMem bytes, or a chunk of the target
// description, in hex or escaped).
func wellFormed(b []byte) error {
	for i := 0; i < len(b); {
		switch b[i] {
		case '+', '-':
			i++
			continue
		case '$':
		default:
			return fmt.Errorf("byte %q at %d outside a packet", b[i], i)
		}
		end := bytes.IndexByte(b[i:], '#')
		if end < 0 || i+end+3 > len(b) {
			return fmt.Errorf("packet at %d not terminated", i)
		}
		body := b[i+1 : i+end]
		if bytes.ContainsAny(body, "$") {
			return fmt.Errorf("unescaped $ in the packet at %d", i)
		}
		cs, err := strconv.ParseUint(string(b[i+end+1:i+end+3]), 16, 8)
		if err != nil || byte(cs) != checksum(string(body)) {
			return fmt.Errorf("bad checksum of the packet at %d", i)
		}
		if len(body) > 2*(2*maxMem+len(targetXML)) {
			return fmt.Errorf("a %d-byte reply", len(body))
		}
		i += end + 3
	}
	return nil
}
