"""MT wordings (issue 21, "wording"): every combination reads as a plain conditional.

Generated here over every line of both forms, every frame, lead and ask (seeded draws), on a
relation pair whose r2 objects are people (developer -> CEO) and one whose are things
(citizenship -> capital), with and without the relations' verbs.
"""

import random
import re

import pytest
from kg_qgen.generate import mt_wording
from kg_qgen.generate.mt_wording import _NEGATIVE, _POSITIVE, mt_question
from kg_qgen.generate.phrasing import phrase_for
from kg_qgen.textnorm import normalize

# double negatives and the stiff identity words they came with ("is not other than Valve
# Corporation", "is not anything other than", "is distinct from")
_STIFF = re.compile(
    r"\bnot (anything |something |anyone |someone |somebody )?(other than|but|different|distinct)"
    r"|\bis (anything|something) (other than|but)\b|\bdistinct from\b|\bidentical to\b"
    r"|\bthe same as\b|\bcannot be (anyone|anything|someone|something) (other|but|else)\b"
)
PAIRS = {
    "person": (phrase_for("P178", "developer"), phrase_for("P169", "chief executive officer")),
    "thing": (phrase_for("P27", "country of citizenship"), phrase_for("P36", "capital")),
}
NAMES = {"person": ("Zork", "Apple Inc.", "Tim Cook"), "thing": ("Ann", "France", "Paris")}


def _draws(kind: str, form: str, n: int = 300, **kw):
    p1, p2 = PAIRS[kind]
    subject, candidate, consequent = NAMES[kind]
    for seed in range(n):
        polarity = ("plain", "negated")[seed % 2]
        q, frame = mt_question(
            p1=p1,
            p2=p2,
            subject=subject,
            candidate=candidate,
            consequent=consequent,
            form=form,
            polarity=polarity,
            candidate_pronoun=kw.get("candidate_pronoun", "its"),
            subject_pronoun=kw.get("subject_pronoun"),
            rng=random.Random(f"{kind}:{form}:{seed}"),
        )
        conditional, ask = q.rsplit(". ", 1)
        yield conditional, ask, polarity, frame


@pytest.mark.parametrize("kind", sorted(PAIRS))
@pytest.mark.parametrize("form", ["negative", "positive"])
def test_no_double_negative_and_every_conditional_says_not(kind, form):
    frames = set()
    for conditional, ask, polarity, frame in _draws(kind, form):
        frames.add(frame)
        assert not _STIFF.search(conditional), conditional
        # "not" in every conditional: the negated ask's "not" must not read the answer of the
        # items whose conditional would lack it (kg_qgen.verify.balance)
        assert "not" in normalize(conditional).split(), conditional
        # the ask is the antecedent's proposition, "not" only where it is negated
        assert ask.endswith(f" {NAMES[kind][1]}?") and NAMES[kind][0] in ask
        assert normalize(ask).split().count("not") == (polarity == "negated"), ask
        # a contrast that the frame goes on after is closed by a comma
        assert not re.search(r", not [^,;.]+ (if|in|whenever|as|provided|on|only)\b", conditional)
    assert len(frames) >= 15


def test_every_line_keeps_its_form():
    # negative: "if not c, then not v"; positive: "if c, then v" (the only ways each line may
    # say c and v, so a new line cannot turn a negative conditional into a positive one)
    neg_a = {"{t} is not {c}", "{t} isn't {c}", "{t} is {other1} {c}", "{t} is {else1}, not {c}"}
    neg_b = (r"^\{n\} is not \{v\}", r"\{other\} \{v\}$", r"not \{v\}$", r"\{v\} is not \{n\}$")
    neg_b += (r"^\{n\} cannot be \{v\}$", r"not \{v\}, is \{n\}$")
    pos_a = (r"^\{t\} is \{c\}(,| and| ?$)", r"^\{t\} is none other than \{c\}$")
    pos_a += (r"^\{t\} is not \{else1\} but \{c\}$",)
    pos_b = (r"^\{n\} (is|must be) \{v\}", r"^\{v\}(,| is)", r"(but|than) \{v\}$")
    assert len(_NEGATIVE) >= 10 and len(_POSITIVE) >= 10
    for a, b in _NEGATIVE:
        assert a in neg_a and any(re.search(x, b) for x in neg_b), (a, b)
        assert not re.search(r"^\{n\} is \{v\}|^\{v\} is \{n\}", b)
    for a, b in _POSITIVE:
        assert any(re.search(x, a) for x in pos_a) and any(re.search(x, b) for x in pos_b), (a, b)
        assert not re.search(r"not \{[cv]\}|\{[cv]\} is not|is not \{[cv]\}|cannot", a + b)


def test_its_only_where_it_can_only_mean_the_candidate():
    noun = "capital"
    # a thing subject ("Assuming sushi was created in Brazil, its capital city ..."): never
    for form in ("negative", "positive"):
        for conditional, *_ in _draws("thing", form, subject_pronoun="its"):
            assert f"its {noun}" not in conditional, conditional
    # a person subject: only in the positive form ("if Ann's country is not France, its
    # capital is not Paris" would read as France's capital)
    for conditional, *_ in _draws("thing", "negative", subject_pronoun="their"):
        assert f"its {noun}" not in conditional, conditional
    said = [c for c, *_ in _draws("thing", "positive", subject_pronoun="their") if "its " in c]
    assert said and all(re.search(r"\bits (capital|capital city)\b", c) for c in said)


def test_leads_fit_a_conditional():
    # no hypothesis called a fact ("Fact: On the assumption that ..."), no "Given:" before the
    # ask "Given that, ...?"
    assert not {"Fact: ", "Known: ", "Given: "} & set(mt_wording._LEADS)
    assert len(mt_wording._LEADS) >= 16 and len(mt_wording._FRAMES) >= 20
