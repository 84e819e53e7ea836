"""kg-qgen's inner boundaries (issue 37 item 6), read from the source's import statements.

* ``kg_qgen.llm`` and ``kg_qgen.verify`` never import each other: they meet through
  :mod:`kg_qgen.checking` (``Check``, ``Reject``, ``QuestionRules``), and the ``llm`` generator
  gets verify's per-question rules from :mod:`kg_qgen.llm_factory`.
* The wording code is one subpackage with one entry point: outside ``kg_qgen/wording/`` only
  ``kg_qgen.wording`` itself is imported, and the subpackage imports none of the modules that use
  it (verify, llm, generate, the pipeline).

Every ``import``/``from ... import`` counts, wherever it stands (function level too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import kg_qgen

SRC = Path(kg_qgen.__file__).resolve().parent


def _imports() -> list[tuple[str, str, int]]:
    """(importing module path relative to kg_qgen/, imported dotted name, line) for every import."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out += [(rel, a.name, node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out += [(rel, f"{node.module}.{a.name}", node.lineno) for a in node.names]
    return out


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_walk_sees_the_imports_it_judges() -> None:
    found = _imports()
    assert ("llm/generator.py", "kg_qgen.checking.QuestionRules") in {(m, n) for m, n, _ in found}
    assert any(m == "verify/spread.py" and _under(n, "kg_qgen.wording") for m, n, _ in found)


def test_llm_and_verify_never_import_each_other() -> None:
    crossing = [
        f"kg_qgen/{module} line {line}: {name}"
        for module, name, line in _imports()
        if (module.startswith("llm/") and _under(name, "kg_qgen.verify"))
        or (module.startswith("verify/") and _under(name, "kg_qgen.llm"))
    ]
    assert not crossing, "llm/ and verify/ import each other:\n" + "\n".join(crossing)


def test_wording_is_reached_through_its_entry_point_only() -> None:
    submodules = {p.stem for p in (SRC / "wording").glob("*.py")} - {"__init__"}
    reaching_in = [
        f"kg_qgen/{module} line {line}: {name}"
        for module, name, line in _imports()
        if not module.startswith("wording/")
        and _under(name, "kg_qgen.wording")
        and name.split(".")[2] in submodules
    ]
    assert not reaching_in, "import a wording submodule directly:\n" + "\n".join(reaching_in)


def test_wording_imports_none_of_its_users() -> None:
    users = ("kg_qgen.verify", "kg_qgen.llm", "kg_qgen.generate", "kg_qgen.pipeline")
    back = [
        f"kg_qgen/{module} line {line}: {name}"
        for module, name, line in _imports()
        if module.startswith("wording/") and any(_under(name, u) for u in users)
    ]
    assert not back, "kg_qgen.wording imports a module that uses it:\n" + "\n".join(back)
