"""Base accuracy per question type with the ``bare`` and the ``answer-form`` prompt (issue 36 item 1).

The `types` preset's questions (built-in facts, 200 built per type, seed 0; SH: the run's single-hop
pool), a seeded subset of ``--n`` per type, asked to the base model only, greedily, under the run's
decoding protocol (chat template, ``--max-new-tokens``, decoding stops where the judge's committed
answer ends) and judged by the alias judge. Per type and form it prints accuracy, n, and how often
the committed sentence names no candidate answer (no option of an option type; for an open type no
entity of the knowledge base that the question does not name).

``--candidates`` instead compares instruction wordings on a disjoint seeded subset (``--n`` per
type), to choose the built-ins' instructions without looking at the reported questions.

``--dump FILE`` writes every response (JSONL) for labelling by reading; ``--sample K`` draws K per
type and form (seeded) into ``FILE.sample.jsonl`` WITHOUT verdicts, ``--agreement LABELS`` then
compares the judge with the labels (``{"key", "correct"}`` per line).

    OMP_NUM_THREADS=2 python benchmarks/prompt_forms.py --n 40 --dump /tmp/pf.jsonl
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

CANDIDATES = {
    "open": ("Answer in a few words.", "Answer briefly.", "Give only the answer."),
    "options": (
        "Answer with one of the options.",
        "Answer with the correct option only.",
        "Reply with just one option.",
    ),
}


def questions_by_type(n: int, seed: int, skip: int) -> dict[str, list[dict[str, Any]]]:
    """``n`` seeded questions per type of the `types` preset's set, after the first ``skip`` of
    the same seeded order (the wording choice uses the slice after the reported one)."""
    from leakres_cli.config.run_config import preset_config
    from leakres_cli.stages.questions import build_questions

    cfg = preset_config("types")
    by_type: dict[str, list[dict[str, Any]]] = {}
    for q in build_questions(cfg)["questions"]:
        by_type.setdefault(q["type"], []).append(q)
    out = {}
    for t in cfg.types:
        pool = sorted(by_type.get(t, []), key=lambda q: q["id"])
        random.Random(f"{seed}:prompt-forms:{t}").shuffle(pool)
        out[t] = pool[skip : skip + n]
    return out


def candidate_names() -> list[str]:
    """Every label and alias of the built-in knowledge base, lower-cased (the open types' answers)."""
    import kg_qgen

    g = kg_qgen.load_source("builtin")
    ents = {f.subject for f in g.facts()} | {f.object for f in g.facts()}
    names = set()
    for e in ents:
        names.add(g.label(e).lower())
        names.update(a.lower() for a in g.aliases(e))
    return sorted(n for n in names if len(n) > 1)


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def names_a_candidate(q: dict[str, Any], committed: str, names: list[str]) -> bool:
    """Whether the committed sentence names a possible answer: an option (option types), else the
    gold, an alias or any KB entity the question does not name."""
    text, question = committed.lower(), q["question"].lower()
    if q.get("options"):
        return any(_mentions(text, o.lower()) for o in q["options"])
    golds = [q["answer"].lower(), *(a.lower() for a in q.get("answer_aliases", []))]
    if any(_mentions(text, g) for g in golds):
        return True
    return any(_mentions(text, n) and not _mentions(question, n) for n in names)


def answer(model: Any, tokenizer: Any, prompts: list[str], max_new_tokens: int) -> list[str]:
    from leakres_cli.stages.answering import answer_end_kwargs
    from recover_attacks import generate

    out = generate(
        model, tokenizer, prompts, max_new_tokens=max_new_tokens, batch_size=64, seed=0,
        **answer_end_kwargs(),
    )  # fmt: skip
    return [r[0] for r in out]


def judge(questions: list[dict[str, Any]], responses: list[str]) -> list[bool | None]:
    from leak_metrics import get_judge, judge_any
    from leakres_cli.stages.judging import judge_record

    items = [judge_record(q, [r]) for q, r in zip(questions, responses, strict=True)]
    return [v.correct for v in judge_any(get_judge("alias"), items)]


def run_forms(args: argparse.Namespace, model: Any, tokenizer: Any) -> list[dict[str, Any]]:
    """Every (type, form, question) response with its verdict and committed sentence."""
    import kg_qgen
    from leak_metrics import committed_answer

    sets = questions_by_type(args.n, args.seed, 0)
    rows = []
    for form in args.forms.split(","):
        for t, qs in sets.items():
            prompts = [kg_qgen.render_prompt(q, form) for q in qs]
            started = time.perf_counter()
            responses = answer(model, tokenizer, prompts, args.max_new_tokens)
            verdicts = judge(qs, responses)
            print(f"  {form} {t}: {len(qs)} in {time.perf_counter() - started:.0f} s", flush=True)
            for q, p, r, v in zip(qs, prompts, responses, verdicts, strict=True):
                rows.append(
                    {"key": f"{form}|{q['id']}", "form": form, "type": t, "id": q["id"],
                     "prompt": p, "answer": q["answer"], "aliases": q.get("answer_aliases", []),
                     "options": q.get("options", []), "question": q["question"],
                     "response": r, "committed": committed_answer(r), "correct": v}
                )  # fmt: skip
    return rows


def table(rows: list[dict[str, Any]]) -> None:
    names = candidate_names()
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["type"], r["form"]), []).append(r)
    forms = list(dict.fromkeys(r["form"] for r in rows))
    head = [f"{f} accuracy" for f in forms] + [f"{f}: no candidate" for f in forms]
    print("| type | n | " + " | ".join(head) + " |")
    print("|---" * (2 + len(head)) + "|")
    for t in dict.fromkeys(r["type"] for r in rows):
        accs, nones = [], []
        for form in forms:
            rs = by[(t, form)]
            ok = sum(r["correct"] is True for r in rs)
            accs.append(f"{100 * ok / len(rs):.0f}% ({ok})")
            nones.append(str(sum(not names_a_candidate(r, r["committed"], names) for r in rs)))
        print(f"| {t} | {len(rs)} | {' | '.join(accs)} | {' | '.join(nones)} |")


