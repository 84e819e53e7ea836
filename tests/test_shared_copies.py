"""Helpers the libraries copy to stay independent are byte-identical to one source (issue 37 item 7).

The four libraries never import each other, so a helper two of them need lives in each as its own
module. Each group below names its source (the copy edited first) and the copies that must equal
it byte for byte; a package that needs something different keeps that outside the copied module.
A module of the same name in another library's top level must be listed, so a new copy cannot
drift unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# module file -> (source, *copies), each "package folder/import name"
COPY_GROUPS: dict[str, tuple[str, ...]] = {
    # all-or-nothing file writes
    "atomic.py": ("kg-qgen/kg_qgen", "leak-metrics/leak_metrics"),
    # plugin lookup: one registry shape (behaviour: tests/test_registry_contract.py)
    "plugins.py": (
        "kg-qgen/kg_qgen",
        "leak-metrics/leak_metrics",
        "recover-attacks/recover_attacks",
        "unlearn-zoo/unlearn_zoo",
    ),
    # CSV cells a spreadsheet never runs as formulas
    "csv_safe.py": ("leak-metrics/leak_metrics", "kg-qgen/kg_qgen"),
    # the prompt a question is trained on and queried with (ARCHITECTURE.md section 3)
    "chat_format.py": ("recover-attacks/recover_attacks", "unlearn-zoo/unlearn_zoo"),
    # the file names of an unlearned checkpoint (ARCHITECTURE.md section 8)
    "checkpoint_files.py": ("unlearn-zoo/unlearn_zoo", "recover-attacks/recover_attacks"),
}


def _path(name: str, where: str) -> Path:
    folder, package = where.split("/")
    return REPO / "packages" / folder / "src" / package / name


def drifted(name: str, members: tuple[str, ...]) -> list[str]:
    """The copies (repository-relative paths) whose bytes differ from the group's source."""
    source = _path(name, members[0]).read_bytes()
    return [
        str(_path(name, m).relative_to(REPO))
        for m in members[1:]
        if _path(name, m).read_bytes() != source
    ]


@pytest.mark.parametrize("name", sorted(COPY_GROUPS))
def test_every_copy_equals_its_source(name: str) -> None:
    members = COPY_GROUPS[name]
    missing = [
        str(_path(name, m).relative_to(REPO)) for m in members if not _path(name, m).is_file()
    ]
    assert not missing, f"{name}: listed copies missing: {', '.join(missing)}"
    bad = drifted(name, members)
    source = _path(name, members[0]).relative_to(REPO)
    assert not bad, (
        f"{name} copies drifted from their source {source}: {', '.join(bad)} "
        f"(make them byte-identical: copy the source over them, or move what one package needs "
        f"out of the copied module)"
    )


@pytest.mark.parametrize("name", sorted(COPY_GROUPS))
def test_no_unlisted_copy(name: str) -> None:
    listed = {_path(name, m) for m in COPY_GROUPS[name]}
    found = set((REPO / "packages").glob(f"*/src/*/{name}"))
    extra = sorted(str(p.relative_to(REPO)) for p in found - listed)
    assert not extra, f"{name} also exists in {', '.join(extra)}: list it in COPY_GROUPS"


def test_the_check_names_the_file_that_drifted(tmp_path: Path, monkeypatch) -> None:
    """The comparison itself: a copy one byte off is named, the source and equal copies are not."""
    for folder, text in (("a/a", "x = 1\n"), ("b/b", "x = 1\n"), ("c/c", "x = 2\n")):
        path = tmp_path / "packages" / folder.split("/")[0] / "src" / folder.split("/")[1]
        path.mkdir(parents=True)
        (path / "helper.py").write_text(text)
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert drifted("helper.py", ("a/a", "b/b", "c/c")) == ["packages/c/src/c/helper.py"]
