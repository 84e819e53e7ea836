"""results.json's JSON Schema (issue 39, item 4), without a model: the schema is valid 2020-12,
shipped as package data, every preset's configuration fits its ``config`` part, a results.json of
the old layout is refused naming what it lacks, and plug-in versions reach ``versions``.
(Real runs' results.json are validated in test_run_api.py and test_eval_byom.py.)"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import jsonschema
import pytest
from leakres_cli import SCHEMA_VERSION, results_schema
from leakres_cli.config.run_config import PRESETS, preset_config
from leakres_cli.stages.results import library_versions, plugin_versions

FIXTURE = Path(__file__).parent / "fixtures" / "run-smoke" / "results.json"


def test_schema_is_valid_and_names_its_version() -> None:
    schema = results_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert schema["$id"].endswith(f":{SCHEMA_VERSION}")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_presets_config_fits_the_schema(preset: str) -> None:
    schema = results_schema()
    config_schema = {**schema["properties"]["config"], "$defs": schema["$defs"]}
    as_written = json.loads(json.dumps(preset_config(preset).fingerprint_dict()))  # tuples: lists
    jsonschema.validate(as_written, config_schema)


def test_a_results_json_of_the_old_layout_is_refused_naming_what_it_lacks() -> None:
    old = json.loads(FIXTURE.read_text())  # written before schema_version and weights existed
    errors = {e.message for e in jsonschema.Draft202012Validator(results_schema()).iter_errors(old)}
    assert "'schema_version' is a required property" in errors
    assert "'weights' is a required property" in errors
    old.update(schema_version=SCHEMA_VERSION, weights={"base": {"model": "m", "sha256": "x"}})
    errors = [e.message for e in jsonschema.Draft202012Validator(results_schema()).iter_errors(old)]
    assert any("does not match" in m for m in errors)  # a sha256 is 64 hex digits


class _Dist:
    name, version = "leakres-plugin-demo", "0.3.1"


class _EntryPoint:
    def __init__(self, name: str) -> None:
        self.name, self.dist = name, _Dist()


def test_a_plugins_version_is_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed plug-in that provides a method the run uses: its distribution and version in
    ``versions``; one the run does not use is left out."""
    real = metadata.entry_points

    def entry_points(group: str):
        if group == "leakres.unlearners":
            return [_EntryPoint("DemoUnlearn"), _EntryPoint("unused")]
        return real(group=group)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    cfg = preset_config("smoke", methods=("ga", "demounlearn"))
    assert plugin_versions(cfg) == {"leakres-plugin-demo": "0.3.1"}
    assert library_versions(cfg)["leakres-plugin-demo"] == "0.3.1"
    assert "leakres-plugin-demo" not in library_versions(preset_config("smoke"))
