// Tuples and messages: the two-word profile records the selector emits and the (tuple, count) messages compressors send to software.

package profhw

import (
	"fmt"
	"strings"
)

// A Tuple is one profile event: two 64-bit words (stratified paper, section
// 2.1; multi-hash paper, section 3). For the profiles of this package the
// first word is the instruction's pc and the second the profiled value:
// the loaded value (value profile), the next pc (edge profile) or the call
// target (call-target profile).
//
// The selector tags the first word with the profile Kind in its top four
// bits (stratified 2.1, "Simultaneous profiling": "the selector hardware can
// assign different tags to instructions that belong to different profiling
// applications"), so that several profiles can share one compressor and
// software can tell their messages apart. Guest addresses never reach bit 60.
// The zero Kind leaves the word as it is, for synthetic streams.
type Tuple struct {
	PC  uint64 // tagged pc: Kind in bits 60..63, guest address below
	Val uint64 // profiled value
}

// kindShift is the position of the Kind tag in Tuple.PC.
const kindShift = 60

// pcMask keeps the address bits of a tagged pc.
const pcMask = 1<<kindShift - 1

// A Kind is a profile type (stratified paper, section 2.1).
type Kind uint8

// The profile kinds. KindNone marks untagged tuples of synthetic streams.
const (
	KindNone  Kind = iota // untagged: synthetic streams
	KindValue             // <pc, loaded value> for every load
	KindEdge              // <pc, next pc> for every branch, jal and jalr
	KindCall              // <pc, call target> for every jal/jalr that writes ra or t0
	NumKinds
)

var kindNames = [NumKinds]string{"tuple", "value", "edge", "call"}

// String returns the kind's name as written on the command line: "value",
// "edge", "call", or "tuple" for KindNone.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the Kind named s ("value", "edge" or "call").
func ParseKind(s string) (Kind, error) {
	for k := KindValue; k < NumKinds; k++ {
		if s == kindNames[k] {
			return k, nil
		}
	}
	return 0, fmt.Errorf("profhw: unknown profile type %q (want value, edge or call)", s)
}

// A KindSet is a set of profile kinds: bit k is set for Kind k.
type KindSet uint8

// Has reports whether the set holds k.
func (s KindSet) Has(k Kind) bool { return s&(1<<k) != 0 }

// With returns the set with k added.
func (s KindSet) With(k Kind) KindSet { return s | 1<<k }

// String lists the kinds joined by "+", e.g. "edge+call".
func (s KindSet) String() string {
	var parts []string
	for k := Kind(0); k < NumKinds; k++ {
		if s.Has(k) {
			parts = append(parts, k.String())
		}
	}
	return strings.Join(parts, "+")
}

// ParseKinds parses a comma-separated list of profile types, e.g.
// "edge,call". The error names the bad element.
func ParseKinds(s string) (KindSet, error) {
	var set KindSet
	for _, f := range strings.Split(s, ",") {
		k, err := ParseKind(strings.TrimSpace(f))
		if err != nil {
			return 0, err
		}
		set = set.With(k)
	}
	return set, nil
}

// MakeTuple returns the tuple <pc, val> tagged with kind k.
func MakeTuple(k Kind, pc, val uint64) Tuple {
	return Tuple{PC: pc&pcMask | uint64(k)<<kindShift, Val: val}
}

// Kind returns the profile kind the tuple is tagged with.
func (t Tuple) Kind() Kind { return Kind(t.PC >> kindShift) }

// Addr returns the tuple's pc without its Kind tag.
func (t Tuple) Addr() uint64 { return t.PC & pcMask }

// String renders the tuple as "<kind pc, val>" in hex.
func (t Tuple) String() string {
	return fmt.Sprintf("<%v %#x, %#x>", t.Kind(), t.Addr(), t.Val)
}

// A Sink receives the messages of a compressor: the tuple and the number of
// occurrences it stands for (stratified paper, section 3.3: "All samplers
// compress the input stream into a stream of messages (tuple, count)").
// Messages are rare (one per r tuples or fewer), so an interface call per
// message costs nothing that matters.
type Sink interface {
	Message(t Tuple, count uint64)
}

// SinkFunc adapts a function to the Sink interface.
type SinkFunc func(t Tuple, count uint64)

// Message calls f(t, count).
func (f SinkFunc) Message(t Tuple, count uint64) { f(t, count) }

// A Compressor consumes a tuple stream in batches and sends (tuple, count)
// messages to the Sink it was built with. Feed must not keep ts and, on the
// per-tuple path, allocates nothing. Reset returns the model to its initial
// state (counters, tables, pending state), reseeding its random samplers
// with seed; its hash functions, which model fixed hardware, are kept.
type Compressor interface {
	Feed(ts []Tuple)
	Reset(seed uint64)
}
