// Encodings: PCRs and query instructions <-> their bit layouts, and a Program <-> its binary image (sec. 3.4, Figure 4).

package rpa

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxInsts is the size of the query instruction array: "At 512 bytes, this
// cache holds 64 instructions" (sec. 4).
const MaxInsts = 64

// MaxRate is the largest sampling period a PCR can hold (13 bits, N-1).
const MaxRate = 1 << 13

// MaxQueues is the number of message queues a send action can name.
const MaxQueues = 16

// CounterMax is the largest value of a counter embedded in a query
// instruction (15 bits). A count action that would pass it interrupts the
// profiled thread instead (sec. 3.1: "When the counter is close to
// overflowing, the thread being profiled is interrupted"): the engine folds
// the counter into its 64-bit total and resets it.
const CounterMax = 1<<15 - 1

// A PCREntry is one PCT entry: the two 32-bit profile control registers of
// a class (sec. 3.4.1). 35 entries of 8 bytes are the paper's 280-byte PCT.
//
//	PCR0  bits 18..0   field mask (Table 2 order); 0 = class not profiled
//	      bits 31..19  sampling period N-1: each selected instruction is
//	                   profiled with probability 1/N (N = 1: always)
//	PCR1  bits 5..0    starting query PC (QPC)
//	      bits 31..6   zero
type PCREntry struct {
	PCR0, PCR1 uint32
}

// MakePCR returns the entry for a field mask, a sampling period N (1 <= N
// <= MaxRate) and a starting QPC.
func MakePCR(mask FieldMask, rate uint32, qpc uint8) PCREntry {
	return PCREntry{PCR0: uint32(mask)&(1<<NumFields-1) | (rate-1)<<NumFields, PCR1: uint32(qpc) & (MaxInsts - 1)}
}

// Mask returns the field mask; zero means the entry is off.
func (p PCREntry) Mask() FieldMask { return FieldMask(p.PCR0 & (1<<NumFields - 1)) }

// Rate returns the sampling period N (1..MaxRate).
func (p PCREntry) Rate() uint32 { return p.PCR0>>NumFields + 1 }

// QPC returns the starting query PC.
func (p PCREntry) QPC() uint8 { return uint8(p.PCR1 & (MaxInsts - 1)) }

// On reports whether the entry profiles its class.
func (p PCREntry) On() bool { return p.Mask() != 0 }

// A CmpOp is a comparison type (Table 3), 4 bits in a query instruction.
type CmpOp uint8

// The comparison types. LT, EQ, GT are unsigned; GE, NE, LE are their
// negations. BCLR and BSET use the immediate as the mask.
const (
	CmpTrue      CmpOp = iota // always succeeds
	CmpFalse                  // never succeeds
	CmpLT                     // field < imm
	CmpGE                     // not (field < imm)
	CmpEQ                     // field = imm
	CmpNE                     // not (field = imm), written <>
	CmpGT                     // field > imm
	CmpLE                     // not (field > imm)
	CmpBCLR                   // field & imm == 0
	CmpBSET                   // field & imm == imm
	CmpFilter2                // succeeds once in 2 executions, at random
	CmpFilter4                // once in 4
	CmpFilter16               // once in 16
	CmpFilter256              // once in 256
	numCmpOps
)

// ReadsWord reports whether the comparison reads a record word (and the
// immediate).
func (op CmpOp) ReadsWord() bool { return op >= CmpLT && op <= CmpBSET }

// FilterRate returns N for FILTER N, 0 for other comparisons.
func (op CmpOp) FilterRate() uint32 {
	switch op {
	case CmpFilter2:
		return 2
	case CmpFilter4:
		return 4
	case CmpFilter16:
		return 16
	case CmpFilter256:
		return 256
	}
	return 0
}

// Sizes of compared values, 2 bits in a comparison.
const (
	Size8  = 0
	Size16 = 1
	Size32 = 2
)

// A Cmp is one comparison of a query instruction: Op applied to the Size
// (Size8/16/32) bit value at byte offset Byte of record word Word, against
// the instruction's immediate. Comparison A reads an even word (0, 2, 4,
// 6), comparison B an odd one (1, 3, 5): the record buffers are
// word-interleaved (sec. 3.4.2). For comparisons that read no word, Size,
// Byte and Word are zero.
type Cmp struct {
	Op   CmpOp
	Size uint8
	Byte uint8
	Word uint8
}

// Next says where the query engine goes after an instruction.
type Next uint8

// The successors: fall through to QPC+1, stop the query, or branch to the
// instruction's target.
const (
	NextFall Next = iota
	NextStop
	NextBranch
)

// An Action is what an instruction does when its comparisons match.
type Action uint8

