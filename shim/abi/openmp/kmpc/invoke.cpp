// Calling a region's outlined body with its shared variables (kmpc.h: psk_invoke_microtask).
//
// __kmpc_fork_call(loc, argc, microtask, ...) passes argc pointers, which the microtask takes
// after (gtid, btid): microtask(gtid, btid, a0, ..., a[argc-1]), a fixed signature per region
// that only the compiler knows. C cannot call a function with a count known at run time, so this
// is assembly for the x86-64 System V ABI: the first six integer arguments in rdi, rsi, rdx, rcx,
// r8, r9 (gtid, btid, a0-a3), the rest on the stack in order, rsp 16-byte aligned at the call.
// The CFI describes the frame (rbp-based), so an unwinder (pthread_exit in a region, a debugger)
// walks through it.
#include "abi/openmp/kmpc/kmpc.h"

#if !defined(__x86_64__)
#error "the __kmpc microtask invoker is written for x86-64"
#endif

// rdi = fn, rsi = gtid, rdx = btid, ecx = argc, r8 = argv (at least 4 readable entries).
asm(".text\n"
    ".p2align 4\n"
    ".globl psk_invoke_microtask\n"
    ".hidden psk_invoke_microtask\n"
    ".type psk_invoke_microtask, @function\n"
    "psk_invoke_microtask:\n"
    "  .cfi_startproc\n"
    "  endbr64\n"
    "  pushq %rbp\n"
    "  .cfi_def_cfa_offset 16\n"
    "  .cfi_offset %rbp, -16\n"
    "  movq %rsp, %rbp\n"
    "  .cfi_def_cfa_register %rbp\n"
    "  movq %rdi, %r11\n"  // the microtask
    "  movq %r8, %r10\n"   // argv
    "  movslq %ecx, %rax\n"
    "  cmpq $4, %rax\n"
    "  jle 2f\n"
    // argc - 4 arguments go on the stack; an odd count takes 8 bytes of padding first, so that
    // rsp is 16-byte aligned at the call (it is after the push of rbp).
    "  testq $1, %rax\n"
    "  jz 1f\n"
    "  subq $8, %rsp\n"
    "1:\n"
    "  pushq -8(%r10,%rax,8)\n"  // argv[rax - 1]: the last argument is pushed first
    "  decq %rax\n"
    "  cmpq $4, %rax\n"
    "  jg 1b\n"
    "2:\n"
    "  movq %rsi, %rdi\n"  // gtid
    "  movq %rdx, %rsi\n"  // btid
    "  movq 0(%r10), %rdx\n"
    "  movq 8(%r10), %rcx\n"
    "  movq 16(%r10), %r8\n"
    "  movq 24(%r10), %r9\n"
    "  xorl %eax, %eax\n"  // no vector registers, should the body be variadic
    "  callq *%r11\n"
    "  leave\n"
    "  .cfi_def_cfa %rsp, 8\n"
    "  ret\n"
    "  .cfi_endproc\n"
    ".size psk_invoke_microtask, .-psk_invoke_microtask\n");
