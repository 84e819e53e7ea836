"""``kg-qgen score``: LLM quality judges over a built question set (paper table 6)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import click

__all__ = ["score_command"]


def _check_out_dir(out: Path) -> None:
    """A one-line error now when ``out`` cannot be created or written (nothing is created here)."""
    probe = out
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise click.UsageError(
            f"--out {out}: cannot write there ({probe} is not a writable folder)"
        )


def _paired(name: str, values: tuple[str, ...], n: int) -> list[str | None]:
    """One value per judge: as many as judges, or one shared by all, or none."""
    if not values:
        return [None] * n
    if len(values) == 1:
        return [values[0]] * n
    if len(values) != n:
        raise click.UsageError(
            f"{name} given {len(values)} times for {n} --judge-model; give it once (shared) "
            "or once per judge, in the same order"
        )
    return list(values)


# long: a click command; its 17 options take 18 lines of signature and its --help text 8 more;
# the body only wires them to the helpers below (split from 116 lines in issue 23).
@click.command("score")
@click.argument("set_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--judge-model", "models", multiple=True, required=True,
              help="Judge model name; repeat for several judges.")  # fmt: skip
@click.option("--base-url", "base_urls", multiple=True, required=True,
              help="OpenAI-compatible endpoint of each judge (once per --judge-model, or once for all).")  # fmt: skip
@click.option("--judge-name", "names", multiple=True,
              help="Name of each judge in the table [default: the model].")  # fmt: skip
@click.option("--api-key-env", "key_envs", multiple=True,
              help="Environment variable holding each judge's API key [default: "
              "KG_QGEN_LLM_API_KEY, then OPENAI_API_KEY]. Keys are never options.")  # fmt: skip
@click.option("--sample", type=click.IntRange(min=0), default=0, show_default=True,
              help="Questions per type, seeded uniform sample (the review app's sample for the "
              "same --sample/--seed); 0 = every question.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder [default: SET_DIR/quality].")  # fmt: skip
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Completion cache [default: OUT/cache].")  # fmt: skip
@click.option("--no-cache", is_flag=True, help="Do not cache completions.")
@click.option("--review-db", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Human annotations for the agreement [default: SET_DIR/review.sqlite if present].")  # fmt: skip
@click.option("--max-concurrency", type=click.IntRange(min=1), default=8, show_default=True,
              help="Requests in flight per judge.")  # fmt: skip
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True)
@click.option("--max-retries", type=click.IntRange(min=0), default=4, show_default=True)
@click.option("--max-parse-retries", type=click.IntRange(min=0), default=2, show_default=True)
@click.option("--temperature", type=click.FloatRange(min=0), default=0.0, show_default=True)
@click.option("--bootstrap", type=click.IntRange(min=0), default=2000, show_default=True,
              help="Bootstrap resamples for the CIs.")  # fmt: skip
def score_command(
    set_dir: Path,
    models: tuple[str, ...],
    base_urls: tuple[str, ...],
    names: tuple[str, ...],
    key_envs: tuple[str, ...],
    sample: int,
    seed: int,
    out_dir: Path | None,
    cache_dir: Path | None,
    no_cache: bool,
    review_db: Path | None,
    max_concurrency: int,
    timeout: float,
    max_retries: int,
    max_parse_retries: int,
    temperature: float,
    bootstrap: int,
) -> None:
    """Rate every question (or a sample) 0-100 on logical correctness, clarity and naturalness
    with one or several OpenAI-compatible LLM judges (paper appendix F.1, table 6).

    Writes OUT/scores.jsonl (one line per question and judge), OUT/table6.json and
    OUT/table6.md (mean score per type and judge with 95% bootstrap CIs; the human row and the
    judges' agreement with the human verdicts when SET_DIR/review.sqlite exists).
    """
    from kg_qgen.llm.backend import make_backend
    from kg_qgen.llm.cache import CachedBackend
    from kg_qgen.quality.judge import QualityJudge, score_with_judges
    from kg_qgen.quality.prompt import QUALITY_PROMPT_VERSION
    from kg_qgen.quality.table import table6

    n = len(models)
    urls = _paired("--base-url", base_urls, n)
    judge_names = _paired("--judge-name", names, n)
    envs = _paired("--api-key-env", key_envs, n)
    out = out_dir or set_dir / "quality"
    records = _records_to_score(set_dir, review_db, out, sample, seed)
    judges = []
    for model, url, name, env in zip(models, urls, judge_names, envs, strict=True):
        backend: Any = make_backend(
            "openai", base_url=url, model=model, api_key=_api_key(env),
            max_concurrency=max_concurrency, timeout=timeout, max_retries=max_retries, seed=seed,
        )  # fmt: skip
        if not no_cache:
            backend = CachedBackend(backend, cache_dir or out / "cache", QUALITY_PROMPT_VERSION)
        judges.append(QualityJudge(
            backend, name=name or model, max_parse_retries=max_parse_retries,
            temperature=temperature,
        ))  # fmt: skip

    click.echo(
        f"scoring {len(records)} questions with {n} judge(s): {', '.join(j.name for j in judges)}"
    )
    t0 = time.perf_counter()
    scores = score_with_judges(records, judges)
    elapsed = time.perf_counter() - t0

    db = review_db or set_dir / "review.sqlite"
    human, annotations = _human_verdicts(db)

    table = table6(scores, human=human, annotations=annotations, n_resamples=bootstrap, seed=seed)
    table["settings"] = {
        "set_dir": str(set_dir), "n_questions": len(records), "sample_per_type": sample or None,
        "seed": seed, "judges": [j.describe() for j in judges],
        "review_db": str(db) if annotations else None, "wall_time_s": round(elapsed, 3),
        "s_per_100_questions_per_judge": round(100 * elapsed / max(1, len(records)), 3),
    }  # fmt: skip
    click.echo(_write_scores(out, scores, table))
    _echo_cache_use(judges)
    click.echo(
        f"scored {len(records)} questions x {n} judge(s) in {elapsed:.2f} s "
        f"({100 * elapsed / max(1, len(records)):.2f} s per 100 questions, judges in parallel); "
        f"wrote {out / 'scores.jsonl'}, {out / 'table6.json'}, {out / 'table6.md'}"
    )


def _echo_cache_use(judges: list[Any]) -> None:
    for j in judges:
        hits = getattr(j.backend, "hits", None)
        if hits is not None:
            click.echo(f"{j.name}: cache {hits} hit(s), {j.backend.misses} miss(es)")


def _records_to_score(
    set_dir: Path, review_db: Path | None, out: Path, sample: int, seed: int
) -> list[dict]:
    """The set's questions (a seeded sample per type with ``sample``), after every refusal that
    can come before the first request: the set, the review database, the output folder."""
    from kg_qgen.review.sampling import read_questions, sample_per_type

    _, records = read_questions(set_dir)
    if not records:
        raise click.UsageError(f"{set_dir}: questions.jsonl holds no questions to score")
    if review_db is not None and not review_db.is_file():
        raise click.UsageError(f"--review-db {review_db}: no such file")
    _check_out_dir(out)
    if sample:
        chosen = {it.item_id for it in sample_per_type(records, per_type=sample, seed=seed)}
        records = [r for r in records if r["id"] in chosen]
    return records


def _api_key(env: str | None) -> str | None:
    """The key from ``--api-key-env``'s variable (None without the option)."""
    if env is None:
        return None
    api_key = os.environ.get(env)
    if not api_key:
        raise click.UsageError(f"--api-key-env {env}: that environment variable is not set")
    return api_key


def _human_verdicts(db: Path) -> tuple[Any, Any]:
    """(human summary, annotations) from the review database, (None, None) without one."""
    if not db.is_file():
        return None, None
    from kg_qgen.review.storage import ReviewStore
    from kg_qgen.review.summary import summarize

    store = ReviewStore(db)
    annotations = store.annotations()
    return (summarize(store.sample(), annotations) if annotations else None), annotations


def _write_scores(out: Path, scores: dict, table: dict[str, Any]) -> str:
    """OUT/scores.jsonl, OUT/table6.json and OUT/table6.md; the table's text."""
    from kg_qgen.quality.table import format_table6

    out.mkdir(parents=True, exist_ok=True)
    with (out / "scores.jsonl").open("w", encoding="utf-8") as fh:
        for items in scores.values():
            for s in items:
                fh.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
    (out / "table6.json").write_text(
        json.dumps(table, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    text = format_table6(table)
    (out / "table6.md").write_text(text + "\n", encoding="utf-8")
    return text