// The actions (sec. 3.1): none, a message to queue Arg, increment the
// counter Arg embedded in the instruction, interrupt the thread with code
// Arg (InterruptAsync set: asynchronously).
const (
	ActNone Action = iota
	ActSend
	ActCount
	ActInterrupt
)

// InterruptAsync is the bit of an interrupt action's argument that makes
// the interrupt asynchronous (sec. 3.1: "The interrupt may be synchronous
// or asynchronous"): the profiled thread is not held at the profiled
// instruction; the interrupt reaches it later (Options.OnInterrupt). The
// other bits are the interrupt code, 0 to InterruptAsync-1.
const InterruptAsync uint16 = 1 << 14

// A QueryInst is one decoded query instruction (Figure 4). The comparisons
// are combined with AND (Or false) or OR. If they match, the engine
// performs Action and goes to Match; otherwise it goes to Miss. Target is
// the QPC of NextBranch.
//
// The 64-bit format, bit 0 least significant (Figure 4 gives the fields
// but not their widths; these are ours):
//
//	bits  9..0   comparison A: op 3..0, size 5..4, byte 7..6, even word/2 9..8
//	bits 19..10  comparison B: same, odd word (word-1)/2
//	bit  20      0: A and B, 1: A or B
//	bits 36..21  16-bit immediate, shared by both comparisons
//	bits 42..37  branch target QPC
//	bits 44..43  successor on match (Next)
//	bits 46..45  successor on mismatch (Next)
//	bits 48..47  action (Action)
//	bits 63..49  action argument: queue, counter or interrupt code (15 bits)
type QueryInst struct {
	A, B        Cmp
	Or          bool
	Imm         uint16
	Target      uint8
	Match, Miss Next
	Action      Action
	Arg         uint16
}

func encodeCmp(c Cmp) uint64 {
	return uint64(c.Op&15) | uint64(c.Size&3)<<4 | uint64(c.Byte&3)<<6 | uint64(c.Word/2&3)<<8
}

// Encode returns the 64-bit query instruction.
func (q QueryInst) Encode() uint64 {
	w := encodeCmp(q.A) | encodeCmp(q.B)<<10
	if q.Or {
		w |= 1 << 20
	}
	w |= uint64(q.Imm)<<21 | uint64(q.Target&63)<<37 | uint64(q.Match&3)<<43 | uint64(q.Miss&3)<<45
	return w | uint64(q.Action&3)<<47 | uint64(q.Arg&CounterMax)<<49
}

// An EncodingError says why a 64-bit word is not a valid query
// instruction, or why a binary image is not a valid Program.
type EncodingError struct {
	QPC int // the instruction's index, -1 for the image as a whole
	Msg string
}

func (e *EncodingError) Error() string {
	if e.QPC < 0 {
		return "rpa: " + e.Msg
	}
	return fmt.Sprintf("rpa: query instruction %d: %s", e.QPC, e.Msg)
}

func decodeCmp(v uint64, odd uint8) (Cmp, error) {
	c := Cmp{Op: CmpOp(v & 15), Size: uint8(v >> 4 & 3), Byte: uint8(v >> 6 & 3), Word: uint8(v>>8&3)*2 + odd}
	switch {
	case c.Op >= numCmpOps:
		return c, fmt.Errorf("reserved comparison type %d", c.Op)
	case !c.Op.ReadsWord():
		if v>>4 != 0 {
			return c, fmt.Errorf("comparison %v has nonzero operand bits", c.Op)
		}
		c.Word = 0
	case c.Size > Size32:
		return c, errors.New("reserved comparison size 3")
	case int(c.Byte)+1<<c.Size > 4:
		return c, fmt.Errorf("%d-bit value at byte %d crosses the word", 8<<c.Size, c.Byte)
	case c.Byte%(1<<c.Size) != 0:
		return c, fmt.Errorf("%d-bit value at byte %d is misaligned", 8<<c.Size, c.Byte)
	case c.Word >= MaxRecordWords:
		return c, fmt.Errorf("record word %d does not exist (records have %d words)", c.Word, MaxRecordWords)
	}
	return c, nil
}

// DecodeInst decodes a 64-bit query instruction. It rejects reserved
// values (comparison types, sizes, successors), misaligned sub-word
// comparisons, word 7, a send to a queue >= MaxQueues, and operand bits set
// on comparisons that read no word, so that decoding and encoding are
// inverse on every word it accepts.
func DecodeInst(w uint64) (QueryInst, error) {
	var q QueryInst
	var err error
	if q.A, err = decodeCmp(w&1023, 0); err != nil {
		return q, fmt.Errorf("comparison A: %w", err)
	}
	if q.B, err = decodeCmp(w>>10&1023, 1); err != nil {
		return q, fmt.Errorf("comparison B: %w", err)
	}
	q.Or = w>>20&1 != 0
	q.Imm = uint16(w >> 21)
	q.Target = uint8(w >> 37 & 63)
	q.Match, q.Miss = Next(w>>43&3), Next(w>>45&3)
	q.Action, q.Arg = Action(w>>47&3), uint16(w>>49)
	switch {
	case q.Match > NextBranch || q.Miss > NextBranch:
		return q, errors.New("reserved successor 3")
	case q.Action == ActSend && q.Arg >= MaxQueues:
		return q, fmt.Errorf("send to queue %d (queues are 0..%d)", q.Arg, MaxQueues-1)
	case q.Action == ActNone && q.Arg != 0:
		return q, errors.New("argument bits set without an action")
	}
	return q, nil
}

