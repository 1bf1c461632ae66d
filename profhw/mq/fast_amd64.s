// Queue fast paths for amd64 (see fast_amd64.go): the producer and consumer
// steps of the protocol in the package doc, with plain MOVs. Offsets come
// from the layout constants through go_asm.h.

//go:build amd64 && mqasm && !race && !purego

#include "textflag.h"
#include "go_asm.h"

// func sendFast(h *header, m *Message) bool
TEXT ·sendFast(SB), NOSPLIT, $0-17
	MOVQ	h+0(FP), DI
	MOVQ	m+8(FP), SI
	MOVQ	const_OffWritten(DI), AX	// n: messages written
	MOVQ	const_OffMask(DI), CX		// slots-1
	MOVQ	AX, DX
	SUBQ	const_OffCachedRead(DI), DX
	CMPQ	DX, CX
	JHI	reload				// n - cachedRead >= slots: full in the cached view
store:
	MOVQ	AX, DX
	ANDQ	CX, DX
	SHLQ	$6, DX				// * SlotBytes
	LEAQ	const_OffSlots(DI)(DX*1), DX	// the slot
	MOVQ	0(SI), R8
	MOVQ	8(SI), R9
	MOVQ	16(SI), R10
	MOVQ	24(SI), R11
	MOVQ	R8, 0(DX)
	MOVQ	R9, 8(DX)
	MOVQ	R10, 16(DX)
	MOVQ	R11, 24(DX)
	MOVQ	32(SI), R8
	MOVQ	40(SI), R9
	MOVQ	48(SI), R10
	MOVQ	R8, 32(DX)
	MOVQ	R9, 40(DX)
	MOVQ	R10, 48(DX)
	INCQ	AX
	MOVQ	AX, const_ReadyOffset(DX)	// ready word = n+1, after the record
	MOVQ	AX, const_OffWritten(DI)
	MOVB	$1, ret+16(FP)
	RET
reload:
	MOVQ	const_OffReadStatus(DI), R8	// the paper's periodic read of the read status
	MOVQ	R8, const_OffCachedRead(DI)
	MOVQ	AX, DX
	SUBQ	R8, DX
	CMPQ	DX, CX
	JLS	store
	MOVB	$0, ret+16(FP)			// full: the caller stalls
	RET

// func recvFast(h *header, m *Message) bool
TEXT ·recvFast(SB), NOSPLIT, $0-17
	MOVQ	h+0(FP), DI
	MOVQ	m+8(FP), SI
	MOVQ	const_OffReadStatus(DI), AX	// r: messages read (only this consumer writes it)
	MOVQ	const_OffMask(DI), DX
	ANDQ	AX, DX
	SHLQ	$6, DX
	LEAQ	const_OffSlots(DI)(DX*1), DX	// slot r & mask
	LEAQ	1(AX), BX			// expected ready word r+1
	CMPQ	const_ReadyOffset(DX), BX
	JNE	empty
	MOVQ	0(DX), R8			// loads stay after the ready-word load (TSO)
	MOVQ	8(DX), R9
	MOVQ	16(DX), R10
	MOVQ	24(DX), R11
	MOVQ	R8, 0(SI)
	MOVQ	R9, 8(SI)
	MOVQ	R10, 16(SI)
	MOVQ	R11, 24(SI)
	MOVQ	32(DX), R8
	MOVQ	40(DX), R9
	MOVQ	48(DX), R10
	MOVQ	R8, 32(SI)
	MOVQ	R9, 40(SI)
	MOVQ	R10, 48(SI)
	MOVQ	const_OffWritten(DI), CX	// occupancy = max(written, r+1) - r
	CMPQ	CX, BX
	CMOVQCS	BX, CX
	SUBQ	AX, CX
	CMPQ	CX, const_OffMaxOccupancy(DI)
	JLS	release
	MOVQ	CX, const_OffMaxOccupancy(DI)
release:
	MOVQ	$0, const_ReadyOffset(DX)	// clear the ready word
	MOVQ	BX, const_OffReadStatus(DI)	// publish: the slot is free
	MOVB	$1, ret+16(FP)
	RET
empty:
	MOVB	$0, ret+16(FP)
	RET
