"""Property-based tests of the CLI's readers: any input gives a valid result or the CLI's own error.

The readers are the cell files of a run directory (resuming trusts whatever is on disk) and the
`leakres run` options (click parsing, the preset/option configuration and --set NAME.FIELD=VALUE).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leakres_cli.commands.run import config_from_params, run_command
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import CellStore, payload_digest

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
cell_documents = (
    st.binary(max_size=200)
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.fixed_dictionaries(
        {
            "config_fingerprint": st.sampled_from(["fp", "other"]) | json_values,
            "payload": json_values,
        }
    ).map(lambda v: json.dumps(v).encode())
)


@SETTINGS
@given(content=cell_documents)
def test_any_cell_file_gives_a_payload_none_or_a_leakres_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cells" / "base.json"
        path.parent.mkdir()
        path.write_bytes(content)
        store = CellStore(Path(tmp), "fp")
        try:
            payload = store.get("base")
        except LeakresError as exc:
            assert str(path) in str(exc) and "\n" not in str(exc)
            return
        cell = json.loads(content)
        # trusted only with this config's fingerprint and the digest of its payload (issue 39:
        # a mismatched digest is the LeakresError above; a missing one means recompute)
        trusted = cell["config_fingerprint"] == "fp" and cell.get(
            "payload_digest"
        ) == payload_digest(cell["payload"])
        assert payload == (cell["payload"] if trusted else None)


OPTIONS_WITH_VALUES = [
    "--preset", "--model", "--source", "--types", "--methods", "--attacks", "--n-forget",
    "--n-retain", "--per-type", "--sh-pool", "--judge", "--judge-model", "--seed", "--batch-size",
    "--max-new-tokens", "--bootstrap", "--bbh-tasks", "--bbh-limit",
]  # fmt: skip
names = st.sampled_from(["ga", "npo", "probab", "focus_on_key", "x", "", "ga.lr"])
fields = st.sampled_from(
    ["lr", "epochs", "seed", "num_samples", "temperature", "max_steps"]
) | st.text(max_size=8)
raw_values = (
    st.sampled_from(
        ["1e-5", "0", "-1", "true", "null", "[1,2]", '{"a":1}', "nan", "1e400", "9" * 5000]
    )
    | st.text(max_size=12)
    | st.integers().map(str)
)
set_items = st.tuples(names, fields, raw_values).map(lambda t: f"{t[0]}.{t[1]}={t[2]}") | st.text(
    max_size=15
)
option_values = (
    st.sampled_from(
        ["smoke", "types", "full", "ga", "probab", "SH,HS", "SH,XX", "alias", "llm", "alias,llm"]
    )
    | st.integers(min_value=-5, max_value=2**33).map(str)
    | st.text(max_size=10)
)
arguments = st.lists(
    st.tuples(st.sampled_from(OPTIONS_WITH_VALUES), option_values).map(list)
    | st.tuples(st.just("--set"), set_items).map(list),
    max_size=5,
).map(lambda pairs: [token for pair in pairs for token in pair])


@SETTINGS
@given(args=arguments)
def test_any_run_options_give_a_config_or_the_clis_own_error(args: list[str]) -> None:
    try:
        ctx = run_command.make_context("run", list(args))
    except click.ClickException:  # click's usage errors: the CLI prints them as one line, exit 2
        return
    try:
        cfg = config_from_params(ctx.params)
    except LeakresError as exc:
        assert "\n" not in str(exc).strip()
        return
    assert isinstance(cfg, RunConfig)
    assert cfg.types[0] == "SH" and cfg.n_forget >= 1 and cfg.per_type >= 1