// A Program is what the assembler produces and the engine runs: the PCT
// and the query instruction array.
type Program struct {
	PCT  [NumEntries]PCREntry
	Code []uint64 // at most MaxInsts query instructions
}

// imageMagic opens a binary image of a Program.
var imageMagic = [4]byte{'R', 'P', 'A', '1'}

// ImageSize returns the size of the program's binary image in bytes.
func (p *Program) ImageSize() int { return 4 + NumEntries*8 + 8*len(p.Code) }

// MarshalBinary returns the program's binary image: "RPA1", the PCT as
// NumEntries pairs of little-endian 32-bit PCRs (280 bytes), then the query
// instructions as little-endian 64-bit words.
func (p *Program) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, p.ImageSize())
	b = append(b, imageMagic[:]...)
	for _, e := range p.PCT {
		b = binary.LittleEndian.AppendUint32(b, e.PCR0)
		b = binary.LittleEndian.AppendUint32(b, e.PCR1)
	}
	for _, w := range p.Code {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b, nil
}

// UnmarshalBinary reads a binary image written by MarshalBinary and checks
// it with Validate. Errors are *EncodingError.
func (p *Program) UnmarshalBinary(b []byte) error {
	const head = 4 + NumEntries*8
	if len(b) < head || [4]byte(b[:4]) != imageMagic {
		return &EncodingError{QPC: -1, Msg: fmt.Sprintf("not an RPA image (want %q and a %d-byte PCT)", imageMagic[:], NumEntries*8)}
	}
	if (len(b)-head)%8 != 0 || (len(b)-head)/8 > MaxInsts {
		return &EncodingError{QPC: -1, Msg: fmt.Sprintf("image holds %d bytes of query instructions: want a multiple of 8, at most %d", len(b)-head, 8*MaxInsts)}
	}
	var q Program
	for i := range q.PCT {
		q.PCT[i] = PCREntry{binary.LittleEndian.Uint32(b[4+8*i:]), binary.LittleEndian.Uint32(b[8+8*i:])}
	}
	for o := head; o < len(b); o += 8 {
		q.Code = append(q.Code, binary.LittleEndian.Uint64(b[o:]))
	}
	if err := q.Validate(); err != nil {
		return err
	}
	*p = q
	return nil
}

// Validate checks that every query instruction decodes, that branch
// targets and QPCs of active entries lie inside the array, and that PCR
// bits outside their fields are zero. Errors are *EncodingError.
func (p *Program) Validate() error {
	if len(p.Code) > MaxInsts {
		return &EncodingError{QPC: -1, Msg: fmt.Sprintf("%d query instructions (at most %d)", len(p.Code), MaxInsts)}
	}
	for i, e := range p.PCT {
		switch {
		case e.PCR1>>6 != 0:
			return &EncodingError{QPC: -1, Msg: fmt.Sprintf("PCT entry %v: PCR1 bits above the QPC are set", Entry(i))}
		case e.On() && int(e.QPC()) >= len(p.Code):
			return &EncodingError{QPC: -1, Msg: fmt.Sprintf("PCT entry %v: QPC %d is outside the %d query instructions", Entry(i), e.QPC(), len(p.Code))}
		case e.On() && e.Mask().Len() > MaxRecordWords:
			return &EncodingError{QPC: -1, Msg: fmt.Sprintf("PCT entry %v collects %d fields (at most %d)", Entry(i), e.Mask().Len(), MaxRecordWords)}
		case !e.On() && e != (PCREntry{}):
			return &EncodingError{QPC: -1, Msg: fmt.Sprintf("PCT entry %v: no fields but nonzero PCRs", Entry(i))}
		}
	}
	for i, w := range p.Code {
		q, err := DecodeInst(w)
		if err != nil {
			return &EncodingError{QPC: i, Msg: err.Error()}
		}
		if (q.Match == NextBranch || q.Miss == NextBranch) && int(q.Target) >= len(p.Code) {
			return &EncodingError{QPC: i, Msg: fmt.Sprintf("branch target %d is outside the %d query instructions", q.Target, len(p.Code))}
		}
	}
	return nil
}
