#!/usr/bin/env python3
"""Record texture and surface goldens on a real GPU (CuPy).

    python3 tools/device/record_textures.py OUTDIR [--cases-only | --probes-only]

1. The texture/surface ADVANCED_CASES of tests/kernels/cases.py: OUTDIR/<case>.npz (ptx, arg<i>.in,
   arg<i>.value, arg<i>.out) and <case>.meta.json (device, kernel, grid, block, descriptors).
2. Probes: small hand-written PTX kernels, one instruction each (tex/tld4/txq/suld/suq), over
   textures of several formats, filter and address modes, at many coordinates (crafted fractional
   positions pin the fixed-point weights of linear filtering). All in OUTDIR/texture_probes.npz
   (<probe>.data, .c0, .c1, .c2, .out, .ptx) and texture_probes.meta.json (descriptor per probe).
Every probe runs in its own try block: one failure is reported and the rest still record.
"""
import datetime, json, os, sys, traceback
import numpy as np
import cupy as cp
from cupy.cuda import texture as T, runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "kernels"))
import cases as C  # noqa: E402

AM = {"clamp": rt.cudaAddressModeClamp, "wrap": rt.cudaAddressModeWrap,
      "mirror": rt.cudaAddressModeMirror, "border": rt.cudaAddressModeBorder}
FM = {"point": rt.cudaFilterModePoint, "linear": rt.cudaFilterModeLinear}
RM = {"element": rt.cudaReadModeElementType,
      "normalized_float": getattr(rt, "cudaReadModeNormalizedFloat", 1)}
KIND = {"u": rt.cudaChannelFormatKindUnsigned, "i": rt.cudaChannelFormatKindSigned,
        "f": rt.cudaChannelFormatKindFloat}


def device_info():
    try:
        import record as R
        return R.device_info()
    except Exception:
        p = rt.getDeviceProperties(0)
        n = p["name"]
        return {"gpu": n.decode() if isinstance(n, bytes) else n, "cupy": cp.__version__,
                "cuda_driver_api": rt.driverGetVersion()}


def shape_of(a, dims):
    """(width, height, depth, channels) of a host array laid out [depth][height][width][channel]."""
    if a.ndim == dims:
        a = a[..., None]
    ch = a.shape[-1]
    sp = a.shape[:-1][::-1]
    return (sp + (0, 0))[:3], ch


def make_cuarray(a, dims):
    (w, h, d), ch = shape_of(a, dims)
    bits = a.dtype.itemsize * 8
    desc = T.ChannelFormatDescriptor(*[bits if i < ch else 0 for i in range(4)], KIND[a.dtype.kind])
    arr = T.CUDAarray(desc, w, h, d, rt.cudaArraySurfaceLoadStore)
    flat = np.ascontiguousarray(a).reshape(([d] if dims == 3 else []) + ([h] if dims >= 2 else []) + [w * ch])
    arr.copy_from(flat)
    cp.cuda.get_current_stream().synchronize()
    return arr


def read_cuarray(arr, like, dims):
    (w, h, d), ch = shape_of(like, dims)
    flat = np.empty(([d] if dims == 3 else []) + ([h] if dims >= 2 else []) + [w * ch], like.dtype)
    arr.copy_to(flat)
    cp.cuda.get_current_stream().synchronize()
    return flat.reshape(like.shape)


