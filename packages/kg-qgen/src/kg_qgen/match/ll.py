"""LL (Leibniz's law, x = y and A(x) |- A(y)): a fact asked through an alias of its subject.

Target = the fact (s r o); answer = o; bridge = None; ``extra["alias"]`` = the alias of s the
question uses (the label of s does not appear). Aliases come from the graph (Wikidata aliases; in
MQuAKE the previous hop's ``answer_alias``). An alias is used only when it identifies s on its own
(:func:`kg_qgen.semantics.aliases.alias_problem`): it resolves to exactly one entity of the graph,
is not a code or abbreviation (three characters or fewer, or mostly initials), is not a fragment
of the label (a given name or surname alone), and contains neither the label nor the answer
nor a word of four letters or more of the answer ("Russian Federation" asked for the Russian
ruble: the name-leak check would refuse the question).
"""

from __future__ import annotations

import random
from collections import Counter

from kg_qgen.match.base import Match, note
from kg_qgen.match.index import GraphIndex, MatchConfig, target_facts
from kg_qgen.textnorm import contains_phrase, long_tokens, normalize


def usable_aliases(
    index: GraphIndex, subject: str, answer: str, stats: Counter[str] | None = None
) -> list[str]:
    """Aliases of ``subject`` that identify it and do not contain the answer."""
    verdicts = [(alias, norm) for alias, norm, why in index.alias_verdicts(subject) if why is None]
    if not verdicts:
        return []
    g = index.graph
    banned = [index.norm_label(answer), *(normalize(x) for x in g.aliases(answer))]
    answer_words = index.long_tokens(answer)
    out = []
    for alias, norm in verdicts:
        if any(b and contains_phrase(norm, b) for b in banned):
            note(stats, "the alias contains the answer")
        elif long_tokens(norm) & answer_words:  # the name-leak check would refuse it
            note(stats, "the alias shares a word with the answer")
        else:
            out.append(alias)
    return out


def find(
    index: GraphIndex, cfg: MatchConfig, rng: random.Random, stats: Counter[str] | None = None
) -> list[Match]:
    out: list[Match] = []
    candidates = index.alias_facts()
    if stats is not None:  # aliases refused for not identifying their entity, once each
        stats.update(index.alias_rejections)
    for f in target_facts(index, candidates, cfg, rng, out):
        aliases = usable_aliases(index, f.subject, f.object, stats)
        if not aliases:
            continue
        for alias in rng.sample(aliases, min(cfg.max_per_target, len(aliases))):
            out.append(
                Match("LL", [f], target=f, bridge=None, answer=f.object, extra={"alias": alias})
            )
    return out[: cfg.max_matches] if cfg.max_matches is not None else out
