"""The architecture as a test: layers point one way and imports sit at the top of modules.

    allfours_env  <-  allfours.agents  <-  allfours.train  <-  allfours.cli, allfours.serve

(``allfours`` is the package root, which imports only ``allfours_env``; the command line and the
server are the product's two faces, beside each other.)
Every installed module is parsed with ``ast``; no module is imported, so this also covers
modules whose optional dependencies (ray, onnx) are not installed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# folder -> import name, as pyproject.toml's package-dir installs them
PACKAGES = {"allfours_env": "allfours_env", "allfours": "allfours", "agents": "allfours.agents",
            "train": "allfours.train"}
LAYER = {"allfours_env": 0, "allfours": 1, "allfours.agents": 2, "allfours.train": 3,
         "allfours.cli": 4, "allfours.serve": 4, "allfours.__main__": 4}
# Imports a function may make: optional or heavy dependencies that a module has a use without.
LAZY_OK = {"ray", "onnx", "onnxruntime", "onnxscript", "matplotlib", "tensorboard", "torch", "pettingzoo.classic",
           "sb3_contrib"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, name in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([name, *parts])] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int | None:
    best = None
    for prefix, layer in LAYER.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return None if best is None else best[1]


def _imports(module: str, path: Path):
    """(imported module, line, at module level?) for every import of ``module``."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top = set(id(n) for n in tree.body)
    for stmt in tree.body:  # imports under a module-level if/try count as top level
        if isinstance(stmt, (ast.If, ast.Try)):
            top.update(id(n) for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno, id(node) in top
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            names = [f"{target}.{a.name}" for a in node.names]
            # ``from pkg import module`` imports the module; ``from module import name`` the module
            yield (names[0] if names[0] in MODULES else target), node.lineno, id(node) in top


def _project(name: str) -> str | None:
    """The project module ``name`` refers to (or its closest enclosing one), else None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def test_no_old_top_level_names():
    bad = [f"{m}:{line} imports {name}" for m, p in MODULES.items() for name, line, _ in _imports(m, p)
           if name.split(".")[0] in ("agents", "train")]
    assert not bad, "import allfours.agents / allfours.train, never the folders' names:\n" + "\n".join(bad)


def test_layers_point_one_way():
    bad = []
    for module, path in MODULES.items():
        for name, line, _ in _imports(module, path):
            target = _project(name)
            if target is None:
                continue
            if _layer(target) > _layer(module):
                bad.append(f"{module}:{line} (layer {_layer(module)}) imports {target} (layer {_layer(target)})")
    assert not bad, "a lower layer imports a higher one:\n" + "\n".join(bad)


def test_no_import_cycles():
    graph = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for name, _, top in _imports(module, path):
            target = _project(name)
            if top and target and target != module:
                graph[module].add(target)
    # a package's __init__ re-exporting its modules is no cycle with them
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    for module in graph:
        graph[module] = {t for t in graph[module] if not (t in packages and module.startswith(t + "."))}
    seen, stack, cycles = set(), [], []

    def visit(m):
        if m in stack:
            cycles.append(" -> ".join(stack[stack.index(m):] + [m]))
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for t in sorted(graph[m]):
            visit(t)
        stack.pop()

    for m in sorted(graph):
        visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


# The rooms inside allfours.agents, bottom up: a package may import its own level and those below it.
# (Search's internals and the mini presets' trees sit below the players that use them; the registry above every
# player it builds; the rest (evaluation, exploitability, adapters, the lab, the package's own __init__) above it.)
AGENT_ROOMS = {"allfours.agents.base": 0, "allfours.agents.spec": 1, "allfours.agents.network": 2,
               "allfours.agents.search": 3, "allfours.agents.mini": 3, "allfours.agents.players": 4,
               "allfours.agents.registry": 5}
REST = 6


def _room(module: str) -> str | None:
    """The package (or top module) of ``allfours.agents`` that ``module`` belongs to; None outside it."""
    parts = module.split(".")
    if parts[:2] != ["allfours", "agents"]:
        return None
    return ".".join(parts[:3])


def _agent_imports():
    """(room, line, imported room, its module) for every module-level import between rooms of allfours.agents."""
    for module, path in MODULES.items():
        room = _room(module)
        if room is None:
            continue
        for name, line, top in _imports(module, path):
            target = _project(name)
            other = _room(target) if target else None
            if top and other is not None and other != room:
                yield module, line, room, other, target


def test_the_agents_rooms_point_one_way():
    bad = [f"{m}:{line} ({AGENT_ROOMS.get(room, REST)}) imports {target} ({AGENT_ROOMS.get(other, REST)})"
           for m, line, room, other, target in _agent_imports()
           if AGENT_ROOMS.get(other, REST) > AGENT_ROOMS.get(room, REST)]
    order = "base < spec < network < search, mini < players < registry < the rest"
    assert not bad, f"inside allfours.agents, {order}:\n" + "\n".join(bad)


def test_no_package_cycles_inside_the_agents():
    # the module-level test above cannot see a cycle between packages whose modules do not form one
    graph = {}
    for _, _, room, other, _ in _agent_imports():
        if room != "allfours.agents":  # the package's __init__ re-exports; nothing inside imports it
            graph.setdefault(room, set()).add(other)
    cycles, done = [], set()

    def visit(room, stack):
        if room in stack:
            cycles.append(" -> ".join(stack[stack.index(room):] + [room]))
            return
        if room in done:
            return
        for other in sorted(graph.get(room, ())):
            visit(other, stack + [room])
        done.add(room)

    for room in sorted(graph):
        visit(room, [])
    assert not cycles, "package cycles inside allfours.agents:\n" + "\n".join(cycles)


def test_the_rooms_are_there():
    # guards the two tests above: they reason about packages that exist
    rooms = {_room(m) for m in MODULES} - {None}
    assert set(AGENT_ROOMS) <= rooms and "allfours.agents.players.search" in MODULES


def test_imports_at_the_top():
    bad = [f"{m}:{line} imports {name} inside a function" for m, p in MODULES.items()
           for name, line, top in _imports(m, p)
           if not top and name.split(".")[0] not in LAZY_OK and name not in LAZY_OK]
    assert not bad, "imports belong at the top of the module (only optional heavy ones may wait):\n" + "\n".join(bad)


LABS = ("allfours.agents.lab", "allfours.train.lab")


def _in_lab(module: str | None) -> bool:
    return module is not None and any(module == lab or module.startswith(lab + ".") for lab in LABS)


def test_no_stable_module_imports_the_lab():
    """Research code may import the stable modules, never the reverse: the spec parser and the registry load
    the lab by name when an ``experimental:<name>`` spec is parsed or built (as the registry loads ismcts)."""
    bad = [f"{m}:{line} imports {name}" for m, p in MODULES.items() if not _in_lab(m)
           for name, line, _ in _imports(m, p) if _in_lab(_project(name))]
    assert not bad, f"only {', '.join(LABS)} may hold research code; move what a stable module needs out:\n" + (
        "\n".join(bad))


def test_the_labs_are_there():
    # guards the test above: it reasons about modules that exist
    assert "allfours.agents.lab.experimental" in MODULES and "allfours.train.lab.distill" in MODULES


@pytest.mark.parametrize("module", ["allfours_env.engine", "allfours.agents.players.search", "allfours.cli"])
def test_the_parser_sees_the_layout(module):
    # guards the test itself: the modules it reasons about are the installed ones
    assert module in MODULES and _layer(module) is not None


def test_scripts_use_the_library_not_the_command_lines_insides():
    # benchmarks/ and examples/ are users of the package: they import its library modules (and
    # allfours.arguments for their options), never a command's module
    bad = []
    for folder in ("benchmarks", "examples"):
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                bad += [f"{folder}/{path.name}:{node.lineno} imports {n}" for n in names
                        if n == "allfours.cli" or n.startswith("allfours.cli.")]
    assert not bad, "\n".join(bad)