def run_candidates(args: argparse.Namespace, model: Any, tokenizer: Any) -> None:
    """Accuracy per wording on the slice after the reported questions (never the reported ones)."""
    from kg_qgen.qtypes import get_question_type

    sets = questions_by_type(args.n, args.seed, args.skip)
    for kind, wordings in CANDIDATES.items():
        if args.kinds and kind not in args.kinds.split(","):
            continue
        types = [t for t in sets if get_question_type(t).answer_kind == kind]
        for wording in wordings:
            hits, total, per = 0, 0, []
            for t in types:
                qs = sets[t]
                prompts = [f"{q['question'].rstrip()} {wording}" for q in qs]
                verdicts = judge(qs, answer(model, tokenizer, prompts, args.max_new_tokens))
                ok = sum(v is True for v in verdicts)
                hits, total = hits + ok, total + len(qs)
                per.append(f"{t} {ok}/{len(qs)}")
            print(
                f"{kind:8} {wording!r:42} {hits}/{total} = {100 * hits / total:.0f}%  ({', '.join(per)})"
            )


def sample(rows: list[dict[str, Any]], k: int, seed: int, path: Path) -> None:
    """K seeded rows per (type, form), verdicts left out, for labelling by reading."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["type"], r["form"]), []).append(r)
    keep = (
        "key",
        "type",
        "form",
        "question",
        "answer",
        "aliases",
        "options",
        "committed",
        "response",
    )
    with path.open("w", encoding="utf-8") as fh:
        for key in sorted(by):
            for r in random.Random(f"{seed}:label:{key}").sample(by[key], min(k, len(by[key]))):
                fh.write(json.dumps({f: r[f] for f in keep}, ensure_ascii=False) + "\n")


def agreement(rows: list[dict[str, Any]], labels_path: Path) -> None:
    verdict = {r["key"]: r["correct"] for r in rows}
    per: dict[str, Counter] = {}
    for line in labels_path.read_text().splitlines():
        lab = json.loads(line)
        form = lab["key"].split("|")[0]
        c = per.setdefault(form, Counter())
        c["n"] += 1
        c["agree"] += verdict[lab["key"]] is lab["correct"]
        c["false_correct"] += verdict[lab["key"]] is True and not lab["correct"]
        c["false_wrong"] += verdict[lab["key"]] is False and lab["correct"]
    for form, c in per.items():
        print(f"{form}: judge agrees with the labels on {c['agree']} of {c['n']} "
              f"({100 * c['agree'] / c['n']:.1f}%); false correct {c['false_correct']}, "
              f"false wrong {c['false_wrong']}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", type=int, default=40, help="--candidates: questions to skip per type")
    ap.add_argument("--max-new-tokens", type=int, default=24)
    ap.add_argument("--candidates", action="store_true")
    ap.add_argument(
        "--kinds", default="", help="--candidates: answer kinds to compare (open,options)"
    )
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--forms", default="bare,answer-form", help="prompt forms to ask in")
    ap.add_argument("--load", type=Path, nargs="+", help="read the responses of earlier --dumps")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--agreement", type=Path)
    args = ap.parse_args()
    if args.load:
        rows = [json.loads(line) for path in args.load for line in path.read_text().splitlines()]
    else:
        import torch
        from leakres_cli.models.catalog import load_model

        print(f"CPU: {platform.processor() or platform.machine()}, torch threads "
              f"{torch.get_num_threads()}, float32")  # fmt: skip
        model, tokenizer, _ = load_model("smollm2-135m-instruct", dtype="float32")
        if args.candidates:
            run_candidates(args, model, tokenizer)
            return
        rows = run_forms(args, model, tokenizer)
        if args.dump:
            args.dump.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    table(rows)
    if args.sample:
        target = args.dump or args.load[0]
        sample(rows, args.sample, args.seed, target.with_suffix(".sample.jsonl"))
    if args.agreement:
        agreement(rows, args.agreement)


if __name__ == "__main__":
    main()
