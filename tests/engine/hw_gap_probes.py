"""Probe kernels for the non-texture hardware gaps of issue 17, shared by the GPU recorder
(tools/device/record_hw_gaps.py) and the replay test (tests/engine/test_hw_gaps.py):

- warp-synchronous instructions (shfl/vote/match/redux/elect/bar.warp.sync) whose membermask names
  lanes that have already exited (`exit` before the instruction, or a branch to an `exit` placed
  after it, so the survivors may reach the instruction first);
- video instructions with a third operand c but neither a secondary operation nor a merge
  selector (`vadd.s32.s32.s32.sat d, a, b, c;`: ptxas accepts it), and vset's merge forms
  (`vset.atype.btype.cmp d.dsel, a{.asel}, b{.bsel}, c;`) for every comparison and type pair.

Each probe: one kernel `probe(.param .u64 inp, .param .u64 out, .param .u32 n)`; per thread four b32
inputs %c0..%c3 and two b32 outputs %o0, %o1 (a predicate result as 0/1 in %o1). A lane that exits
before storing leaves 0xEEEEEEEE in both outputs.
"""
import numpy as np

SENTINEL = 0xEEEEEEEE

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 inp, .param .u64 o, .param .u32 n)
{
 .reg .pred %p<8>; .reg .b32 %r<16>; .reg .b32 %c<4>; .reg .b32 %o<2>; .reg .b64 %rd<12>;
 ld.param.u64 %rd2, [inp]; ld.param.u64 %rd5, [o]; ld.param.u32 %r1, [n];
 mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;
 setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;
 mul.wide.s32 %rd6, %r5, 16; add.s64 %rd7, %rd2, %rd6;
 ld.global.v4.b32 {%c0, %c1, %c2, %c3}, [%rd7];
 mul.wide.s32 %rd10, %r5, 8; add.s64 %rd11, %rd5, %rd10;
 mov.b32 %o0, 0; mov.b32 %o1, 0;
"""
# warp probes: %c3 is the warp's exit mask; lanes it names leave before the instruction
WARP_HEAD = """ mov.b32 %r9, 0xEEEEEEEE; st.global.v2.b32 [%rd11], {%r9, %r9};
 mov.u32 %r6, %laneid; shr.b32 %r7, %c3, %r6; and.b32 %r7, %r7, 1; setp.ne.u32 %p2, %r7, 0;
 and.b32 %r8, %c1, 1; setp.ne.u32 %p3, %r8, 0;
"""
TAIL = """ st.global.v2.b32 [%rd11], {%o0, %o1};
DONE:
 ret;
"""


def probe_ptx(p):
    if p["kind"] == "video":
        return HEAD + " " + p["instr"] + "\n" + TAIL + "}\n"
    if p["exit"] == "early":
        return HEAD + WARP_HEAD + " @%p2 exit;\n " + p["instr"] + "\n" + TAIL + "}\n"
    # late: the leaving lanes branch past the instruction to an exit placed after it
    return HEAD + WARP_HEAD + " @%p2 bra LEAVE;\n " + p["instr"] + "\n" + TAIL + "LEAVE:\n exit;\n}\n"


# ---------------------------------------------------------------- warp-synchronous, exited lanes

NWARPS = 32


def warp_inputs():
    """(1024, 4) u32: per lane a value (%c0), b (%c1: a lane index for shfl, its low bit the vote
    predicate), the membermask (%c2) and the warp's exit mask (%c3)."""
    rng = np.random.default_rng(1701)
    exits = [0, 1, 0x80000000, 0xAAAAAAAA, 0x55555555, 0xFFFF0000, 0x0000FFFF, 0xFFFFFFFE, 0x7FFFFFFF,
             0xFFFFFFF0, 0x00000010, 0x0F0F0F0F, 0xFFFFFFFF]
    exits += [int(x) for x in rng.integers(0, 1 << 32, NWARPS - len(exits), dtype=np.uint64)]
    inp = np.zeros((NWARPS, 32, 4), np.uint32)
    for w, e in enumerate(exits):
        live = ~np.uint32(e)
        # the membermask: the live lanes and some (or all, or none) of the exited ones
        extra = [0xFFFFFFFF, 0, int(rng.integers(0, 1 << 32, dtype=np.uint64))][w % 3]
        mask = np.uint32(live | np.uint32(extra))
        if w % 4 == 1:
            vals = rng.integers(0, 3, 32)  # few distinct values: match finds groups
        elif w % 4 == 3:
            vals = np.full(32, 0x1234567)  # all equal: match.all succeeds
        else:
            vals = rng.integers(0, 1 << 32, 32, dtype=np.uint64)
        inp[w, :, 0] = vals.astype(np.uint32)
        inp[w, :, 1] = rng.integers(0, 64, 32).astype(np.uint32)  # lane 0..31 (bit 5 set: out of range for idx)
        inp[w, :, 2] = mask
        inp[w, :, 3] = np.uint32(e)
    return inp.reshape(-1, 4)


WARP_INSTRS = {
    "shfl_idx": "shfl.sync.idx.b32 %o0|%p4, %c0, %c1, 0x1f, MASK; selp.u32 %o1, 1, 0, %p4;",
    "shfl_up": "shfl.sync.up.b32 %o0|%p4, %c0, 1, 0, MASK; selp.u32 %o1, 1, 0, %p4;",
    "shfl_down": "shfl.sync.down.b32 %o0|%p4, %c0, 3, 0x1f, MASK; selp.u32 %o1, 1, 0, %p4;",
    "shfl_bfly": "shfl.sync.bfly.b32 %o0|%p4, %c0, %c1, 0x1f, MASK; selp.u32 %o1, 1, 0, %p4;",
    "shfl_idx_seg": "shfl.sync.idx.b32 %o0|%p4, %c0, %c1, 0x181f, MASK; selp.u32 %o1, 1, 0, %p4;",
    "vote_ballot": "vote.sync.ballot.b32 %o0, %p3, MASK;",
    "vote_all": "vote.sync.all.pred %p4, %p3, MASK; selp.u32 %o1, 1, 0, %p4;",
    "vote_any": "vote.sync.any.pred %p4, %p3, MASK; selp.u32 %o1, 1, 0, %p4;",
    "vote_uni": "vote.sync.uni.pred %p4, %p3, MASK; selp.u32 %o1, 1, 0, %p4;",
    "match_any": "match.sync.any.b32 %o0, %c0, MASK;",
    "match_all": "match.sync.all.b32 %o0|%p4, %c0, MASK; selp.u32 %o1, 1, 0, %p4;",
    "redux_add": "redux.sync.add.u32 %o0, %c0, MASK;",
    "redux_min": "redux.sync.min.u32 %o0, %c0, MASK;",
    "redux_max_s32": "redux.sync.max.s32 %o0, %c0, MASK;",
    "redux_and": "redux.sync.and.b32 %o0, %c0, MASK;",
    "redux_or": "redux.sync.or.b32 %o0, %c0, MASK;",
    "redux_xor": "redux.sync.xor.b32 %o0, %c0, MASK;",
    "elect": "elect.sync %o0|%p4, MASK; selp.u32 %o1, 1, 0, %p4;",
    "bar_warp": "bar.warp.sync MASK; activemask.b32 %o0; mov.b32 %o1, 1;",
    "activemask": "activemask.b32 %o0;",
}


def warp_probes():
    inp = warp_inputs()
    P = []
    for ex in ("early", "late"):  # late last: should one hang the GPU, the rest is recorded
        for name, instr in WARP_INSTRS.items():
            for mask, msfx in (("0xffffffff", "full"), ("%c2", "named")):
                if name == "activemask" and msfx == "named":
                    continue
                P.append(dict(name=f"warp_{name}_{msfx}_{ex}", kind="warp", exit=ex,
                              instr=instr.replace("MASK", mask), inp=inp))
    return P


# ---------------------------------------------------------------- video: c without op2 or dsel

EDGE = np.array([0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
                 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0xFF00FF00, 0x00FF00FF, 0x12345678, 0x9ABCDEF0, 31, 32, 33], np.uint32)


def video_inputs():
    rng = np.random.default_rng(1702)
    a, b = np.meshgrid(EDGE, EDGE, indexing="ij")
    a, b = a.ravel(), b.ravel()
    n = 2048
    ra = rng.integers(0, 1 << 32, n - a.size, dtype=np.uint64).astype(np.uint32)
    rb = rng.integers(0, 1 << 32, n - a.size, dtype=np.uint64).astype(np.uint32)
    small = rng.integers(-40, 40, n - a.size).astype(np.int32).view(np.uint32)
    rb[::3] = small[::3]  # shift counts and near values
    inp = np.zeros((n, 4), np.uint32)
    inp[:, 0] = np.concatenate([a, ra])
    inp[:, 1] = np.concatenate([b, rb])
    inp[:, 2] = rng.choice(np.concatenate([EDGE, rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)]), n)
    return inp


