// Tests of path identification: a real guest run -> the 128-bit path signatures give the same paths as exact keys.

package net_test

import (
	"encoding/binary"
	"slices"
	"testing"

	"rvdyn/bench/corpus"
	"rvdyn/interp"
	"rvdyn/net"
)

// exactPaths is a reference path profiler keyed by the full list of taken
// transfers (head, then (pc, target) pairs): no hashing at all.
type exactPaths struct {
	key   []byte
	index map[string]net.PathID
	order []net.PathID
}

func (x *exactPaths) begin(pc uint64) { x.key = binary.LittleEndian.AppendUint64(x.key[:0], pc) }

func (x *exactPaths) end() {
	id, ok := x.index[string(x.key)]
	if !ok {
		id = net.PathID(len(x.index))
		x.index[string(x.key)] = id
	}
	x.order = append(x.order, id)
}

func (x *exactPaths) Event(e *interp.Event) {
	if !e.Taken {
		return
	}
	x.key = binary.LittleEndian.AppendUint64(x.key, e.PC)
	x.key = binary.LittleEndian.AppendUint64(x.key, e.Next)
	if e.Next <= e.PC {
		x.end()
		x.begin(e.Next)
	}
}

// both feeds one event stream to two hooks.
type both [2]interp.Hook

func (b both) Event(e *interp.Event) { b[0].Event(e); b[1].Event(e) }

func TestSignaturesAreExact(t *testing.T) {
	for _, g := range []string{"bytecode", "strings"} {
		t.Run(g, func(t *testing.T) {
			image, err := corpus.ELF(g)
			if err != nil {
				t.Fatal(err)
			}
			m, err := interp.Load(image, interp.Config{Args: corpus.Args(g, corpus.Small)})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			p := net.NewProfiler(m.CPU.PC)
			p.KeepOrder = true
			x := &exactPaths{index: map[string]net.PathID{}}
			x.begin(m.CPU.PC)
			m.SetHook(interp.MaskOf(interp.ClassBranch, interp.ClassJump), both{p, x})
			if err := m.Run(3_000_000); err != nil && err != interp.ErrLimit {
				t.Fatal(err)
			}
			x.end()
			prof := p.Finish()
			// Both number paths by first execution, so equal paths give
			// equal order lists.
			if len(prof.Paths) != len(x.index) || !slices.Equal(prof.Order, x.order) {
				t.Fatalf("hashed: %d paths, exact: %d paths; orders differ", len(prof.Paths), len(x.index))
			}
			if len(prof.Paths) < 50 {
				t.Errorf("only %d paths: the guest did not exercise the profiler", len(prof.Paths))
			}
		})
	}
}
