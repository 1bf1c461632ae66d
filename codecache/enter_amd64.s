// Trampoline: Go -> native fragment code -> Go.

#include "textflag.h"

// func enter(code uintptr, st *fragment.State, mem uintptr)
// Native code expects R15 = st and R14 = host address of guest address 0,
// clobbers every general register but SP and BP, and returns with RET.
// R14 (g in ABIInternal) is restored by the ABI0 -> ABIInternal wrapper.
TEXT ·enter(SB), NOSPLIT, $0-24
	MOVQ code+0(FP), AX
	MOVQ st+8(FP), R15
	MOVQ mem+16(FP), R14
	CALL AX
	RET
