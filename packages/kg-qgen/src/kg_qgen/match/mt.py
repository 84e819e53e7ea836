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
negated, and ``slot`` numbers the four cells of a relation pair into quads that the sampler
keeps whole, so names and relation words say nothing about the answer. Each question draws its
own wording of the conditional and the ask from paraphrases that share their words across forms,
and the build filters the kept set's draws adversarially (``kg_qgen.wording_filter``) so that no
word or word pair reads the answer either (``kg_qgen.verify.balance`` measures it). (Round one asked both polarities of a chain as a
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

NO_DISTRACTOR = "no other chain can take this chain's bridge as its distractor (no mirror)"
NOT_IDENTIFYING = "the second hop's object does not identify its subject (no negative form)"


def answer_for(form: str, polarity: str) -> str:
    """The gold answer of an MT cell (module docs)."""
    return "yes" if (form == "negative") != (polarity == "negated") else "no"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    """Every chain gives a negative question; positives MIRROR negatives (module docs).

    A positive's distractor is the candidate of a negative question of the same relation pair
    (the real bridge of another chain), its ask has the same polarity and both share ``slot``.
    So each entity is a candidate (and its r2 value a consequent) as often in positive as in
    negative questions, and names say nothing about the form (with distractors drawn by
    frequency, "america" flipped by "not" was right on 0.69 of a MQuAKE set). Matching is
    greedy, negatives with rare candidates first (they can use the hub's chains).
    """
    chains = _collect_chains(index, cfg, rng, stats)
    out: list[Match] = []
    for key in sorted(chains):
        group = chains[key]
        mirrored, lone = _mirror(index, cfg, group, stats)
        rng.shuffle(mirrored)
        for k, (i, j, d_fact) in enumerate(mirrored):
            polarity = ("plain", "negated")[k % 2]
            (f1, f2), (g1, g2) = group[i], group[j]
            out.append(_match([f1, f2], f1, "negative", polarity, f2, None, len(out), k // 2))
            out.append(
                _match(
                    [g1, g2, d_fact], g1, "positive", polarity, d_fact, g1.object, len(out), k // 2
                )
            )
        base = (len(mirrored) + 1) // 2
        for k, i in enumerate(lone):
            f1, f2 = group[i]
            polarity = ("plain", "negated")[k % 2]
            out.append(
                _match(
                    [f1, f2], f1, "negative", polarity, f2, None, len(out), base + k // 2 + 10**6
                )
            )
    return out


def _collect_chains(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None
) -> dict[tuple[str, str], list[tuple[Fact, Fact]]]:
    """Two-hop chains whose second hop identifies its subject, by relation pair, seeded."""
    chains: dict[tuple[str, str], list[tuple[Fact, Fact]]] = {}
    n_chains = 0
    for f1 in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and n_chains >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        for f2 in index.chains(f1, rng, 1):
            if not index.identifies_subject(f2.relation, f2.object):
                note(stats, NOT_IDENTIFYING)
                continue
            chains.setdefault((f1.relation, f2.relation), []).append((f1, f2))
            n_chains += 1
    return chains


def _mirror(
    index: GraphIndex,
    cfg: MatchConfig,
    group: list[tuple[Fact, Fact]],
    stats: Counter[str] | None,
) -> tuple[list[tuple[int, int, Fact]], list[int]]:
    """Within one relation pair: (negative chain, positive chain, distractor fact) for each
    negative that found a mirror, greedily, rare candidates first; and the chains that found
    none."""
    freq = Counter(f1.object for f1, _ in group)
    order = sorted(range(len(group)), key=lambda i: (freq[group[i][0].object], i))
    # positives come from the hub's chains first: rare candidates can use them, the hub's
    # own candidate cannot
    by_hub = sorted(range(len(group)), key=lambda j: (-freq[group[j][0].object], j))
    used: set[int] = set()  # chains already used for a positive
    mirrored: list[tuple[int, int, Fact]] = []  # (negative chain, positive chain, d fact)
    lone: list[int] = []
    for i in order:
        f1, _f2 = group[i]
        hit = None
        if cfg.max_per_target > 1:
            for j in by_hub:
                if j == i or j in used:
                    continue
                fact = _usable(index, group[j][0], group[j][1], f1.object)
                if fact is not None:
                    hit = (j, fact)
                    break
        if hit is None:
            note(stats, NO_DISTRACTOR)
            lone.append(i)
            continue
        used.add(hit[0])
        mirrored.append((i, hit[0], hit[1]))
    return mirrored, lone


def _match(
    premises: list[Fact],
    f1: Fact,
    form: str,
    polarity: str,
    cand_fact: Fact,
    bridge: str | None,
    number: int,
    slot: int,
) -> Match:
    return Match(
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
            "candidate": cand_fact.subject,
            "consequent": cand_fact.object,
            "pair": number,
            "slot": slot,
        },
    )


def _usable(index: GraphIndex, f1: Fact, f2: Fact, d: str) -> Fact | None:
    """(d r2 v) when d can be the distractor of chain (f1, f2): another r1 object than the real
    one, one r2 value v different from the real one, no word shared with the masked bridge."""
    if d in index.objects(f1.subject, f1.relation) or d == f1.subject:
        return None
    if not index.is_unique(d, f2.relation):
        return None
    v = index.objects(d, f2.relation)[0]
    if v in (f2.object, f1.subject, f1.object):
        return None
    real = (index.norm_label(f1.object), index.norm_label(f2.object))
    if index.norm_label(d) in real or index.norm_label(v) in real:
        return None
    masked = index.long_tokens(f1.object)
    if masked and (masked & index.long_tokens(d) or masked & index.long_tokens(v)):
        return None
    return next(x for x in index.by_subject[d] if x.relation == f2.relation)
