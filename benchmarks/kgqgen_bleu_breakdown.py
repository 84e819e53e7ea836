"""Where does a built set's self-BLEU come from, and how low could templates take it?

Self-BLEU (``kg_qgen.stats.self_bleu``: each question's smoothed 4-gram BLEU against all the other
sampled questions) is high when many of a question's n-grams occur in *any* other question. This
script samples the questions exactly as ``kg-qgen stats`` does (500, seed 0) and prints:

* the pooled self-BLEU and each type's mean BLEU inside the pooled sample (its share of the mean);
* the mean BLEU per template frame (``SH/3``, ``DS/7``, ...);
* the 4-grams and 3-grams matched in the most questions (an n-gram is matched in a question when
  another sampled question has it), with the share of all matched n-grams they account for;
* a **content floor**: the same self-BLEU with every word outside an entity name (the subject,
  object, bridge, options, alias, partner, candidate, eliminated option) replaced by a token of its
  own, so only the names can match. Templates cannot go below it without removing names; the gap
  between it and the measured figure is what wording can still change.

    python benchmarks/kgqgen_bleu_breakdown.py SET_DIR [--sample 500] [--seed 0] [--top 25]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from kg_qgen.stats import WEIGHTS, _bleu_method1, _closest, _sample, tokenize


def per_question_bleu(toks: list[list[str]]) -> tuple[list[float], list[list[set]]]:
    """Each token list's BLEU against all the others (kg_qgen.stats' fast method), and per list
    and order n the set of its n-grams that some other list has."""
    max_n = len(WEIGHTS)
    grams = [
        [Counter(tuple(t[i : i + n]) for i in range(len(t) - n + 1)) for n in range(1, 5)]
        for t in toks
    ]
    top: list[dict[tuple, list[int]]] = [{} for _ in range(max_n)]
    for i, per_n in enumerate(grams):
        for n in range(max_n):
            for g, c in per_n[n].items():
                best = top[n].get(g)
                if best is None:
                    top[n][g] = [c, i, 0]
                elif c > best[0]:
                    top[n][g] = [c, i, best[0]]
                elif c > best[2]:
                    best[2] = c
    lengths = [len(t) for t in toks]
    scores, matched = [], []
    for i, per_n in enumerate(grams):
        m_all, totals, sets = [], [], []
        for n in range(max_n):
            m, hit = 0, set()
            for g, c in per_n[n].items():
                best_c, holder, second = top[n][g]
                k = min(c, second if holder == i else best_c)
                m += k
                if k:
                    hit.add(g)
            m_all.append(m)
            totals.append(max(1, lengths[i] - n))
            sets.append(hit)
        others = lengths[:i] + lengths[i + 1 :]
        scores.append(
            _bleu_method1(m_all, totals, lengths[i], _closest(others, lengths[i]), WEIGHTS)
        )
        matched.append(sets)
    return scores, matched


def names_of(q: dict) -> list[str]:
    out = []
    for p in q.get("premises") or []:
        out += [p.get("subject"), p.get("object")]
    out += [
        q.get("bridge"),
        q.get("answer"),
        q.get("alias"),
        q.get("partner"),
        q.get("candidate"),
        q.get("consequent"),
    ]
    out += list(q.get("options") or [])
    for e in q.get("eliminated") or []:  # DS: every ruled-out option's clue fact
        fact = e.get("fact") if isinstance(e, dict) else None
        if isinstance(fact, dict):
            out += [fact.get("subject"), fact.get("object")]
    return [x for x in out if isinstance(x, str) and x.strip()]


def content_only(q: dict, k: int) -> list[str]:
    """The question's tokens with every token outside an entity name made unique."""
    toks = tokenize(q["question"])
    keep = [False] * len(toks)
    for name in sorted(set(names_of(q)), key=len, reverse=True):
        nt = tokenize(name)
        for i in range(len(toks) - len(nt) + 1):
            if nt and toks[i : i + len(nt)] == nt:
                keep[i : i + len(nt)] = [True] * len(nt)
    return [t if keep[i] else f"#{k}.{i}" for i, t in enumerate(toks)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set_dir", type=Path)
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rows = [json.loads(x) for x in (args.set_dir / "questions.jsonl").read_text().splitlines() if x]
    by_text = {}
    for r in rows:
        by_text.setdefault(r["question"], r)
    # the same sample as kg-qgen stats (it samples the question texts)
    texts = _sample([r["question"] for r in rows], args.sample, args.seed)
    qs = [by_text[t] for t in texts]
    scores, matched = per_question_bleu([tokenize(t) for t in texts])
    print(f"pooled self-BLEU {sum(scores) / len(scores):.3f} (n={len(scores)})")
    per_type: dict[str, list[float]] = defaultdict(list)
    per_frame: dict[str, list[float]] = defaultdict(list)
    for q, s in zip(qs, scores, strict=True):
        per_type[q["type"]].append(s)
        per_frame[str(q.get("template") or q.get("extra", {}).get("template"))].append(s)
    total = sum(scores)
    for t, v in sorted(per_type.items()):
        print(
            f"  {t}: n={len(v)} mean BLEU in the pool {sum(v) / len(v):.3f}, "
            f"share of the pooled sum {sum(v) / total:.2f}"
        )
    print("frames by mean BLEU in the pool (n >= 5):")
    for f, v in sorted(per_frame.items(), key=lambda kv: -sum(kv[1]) / len(kv[1])):
        if len(v) >= 5:
            print(f"  {f}: n={len(v)} {sum(v) / len(v):.3f}")
    for n in (4, 3):
        c = Counter(g for sets in matched for g in sets[n - 1])
        allm = sum(c.values())
        print(f"{n}-grams matched in the most questions ({allm} matched {n}-gram slots):")
        for g, k in c.most_common(args.top):
            print(f"  {k:4d} {k / allm:.3f}  {' '.join(g)}")
    floor_toks = [content_only(q, i) for i, q in enumerate(qs)]
    fs, _ = per_question_bleu(floor_toks)
    print(f"content floor (template words made unique): {sum(fs) / len(fs):.3f}")
    for t in sorted(per_type):
        idx = [i for i, q in enumerate(qs) if q["type"] == t]
        sub, _ = per_question_bleu([floor_toks[i] for i in idx])
        print(f"  {t} alone: floor {sum(sub) / len(sub):.3f}")


if __name__ == "__main__":
    main()
