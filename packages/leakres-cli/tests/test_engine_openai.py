"""`leakres run --engine openai` end to end, against a real server process on 127.0.0.1.

The server is recover-attacks' minimal OpenAI-compatible completions server
(``python -m recover_attacks.serve``, transformers + LocalEngine), started by leakres itself through
``--engine-cmd`` once per model: the base model (SmolLM2-135M-Instruct, the CLI's real default
model, from its cached safetensors directory) and the GA-unlearned model (saved by leakres to
OUT/engine/models/ga). The test then decodes the same questions IN-PROCESS on the same weights and
checks that the stored greedy answers (base and unlearned evaluation, FocusOnKey's responses) are
identical, and that the run recorded its engine and stopped every server.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
import torch
from click.testing import CliRunner
from kg_qgen import render_prompt
from leakres_cli.main import cli

SERVE = f"{sys.executable} -m recover_attacks.serve --model {{model}} --port {{port}} --threads 1"
ARGS = [
    "run", "--quiet", "--n-forget", "4", "--n-retain", "4", "--per-type", "8", "--sh-pool", "24",
    "--attacks", "probab,focus_on_key", "--seed", "0",
]  # fmt: skip
# seed 0: GA's one step on these 4 facts unlearns 2 single-hop questions (S_suc SH 2, HS 0) with
# issue 34's question rules (measured in process, which the server must equal); seed 2 now leaves
# S_suc empty (no attack to test), as seed 0 did before them


def _cell(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One intra-op thread: on a CPU shared with other jobs a second thread mostly spin-waits
    (recover-attacks README: 0.04 vs 0.34 questions/s)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def served_run(tmp_path_factory: pytest.TempPathFactory, one_thread, model_cache: Path) -> Path:
    import os

    # the session's cache (conftest.model_cache): the GGUF is converted there once, not per file
    os.environ.setdefault("LEAKRES_CACHE_DIR", str(model_cache))
    out = tmp_path_factory.mktemp("served") / "run"
    result = CliRunner().invoke(
        cli,
        [*ARGS, "--out", str(out), "--engine", "openai", "--engine-cmd", SERVE],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return out


def _in_process(model_dir: str, questions: list[str]) -> list[str]:
    from recover_attacks import generate
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    out = generate(model, tokenizer, questions, max_new_tokens=24, batch_size=16, seed=0)
    return [r[0] for r in out]


def test_server_answers_equal_the_in_process_engine(served_run: Path) -> None:
    out = served_run
    results = json.loads((out / "results.json").read_text())
    engine = results["engine"]
    assert engine["engine"] == "openai" and engine["command"] == SERVE
    assert results["config"]["engine"] == "openai" and results["config"]["engine_cmd"] == SERVE
    assert engine["models"]["base"]["served"] is True
    assert engine["models"]["ga"]["served"] is True
    saved = out / "engine" / "models" / "ga"
    assert engine["models"]["ga"]["model_path"] == str(saved)
    assert (saved / "model.safetensors").is_file() and (saved / "tokenizer.json").is_file()
    assert engine["models"]["base"]["model_path"] == results["model_path"]

    questions = {q["id"]: q for q in _cell(out, "questions")["questions"]}
    base, ev = _cell(out, "base"), _cell(out, "ga/eval")
    base_ids = list(base["answers"])
    assert len(base_ids) >= 24
    form = results["config"]["prompt_form"]  # the prompts the run asked: kg-qgen renders them
    expected = _in_process(
        results["model_path"], [render_prompt(questions[i], form) for i in base_ids]
    )
    assert [base["answers"][i] for i in base_ids] == expected

    ev_ids = list(ev["answers"])
    expected_u = _in_process(str(saved), [render_prompt(questions[i], form) for i in ev_ids])
    assert [ev["answers"][i] for i in ev_ids] == expected_u
    # the unlearned model was really evaluated (GA changed some answers), not the base model again
    assert any(ev["answers"][i] != base["answers"][i] for i in ev_ids)

    # every server was stopped: nothing listens on their ports any more
    for label in ("base", "ga"):
        url = urlparse(engine["models"][label]["base_url"])
        with socket.socket() as sock:
            assert sock.connect_ex((url.hostname, url.port)) != 0, f"{label} server still runs"


def test_attacks_went_through_the_server(served_run: Path) -> None:
    out = served_run
    results = json.loads((out / "results.json").read_text())
    probab = _cell(out, "ga/attack-probab")
    focus = _cell(out, "ga/attack-focus_on_key")
    attacked = list(probab["responses"])
    if not attacked:
        pytest.fail(
            f"S_suc is empty ({results['methods']['ga']['s_suc']}): no attack was exercised"
        )
    for payload in (probab, focus):
        assert payload["settings"]["engine"]["engine"] == "openai"
    assert attacked == list(focus["responses"])
    assert set(attacked) <= set(_cell(out, "base")["answers"])
    assert all(len(r) == 5 for r in probab["responses"].values())  # ProbabConfig.num_samples
    assert probab["settings"]["temperature"] == 0.8 and probab["settings"]["top_p"] == 0.95
    # FocusOnKey: keys from theta_p in-process, the greedy answer from the ga server == in-process
    from recover_attacks import get_attack
    from transformers import AutoModelForCausalLM, AutoTokenizer

    questions = {q["id"]: q for q in _cell(out, "questions")["questions"]}
    tokenizer = AutoTokenizer.from_pretrained(results["model_path"])
    base_model = AutoModelForCausalLM.from_pretrained(results["model_path"], dtype=torch.float32)
    unlearned = AutoModelForCausalLM.from_pretrained(
        str(out / "engine" / "models" / "ga"), dtype=torch.float32
    )
    # in-process under the run's one decoding protocol (the cell records it)
    budget = focus["decoding"]["max_new_tokens"]
    local = get_attack("focus_on_key", seed=0, max_new_tokens=budget).run(
        unlearned.eval(),
        tokenizer,
        [questions[i] for i in attacked],
        original_model=base_model.eval(),
        progress=False,
    )
    assert [r.responses for r in local] == [focus["responses"][i] for i in attacked]
    # the cell keeps the first result's settings: the same key words and prompt as in-process
    assert local[0].settings["prompt"] == focus["settings"]["prompt"]
    assert local[0].settings["key_words"] == focus["settings"]["key_words"]
