"""A loaded PTX module: its AST, its lowered program, its variables on the virtual device."""
from __future__ import annotations

import weakref
from typing import Optional

import numpy as np

from .engine.core.device import Device, default_device
from .engine.launch import Launch, LaunchStats
from .engine.core.layout import var_align, var_size
from .engine.lower import Lowerer, Program, storage_variables
from .engine.core.memory import GLOBAL_BASE
from .errors import Diagnostic, LaunchError, OutOfDeviceMemory
from .syntax import ast


class Module:
    def __init__(self, tree: ast.Module, *, device: Optional[Device] = None, source: str = "",
                 parts: Optional[list] = None, link_warnings: Optional[list] = None,
                 contract: Optional[bool] = None, placed: Optional[list] = None):
        self.ast = tree
        # ptxas's floating-point contraction (engine/contraction.py): None = PTXVM_CONTRACT, on by default
        self.contract = contract
        self.source = source
        # A linked program (ptxvm.link): each module's (PTX text, file name), for the GPU's linker,
        # and the linker's warnings (unresolved .extern names).
        self.parts = parts
        self.link_warnings = list(link_warnings or ())
        # the verifier's warnings (Diagnostics: deprecated forms, 32-bit code...), as ptxas prints its own
        self.warnings: list = []
        self.file = tree.file
        self.device = device or default_device()
        self._globals: dict[str, object] = {}
        self._bound: dict[str, object] = {}  # texture/sampler/surface objects bound to references
        self._program: Optional[Program] = None
        self.const_image: Optional[np.ndarray] = None
        self._const_reserved = [0]  # bytes of .const data reserved on the budget (a box the finalizer shares)
        memory = self.device.memory
        # .global variables declared in a function body: one per module, like module-scope ones, but
        # visible only in their block (two blocks may each declare their own `g`); keyed by the decl
        self._scoped: dict[int, tuple[str, ast.VarDecl, object]] = {}
        v = None
        # `placed`: the variables' addresses, in the order of `variable_bases`, already allocated in
        # `device` (a copy of another process's device: ptxvm/parallel's spawned and Ray workers)
        place = iter(placed) if placed is not None else None

        def allocate(size, label, what):
            return memory.allocate(size, label, what=what) if place is None else memory.find(next(place))

        try:
            for v in storage_variables(tree):
                if v.space.split("::")[0] == "global":
                    self._globals[v.name] = allocate(max(var_size(v), 1), v.name, f".global variable '{v.name}'")
            for f in tree.functions():
                for v in _body_globals(f.body):
                    self._scoped[id(v)] = (f.name, v, allocate(max(var_size(v), 1), f"{f.name}::{v.name}",
                                                               f".global variable '{v.name}' of {f.name}"))
        except OutOfDeviceMemory as e:
            for a in [*self._globals.values(), *(a for _, _, a in self._scoped.values())]:
                memory.free(a.base)
            raise OutOfDeviceMemory(_located(e, v, self), e.needed, e.free) from None
        # a module's variables live as long as the module (cuModuleUnload frees them)
        bases = [a.base for a in self._globals.values()] + [a.base for _, _, a in self._scoped.values()]
        weakref.finalize(self, _unload, memory, bases, self._const_reserved)

    def variable_bases(self) -> list[int]:
        """The addresses of the module's .global variables, in the order `placed` takes them."""
        return [a.base for a in self._globals.values()] + [a.base for _, _, a in self._scoped.values()]

    @property
    def program(self) -> Program:
        """The whole program lowered (every function); launches lower only what they reach
        (`lazy_program`)."""
        return self.lazy_program.ensure(None)

    @property
    def lazy_program(self) -> Program:
        """The program, built on first use (a module that only gets printed never pays), with the
        functions lowered that launches have needed so far: `.ensure(kernel)` lowers a kernel and
        what it can call."""
        if self._program is None:
            from .engine.control import syscalls  # noqa: F401  (registers vprintf & co)
            from .engine.core.initializers import write_initializer

            addrs = {name: a.base for name, a in self._globals.items()}
            scoped = {key: a.base for key, (_, _, a) in self._scoped.items()}
            program = Lowerer(self.ast, addrs, self.file, scoped, self.contract).lower()
            self.device.budget.reserve(program.const_image.nbytes, f"the .const data of {self.file}")
            self._const_reserved[0] = program.const_image.nbytes
            self._program = program
            self.const_image = self._program.const_image
            lookup = self._program.globals
            for v in storage_variables(self.ast):
                if v.name in self._globals and v.type in _OPAQUE:
                    self._init_reference(v)
                elif v.name in self._globals and v.init is not None:
                    a = self._globals[v.name]
                    write_initializer(self.device.memory.view(a), 0, v, lambda n, generic=False: lookup[n].offset)
            for fname, v, a in self._scoped.values():
                if v.init is not None:
                    local = {w.name: b.base for f2, w, b in self._scoped.values() if f2 == fname}
                    write_initializer(self.device.memory.view(a), 0, v,
                                      lambda n, generic=False: local[n] if n in local else lookup[n].offset)
        return self._program

    # ------------------------------------------------------------------ kernels
    def kernel(self, name: str) -> "Kernel":
        f = self.ast.function(name)
        if f is None or f.kind != "entry":
            kernels = ", ".join(k.name for k in self.ast.functions() if k.kind == "entry") or "none"
            raise KeyError(f"no kernel named {name!r} in {self.file} (kernels: {kernels})")
        return Kernel(self, name)

    def __getitem__(self, name: str) -> "Kernel":
        return self.kernel(name)

    @property
    def kernels(self) -> list[str]:
        return [f.name for f in self.ast.functions() if f.kind == "entry" and f.body is not None]

    def on(self, device: str):
        """This module on `device`: "cpu" (itself) or "cuda" / "cuda:N" (a GpuModule of the same
        PTX, loaded once). Module variables are not shared between the two."""
        from .backends import check_device

        device = check_device(device)
        if device == "cpu":
            return self
        twins = self.__dict__.setdefault("_twins", {})
        if device not in twins:
            from .backends.cuda import GpuModule

            twins[device] = GpuModule(self, ordinal=int(device.partition(":")[2] or 0))
        return twins[device]

    def to_ptx(self) -> str:
        from .syntax.printer import print_module

        return print_module(self.ast)

    # ------------------------------------------------------------------ symbols
    def _symbol(self, name: str):
        prog = self.lazy_program
        sym = prog.globals.get(name)
        if sym is None or sym.space not in ("global", "const"):
            raise KeyError(f"no .global or .const variable named {name!r}")
        return sym

    def write_symbol(self, name: str, array) -> None:
        """Copy host data into a module variable (what cudaMemcpyToSymbol does)."""
        sym = self._symbol(name)
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        if raw.size > sym.size:
            raise LaunchError(f"{raw.size} bytes do not fit {name} ({sym.size} bytes)")
        if sym.space == "global":
            self.device.memory.view(self._globals[name])[: raw.size] = raw
        else:
            self.const_image[sym.offset : sym.offset + raw.size] = raw

    def read_symbol(self, name: str, dtype, count: Optional[int] = None) -> np.ndarray:
        sym = self._symbol(name)
        dt = np.dtype(dtype)
        count = sym.size // dt.itemsize if count is None else count
        if count * dt.itemsize > sym.size:
            raise LaunchError(f"{name} holds {sym.size} bytes, {count} x {dt} asked for")
        if sym.space == "global":
            raw = self.device.memory.view(self._globals[name])
        else:
            raw = self.const_image[sym.offset : sym.offset + sym.size]
        return raw[: count * dt.itemsize].view(dt).copy()


    # ------------------------------------------------------------------ texture references
    @property
    def texmode_independent(self) -> bool:
        return "texmode_independent" in (self.ast.target or ())

    def _reference(self, name: str, kind: str):
        decl = next((v for v in storage_variables(self.ast) if v.name == name and v.name in self._globals), None)
        if decl is None or decl.type != kind:
            names = ", ".join(v.name for v in self.ast.variables() if v.type == kind) or "none"
            raise KeyError(f"no .global .{kind} named {name!r} in {self.file} (.{kind} variables: {names})")
        return decl

    def _write_handle(self, name: str, obj) -> None:
        self.lazy_program  # noqa: B018  (initializers first, so a binding is not overwritten)
        self._bound[name] = obj
        raw = self.device.memory.view(self._globals[name])
        raw[:8] = np.frombuffer(np.uint64(int(obj)).tobytes(), np.uint8)

    def bind_texture(self, name: str, texture, **settings):
        """Bind a .texref to a texture: a TextureObject, or an array (or list of mip levels) made into
        one with `settings` (ptxvm.texture_object's keywords; in unified mode the .texref's own
        initializer fields are the defaults). In independent mode the sampler state comes from the
        .samplerref the instruction names. Returns the texture object (what cudaBindTexture did)."""
        decl = self._reference(name, "texref")
        from .engine.texture.objects import TextureObject

        if not isinstance(texture, TextureObject):
            kw = dict(self._texref_defaults(decl))
            kw.update(settings)
            texture = TextureObject(self.device, texture, **kw)
        elif settings:
            raise TypeError("settings apply when binding an array, not a texture object")
        self._write_handle(name, texture)
        return texture

    def bind_sampler(self, name: str, *, address_mode="clamp", filter_mode="point",
                     force_unnormalized_coords=False):
        """Set a .samplerref's state (independent texture mode): address_mode (wrap, clamp, mirror,
        border, or one per dimension), filter_mode (point or linear), force_unnormalized_coords."""
        self._reference(name, "samplerref")
        from .engine.texture.objects import SamplerObject

        smp = SamplerObject(self.device, address_mode=address_mode, filter_mode=filter_mode,
                            force_unnormalized_coords=force_unnormalized_coords)
        self._write_handle(name, smp)
        return smp

    def bind_surface(self, name: str, surface, **settings):
        """Bind a .surfref to a SurfaceObject or an array (ptxvm.surface_object's keywords)."""
        self._reference(name, "surfref")
        from .engine.texture.objects import SurfaceObject

        if not isinstance(surface, SurfaceObject):
            surface = SurfaceObject(self.device, surface, **settings)
        self._write_handle(name, surface)
        return surface

    def _texref_defaults(self, decl) -> dict:
        f = _fields(decl)
        kw = {}
        if "filter_mode" in f:
            kw["filter_mode"] = {"nearest": "point", "linear": "linear"}.get(f["filter_mode"], f["filter_mode"])
        modes = [f.get(f"addr_mode_{i}") for i in range(3)]
        if any(modes):
            from .engine.texture.objects import _SAMPLER_ADDR

            kw["address_mode"] = tuple(_SAMPLER_ADDR.get(m or "clamp_to_edge", m) for m in modes)
        if "normalized_coords" in f:
            kw["normalized_coords"] = bool(int(f["normalized_coords"]))
        return kw

    def _init_reference(self, decl) -> None:
        """A .samplerref initializer makes the sampler it describes; other references start unbound."""
        if decl.type == "samplerref" and decl.init is not None:
            from .engine.texture.objects import SamplerObject

            self._bound[decl.name] = smp = SamplerObject.from_fields(self.device, _fields(decl))
            raw = self.device.memory.view(self._globals[decl.name])
            raw[:8] = np.frombuffer(np.uint64(smp.handle).tobytes(), np.uint8)


