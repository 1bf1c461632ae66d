// Offsets of fragment.State fields the trampoline uses: amd64.State* in
// Go, pinned against unsafe.Offsetof by TestTrampolineOffsets.
#define State_Budget 536
#define State_MXCSR 560
