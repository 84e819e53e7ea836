"""kg-qgen's import layers (issue 12): ``generate`` never imports ``llm`` (the ``llm`` generator is a
lazy ``"module:attr"`` built-in), ``llm`` never imports the generator registry, and no two modules
import each other at module level."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import kg_qgen

ROOT = Path(kg_qgen.__file__).resolve().parent


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def imports(path: Path, *, module_level_only: bool) -> set[str]:
    """Absolute names of the kg_qgen modules (and names) ``path`` imports."""
    name, tree = module_name(path), ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return {n for n in out if n == "kg_qgen" or n.startswith("kg_qgen.")}


def test_generate_never_imports_llm_and_llm_never_imports_the_registry() -> None:
    for path in (ROOT / "generate").rglob("*.py"):
        found = {n for n in imports(path, module_level_only=False) if n.startswith("kg_qgen.llm")}
        assert not found, f"{path.name} imports {found}"
    for path in (ROOT / "llm").rglob("*.py"):
        found = imports(path, module_level_only=False)
        assert "kg_qgen.generate.registry" not in found, path.name


def test_no_module_level_import_cycle() -> None:
    modules = {module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {
        m: {t for t in imports(p, module_level_only=True) if t in modules and t != m}
        for m, p in modules.items()
    }
    # depth-first search for a back edge
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                return [*path[path.index(t) :], t]
            if t not in state and (cycle := visit(t)):
                return cycle
        state[m] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state:
            assert (cycle := visit(m)) is None, " -> ".join(cycle or [])


def test_llm_generator_is_listed_without_importing_llm() -> None:
    code = (
        "import sys\n"
        "from kg_qgen.generate.registry import available_generators, get_generator\n"
        "assert 'llm' in available_generators(), available_generators()\n"
        "assert 'kg_qgen.llm' not in sys.modules\n"
        "try:\n"
        "    get_generator('LLM')\n"
        "except ValueError as err:\n"
        "    assert 'needs backend=' in str(err)\n"
        "assert 'kg_qgen.llm.generator' in sys.modules\n"
    )
    llm_first = (
        "import kg_qgen.llm\n"
        "from kg_qgen.generate.registry import get_generator\n"
        "assert get_generator('llm', seed=3, backend=object()).seed == 3\n"
    )
    for snippet in (code, llm_first):  # each in a fresh interpreter: import order matters here
        run = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
