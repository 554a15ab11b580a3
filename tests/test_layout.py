"""The layout docs/layout.md draws ("How the code is laid out"): imports point down, no circles,
every module readable in one sitting, every package installed."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pipeline", "judges", "curriculum", "data")
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            rel = f.relative_to(ROOT)
            if rel.parts[:2] == ("data", "problems"):  # the problem-set builders: data, not code
                continue
            out[".".join(rel.with_suffix("").parts).removesuffix(".__init__")] = f
    return out


def _imports(f: Path, mods: dict[str, Path]) -> set[str]:
    """Our modules `f` imports, at any depth (function-level imports count: they are arrows too)."""
    deps = set()
    for n in ast.walk(ast.parse(f.read_text())):
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0 and n.module.split(".")[0] in PACKAGES:
            for a in n.names:
                deps.add(f"{n.module}.{a.name}" if f"{n.module}.{a.name}" in mods else n.module)
        elif isinstance(n, ast.Import):
            deps |= {a.name for a in n.names if a.name.split(".")[0] in PACKAGES}
    return {d for d in deps if d in mods}


def test_lower_layers_import_nothing_from_above():
    mods = _modules()
    below = {"judges": {"judges", "data"}, "curriculum": {"curriculum", "data"}, "data": {"data"}}
    up = [f"{m} -> {d}" for m, f in mods.items() if m.split(".")[0] in below
          for d in _imports(f, mods) if d.split(".")[0] not in below[m.split(".")[0]]]
    assert not up, up


def test_no_import_circles():
    mods = _modules()
    graph = {m: _imports(f, mods) - {m} for m, f in mods.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state and (cycle := visit(d, path + [d])):
                return cycle
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            assert (cycle := visit(m, [m])) is None, " -> ".join(cycle)


def test_stages_never_import_each_other():
    mods = _modules()
    stages = {m for m in mods if m.startswith("pipeline.stages.")}
    crossing = [f"{m} -> {d}" for m in stages for d in _imports(mods[m], mods) if d in stages]
    assert not crossing, crossing


def test_every_module_reads_in_one_sitting():
    files = [f for pkg in (*PACKAGES, "bench", "tests") for f in (ROOT / pkg).rglob("*.py")
             if f.relative_to(ROOT).parts[:2] != ("data", "problems")]
    long = {str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_every_package_is_installed():
    """pyproject's explicit package list must name every folder of code (a missing one works in the
    editable install `make setup` makes and breaks a plain `pip install .`)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
