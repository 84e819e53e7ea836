"""The fictional source (issue 36 item 3): determinism, no real names, depth per type, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import kg_qgen
import pytest
from click.testing import CliRunner
from conftest import data_dir, require_real_data
from kg_qgen import KgQgenInputError, load_source
from kg_qgen.cli import cli, main
from kg_qgen.sources.builtin import load_builtin
from kg_qgen.sources.fictional import (
    INDUSTRIES,
    LONG_FORMS,
    SIZES,
    TEAM_SUFFIXES,
    WORK_NOUNS,
    fictional_kb,
    load_fictional,
    parse_spec,
)
from kg_qgen.sources.fictional_names import real_lexicon
from kg_qgen.textnorm import contains_phrase, normalize

SRC = os.pathsep.join([str(Path(kg_qgen.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])
TYPES = ("SH", "HS", "MP", "LL", "CC", "DS", "MT")
# the fixed English words of multi-word names (never the part that identifies an entity)
FIXED = {
    normalize(w) for w in (*WORK_NOUNS, *TEAM_SUFFIXES, *INDUSTRIES, *" ".join(LONG_FORMS).split())
} | {"the", "company"}


def _names(kb: dict) -> dict[str, list[str]]:
    return {eid: [e["label"], *e["aliases"]] for eid, e in kb["entities"].items()}


def _own_words(kb: dict) -> dict[str, set[str]]:
    """Entity id -> the generated words of its names (fixed English words aside)."""
    return {
        eid: {w for n in names for w in normalize(n).split() if w not in FIXED}
        for eid, names in _names(kb).items()
    }


def test_same_seed_same_bytes_other_seed_other_kb():
    for size in SIZES:
        a = json.dumps(fictional_kb(3, size), sort_keys=True)
        assert a == json.dumps(fictional_kb(3, size), sort_keys=True)
        assert a != json.dumps(fictional_kb(4, size), sort_keys=True)
    g1, g2 = load_fictional(seed=1, size="small"), load_source("fictional", "small,seed=1")

    def facts(g):
        return sorted((f.subject, f.relation, f.object) for f in g.facts())

    assert facts(g1) == facts(g2)


def test_same_bytes_under_any_hash_seed():
    """No set or dict order leaks into the KB: two interpreters with other hash seeds agree."""
    code = (
        "import json, sys; from kg_qgen.sources.fictional import fictional_kb; "
        "sys.stdout.write(json.dumps(fictional_kb(5, 'small'), sort_keys=True))"
    )
    outs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": SRC}
        got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        outs.add(got.stdout)
    assert outs == {json.dumps(fictional_kb(5, "small"), sort_keys=True)}


def test_relations_are_the_builtin_kbs_ids_and_labels():
    builtin = load_builtin()
    kb = fictional_kb(0)
    for rid, rel in kb["relations"].items():
        assert builtin.relation_label(rid) == rel["label"]
    used = {r for _, r, _ in kb["triples"]}
    assert used == set(kb["relations"])


@pytest.mark.parametrize(
    ("size", "seed"),
    [("default", 0), ("default", 1), ("medium", 0), *(("small", s) for s in range(5))],
)
def test_no_real_name_and_no_name_inside_another(size, seed):
    kb = fictional_kb(seed, size)
    words, places = real_lexicon()
    builtin = load_builtin()
    real_names = {normalize(n) for e in builtin.entities() for n in (e.label, *e.aliases)}
    owner: dict[str, set[str]] = defaultdict(set)
    for eid, own in _own_words(kb).items():
        for w in own:
            owner[w].add(eid)
            assert w not in words, f"{w!r} ({eid}) is a word of a real name"
            assert not any(p in w for p in places), f"{w!r} ({eid}) contains a real place"
    shared = {w: ids for w, ids in owner.items() if len(ids) > 1}
    assert not shared, f"words shared by entities: {sorted(shared.items())[:3]}"
    roots = sorted(owner)
    assert not [(a, b) for a in roots for b in roots if a != b and a in b]
    for names in _names(kb).values():
        for n in names:
            assert normalize(n) not in real_names, n
    labels = [normalize(e["label"]) for e in kb["entities"].values()]
    assert len(set(labels)) == len(labels)


def test_no_name_of_the_real_data_sets():
    """Full names against MQuAKE's entity names and aliases (the real data, else its slice)."""
    path = require_real_data(data_dir() / "mquake" / "MQuAKE-hard-dev.json", "MQuAKE-hard-dev")
    real: set[str] = set()

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, str) and (
                    k in ("answer", "new_answer", "subject") or "alias" in k
                ):
                    real.add(normalize(v))
                elif isinstance(v, list) and "alias" in k:
                    real.update(normalize(a) for a in v if isinstance(a, str))
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(path.read_text(encoding="utf-8")))
    assert len(real) > 50
    for size in SIZES:
        for names in _names(fictional_kb(0, size)).values():
            assert not {normalize(n) for n in names} & real, names


