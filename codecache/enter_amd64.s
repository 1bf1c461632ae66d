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
TEXT ·enter(SB), NOSPLIT, $8-24
	MOVQ BP, savedbp-8(SP)
	MOVQ code+0(FP), AX
	MOVQ st+8(FP), R15
	MOVQ mem+16(FP), R14
	MOVQ State_Budget(R15), R12
	CALL AX
	MOVQ R12, State_Budget(R15)
	MOVQ savedbp-8(SP), BP
	RET
