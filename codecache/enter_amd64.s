// Trampoline: Go -> native fragment code -> Go.

#include "textflag.h"
#include "state_amd64.h"

// func enter(code uintptr, st *fragment.State, mem uintptr)
// Native code expects R15 = st, R14 = host address of guest address 0 and
// R12 = st.Budget; it clobbers every general register but SP, BP, R14 and
// R15, and returns with RET. The budget left is stored back here.
// R14 (g in ABIInternal) is restored by the ABI0 -> ABIInternal wrapper.
TEXT ·enter(SB), NOSPLIT, $0-24
	MOVQ code+0(FP), AX
	MOVQ st+8(FP), R15
	MOVQ mem+16(FP), R14
	MOVQ State_Budget(R15), R12
	CALL AX
	MOVQ R12, State_Budget(R15)
	RET
