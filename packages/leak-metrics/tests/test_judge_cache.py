"""The judge cache reader and the redaction helper, property-based (hypothesis) and by example.

Property: whatever bytes a cache file holds (arbitrary bytes, arbitrary JSON, truncations of a
valid entry), reading it gives either a valid entry or ``None`` (ignored, with one warning naming
the file), never another exception and never a made-up "incorrect".
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leak_metrics.judges.cache import VERDICTS, VerdictCache, cache_key, parse_entry
from leak_metrics.redact import redact, strip_url_credentials

# Deterministic runs (the same examples every time, no .hypothesis database written); no deadline
# because the CPU is shared.
DETERMINISTIC = {"derandomize": True, "database": None, "deadline": None}
KEY = cache_key("m", "v", "q", "a", (), "r")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["verdict", "reason", "x"]) | st.text(), children, max_size=4
        )
    ),
    max_leaves=20,
)
# Entries shaped almost right: the two keys with values of any JSON type.
near_entries = st.fixed_dictionaries(
    {"verdict": json_values | st.sampled_from(VERDICTS), "reason": json_values}
)


def check_entry(entry: object) -> None:
    assert entry is None or (
        isinstance(entry, dict)
        and set(entry) == {"verdict", "reason"}
        and entry["verdict"] in VERDICTS
        and isinstance(entry["reason"], str)
    )


@settings(**DETERMINISTIC, max_examples=300)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_give_an_entry_or_none(raw: bytes) -> None:
    check_entry(parse_entry(raw))


@settings(**DETERMINISTIC, max_examples=300)
@given(json_values | near_entries)
def test_arbitrary_json_gives_an_entry_or_none(value: object) -> None:
    raw = json.dumps(value).encode()
    entry = parse_entry(raw)
    check_entry(entry)
    valid = (
        isinstance(value, dict)
        and value.get("verdict") in VERDICTS
        and isinstance(value.get("reason"), str)
    )
    assert (entry is not None) == valid


@settings(
    **DETERMINISTIC, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(VERDICTS),
    st.text(max_size=40),
    st.integers(min_value=0, max_value=200),
    st.data(),
)
def test_cache_file_truncated_or_garbled_is_ignored_with_one_warning(
    caplog: pytest.LogCaptureFixture, verdict: str, reason: str, cut: int, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = VerdictCache(tmp)
        cache.put(KEY, {"verdict": verdict, "reason": reason})
        path = next(Path(tmp).rglob("*.json"))
        full = path.read_bytes()
        assert cache.get(KEY) == {"verdict": verdict, "reason": reason}
        garbled = data.draw(
            st.sampled_from([full[:cut], full[:cut] + data.draw(st.binary(max_size=8))])
        )
        path.write_bytes(garbled)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="leak_metrics.judges.cache"):
            entry = cache.get(KEY)
        check_entry(entry)
        if entry is None:
            [record] = caplog.records
            assert str(path) in record.getMessage()
        else:  # only a byte-identical-in-meaning file may still read as an entry
            assert entry == json.loads(garbled.decode("utf-8"))
            assert not caplog.records


def test_unreadable_cache_path_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = VerdictCache(tmp_path)
    (tmp_path / KEY[:2] / f"{KEY}.json").mkdir(parents=True)  # a directory where a file should be
    with caplog.at_level(logging.WARNING):
        assert cache.get(KEY) is None
    assert "unreadable judge cache file" in caplog.text and KEY in caplog.text


def test_put_refuses_unjudged_or_malformed_entries(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    for bad in ({"verdict": None, "reason": "unjudged"}, {"verdict": "maybe", "reason": ""}, {}):
        with pytest.raises(ValueError, match="not a decided verdict"):
            cache.put(KEY, bad)
    assert not list(tmp_path.rglob("*.json")) and not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer sk-live-abcdef123", "Authorization: Bearer ***"),
        ("{'authorization': 'Bearer tok_ABC.def'}", "{'authorization': 'Bearer ***'}"),
        ('{"api_key": "abc123456"}', '{"api_key": "***"}'),
        ("api-key=abc123456&x=1", "api-key=***&x=1"),
        ("authorization: Basic dXNlcjpwYXNz", "authorization: Basic ***"),
        ("POST https://bob:pa55word@host:8000/v1 failed", "POST https://***@host:8000/v1 failed"),
        ("key sk-proj-Zx9_8-7y leaked", "key *** leaked"),
        ("my-exact-secret-value here", "*** here"),
        ("nothing secret here", "nothing secret here"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text, ["my-exact-secret-value", None, "x"]) == expected


def test_strip_url_credentials() -> None:
    assert strip_url_credentials("https://u:p@h:1/v1?q=1") == "https://h:1/v1?q=1"
    assert strip_url_credentials("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
