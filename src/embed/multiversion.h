// ENGRAM_MULTIVERSION: compile a kernel for AVX-512, AVX2 and baseline
// x86-64 and let the loader pick the best for the CPU (GCC target_clones).
// Off under clang and the sanitizers, where the baseline build runs.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define ENGRAM_MULTIVERSION __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ENGRAM_MULTIVERSION
#endif