def test_values_are_not_derived_from_their_country():
    """No currency, capital or city shares a word or a 5-letter stem with its country's names."""
    kb = fictional_kb(0)
    words = _own_words(kb)
    for s, r, o in kb["triples"]:
        if r in ("P36", "P38", "P17"):
            a, b = words[s], words[o]
            assert not a & b
            assert not {x[:5] for x in a} & {y[:5] for y in b}, (s, r, o)


def test_aliases_usable_for_ll_are_not_the_label_with_words_changed():
    """Every country has a name of its own; an LL alias never contains its label."""
    kb = fictional_kb(0)
    for eid, e in kb["entities"].items():
        if eid.startswith("country"):
            own = [
                a for a in e["aliases"] if not contains_phrase(normalize(a), normalize(e["label"]))
            ]
            assert own, e


def _kept(graph, per_type: int, seed: int) -> tuple[dict[str, int], bool]:
    res = kg_qgen.build(graph, types=TYPES, per_type=per_type, seed=seed)
    return {t: res.counts[t]["kept"] for t in TYPES}, res.verification["ok"]


def test_small_builds_60_verified_questions_of_every_type():
    kept, ok = _kept(load_fictional(seed=0, size="small"), 60, 0)
    assert ok
    assert all(n >= 60 for n in kept.values()), kept
    assert len(fictional_kb(0, "small")["triples"]) <= 200


def test_default_builds_200_verified_questions_of_every_type():
    kept, ok = _kept(load_fictional(seed=0), 200, 0)
    assert ok
    assert kept == dict.fromkeys(TYPES, 200)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"size": "huge"}, "size"),
        ({"persons": -1}, "persons"),
        ({"continents": 2}, "continents"),
        ({"countries_per_continent": 2}, "countries_per_continent"),
        ({"alias_share": 1.5}, "alias_share"),
        ({"persons": 2.0}, "persons"),
        ({"colour": 3}, "colour"),
        ({"seed": "x"}, "seed"),
        ({"seed": True}, "seed"),
        ({"athletes": 100, "persons": 50}, "persons"),
        ({"sports": 40}, "sports"),
        ({"works": 3, "authors": 5}, "works"),
        ({"works": 3, "authors": 0}, "works"),
        ({"currency_unions": 20}, "currency_unions"),
        ({"persons": 6000}, "size"),
    ],
)
def test_bad_parameters_name_their_field(kwargs, field):
    with pytest.raises(KgQgenInputError, match=f"fictional source, field '{field}'"):
        fictional_kb(**kwargs)


def test_spec_strings():
    assert (
        parse_spec("small,seed=2")
        == parse_spec("size=small,seed=2")
        == {"size": "small", "seed": 2}
    )
    assert parse_spec(" seed=1 , persons=80, died_share=0.5") == {
        "seed": 1,
        "persons": 80,
        "died_share": 0.5,
    }
    with pytest.raises(KgQgenInputError, match="field 'seed'"):
        parse_spec("seed=one")


def test_cli_builds_without_input_and_refuses_a_bad_spec(tmp_path, capsys):
    runner = CliRunner()
    out = tmp_path / "set"
    args = ["build", "--source", "fictional", "--input", "small,seed=1", "--types", "SH,CC"]
    got = runner.invoke(cli, [*args, "--per-type", "5", "--out", str(out)])
    assert got.exit_code == 0, got.output
    got = runner.invoke(
        cli, ["verify", str(out), "--source", "fictional", "--input", "small,seed=1"]
    )
    assert got.exit_code == 0, got.output
    got = runner.invoke(
        cli, ["verify", str(out), "--source", "fictional", "--input", "small,seed=2"]
    )
    assert got.exit_code == 1  # another KB: the premises are not its facts
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "--source", "fictional", "--input", "tiny", "--out", str(tmp_path / "x")])
    assert exit_info.value.code == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert err == [
        "kg-qgen: error: fictional source, field 'size': unknown size 'tiny'; known: default, small, medium"
    ]
    assert not (tmp_path / "x").exists()