TYPES = (("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32"))
PAIRS = (("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32"))


def video_probes():
    inp = video_inputs()
    P = []

    def add(name, instr):
        P.append(dict(name=name, kind="video", instr=instr, inp=inp))

    # a third operand with neither a secondary operation nor a merge selector
    for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
        for dt, at, bt in TYPES:
            for sat in ("", ".sat"):
                add(f"{op}_{dt}{at}{bt}{sat.replace('.', '_')}_c", f"{op}.{dt}.{at}.{bt}{sat} %o0, %c0, %c1, %c2;")
    for op in ("vshl", "vshr"):
        for dt, at in (("u32", "u32"), ("s32", "s32")):
            for mode in ("clamp", "wrap"):
                for sat in ("", ".sat"):
                    add(f"{op}_{dt}{at}_{mode}{sat.replace('.', '_')}_c",
                        f"{op}.{dt}.{at}.u32{sat}.{mode} %o0, %c0, %c1, %c2;")
    add("vadd_s32_sat_c_asel", "vadd.s32.s32.s32.sat %o0, %c0.b1, %c1.h1, %c2;")
    # vset: c without op2 or dsel, and the merge forms for every comparison and type pair
    for at, bt in PAIRS:
        for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
            add(f"vset_{at}{bt}_{cmp}_c", f"vset.{at}.{bt}.{cmp} %o0, %c0, %c1, %c2;")
            for ds, as_, bs in (("b0", "", ""), ("b1", "b2", "b1"), ("b2", "h1", "b0"), ("b3", "b3", "h0"),
                                ("h0", "", ""), ("h1", "h0", "b3")):
                asel = f".{as_}" if as_ else ""
                bsel = f".{bs}" if bs else ""
                add(f"vset_{at}{bt}_{cmp}_d{ds}_a{as_}_b{bs}", f"vset.{at}.{bt}.{cmp} %o0.{ds}, %c0{asel}, %c1{bsel}, %c2;")
    return P


def probes():
    return video_probes() + warp_probes()
