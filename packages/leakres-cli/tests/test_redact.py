from __future__ import annotations

import pytest
from leakres_cli.config.run_config import RunConfig
from leakres_cli.redact import redact_config, redact_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("https://alice:hunter2@judge.example/v1", "https://***@judge.example/v1"),
        ("https://sk-token-only@judge.example/v1", "https://***@judge.example/v1"),
        ("https://a:b@c@judge.example/v1", "https://***@judge.example/v1"),
        ("https://judge.example/v1?api_key=s3cr3t&x=1", "https://judge.example/v1?api_key=***&x=1"),
        ("https://judge.example/v1?access_token=t&sig=z", "https://judge.example/v1?access_token=***&sig=***"),
        ("http://[::1", "***"),  # unparseable: nothing of it is kept
    ],
)  # fmt: skip
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_redact_config_only_touches_url_fields_and_copies() -> None:
    cfg = RunConfig(judge="alias,llm", judge_model="m", judge_base_url="http://u:pw@127.0.0.1:9/v1")
    raw = cfg.to_dict()
    safe = redact_config(raw)
    assert safe["judge_base_url"] == "http://***@127.0.0.1:9/v1"
    assert raw["judge_base_url"] == "http://u:pw@127.0.0.1:9/v1"  # the run itself still needs it
    assert {k: v for k, v in safe.items() if k != "judge_base_url"} == {
        k: v for k, v in raw.items() if k != "judge_base_url"
    }
    assert redact_config(RunConfig().to_dict())["judge_base_url"] is None
