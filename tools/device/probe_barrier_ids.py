"""What the H200 does with a CTA barrier number of 16 or more taken from a register (ptxas takes
`bar.sync %r`, SASS `BAR.SYNC R0`; the ISA allows 0..15 and leaves others undefined): each case
lets warp 0 wait at `bar.sync ID, 64` while warp 1 does `bar.arrive OTHER, 64`. If ID names the
same barrier as OTHER the launch completes; if not, warp 0 waits for ever (the case's process is
killed after 20 s: a hang, reported as such).

    python3 tools/device/probe_barrier_ids.py      # on the GPU machine (CuPy)

Recorded 2026-11-29 (driver 580.159.04): 16 with 0, 17 with 1, 31 with 15 and 32 with 0
completed; 16 with 1 hung. Without an arrival elsewhere, bar.sync 16/17/31/32 (with and without
a thread count) completed on 64 threads. So the number is taken modulo 16; docs/hardware-notes.md.
"""
from __future__ import annotations

import subprocess
import sys

PTX = r""".version 8.0
.target sm_90
.address_size 64
.visible .entry alias(.param .u32 id, .param .u32 other, .param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.reg .pred %p;
	ld.param.u32 %r1, [id];
	ld.param.u32 %r3, [other];
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %tid.x;
	setp.lt.u32 %p, %r2, 32;
	@%p bra W0;
	bar.arrive %r3, 64;
	bra DONE;
W0:
	bar.sync %r1, 64;
DONE:
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd2, %rd1, %rd2;
	st.global.u32 [%rd2], 1;
	ret;
}
"""
CASES = [(16, 0), (17, 1), (31, 15), (32, 0), (16, 1)]


def run_case(barrier: int, other: int) -> str:
    code = f"""
import cupy as cp, numpy as np
open('/tmp/probe_barrier_ids.ptx', 'w').write({PTX!r})
m = cp.RawModule(path='/tmp/probe_barrier_ids.ptx')
o = cp.zeros(64, cp.uint32)
m.get_function('alias')((1,), (64,), (np.uint32({barrier}), np.uint32({other}), o))
cp.cuda.runtime.deviceSynchronize()
print('completed', int(o.get().sum()))
"""
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or r.stderr.strip()[-200:]
    except subprocess.TimeoutExpired:
        return "HUNG (20 s)"


if __name__ == "__main__":
    for barrier, other in CASES:
        print(f"bar.sync {barrier} with bar.arrive {other}: {run_case(barrier, other)}", flush=True)