def load_ptx(ptx, name):
    import tempfile
    d = tempfile.mkdtemp()
    path = os.path.join(d, "k.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    return cp.RawModule(path=path).get_function(name)


def texture(a, dims, desc, keep):
    if desc.get("linear_memory"):
        d = cp.asarray(a); keep.append(d)
        bits = a.dtype.itemsize * 8
        res = T.ResourceDescriptor(rt.cudaResourceTypeLinear, arr=d,
                                   chDesc=T.ChannelFormatDescriptor(bits, 0, 0, 0, KIND[a.dtype.kind]),
                                   sizeInBytes=d.nbytes)
    else:
        arr = make_cuarray(a, dims); keep.append(arr)
        res = T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
    am = desc.get("address_mode", "clamp")
    am = (am,) * dims if isinstance(am, str) else tuple(am)
    kw = dict(normalizedCoords=int(desc.get("normalized_coords", False)))
    if desc.get("border_color") is not None:
        kw["borderColors"] = tuple(float(x) for x in desc["border_color"])
    td = T.TextureDescriptor(tuple(AM[m] for m in am), FM[desc.get("filter_mode", "point")],
                             RM[desc.get("read_mode", "element")], **kw)
    to = T.TextureObject(res, td); keep.append(to)
    return int(to.ptr)


# ------------------------------------------------------------------ part 1: the manifest's cases

def record_cases(out, info):
    for c in C.ADVANCED_CASES:
        if c.feature not in ("texture", "surface"):
            continue
        try:
            ptx = open(C.ptx_path(c)).read()
            fn = load_ptx(ptx, c.kernel)
            vals = C.materialize(c, 0)
            kargs, outs, keep, res, kinds = [], {}, [], {}, []
            for i, (spec, v) in enumerate(zip(c.args, vals)):
                kinds.append(type(spec).__name__)
                if isinstance(spec, C.Texture):
                    dims = 1 if spec.linear or v.ndim == 1 else 2
                    a = np.ascontiguousarray(v, np.float32)
                    res[f"arg{i}.in"] = a
                    kargs.append(np.uint64(texture(a, dims, dict(
                        linear_memory=spec.linear, address_mode=spec.address_mode,
                        filter_mode=spec.filter_mode, normalized_coords=spec.normalized_coords), keep)))
                elif isinstance(spec, C.Surface):
                    a = np.ascontiguousarray(v, np.float32)
                    res[f"arg{i}.in"] = a
                    arr = make_cuarray(a, 2); keep.append(arr)
                    so = T.SurfaceObject(T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)); keep.append(so)
                    outs[i] = ("array", arr, a); kargs.append(np.uint64(so.ptr))
                elif isinstance(spec, (C.In, C.Out, C.InOut)):
                    if not isinstance(spec, C.Out):
                        res[f"arg{i}.in"] = v
                    d = cp.asarray(v); kargs.append(d)
                    if not isinstance(spec, C.In):
                        outs[i] = ("dev", d, v)
                else:
                    res[f"arg{i}.value"] = np.frombuffer(np.asarray(v).tobytes(), np.uint8)
                    kargs.append(v)
            fn(c.grid, c.block, tuple(kargs), shared_mem=c.shared_bytes)
            rt.deviceSynchronize()
            for i, (kind, d, v) in outs.items():
                res[f"arg{i}.out"] = read_cuarray(d, v, 2) if kind == "array" else cp.asnumpy(d)
            res["ptx"] = np.frombuffer(ptx.encode(), np.uint8)
            np.savez(os.path.join(out, c.name + ".npz"), **res)
            meta = {"case": c.name, "seed": 0, "device": info, "kernel": c.kernel, "grid": list(c.grid),
                    "block": list(c.block), "shared_mem": c.shared_bytes, "arg_kinds": kinds, "status": "ok",
                    "recorder": "tools/device/record_textures.py",
                    "date": datetime.datetime.utcnow().isoformat() + "Z"}
            with open(os.path.join(out, c.name + ".meta.json"), "w") as f:
                json.dump(meta, f, indent=1)
            print("recorded", c.name, flush=True)
        except Exception:
            print("FAILED", c.name, traceback.format_exc()[-1500:], flush=True)