_OPAQUE = ("texref", "samplerref", "surfref")


def _unload(memory, bases, const_reserved) -> None:
    """A module was collected: its variables and .const bytes go back (cuModuleUnload), at the
    memory's next safe point (a finalizer may run in the middle of an allocation)."""
    memory.free_later(bases, const_reserved[0])
    const_reserved[0] = 0


def _located(e: OutOfDeviceMemory, decl, module: "Module") -> str:
    """The error at the declaration that asked for the memory: file:line:col, the line, a caret."""
    lines = module.source.splitlines()
    span = decl.span
    line = lines[span.line - 1] if 0 < span.line <= len(lines) else None
    return Diagnostic(span, str(e), source_line=line).format()


def _body_globals(block):
    """The non-extern .global variables declared anywhere in a function body."""
    if block is None:
        return
    for s in block.statements:
        if isinstance(s, ast.Block):
            yield from _body_globals(s)
        elif isinstance(s, ast.VarDecl) and s.space.split("::")[0] == "global" and s.linkage != "extern":
            yield s


def _fields(decl) -> dict:
    """`{ field = value, ... }` of an opaque variable's initializer, values as text."""
    from .syntax.constexpr import evaluate

    out = {}
    items = decl.init.items if isinstance(decl.init, ast.Initializer) else (decl.init or ())
    for item in items:
        if isinstance(item, ast.FieldInit):
            v = item.value
            out[item.field] = v.name if isinstance(v, ast.SymbolRef) else str(evaluate(v))
    return out


