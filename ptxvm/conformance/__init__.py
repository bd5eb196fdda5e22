"""Hardware-verified conformance: every PTX instruction form checked bit for bit against an H100/H200.

    ptxvm.conformance.cases     the case lists, one module per instruction family (data)
    ptxvm.conformance.case      a case -> a self-contained PTX kernel
    ptxvm.conformance.inputs    named input sets (edges first, exhaustive where small, seeded random)
    ptxvm.conformance.golden    the golden file format (written by tools/device/record.py only)
    ptxvm.conformance.check     replay goldens on ptxvm and compare bits
    ptxvm.conformance.coverage  docs/coverage.md

Everything the GPU recorder imports from here needs NumPy only; ptxvm's engine is imported lazily
by the checker.
"""
