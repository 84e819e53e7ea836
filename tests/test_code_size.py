"""Small modules and short functions (issue 23 item 6), checked on every package's source.

A module may have at most 450 lines. A function or method (``def`` line to its last line) may
have at most 60, unless a comment line ``# long: <reason>`` sits at the ``def`` or within the
three lines just above it (above its first decorator when it has any): a long function has to
say why. Nested functions count on their own, named ``outer.inner``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
LONG_REASON = re.compile(r"^\s*#\s*long:\s*\S")

# Offenders tolerated by name ("path::qualname" for a function, "path" for a module). Issue 23
# emptied it; a listed entry that no longer offends fails the test, so the list may only shrink.
# Never add an entry: split the code instead (or say why in a "# long: <reason>" comment).
KNOWN: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Offence:
    key: str  # as in KNOWN
    where: str  # file:line
    what: str


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.FunctionDef]]:
    """Every function and method with its dotted qualified name (Class.method, outer.inner)."""
    out: list[tuple[str, ast.FunctionDef]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = f"{prefix}{node.name}"
            out.append((name, node))  # type: ignore[arg-type]
            out += _functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            out += _functions(node, f"{prefix}{node.name}.")
        else:
            out += _functions(node, prefix)
    return out


def _has_reason(lines: list[str], node: ast.FunctionDef) -> bool:
    """A ``# long: <reason>`` line at the def, between its decorators or up to 3 lines above."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return any(LONG_REASON.match(lines[i - 1]) for i in range(max(1, first - 3), node.lineno + 1))


def offences(path: Path, root: Path = REPO) -> list[Offence]:
    rel = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    if len(lines) > MAX_MODULE_LINES:
        found.append(Offence(rel, f"{rel}:1", f"module has {len(lines)} lines"))
    for name, node in _functions(ast.parse(text, filename=rel)):
        n = node.end_lineno - node.lineno + 1  # type: ignore[operator]
        if n > MAX_FUNCTION_LINES and not _has_reason(lines, node):
            what = f"{name} has {n} lines and no '# long: <reason>' comment"
            found.append(Offence(f"{rel}::{name}", f"{rel}:{node.lineno}", what))
    return found


def _sources() -> list[Path]:
    return sorted(REPO.glob("packages/*/src/**/*.py"))


def test_sources_are_found() -> None:
    packages = {p.relative_to(REPO).parts[1] for p in _sources()}
    assert {"kg-qgen", "leak-metrics", "unlearn-zoo", "recover-attacks", "leakres-cli"} <= packages


def test_no_new_long_module_or_function() -> None:
    new = [o for p in _sources() for o in offences(p) if o.key not in KNOWN]
    listing = "\n".join(f"{o.where}: {o.what}" for o in new)
    assert not new, (
        f"over {MAX_MODULE_LINES} lines per module / {MAX_FUNCTION_LINES} per function:\n{listing}"
    )


def test_known_list_only_shrinks() -> None:
    current = {o.key for p in _sources() for o in offences(p)}
    fixed = sorted(KNOWN - current)
    assert not fixed, f"no longer offending, remove from KNOWN in {__file__}: {fixed}"


def test_reason_comment_is_honoured(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    method = "".join(f"    {line}\n" for line in f"def m(self):\n{body}".splitlines())
    cases = {
        "plain": (f"def f():\n{body}", ["f"]),
        "reason above decorator": (f"# long: a table\n@staticmethod\ndef f():\n{body}", []),
        "reason too far above": (f"# long: a table\n\n\n\ndef f():\n{body}", ["f"]),
        "reason without words": (f"# long:\ndef f():\n{body}", ["f"]),
        "method": (f"class C:\n{method}", ["C.m"]),
        "short": ("def f():\n    return 1\n", []),
    }
    src = tmp_path / "mod.py"
    for case, (code, expect) in cases.items():
        src.write_text(code)
        got = [o.key.split("::")[1] for o in offences(src, tmp_path) if "::" in o.key]
        assert got == expect, case
    src.write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert [o.key for o in offences(src, tmp_path)] == ["mod.py"]
