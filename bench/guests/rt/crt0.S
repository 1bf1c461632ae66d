/* crt0.S: process entry for rvdyn guest programs (RV64IM, Linux user mode).

   The kernel (or qemu-riscv64, or rvdyn) starts us at _start with
     sp -> argc, argv[0] .. argv[argc-1], NULL, envp..., NULL, auxv...
   and all other registers undefined.  We
     1. set gp to __global_pointer$ (relaxation off, or the assembler would
        turn this very la into a gp-relative addi);
     2. set up thread-local storage: copy the .tdata template into the
        TLS block that guest.ld reserves in .bss (__tls_block), zero the
        rest of the block (.tbss and alignment padding), point tp at it;
     3. set environ, run the constructors (__libc_init_array), call
        main(argc, argv, envp) and pass its result to exit(), which runs
        atexit handlers and destructors and ends in _exit (rt/sys.c):
        flush stdio, then the exit system call (ecall, a7 = 93).  */

	.option	norvc
	.section .text._start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.option	push
	.option	norelax
	la	gp, __global_pointer$
	.option	pop

	/* TLS: tp = __tls_block; copy [__tdata_start, __tdata_end), then zero
	   up to __tls_block_end.  Both ranges are small (tens of bytes).  */
	la	tp, __tls_block
	la	t0, __tdata_start
	la	t1, __tdata_end
	mv	t2, tp
1:	bgeu	t0, t1, 2f
	lbu	t3, 0(t0)
	sb	t3, 0(t2)
	addi	t0, t0, 1
	addi	t2, t2, 1
	j	1b
2:	la	t1, __tls_block_end
3:	bgeu	t2, t1, 4f
	sb	zero, 0(t2)
	addi	t2, t2, 1
	j	3b
4:
	/* Arguments: keep them in callee-saved registers across init.  */
	ld	s0, 0(sp)		/* argc */
	addi	s1, sp, 8		/* argv */
	slli	t0, s0, 3
	add	s2, s1, t0
	addi	s2, s2, 8		/* envp = &argv[argc + 1] */
	la	t0, environ		/* picolibc's, for getenv */
	sd	s2, 0(t0)
	andi	sp, sp, -16		/* the ABI wants 16-byte alignment */

	call	__libc_init_array

	mv	a0, s0
	mv	a1, s1
	mv	a2, s2
	call	main
	call	exit
	/* exit does not return; just in case, exit directly.  */
5:	li	a7, 93
	ecall
	j	5b
	.size	_start, . - _start
