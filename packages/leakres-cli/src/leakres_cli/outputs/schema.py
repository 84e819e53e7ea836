"""The JSON Schema of results.json, shipped with the package (``leakres_cli/data/results.schema.json``).

``results_schema()`` is the schema as a dict; ``validate_results(record)`` checks a results record
against it with ``jsonschema`` (a test dependency; a tool reading results.json can use any JSON
Schema 2020-12 validator on the file itself). results.json's ``schema_version`` names the layout
(:data:`SCHEMA_VERSION`); the schema's ``$id`` ends with the same version.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMA_FILE = "results.schema.json"
#: results.json's layout version (its ``schema_version``; the schema's ``$id`` ends with it); a change
#: that removes or retypes a field bumps it
SCHEMA_VERSION = "1.0"


def results_schema() -> dict[str, Any]:
    """The shipped JSON Schema of results.json."""
    text = resources.files("leakres_cli").joinpath("data", SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def validate_results(record: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when ``record`` does not fit the schema."""
    import jsonschema

    schema = results_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(record)
