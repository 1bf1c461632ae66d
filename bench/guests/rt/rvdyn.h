/* rvdyn.h: the guest side of rvdyn's host calls, and profiling tags.

   A host call is an ecall whose number (a7) no Linux system call uses, so
   that qemu-riscv64 and a plain Linux kernel answer -ENOSYS and a guest
   runs unchanged everywhere; rvdyn may answer it.  Arguments go in a0 and
   a1, the answer comes back in a0 (negative: -errno).  A native build of a
   guest (x86-64) never traps: rvdyn_hostcall returns -ENOSYS at once.

   Host-call numbers (reserved here, 0x5256 is "RV"):
     RVDYN_HC_HEAP_ANNOUNCE  0x52560001
         a0 = guest address of a struct heap_desc (bench/guests/scheme/
         heap.h, docs/heap-contract.md), a1 = 0.  Answer 0: the host has
         taken the heap over as that document describes (rvdyn run
         --gc=stw|soft|rpa); -ENOSYS (qemu-riscv64, rvdyn --gc=guest): the
         guest collects its own heap.
   The hosted protocol's calls, made only by a guest whose announcement
   was answered 0, each at a heap safepoint except GC_LOG (a0 = a1 = 0,
   answer 0):
     RVDYN_HC_GC_TRIGGER     0x52560002  the allocation trigger fired
     RVDYN_HC_GC_SAFEPOINT   0x52560003  answers gc_control.request
     RVDYN_HC_GC_FULL        0x52560004  allocation failed: collect fully
     RVDYN_HC_GC_LOG         0x52560005  the software barrier's log is full */
#ifndef RVDYN_H
#define RVDYN_H

#include <stdint.h>

#define RVDYN_HC_HEAP_ANNOUNCE 0x52560001L
#define RVDYN_HC_GC_TRIGGER 0x52560002L
#define RVDYN_HC_GC_SAFEPOINT 0x52560003L
#define RVDYN_HC_GC_FULL 0x52560004L
#define RVDYN_HC_GC_LOG 0x52560005L

#define RVDYN_ENOSYS 38

static inline long rvdyn_hostcall(long n, long a0, long a1)
{
#ifdef __riscv
	register long r0 __asm__("a0") = a0;
	register long r1 __asm__("a1") = a1;
	register long r7 __asm__("a7") = n;
	__asm__ volatile("ecall" : "+r"(r0) : "r"(r1), "r"(r7) : "memory");
	return r0;
#else
	(void)n;
	(void)a0;
	(void)a1;
	return -RVDYN_ENOSYS;
#endif
}

/* PROFILE_TAG(t) gives the instruction that follows it the relational
   profiler's 2-bit profile tag t (0..3; t = 1: a reference store into a
   heap object, see REF_STORE in bench/guests/scheme/heap.h).  It is one
   HINT instruction, "slti zero, zero, 2044+t": SLTI with rd = x0 is a HINT
   the RISC-V ISA leaves for custom use, a no-op under qemu-riscv64 and in
   rvdyn, whose query engine reads the tag of the instruction at pc from
   the HINT at pc-4 (docs/rpa.md).  The compiler may put other code between
   two asm statements: to tag an instruction written in inline asm, put
   PROFILE_TAG_INSN(t) in the same asm template, right before it.  A
   native build expands PROFILE_TAG to nothing. */
#define PROFILE_TAG_INSN(t) "slti zero, zero, 2044+" #t "\n\t"
#ifdef __riscv
#define PROFILE_TAG(t) __asm__ volatile(PROFILE_TAG_INSN(t));
#else
#define PROFILE_TAG(t)
#endif

#endif
