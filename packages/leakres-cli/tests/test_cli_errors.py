"""Bad input gives a one-line error naming the problem, exit status 2, and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli


def _run(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_unknown_model_suggests_the_registered_name(tmp_path: Path) -> None:
    result = _run(["run", "--model", "smollm2-135m-instruc", "--out", str(tmp_path / "o")])
    _assert_one_line_error(
        result, "unknown model 'smollm2-135m-instruc'", "did you mean 'smollm2-135m-instruct'"
    )


def test_unknown_preset(tmp_path: Path) -> None:
    result = _run(["run", "--preset", "smok", "--out", str(tmp_path / "o")])
    _assert_one_line_error(result, "unknown preset 'smok'", "did you mean 'smoke'")


def test_unwritable_output_directory(tmp_path: Path) -> None:
    # Tests may run as root, which ignores permission bits: a regular file as parent fails for everyone.
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = _run(["run", "--out", str(blocker / "out")])
    _assert_one_line_error(result, "output directory", "is not writable")


def test_unknown_method_lists_known_ones(tmp_path: Path) -> None:
    result = _run(["run", "--methods", "gaa", "--out", str(tmp_path / "o")])
    _assert_one_line_error(result, "gaa")
    assert "ga" in result.stderr


def test_bad_set_override(tmp_path: Path) -> None:
    result = _run(["run", "--set", "nonsense", "--out", str(tmp_path / "o")])
    _assert_one_line_error(result, "--set expects NAME.FIELD=VALUE")


def test_model_path_that_is_not_a_model(tmp_path: Path) -> None:
    empty = tmp_path / "empty-model"
    empty.mkdir()
    result = _run(["run", "--model", str(empty), "--out", str(tmp_path / "o")])
    _assert_one_line_error(result, str(empty), "is not a model")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["list", "--help"]])
def test_help_is_available(args: list[str]) -> None:
    result = _run(args)
    assert result.exit_code == 0
    assert "Usage:" in result.output


def test_every_run_option_is_settable_by_environment(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["run", "--out", str(tmp_path / "o")], env={"LEAKRES_RUN_PRESET": "nope"}
    )
    _assert_one_line_error(result, "unknown preset 'nope'")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--per-type", "0"),
        ("--batch-size", "0"),
        ("--n-retain", "-1"),
        ("--n-forget", "-3"),
        ("--n-forget", "0"),
        ("--sh-pool", "0"),
        ("--bootstrap", "0"),
        ("--max-new-tokens", "0"),
        ("--bbh-limit", "-1"),
        ("--seed", "-1"),
        ("--seed", str(2**32)),
        ("--per-type", "many"),
    ],
)
def test_numeric_options_are_range_checked_at_parse_time(
    tmp_path: Path, option: str, value: str
) -> None:
    out = tmp_path / "o"
    result = _run(["run", option, value, "--out", str(out)])
    _assert_one_line_error(result, option, value)
    assert not out.exists()  # rejected before anything was created


def test_unknown_model_leaves_no_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "run"
    result = _run(["run", "--model", "no-such-model-xyz", "--out", str(out)])
    _assert_one_line_error(result, "no-such-model-xyz")
    assert not (tmp_path / "new").exists()
    # An existing folder is left as it was (only what this run created is removed).
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine")
    result = _run(["run", "--model", "no-such-model-xyz", "--out", str(existing)])
    _assert_one_line_error(result, "no-such-model-xyz")
    assert [p.name for p in existing.iterdir()] == ["notes.txt"]
