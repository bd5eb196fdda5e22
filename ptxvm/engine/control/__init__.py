"""Control flow and synchronization: branches, calls and returns (flow), system calls (syscalls),
bar/barrier (barriers), warp collectives (warp), clusters (cluster)."""
