// The exported OpenMP entry points: one assembly trampoline per row of symbols/openmp.def, bound
// to the row's name and version with .symver (psomp_t_<name>_<tag> becomes name@@version or
// name@version; the version script's local: * keeps the psomp_t_ names themselves hidden, as
// libgomp does for its own versioned aliases).
//
// Why assembly: a forwarding function written in C++ would need each function's signature, and
// some take a va_list-like tail or structs by value; a jump keeps every argument register, the
// stack and the return address exactly as the caller left them, so the real function runs as if
// it had been called directly (and its frames are all an unwinder sees: the trampoline leaves
// none). x86-64 only, like the rest of the project.
#include "abi/openmp/entry.h"

#if !defined(__x86_64__)
#error "the OpenMP trampolines are written for x86-64"
#endif

// Fast path: load the target, jump. Slow path (target still empty): the row's target word's address
// in r11 to the common resolver stub. r11 is the scratch register the ABI gives a callee on entry.
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding)             \
  asm(".text\n"                                                     \
      ".globl psomp_t_" #name "_" #tag                              \
      "\n"                                                          \
      ".type psomp_t_" #name "_" #tag                               \
      ", @function\n"                                               \
      ".p2align 4\n"                                                \
      "psomp_t_" #name "_" #tag                                     \
      ":\n"                                                         \
      "  endbr64\n"                                                 \
      "  movq psomp_e_" #name "_" #tag                              \
      "(%rip), %r11\n"                                              \
      "  testq %r11, %r11\n"                                        \
      "  jz 1f\n"                                                   \
      "  jmp *%r11\n"                                               \
      "1:\n"                                                        \
      "  leaq psomp_e_" #name "_" #tag                              \
      "(%rip), %r11\n"                                              \
      "  jmp psomp_slow_path\n"                                     \
      ".size psomp_t_" #name "_" #tag ", .-psomp_t_" #name "_" #tag \
      "\n"                                                          \
      ".symver psomp_t_" #name "_" #tag ", " #name binding version "\n");
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY

// The target words, one per row in the table's order (entry.h): poolshim_omp_targets[row], each
// row's labelled psomp_e_<name>_<tag> for its trampoline. Zero-filled .bss.
static_assert(sizeof(std::atomic<void*>) == 8, "a target word is 8 bytes");
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) "psomp_e_" #name "_" #tag ":\n  .zero 8\n"
asm(".bss\n"
    ".p2align 3\n"
    ".globl poolshim_omp_targets\n"
    ".hidden poolshim_omp_targets\n"
    ".type poolshim_omp_targets, @object\n"
    "poolshim_omp_targets:\n"
#include "symbols/openmp.def"
    ".size poolshim_omp_targets, .-poolshim_omp_targets\n"
    ".text\n");
#undef POOLSHIM_OMP_ENTRY

// The slow path, once per row: save the six integer argument registers, rax (a variadic call's
// vector-register count) and xmm0-7, call poolshim_openmp_resolve(the row's target word),
// restore, jump to what it returned. On entry rsp is 8 mod 16 (the caller's return address); 184
// bytes keep the call aligned.
asm(".text\n"
    ".p2align 4\n"
    ".type psomp_slow_path, @function\n"
    ".hidden poolshim_openmp_resolve\n"
    "psomp_slow_path:\n"
    "  subq $184, %rsp\n"
    "  movq %rdi, 0(%rsp)\n"
    "  movq %rsi, 8(%rsp)\n"
    "  movq %rdx, 16(%rsp)\n"
    "  movq %rcx, 24(%rsp)\n"
    "  movq %r8, 32(%rsp)\n"
    "  movq %r9, 40(%rsp)\n"
    "  movq %rax, 48(%rsp)\n"
    "  movdqu %xmm0, 56(%rsp)\n"
    "  movdqu %xmm1, 72(%rsp)\n"
    "  movdqu %xmm2, 88(%rsp)\n"
    "  movdqu %xmm3, 104(%rsp)\n"
    "  movdqu %xmm4, 120(%rsp)\n"
    "  movdqu %xmm5, 136(%rsp)\n"
    "  movdqu %xmm6, 152(%rsp)\n"
    "  movdqu %xmm7, 168(%rsp)\n"
    "  movq %r11, %rdi\n"
    "  call poolshim_openmp_resolve\n"
    "  movq %rax, %r11\n"
    "  movq 0(%rsp), %rdi\n"
    "  movq 8(%rsp), %rsi\n"
    "  movq 16(%rsp), %rdx\n"
    "  movq 24(%rsp), %rcx\n"
    "  movq 32(%rsp), %r8\n"
    "  movq 40(%rsp), %r9\n"
    "  movq 48(%rsp), %rax\n"
    "  movdqu 56(%rsp), %xmm0\n"
    "  movdqu 72(%rsp), %xmm1\n"
    "  movdqu 88(%rsp), %xmm2\n"
    "  movdqu 104(%rsp), %xmm3\n"
    "  movdqu 120(%rsp), %xmm4\n"
    "  movdqu 136(%rsp), %xmm5\n"
    "  movdqu 152(%rsp), %xmm6\n"
    "  movdqu 168(%rsp), %xmm7\n"
    "  addq $184, %rsp\n"
    "  jmp *%r11\n"
    ".size psomp_slow_path, .-psomp_slow_path\n");
