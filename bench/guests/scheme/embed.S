/* embed.S: the Scheme sources built into the interpreter (.incbin, so the
   bytes come from the files at build time; paths are relative to
   bench/guests, where make runs).

   scheme_prelude: prelude.scm, NUL-terminated.
   scheme_programs: for each benchmark, its name and its source, each
   NUL-terminated; an empty name ends the table.  Plain bytes, no
   addresses: nothing to relocate, the same for RISC-V and the host.

   The list of benchmarks is explicit: adding programs/NAME.scm means
   adding a `program NAME` line here (main.c sorts them by name). */

	.macro	program name
	.asciz	"\name"
	.incbin	"scheme/programs/\name\().scm"
	.byte	0
	.endm

	.section .rodata.scheme_sources, "a"
	.globl	scheme_prelude
scheme_prelude:
	.incbin	"scheme/prelude.scm"
	.byte	0

	.globl	scheme_programs
scheme_programs:
	program	boyer
	program	closures
	program	deriv
	program	destruct
	program	gcbench
	program	interp
	program	nqueens
	program	parser
	program	strings
	program	tak
	program	vectors
	.byte	0

	.section .note.GNU-stack, "", @progbits
