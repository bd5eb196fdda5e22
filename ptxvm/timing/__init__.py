"""ptxvm.timing: performance model of the SIMT core and memory hierarchy (issue 10)."""
