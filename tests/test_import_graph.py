"""No import circle anywhere in the source (issue 23).

The graph is built from the AST of every module under ``packages/*/src``, nothing is imported:
every ``import``/``from ... import`` statement counts wherever it stands (module level, inside a
function, under ``if TYPE_CHECKING:``), relative imports are resolved against the module's
package, and ``from pkg import name`` points at the submodule ``pkg.name`` when one exists (else
at ``pkg``). An edge goes to the module named, not to its parent packages: importing
``a.b.c`` runs ``a/__init__`` too, but a package's ``__init__`` re-exporting its submodules is not a
circle of the code's design. Only modules of the five packages are nodes; third-party imports are
ignored. The cross-package rule (the four libraries never import each other nor the CLI) is checked
here as well, on the same graph.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LIBRARIES = ("kg_qgen", "unlearn_zoo", "recover_attacks", "leak_metrics")
CLI = "leakres_cli"


def module_files() -> dict[str, Path]:
    """Every module of the five packages by dotted name (``pkg/__init__.py`` is ``pkg``)."""
    found: dict[str, Path] = {}
    for src in sorted(REPO.glob("packages/*/src")):
        for path in sorted(src.rglob("*.py")):
            parts = list(path.relative_to(src).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _resolve_base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from X import ...`` names, relative levels resolved."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def imports_of(module: str, path: Path, known: set[str]) -> set[tuple[str, int]]:
    """``(imported module, line)`` for every import statement in ``path`` that names a known module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in known:  # `import a.b.c` of a non-module attribute path
                    name = name.rpartition(".")[0]
                if name:
                    found.add((name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_base(module, is_package, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    found.add((sub, node.lineno))
                elif base in known:
                    found.add((base, node.lineno))
    found.discard((module, 0))
    return {(target, line) for target, line in found if target != module}


def import_graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], int]]:
    """Edges by module, and the line of (one) import statement behind each edge."""
    files = module_files()
    known = set(files)
    graph: dict[str, set[str]] = {name: set() for name in files}
    lines: dict[tuple[str, str], int] = {}
    for name, path in files.items():
        for target, line in sorted(imports_of(name, path, known)):
            graph[name].add(target)
            lines.setdefault((name, target), line)
    return graph, lines


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def one_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest circle through the component's first module, as a path that ends where it starts."""
    members, start = set(component), component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    raise AssertionError(f"no circle in component {component}")  # Tarjan guarantees one


def describe(cycle: list[str], lines: dict[tuple[str, str], int]) -> str:
    steps = [f"{a} (line {lines[(a, b)]})" for a, b in itertools.pairwise(cycle)]
    return " -> ".join([*steps, cycle[-1]])


def test_the_graph_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    """The walker itself: a function-level relative import makes an edge, a third-party one none."""
    pkg = tmp_path / "toy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b\n    import json\n")
    (pkg / "b.py").write_text("from .a import f\nfrom .sub.c import g\n")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from .. import a\n")
    known = {"toy", "toy.a", "toy.b", "toy.sub", "toy.sub.c"}
    assert imports_of("toy.a", pkg / "a.py", known) == {("toy.b", 2)}
    assert imports_of("toy.b", pkg / "b.py", known) == {("toy.a", 1), ("toy.sub.c", 2)}
    assert imports_of("toy.sub.c", pkg / "sub" / "c.py", known) == {("toy.a", 1)}
    graph = {m: {t for t, _ in imports_of(m, p, known)} for m, p in [
        ("toy.a", pkg / "a.py"), ("toy.b", pkg / "b.py"), ("toy.sub.c", pkg / "sub" / "c.py")
    ]}  # fmt: skip
    graph.update({"toy": set(), "toy.sub": set()})
    [component] = strongly_connected(graph)
    assert component == ["toy.a", "toy.b", "toy.sub.c"]
    assert one_cycle(graph, component) == ["toy.a", "toy.b", "toy.a"]


def test_every_package_is_found() -> None:
    tops = {name.split(".")[0] for name in module_files()}
    assert tops == {*LIBRARIES, CLI}
    assert len(module_files()) > 150  # the whole source, not a stray folder


def test_no_import_circle() -> None:
    graph, lines = import_graph()
    circles = [describe(one_cycle(graph, c), lines) for c in strongly_connected(graph)]
    if circles:
        pytest.fail("import circles:\n" + "\n".join(circles), pytrace=False)


def test_libraries_never_import_each_other_nor_the_cli() -> None:
    graph, lines = import_graph()
    crossing = [
        f"{src} (line {lines[(src, dst)]}) -> {dst}"
        for src, targets in graph.items()
        for dst in targets
        if src.split(".")[0] in LIBRARIES and dst.split(".")[0] != src.split(".")[0]
    ]
    assert not crossing, "library imports another package:\n" + "\n".join(sorted(crossing))
