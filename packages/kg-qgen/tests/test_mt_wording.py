"""MT wordings (issue 34): two conditionals in one shape, an ask between the two options.

Generated here over many seeded draws on a relation pair whose r2 objects are people (developer
-> CEO) and one whose are things (citizenship -> capital): the two conditionals differ only in
their names, nothing is said to follow, and the options stand in the ask in their given order.
"""

import random
import re

import pytest
from kg_qgen.textnorm import normalize
from kg_qgen.verify.mt_logic import FOLLOWS_WORDS
from kg_qgen.wording import mt as mt_wording
from kg_qgen.wording import mt_question, phrase_for

PAIRS = {
    "person": (phrase_for("P178", "developer"), phrase_for("P169", "chief executive officer")),
    "thing": (phrase_for("P27", "country of citizenship"), phrase_for("P36", "capital")),
}
# names without a full stop: the test finds sentences by ". "
NAMES = {
    "person": ("Zork", ("Apple", "Tim Cook"), ("Valve Corporation", "Gabe Newell")),
    "thing": ("Ann", ("France", "Paris"), ("Japan", "Tokyo")),
}


def _draws(kind: str, n: int = 300):
    p1, p2 = PAIRS[kind]
    subject, first, second = NAMES[kind]
    for seed in range(n):
        rng = random.Random(f"{kind}:{seed}")
        conds = [first, second] if seed % 2 else [second, first]
        options = [first[0], second[0]] if seed % 3 else [second[0], first[0]]
        q, frame = mt_question(
            p1=p1, p2=p2, subject=subject, conditionals=conds, options=options, rng=rng
        )
        yield q, frame, conds, options


def _conditionals(body: str) -> list[str]:
    """The two conditionals of a question body, lead and joining words removed, lower case."""
    for lead in sorted(mt_wording._LEADS, key=len, reverse=True):
        if lead and body.startswith(lead):
            body = body[len(lead) :]
            break
    joins = "|".join(re.escape(j) for j in sorted(set(mt_wording._JOINS), key=len, reverse=True))
    parts = re.split(joins, body)
    assert len(parts) == 2, body
    return sorted(p.lower() for p in parts)


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_both_conditionals_share_one_shape_and_nothing_follows(kind):
    frames = set()
    for q, frame, conds, options in _draws(kind):
        frames.add(frame)
        text = normalize(q)
        assert not any(re.search(rf"\b{w}\b", text) for w in FOLLOWS_WORDS), q
        assert not re.search(r"\b(were|would|not|never)\b", text), q  # no negation, indicative
        # swapping the two options' names turns one conditional into the other's wording
        (c1, v1), (c2, v2) = conds
        body = q.rsplit(". ", 1)[0]
        swapped = (
            body.replace(c1, "\0").replace(c2, c1).replace("\0", c2)
            .replace(v1, "\0").replace(v2, v1).replace("\0", v2)
        )  # fmt: skip
        assert _conditionals(swapped) == _conditionals(body), q
        # the first conditional comes first, the options in their order in the last sentence
        assert body.find(c1) < body.find(c2)
        ask = q.rsplit(". ", 1)[1]
        assert ask.endswith("?") and ask.find(options[0]) < ask.find(options[1]), q
    assert frames == set(range(len(mt_wording.FRAMES)))


def test_every_sentence_starts_with_a_capital_and_leads_say_no_verdict():
    for kind in PAIRS:
        for q, *_ in _draws(kind, 100):
            for sentence in re.split(r"(?<=[.?]) ", q):
                assert sentence[:1].isupper(), q
    for lead in mt_wording._LEADS:
        assert not any(w in lead.lower() for w in ("therefore", "so ", "hence", "false", "true"))
