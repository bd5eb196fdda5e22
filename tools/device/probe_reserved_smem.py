"""What an H200 reports about a CTA's shared memory: the %reserved_smem_offset_* registers, the
sizes (%total_smem_size, %dynamic_smem_size, %aggr_smem_size) and where a kernel's first static
.shared variable and its extern (dynamic) array sit, for 0, 256 and 4096 bytes of dynamic shared
memory (one CTA of 64 threads; 100 bytes of static .shared).

    python3 tools/device/probe_reserved_smem.py      # on the GPU machine (CuPy)

Recorded 2026-11-29 (driver 580.159.04), for every dynamic size: begin 0, end 288, cap 1024,
offset_0 0, offset_1 0; the static array at 1024 (its generic address's low bits too), the dynamic
array at 1136; total = 128 / 384 / 4224, aggregate = 1136 / 1392 / 5232. So the first KiB of a
CTA's shared memory is the system's; docs/hardware-notes.md, tests/engine/test_reserved_shared.py.
"""
from __future__ import annotations

import json

PTX = r""".version 8.1
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out)
{
	.shared .align 4 .b8 stat[100];
	.reg .b32 %r<16>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %reserved_smem_offset_begin;
	mov.u32 %r2, %reserved_smem_offset_end;
	mov.u32 %r3, %reserved_smem_offset_cap;
	mov.u32 %r4, %reserved_smem_offset_0;
	mov.u32 %r5, %reserved_smem_offset_1;
	mov.u32 %r6, %total_smem_size;
	mov.u32 %r7, %dynamic_smem_size;
	mov.u32 %r8, %aggr_smem_size;
	mov.u32 %r9, stat;
	mov.u32 %r10, dyn;
	mov.u64 %rd2, stat;
	cvta.shared.u64 %rd2, %rd2;
	cvt.u32.u64 %r11, %rd2;
	st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
	st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, 0};
	ret;
}
"""
NAMES = ["begin", "end", "cap", "off0", "off1", "total_smem", "dynamic_smem", "aggr_smem", "stat_addr", "dyn_addr",
         "stat_generic_lo", "_"]
DYNAMIC = (0, 256, 4096)

if __name__ == "__main__":
    import cupy as cp

    open("/tmp/probe_reserved_smem.ptx", "w").write(PTX)
    f = cp.RawModule(path="/tmp/probe_reserved_smem.ptx").get_function("k")
    res = {}
    for dyn in DYNAMIC:
        o = cp.zeros(12, cp.uint32)
        f((1,), (64,), (o,), shared_mem=dyn)
        cp.cuda.runtime.deviceSynchronize()
        res[f"dynamic={dyn}"] = dict(zip(NAMES, o.get().tolist()))
    print(json.dumps(res, indent=1))
