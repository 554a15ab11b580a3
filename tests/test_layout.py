"""The layout docs/layout.md draws ("How the code is laid out"): imports point down, no circles,
every module readable in one sitting, every package installed."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("pipeline", "judges", "curriculum", "data")
MAX_LINES = 400
# pipeline/'s layers, top to bottom: a module imports from its own layer and those below it, never
# from one above (docs/layout.md draws this)
LAYERS = ["cli", "report", "run", "stages", "engines", "train", "metrics", "config", "store"]


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


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "pipeline" and len(parts) > 1 else None


def test_every_pipeline_module_sits_in_a_layer():
    loose = [m for m in _modules() if m.startswith("pipeline") and m != "pipeline" and _layer(m) not in LAYERS]
    assert not loose, f"modules outside the layers {LAYERS}: {loose}"
    assert sorted(p.name for p in (ROOT / "pipeline").iterdir() if p.is_dir() and p.name != "__pycache__") \
        == sorted(LAYERS)


def test_pipeline_layers_import_only_downward():
    mods = _modules()
    rank = {name: i for i, name in enumerate(LAYERS)}
    up = [f"{m} ({_layer(m)}) -> {d} ({_layer(d)})" for m, f in mods.items() if _layer(m) in rank
          for d in _imports(f, mods) if _layer(d) in rank and rank[_layer(d)] < rank[_layer(m)]]
    assert not up, up
    # nor does pipeline/ import anything but its layers and the packages below it
    assert all(d.split(".")[0] in PACKAGES and (d.split(".")[0] != "pipeline" or _layer(d) in rank or d == "pipeline")
               for f in mods.values() for d in _imports(f, mods))


def test_no_two_layers_import_each_other():
    mods = _modules()
    edges = {(_layer(m), _layer(d)) for m, f in mods.items() for d in _imports(f, mods)
             if _layer(m) and _layer(d) and _layer(m) != _layer(d)}
    both = sorted({tuple(sorted(e)) for e in edges if e[::-1] in edges})
    assert not both, both


def test_every_layer_says_what_it_may_import():
    for name in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / "pipeline" / name / "__init__.py").read_text()))
        below = LAYERS[LAYERS.index(name) + 1:]
        assert doc and (all(b in doc for b in below) if below else "no other layer" in doc), (name, doc)


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
    """The modules of the stage table's stages (not judging.py and problems.py, which they share)."""
    from pipeline.stages import STAGES, WARM_START
    mods = _modules()
    stages = {s.fn.split(":")[0] for s in (*STAGES, *WARM_START) if isinstance(s.fn, str)}
    assert stages and stages <= set(mods), stages
    crossing = [f"{m} -> {d}" for m in stages for d in _imports(mods[m], mods) if d in stages]
    assert not crossing, crossing


def test_every_module_reads_in_one_sitting():
    """400 lines at most, and no module of the packages within 10 of that (the next change would force
    a split in the middle of other work)."""
    files = [f for pkg in (*PACKAGES, "bench", "tests") for f in (ROOT / pkg).rglob("*.py")
             if f.relative_to(ROOT).parts[:2] != ("data", "problems")]
    long = {str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, long
    near = {str(f.relative_to(ROOT)): n for f in files if f.relative_to(ROOT).parts[0] in PACKAGES
            and (n := len(f.read_text().splitlines())) > MAX_LINES - 10}
    assert not near, near


def test_every_package_is_installed():
    """pyproject's explicit package list must name every folder of code (a missing one works in the
    editable install `make setup` makes and breaks a plain `pip install .`)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_make_test_kernels_names_test_files_that_exist():
    """`make test-kernels` (README) reruns the numeric tests under an AVX2 and an AVX-512 CPU's kernels: every
    file it names exists (a renamed one would stop it, pytest finding no such file), and both runs take them all."""
    import shutil
    import subprocess

    import pytest
    if not shutil.which("make"):
        pytest.skip("no make")
    out = subprocess.run(["make", "-s", "-n", "-o", ".venv/.installed", "test-kernels"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60).stdout.strip().splitlines()
    assert len(out) == 2 and "ATEN_CPU_CAPABILITY=avx2" in out[0] and "AVX512_CORE_BF16" in out[1], out
    files = [w for w in out[0].split() if w.startswith("tests/")]
    assert files and [w for w in out[1].split() if w.startswith("tests/")] == files
    assert [f for f in files if not (ROOT / f).is_file()] == []
