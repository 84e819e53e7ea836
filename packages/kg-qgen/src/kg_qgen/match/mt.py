"""MT (modus tollens, (A -> B) and not-B |- not-A) on a two-hop chain; every item needs MT.

Chain: the target (s r1 b), the fact to forget, and (b r2 o2). The question states a conditional
A -> B whose consequent B is FALSE, and asks (yes/no) about its antecedent A. Two forms:

* **positive** (candidate d, another r1 object, with (d r2 v) a fact and v != o2): "if the r1 of
  s is d, then the r2 of the r1 of s is v". The conditional holds (it is the fact (d r2 v)).
  not-B ("the r2 of the r1 of s is not v") is known only through the target fact (r1(s) = b,
  r2(b) = o2 != v); modus tollens gives not-A: the r1 of s is not d.
* **negative** (candidate b itself): "if the r1 of s is not b, then the r2 of the r1 of s is not
  o2". The conditional holds only because o2 identifies b (r2 is inverse-functional:
  :meth:`GraphIndex.identifies_subject`, e.g. a city is the capital of one country). not-B ("the
  r2 of the r1 of s is o2") is known only through the target fact; modus tollens gives not-A: the
  r1 of s is b.

In both forms the antecedent is false and the consequent is false: no item is a control that is
answered by affirming a true antecedent. The ask is about A's proposition in the last sentence,
plain ("... the r1 of s is c?") or negated ("... the r1 of s is not c?"). Answer = "yes" exactly
when (form is negative) != (ask is negated). Each chain gives a negative question and (when a
distractor exists) a positive one; along each (relation pair, form) the ask alternates plain /
negated, and ``slot`` numbers the four cells of a relation pair into quads that the generator
words alike and the sampler keeps whole, so relation words say nothing about the answer, and the generator draws the wording of the conditional and the ask
from several paraphrases that share their words across forms, so no word or word pair does
either (``kg_qgen.verify.balance`` measures it). (Round one asked both polarities of a chain as a
pair; a pair's two questions are near copies, which kept MT's self-BLEU at 0.92 or more.)

Only chains whose second hop identifies its subject are used (a negative form must be possible),
so the same relation chains give both forms. Target = (s r1 b). Bridge = b for the positive form
(masked: neither b nor o2 may appear), None for the negative one (it names b and o2). Premises:
target, (b r2 o2), and for the positive form the distractor fact (d r2 v). ``extra``:
``antecedent`` ("false": the stated antecedent is always false), ``form``
("positive"/"negative"), ``polarity`` ("plain"/"negated", of the ask), ``candidate`` (c),
``consequent`` (v, or o2 for the negative form), ``pair`` (the question's number: one question
each, no yes/no partner), ``slot`` (its quad within the relation pair).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.graph import Fact
from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

_TRIES = 8  # random distractor draws per chain before giving up
NO_DISTRACTOR = "no distractor whose r2 value differs from the real one"
NOT_IDENTIFYING = "the second hop's object does not identify its subject (no negative form)"


def answer_for(form: str, polarity: str) -> str:
    """The gold answer of an MT cell (module docs)."""
    return "yes" if (form == "negative") != (polarity == "negated") else "no"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    out: list[Match] = []
    # per (relation pair, form): questions so far; the ask alternates plain/negated along it and
    # ``slot`` (its half) ties the four cells of one relation pair into a balanced quad
    counter: Counter[tuple[str, str, str]] = Counter()
    for f1 in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        for f2 in index.chains(f1, rng, 1):
            if not index.identifies_subject(f2.relation, f2.object):
                note(stats, NOT_IDENTIFYING)
                continue
            cells: list[tuple[str, list[Fact], str, str, str | None]] = [
                ("negative", [f1, f2], f1.object, f2.object, None)
            ]
            d_fact = _distractor(index, f1, f2, rng) if cfg.max_per_target > 1 else None
            if d_fact is not None:
                premises = [f1, f2, d_fact]
                cells.append(("positive", premises, d_fact.subject, d_fact.object, f1.object))
            else:
                note(stats, NO_DISTRACTOR)
            for form, premises, candidate, consequent, bridge in cells:
                key = (f1.relation, f2.relation, form)
                # positives start two places later, so a chain's two questions fall into
                # different quads (a quad shares its wording; siblings share the subject)
                k = counter[key] + (2 if form == "positive" else 0)
                counter[key] += 1
                polarity = ("plain", "negated")[k % 2]
                out.append(
                    Match(
                        "MT",
                        premises,
                        target=f1,
                        bridge=bridge,
                        answer=answer_for(form, polarity),
                        answer_is_entity=False,
                        extra={
                            "antecedent": "false",
                            "form": form,
                            "polarity": polarity,
                            "candidate": candidate,
                            "consequent": consequent,
                            "pair": len(out),
                            "slot": k // 2,
                        },
                    )
                )
    return out


def _distractor(index: GraphIndex, f1: Fact, f2: Fact, rng: random.Random) -> Fact | None:
    """A fact (d r2 v) with d another r1 object (drawn by frequency) and v != the real r2 value."""
    facts = index.by_relation[f1.relation]
    own = set(index.objects(f1.subject, f1.relation))
    masked = index.long_tokens(f1.object)
    real = (index.norm_label(f1.object), index.norm_label(f2.object))
    for _ in range(_TRIES):
        d = facts[rng.randrange(len(facts))].object
        if d in own or d == f1.subject or not index.is_unique(d, f2.relation):
            continue
        v = index.objects(d, f2.relation)[0]
        if v in (f2.object, f1.subject, f1.object):
            continue
        if index.norm_label(d) in real or index.norm_label(v) in real:
            continue
        if masked and (masked & index.long_tokens(d) or masked & index.long_tokens(v)):
            continue  # it would share a word with the masked bridge
        return next(x for x in index.by_subject[d] if x.relation == f2.relation)
    return None
