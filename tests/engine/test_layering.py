"""ptxvm/engine is grouped by kind, and its imports point one way: core <- instruction families
<- dispatch <- lower <- launch. A family may use a lower family (texture uses memory's address
readers), never a higher one and never the lowerer, so a newcomer can read one folder bottom-up."""
import ast
import os

import ptxvm

ENGINE = os.path.join(os.path.dirname(ptxvm.__file__), "engine")

# layer of each part of the engine: an import may only reach the same or a lower layer
LAYERS = {
    "core": 0, "trace": 1, "memory": 1, "control": 2, "async_copy": 3, "matrix": 4, "texture": 4,
    "misc": 5, "compiled": 6, "dispatch": 6, "lower": 7, "shared_layout": 7, "contraction": 7, "launch": 8, "launch_limits": 8,
}


def _part(module: str) -> str:
    """'ptxvm.engine.memory.access' -> 'memory'; 'ptxvm.engine.lower' -> 'lower'."""
    return module.split(".")[2]


def _engine_imports(path: str, module: str):
    tree = ast.parse(open(path).read())
    package = module.split(".")[:-1] if not path.endswith("__init__.py") else module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = base + (node.module.split(".") if node.module else [])
            names = [target + [a.name] for a in node.names] if not node.module else [target]
            for t in names:
                if t[:2] == ["ptxvm", "engine"] and len(t) > 2:
                    yield node.lineno, ".".join(t)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ptxvm.engine."):
            yield node.lineno, node.module


def _modules():
    for d, _, files in os.walk(ENGINE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                rel = os.path.relpath(path, os.path.dirname(os.path.dirname(ENGINE)))
                yield path, rel[:-3].replace(os.sep, ".").removesuffix(".__init__")


def test_every_engine_module_belongs_to_a_known_part():
    parts = {_part(m) for _, m in _modules() if m.count(".") >= 2}
    assert parts <= set(LAYERS), f"parts without a layer: {sorted(parts - set(LAYERS))}"


def test_engine_imports_point_one_way():
    upward = []
    for path, module in _modules():
        if module.count(".") < 2:
            continue
        mine = LAYERS[_part(module)]
        for line, target in _engine_imports(path, module):
            theirs = LAYERS.get(_part(target))
            if theirs is not None and theirs > mine:
                upward.append(f"{os.path.relpath(path, ENGINE)}:{line} imports {target}")
    assert not upward, "imports that point up the engine's layers:\n" + "\n".join(upward)
