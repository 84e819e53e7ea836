"""MT (modus tollens, (A -> B) and not-B |- not-A) on a two-hop chain, balanced yes/no by design.

Chain: the target (s r1 b) and (b r2 o2). The question states, in the indicative mood, the
conditional "if the r1 of s is c, then its r2 is v", where (c r2 v) is a fact, and asks whether
the r1 of s is c ("plain") or is not c ("negated"). The candidate c is either the real r1 object b
(true antecedent, v = o2) or a distractor d with a different r2 value (false antecedent, v = r2(d)
!= o2). Answer = "yes" exactly when (antecedent true) != (negated).

Why every cell needs the target fact (s r1 b), the fact to forget:

* **false antecedent, plain** ("is the r1 of s d?" -> no): the conditional holds (it is the fact
  (d r2 v)); the reader who knows r1(s) = b knows r2(r1(s)) = o2 != v, i.e. not-B, and so not-A
  by modus tollens (or directly: b != d). Without the target fact nothing rules d out.
* **false antecedent, negated** ("is the r1 of s not d?" -> yes): the same derivation of not-A.
* **true antecedent, plain** ("is the r1 of s b?" -> yes): B is true (r2(b) = o2 = v), so modus
  tollens does not fire and nothing in the question decides A; only the target fact affirms it.
* **true antecedent, negated** ("is the r1 of s not b?" -> no): likewise only the target fact.

Balance by construction: chains alternate between true and false antecedents, and every chain
yields BOTH polarities as a pair of questions worded identically except for "not" (``pair`` ties
them; sampling keeps or drops a pair whole). So every word of a question occurs equally often in
yes and no items, the word "not" is yes in half its uses, and the mood never differs (no
subjunctive "were" for false antecedents). ``kg_qgen.verify`` measures it with a one-cue
classifier.

Target = (s r1 b). Bridge = b for a false antecedent (masked: neither b nor o2 may appear), None
for a true one (the question names b as the candidate). Premises: target, (b r2 o2), and for a
false antecedent the distractor fact (d r2 v). Distractors are drawn in proportion to how often
they are an r1 object (the same distribution as true candidates), so a candidate's name says
nothing about the antecedent either. ``extra``: ``antecedent`` ("true"/"false"), ``polarity``
("plain"/"negated"), ``candidate`` (c), ``consequent`` (v), ``pair`` (chain number).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.graph import Fact
from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, sample_targets

_TRIES = 8  # random distractor draws per chain before giving up
NO_DISTRACTOR = "no distractor whose r2 value differs from the real one"


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    out: list[Match] = []
    chains_per_target = max(1, cfg.max_per_target // 2)  # each chain is a pair of questions
    n_chains = 0
    for f1 in sample_targets(index.facts, rng):
        if cfg.max_matches is not None and len(out) >= cfg.max_matches:
            break
        if cfg.require_unique and not index.is_unique(f1.subject, f1.relation):
            continue
        for f2 in index.chains(f1, rng, chains_per_target):
            true_antecedent = n_chains % 2 == 0
            if true_antecedent:
                premises, candidate, consequent, bridge = [f1, f2], f1.object, f2.object, None
            else:
                d_fact = _distractor(index, f1, f2, rng)
                if d_fact is None:
                    note(stats, NO_DISTRACTOR)
                    continue
                premises = [f1, f2, d_fact]
                candidate, consequent, bridge = d_fact.subject, d_fact.object, f1.object
            for negated in (False, True):
                out.append(
                    Match(
                        "MT",
                        premises,
                        target=f1,
                        bridge=bridge,
                        answer="yes" if true_antecedent != negated else "no",
                        answer_is_entity=False,
                        extra={
                            "antecedent": "true" if true_antecedent else "false",
                            "polarity": "negated" if negated else "plain",
                            "candidate": candidate,
                            "consequent": consequent,
                            "pair": n_chains,
                        },
                    )
                )
            n_chains += 1
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