class Kernel:
    def __init__(self, module: Module, name: str):
        self.module = module
        self.name = name

    @property
    def info(self):
        return self.module.lazy_program.ensure(self.name).functions[self.name]

    def on(self, device: str):
        """This kernel on `device` ("cpu", "cuda", "cuda:N"): `k.on("cuda").launch(...)`."""
        return self.module.on(device).kernel(self.name)

    def launch(self, grid, block, args=(), shared_mem: int = 0, cluster=None, max_instructions=None,
               progress=None, tracer=None, only_ctas=None, jit: bool | None = None, workers: int | None = None,
               executor: str | None = None, on_race: str | None = None, cooperative: bool = False) -> LaunchStats:
        """Run the kernel; `progress(ctas_done)` is called after each wave of resident CTAs;
        `tracer` (engine.trace.Tracer) records the event trace the timing model reads;
        `only_ctas` (CTA linear ids) runs just those CTAs, each with its whole cluster (profiling samples; results partial);
        `jit` False runs the NumPy reference paths instead of the compiled ones, True the compiled
        ones, None (default) as PTXVM_JIT says (ptxvm.jit). The results are the same bits.
        `workers` (default PTXVM_WORKERS, else every core) splits the CTAs over processes of
        `executor` ("local": forked processes, the default; "ray": tasks of a Ray cluster,
        ptxvm.ray); the results are the single process's bit for bit (docs/parallel.md says
        which kernels run in one process and why). A data race between CTAs is a
        DataRaceWarning, or with `on_race="error"` (or PTXVM_ON_RACE=error) a DataRaceError.
        `cooperative=True` is cudaLaunchCooperativeKernel: every CTA resident at once (else a
        LaunchError, as the driver's cudaErrorCooperativeLaunchTooLarge) and the grid workspace that
        cooperative groups' `this_grid().sync()` needs (without it that traps, as on the GPU); such a
        launch runs in one process."""
        from . import jit as jit_switch
        from .parallel.analysis import may_regroup

        with jit_switch.override(jit):
            launch = Launch(self, grid, block, list(args), shared_mem, cluster, max_instructions, progress, tracer,
                            only_ctas, cooperative=cooperative)
            launch.regroup = may_regroup(launch) and not cooperative
            if (workers == 1 and executor is None) or cooperative:
                return launch.run()
            from .parallel.launcher import run as run_parallel

            return run_parallel(launch, workers, executor, on_race)

    def sanitize(self, grid, block, args=(), tool: str = "memcheck", leak_check: bool = False, shared_mem: int = 0,
                 cluster=None, max_instructions=None, cooperative: bool = False):
        """Run the kernel under one of compute-sanitizer's checkers ("memcheck", "racecheck",
        "initcheck", "synccheck") and return a ptxvm.tools.sanitizer.SanitizerReport
        (`cooperative`: as for launch)."""
        from .tools.sanitizer import sanitize

        return sanitize(self, grid, block, list(args), tool=tool, leak_check=leak_check, shared_mem=shared_mem,
                        cluster=cluster, max_instructions=max_instructions, cooperative=cooperative)

    def trace(self, grid, block, args=(), shared_mem: int = 0, cluster=None, max_instructions=None, ctas=None,
              warps=None, pc_range=None, opcodes=None, cooperative: bool = False):
        """Run the kernel and return a ptxvm.tools.tracer.Trace: one record per executed instruction
        per warp (CTA, warp, active mask, PC, PTX text and line, source line, registers written,
        memory addresses), filtered by `ctas` ((x, y, z) or linear ids), `warps` (within the CTA),
        `pc_range` ([a, b)) and `opcodes` ("ld", "st", ...). `trace.to_jsonl(path)` writes it."""
        from .tools.tracer import trace

        return trace(self, grid, block, list(args), shared_mem=shared_mem, cluster=cluster,
                     max_instructions=max_instructions, ctas=ctas, warps=warps, pc_range=pc_range, opcodes=opcodes,
                     cooperative=cooperative)

    def profile(self, grid, block, args=(), shared_mem: int = 0, gpu="h200", policy: str = "gto", **options):
        """Run the kernel and predict its time on `gpu` with the timing model (ptxvm.timing):
        returns a ptxvm.timing.Profile. See docs/timing-model.md for `options`."""
        from .timing import profile

        return profile(self, grid, block, list(args), shared_mem=shared_mem, gpu=gpu, policy=policy, **options)

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 3:
            raise LaunchError(f"kernel[grid, block] or kernel[grid, block, shared_mem], got kernel[{config!r}]")
        grid, block, *rest = config
        shared = rest[0] if rest else 0

        def call(*args):
            return self.launch(grid, block, args, shared_mem=shared)

        return call

    def __repr__(self) -> str:
        return f"<Kernel {self.name} of {self.module.file}>"
