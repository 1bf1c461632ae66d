// Trampoline: Go -> native fragment code -> Go.

#include "textflag.h"
#include "state_amd64.h"

// func enter(code uintptr, st *fragment.State, mem uintptr)
// Native code expects R15 = st, R14 = host address of guest address 0 and
// R12 = st.Budget; it clobbers every general register but SP, R14 and
// R15 (BP included: the register allocator hands it out), and returns
// with RET. The budget left is stored back here.
// BP is Go's frame pointer: it is saved in this function's one local
// word and restored before anything in Go can unwind through it (the
// assembler's own prologue and epilogue save it too, as for any frame
// larger than 0). R14 (g in ABIInternal) is restored by the ABI0 ->
// ABIInternal wrapper.
//
// The SSE exception flags (MXCSR bits 0..5) are sticky: Go code may have
// left some set, so they are cleared before native code runs (only when
// set: LDMXCSR is slow), and MXCSR is saved in State on return, where
// fragment.State.AccrueFlags turns what native code raised into the
// guest's fflags. Native code may change the rounding control (to the
// guest's frm); it is set back to round-to-nearest on return. The rest of
// MXCSR (exceptions masked, as Go keeps it) is left alone.
TEXT ·enter(SB), NOSPLIT, $16-24
	MOVQ BP, savedbp-8(SP)
	STMXCSR mxcsr-16(SP)
	MOVL mxcsr-16(SP), AX
	TESTL $0x3f, AX
	JEQ clean
	ANDL $~0x3f, AX
	MOVL AX, mxcsr-16(SP)
	LDMXCSR mxcsr-16(SP)
clean:
	MOVQ code+0(FP), AX
	MOVQ st+8(FP), R15
	MOVQ mem+16(FP), R14
	MOVQ State_Budget(R15), R12
	CALL AX
	MOVQ R12, State_Budget(R15)
	STMXCSR State_MXCSR(R15)
	// Native code may have installed the guest's rounding mode (MXCSR
	// bits 13..14); Go computes with round-to-nearest.
	MOVL State_MXCSR(R15), AX
	TESTL $0x6000, AX
	JEQ nearest
	ANDL $~0x6000, AX
	MOVL AX, mxcsr-16(SP)
	LDMXCSR mxcsr-16(SP)
nearest:
	MOVQ savedbp-8(SP), BP
	RET