# ------------------------------------------------------------------ part 2: probes

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 h, .param .u64 a0, .param .u64 a1, .param .u64 a2, .param .u64 o, .param .u32 n)
{
 .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b32 %c<4>; .reg .b32 %o<4>; .reg .b64 %rd<12>;
 ld.param.u64 %rd1, [h]; ld.param.u64 %rd2, [a0]; ld.param.u64 %rd3, [a1]; ld.param.u64 %rd4, [a2];
 ld.param.u64 %rd5, [o]; ld.param.u32 %r1, [n];
 mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;
 setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;
 mul.wide.s32 %rd6, %r5, 4;
 add.s64 %rd7, %rd2, %rd6; ld.global.b32 %c0, [%rd7];
 add.s64 %rd8, %rd3, %rd6; ld.global.b32 %c1, [%rd8];
 add.s64 %rd9, %rd4, %rd6; ld.global.b32 %c2, [%rd9];
 mov.b32 %o0, 0; mov.b32 %o1, 0; mov.b32 %o2, 0; mov.b32 %o3, 0;
"""
TAIL = """ mul.wide.s32 %rd10, %r5, 16; add.s64 %rd11, %rd5, %rd10;
 st.global.v4.b32 [%rd11], {%o0, %o1, %o2, %o3};
DONE:
 ret;
}
"""
V = "{%o0, %o1, %o2, %o3}"


def probe_ptx(instr):
    return HEAD + " " + instr + "\n" + TAIL


def tex_instr(dims, rtype="f32", ctype="f32"):
    c = {1: "{%c0}", 2: "{%c0, %c1}", 3: "{%c0, %c1, %c2, %c2}"}[dims]
    return f"tex.{dims}d.v4.{rtype}.{ctype} {V}, [%rd1, {c}];"


def probes():
    """(name, kind, data, desc, instr, c0, c1, c2); data laid out [depth][height][width][channel]."""
    rng = np.random.default_rng(1234)
    P = []
    # crafted: out = wx + 2*wy over a 0/1 checker per axis, at fractional positions k/1024
    h, w = 4, 4
    step = (np.arange(w)[None, :] % 2 + 2 * (np.arange(h)[:, None] % 2)).astype(np.float32)
    k = np.arange(2048)
    sweep_x = (0.5 + k / 1024.0).astype(np.float32)
    sweep_y = (1.5 + (k % 1024) / 1024.0).astype(np.float32)
    rx = rng.uniform(-0.5, 4.5, 4096).astype(np.float32)
    ry = rng.uniform(-0.5, 4.5, 4096).astype(np.float32)
    cx = np.concatenate([sweep_x, np.full(2048, 0.5, np.float32), rx])
    cy = np.concatenate([np.full(2048, 0.5, np.float32), sweep_y, ry])
    z = np.zeros_like(cx)
    P.append(("linear_weights_step", "texture", step, dict(dims=2, filter_mode="linear"), tex_instr(2), cx, cy, z))
    # random 4-channel data, linear, unnormalized: pins the blend arithmetic
    data = rng.standard_normal((5, 6, 4)).astype(np.float32)
    cx = rng.uniform(-1, 7, 4096).astype(np.float32)
    cy = rng.uniform(-1, 6, 4096).astype(np.float32)
    P.append(("linear_f32x4_random", "texture", data, dict(dims=2, filter_mode="linear"), tex_instr(2), cx, cy, z[:4096]))
    # every address mode x filter, normalized coordinates, non-power-of-two size
    data = rng.standard_normal((5, 7, 4)).astype(np.float32)
    cx = rng.uniform(-1.5, 2.5, 2048).astype(np.float32)
    cy = rng.uniform(-1.5, 2.5, 2048).astype(np.float32)
    for am in ("clamp", "wrap", "mirror", "border"):
        for fm in ("point", "linear"):
            P.append((f"mode_{am}_{fm}", "texture", data, dict(dims=2, address_mode=am, filter_mode=fm,
                      normalized_coords=True), tex_instr(2), cx, cy, z[:2048]))
    # unnormalized point/linear with clamp and border beyond the edges
    cx2 = rng.uniform(-3, 10, 2048).astype(np.float32)
    cy2 = rng.uniform(-3, 8, 2048).astype(np.float32)
    for am in ("clamp", "border"):
        for fm in ("point", "linear"):
            P.append((f"unnorm_{am}_{fm}", "texture", data, dict(dims=2, address_mode=am, filter_mode=fm),
                      tex_instr(2), cx2, cy2, z[:2048]))
    # per-dimension address modes
    P.append(("mode_wrap_mirror_linear", "texture", data, dict(dims=2, address_mode=["wrap", "mirror"],
              filter_mode="linear", normalized_coords=True), tex_instr(2), cx, cy, z[:2048]))
    # formats
    u8 = rng.integers(0, 256, (6, 5, 4)).astype(np.uint8)
    s8 = rng.integers(-128, 128, (6, 5)).astype(np.int8)
    u16 = rng.integers(0, 65536, (6, 5, 2)).astype(np.uint16)
    s16 = rng.integers(-32768, 32768, (6, 5, 2)).astype(np.int16)
    s32 = rng.integers(-2**31, 2**31, (6, 5)).astype(np.int32)
    f16 = rng.standard_normal((6, 5, 4)).astype(np.float16)
    fx = rng.uniform(-1, 6, 2048).astype(np.float32)
    fy = rng.uniform(-1, 7, 2048).astype(np.float32)
    zz = z[:2048]
    P.append(("u8x4_normfloat_point", "texture", u8, dict(dims=2, read_mode="normalized_float"), tex_instr(2), fx, fy, zz))
    P.append(("u8x4_normfloat_linear", "texture", u8, dict(dims=2, read_mode="normalized_float", filter_mode="linear"),
              tex_instr(2), fx, fy, zz))
    P.append(("s8_normfloat_linear", "texture", s8, dict(dims=2, read_mode="normalized_float", filter_mode="linear"),
              tex_instr(2), fx, fy, zz))
    P.append(("s16x2_normfloat_point", "texture", s16, dict(dims=2, read_mode="normalized_float"), tex_instr(2), fx, fy, zz))
    P.append(("u8x4_element_u32", "texture", u8, dict(dims=2), tex_instr(2, "u32"), fx, fy, zz))
    P.append(("u16x2_element_u32", "texture", u16, dict(dims=2), tex_instr(2, "u32"), fx, fy, zz))
    P.append(("s16x2_element_s32", "texture", s16, dict(dims=2), tex_instr(2, "s32"), fx, fy, zz))
    P.append(("s32_element_s32", "texture", s32, dict(dims=2), tex_instr(2, "s32"), fx, fy, zz))
    P.append(("f16x4_linear", "texture", f16, dict(dims=2, filter_mode="linear"), tex_instr(2), fx, fy, zz))
    # integer coordinates
    ix = rng.integers(-3, 9, 2048).astype(np.int32)
    iy = rng.integers(-3, 9, 2048).astype(np.int32)
    P.append(("intcoord_clamp", "texture", data, dict(dims=2), tex_instr(2, "f32", "s32"), ix, iy, zz.view(np.int32)))
    P.append(("intcoord_border", "texture", data, dict(dims=2, address_mode="border"), tex_instr(2, "f32", "s32"),
              ix, iy, zz.view(np.int32)))
    # 1D and 3D arrays
    d1 = rng.standard_normal((9, 2)).astype(np.float32)
    P.append(("tex1d_linear", "texture", d1, dict(dims=1, filter_mode="linear"), tex_instr(1),
              rng.uniform(-2, 11, 2048).astype(np.float32), zz, zz))
    d3 = rng.standard_normal((3, 4, 5)).astype(np.float32)
    P.append(("tex3d_linear", "texture", d3, dict(dims=3, filter_mode="linear"), tex_instr(3),
              rng.uniform(-1, 6, 2048).astype(np.float32), rng.uniform(-1, 5, 2048).astype(np.float32),
              rng.uniform(-1, 4, 2048).astype(np.float32)))
    P.append(("tex3d_point_wrap", "texture", d3, dict(dims=3, address_mode="wrap", normalized_coords=True), tex_instr(3),
              rng.uniform(-1, 2, 2048).astype(np.float32), rng.uniform(-1, 2, 2048).astype(np.float32),
              rng.uniform(-1, 2, 2048).astype(np.float32)))
    # tld4
    for comp in "rgba":
        P.append((f"tld4_{comp}", "texture", data, dict(dims=2), f"tld4.{comp}.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
                  cx2, cy2, zz))
    P.append(("tld4_r_u8", "texture", u8, dict(dims=2), f"tld4.r.2d.v4.u32.f32 {V}, [%rd1, {{%c0, %c1}}];", fx, fy, zz))
    # txq / suq / istypep: one value per query
    one = np.zeros(1, np.float32)
    for q in ("width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
              "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2", "num_mipmap_levels", "array_size"):
        for nm, dat, desc in (("f32x4", data, dict(dims=2, filter_mode="linear", address_mode="wrap",
                                                   normalized_coords=True)),
                              ("u8x4", u8, dict(dims=2, read_mode="normalized_float", address_mode=["mirror", "border"])),
                              ("s16x2", s16, dict(dims=2)), ("f32_3d", d3, dict(dims=3))):
            P.append((f"txq_{q}_{nm}", "texture", dat, desc, f"txq.{q}.b32 %o0, [%rd1];", one, one, one))
    for q in ("width", "height", "depth", "channel_data_type", "channel_order"):
        P.append((f"suq_{q}", "surface", data, dict(dims=2), f"suq.{q}.b32 %o0, [%rd1];", one, one, one))
    P.append(("istypep_texref", "texture", data, dict(dims=2),
              "istypep.texref %p2, %rd1; selp.u32 %o0, 1, 0, %p2;", one, one, one))
    P.append(("istypep_surfref", "surface", data, dict(dims=2),
              "istypep.surfref %p2, %rd1; selp.u32 %o0, 1, 0, %p2;", one, one, one))
    # suld: byte x coordinates, clamp and zero beyond the edges
    sx = (rng.integers(-4, 11, 2048) * 16).astype(np.int32)
    sy = rng.integers(-3, 8, 2048).astype(np.int32)
    for mode in ("clamp", "zero"):
        P.append((f"suld_v4_{mode}", "surface", data, dict(dims=2), f"suld.b.2d.v4.b32.{mode} {V}, [%rd1, {{%c0, %c1}}];",
                  sx, sy, zz.view(np.int32)))
    s1 = rng.standard_normal((5, 7)).astype(np.float32)
    sx1 = (rng.integers(-4, 11, 2048) * 4).astype(np.int32)
    for mode in ("clamp", "zero"):
        P.append((f"suld_b32_{mode}", "surface", s1, dict(dims=2), f"suld.b.2d.b32.{mode} {{%o0}}, [%rd1, {{%c0, %c1}}];",
                  sx1, sy, zz.view(np.int32)))
    P.append(("suld_1d_b32_zero", "surface", rng.standard_normal(9).astype(np.float32), dict(dims=1),
              f"suld.b.1d.b32.zero {{%o0}}, [%rd1, {{%c0}}];", (rng.integers(-4, 14, 512) * 4).astype(np.int32),
              zz[:512].view(np.int32), zz[:512].view(np.int32)))
    return P


def record_probes(out, info):
    arrays, meta = {}, {"device": info, "recorder": "tools/device/record_textures.py",
                        "date": datetime.datetime.utcnow().isoformat() + "Z", "probes": {}}
    for name, kind, data, desc, instr, c0, c1, c2 in probes():
        try:
            ptx = probe_ptx(instr)
            fn = load_ptx(ptx, "probe")
            keep = []
            dims = desc["dims"]
            if kind == "texture":
                handle = texture(data, dims, desc, keep)
            else:
                arr = make_cuarray(data, dims); keep.append(arr)
                so = T.SurfaceObject(T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)); keep.append(so)
                handle = int(so.ptr)
            n = len(c0)
            d0, d1, d2 = cp.asarray(c0), cp.asarray(c1), cp.asarray(c2)
            o = cp.zeros(4 * n, np.uint32)
            fn(((n + 127) // 128,), (128,), (np.uint64(handle), d0, d1, d2, o, np.int32(n)))
            rt.deviceSynchronize()
            arrays.update({f"{name}.data": data, f"{name}.c0": c0, f"{name}.c1": c1, f"{name}.c2": c2,
                           f"{name}.out": cp.asnumpy(o).reshape(n, 4),
                           f"{name}.ptx": np.frombuffer(ptx.encode(), np.uint8)})
            meta["probes"][name] = dict(desc, kind=kind, instr=instr, status="ok")
            print("probe", name, "ok", flush=True)
        except Exception as e:
            meta["probes"][name] = dict(desc, kind=kind, instr=instr, status=f"failed: {e}"[:300])
            print("probe", name, "FAILED", str(e)[:200].replace("\n", " "), flush=True)
            try:
                rt.deviceSynchronize()
            except Exception:
                pass
    np.savez_compressed(os.path.join(out, "texture_probes.npz"), **arrays)
    with open(os.path.join(out, "texture_probes.meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    info = device_info()
    if "--probes-only" not in sys.argv:  # the device returns at most 8 files: run the parts separately
        record_cases(out, info)
    if "--cases-only" not in sys.argv:
        record_probes(out, info)
