"""The logic check of an MT record (:mod:`kg_qgen.match.mt`), re-derived from the graph.

Premises: the target (s r1 k), the gold's second hop (k r2 n_k) and the distractor's (m r2 n_m),
each a fact, r1 single-valued for s and r2 for k and m. The record is a valid modus tollens item
when: the answer is k; the options (``option_ids``, two) are exactly k and m (``distractor_id``),
m is an r1 object of some subject but not of s; n_m != n_k (the distractor's conditional has a
false consequent, so modus tollens rules m out, and the gold's has a true one); the
``conditionals`` are exactly (k, n_k) and (m, n_m); the question names the subject, both options
and both consequents; and it never says that something follows from the premises ("it follows",
"therefore", "hence", "thus", "consequently": nothing does without the world's fact) nor uses the
subjunctive ("were", "would").
"""

from __future__ import annotations

from kg_qgen.match.index import GraphIndex
from kg_qgen.textnorm import contains_phrase
from kg_qgen.verify.logic import MOOD_WORDS, Ids, _chain, _mentions, _unique

__all__ = ["FOLLOWS_WORDS", "check_mt"]

FOLLOWS_WORDS = ("it follows", "follows that", "therefore", "hence", "thus", "consequently")


def check_mt(idx: GraphIndex, r: dict, p: list[Ids], text: str) -> str | None:
    """Why the MT record ``r`` (premise ids ``p``, normalised question ``text``) is not a valid
    instance (module docs), or None."""
    g = idx.graph
    if len(p) != 3:
        return "MT needs 3 premises: the target, the gold's second hop, the distractor's"
    why = _chain(idx, r, p[:2])
    if why:
        return why
    (s, r1, k), (_, r2, n_k), (m, r2m, n_m) = p
    if r2m != r2:
        return "the distractor's fact is not of the second hop's relation"
    if r.get("answer_id") != k:
        return "the answer is not the object of the target fact"
    opts = [str(o) for o in r.get("option_ids") or []]
    if len(opts) != 2 or set(opts) != {k, m} or r.get("distractor_id") != m:
        return "MT needs two options: the gold and the distractor of the third premise"
    if r.get("options") != [g.label(o) for o in opts]:
        return "options are not the labels of option_ids"
    if m in idx.objects(s, r1) or m not in idx.relation_objects(r1):
        return f"the distractor {g.label(m)!r} is a true answer or not of the gold's class"
    why = _unique(idx, m, r2)
    if why:
        return why
    if n_m == n_k:
        return "both conditionals have a true consequent: nothing rules the distractor out"
    conds = r.get("conditionals") or []
    got = {(c.get("candidate_id"), c.get("consequent_id")) for c in conds}
    if len(conds) != 2 or got != {(k, n_k), (m, n_m)}:
        return "the conditionals must be (gold, its r2 value) and (distractor, its r2 value)"
    for ent, what in ((s, "subject"), (k, "gold"), (m, "distractor"), (n_k, "consequent")):
        if not _mentions(text, g, ent):
            return f"the question does not name the {what} {g.label(ent)!r}"
    if not _mentions(text, g, n_m):
        return f"the question does not name the consequent {g.label(n_m)!r}"
    for word in (*FOLLOWS_WORDS, *MOOD_WORDS):
        if contains_phrase(text, word):
            return f"{word!r}: nothing follows from the stated premises alone (or mood cue)"
    return None
