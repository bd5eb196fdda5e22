"""Memory instructions: ld/st/prefetch and generic addressing (access), atom/red (atomics), 128-bit
moves and accesses (wide)."""
