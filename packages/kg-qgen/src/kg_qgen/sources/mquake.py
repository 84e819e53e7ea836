"""MQuAKE (princeton-nlp/MQuAKE) JSON files -> KnowledgeGraph.

From every case we take the pre-edit chain: ``orig.triples`` (Wikidata Q/P ids) with
``orig.triples_labeled`` (labels), and aliases from ``single_hops[i].answer_alias`` (the aliases of
hop i's object; MQuAKE has none for the first subject). The multi-hop ``questions`` are kept as
``graph.source_questions`` (baseline for ``kg-qgen stats``). Post-edit (counterfactual) triples
are ignored: an unlearning benchmark forgets true facts.

``load_mquake`` accepts a local path, an http(s) URL, or the name of a canonical file
(``MQuAKE-CF-3k-v2``, ``MQuAKE-CF-3k``, ``MQuAKE-CF``, ``MQuAKE-T``), which is fetched from the
princeton-nlp/MQuAKE GitHub repository once and cached on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph

__all__ = ["CANONICAL_FILES", "cache_path_for", "graph_from_mquake", "load_mquake", "resolve_url"]

REPO_RAW = "https://raw.githubusercontent.com/princeton-nlp/MQuAKE/main/datasets"
CANONICAL_FILES = ("MQuAKE-CF-3k-v2", "MQuAKE-CF-3k", "MQuAKE-CF", "MQuAKE-T")


def default_cache_dir() -> Path:
    """``$KG_QGEN_CACHE`` or ``~/.cache/kg_qgen``."""
    env = os.environ.get("KG_QGEN_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kg_qgen"


def resolve_url(name_or_url: str) -> str | None:
    """The download URL for a canonical name or an http(s) URL; None for anything else."""
    if name_or_url.startswith(("http://", "https://")):
        return name_or_url
    stem = name_or_url.removesuffix(".json")
    if stem in CANONICAL_FILES:
        return f"{REPO_RAW}/{stem}.json"
    return None


def cache_path_for(url: str, cache_dir: str | Path | None = None) -> Path:
    """Where a downloaded URL is cached: ``<cache>/mquake/<sha1[:12]>-<basename>``."""
    base = url.rstrip("/").rsplit("/", 1)[-1] or "data.json"
    digest = hashlib.sha1(url.encode()).hexdigest()[:12]
    return Path(cache_dir or default_cache_dir()) / "mquake" / f"{digest}-{base}"


def _download(url: str, dest: Path, timeout: float = 60.0) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    # write to a temp file in the same folder, then rename: no half-written cache entry
    fd, tmp = tempfile.mkstemp(dir=dest.parent, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh, urllib.request.urlopen(url, timeout=timeout) as resp:
            while chunk := resp.read(1 << 20):
                fh.write(chunk)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_mquake(
    path: str | Path, *, cache_dir: str | Path | None = None, limit: int | None = None
) -> KnowledgeGraph:
    """Load a MQuAKE JSON file (local path, URL or canonical name; see module docs)."""
    local = Path(path)
    if not local.exists():
        url = resolve_url(str(path))
        if url is None:
            raise KgQgenInputError(
                f"file not found (and not a URL or one of {', '.join(CANONICAL_FILES)})",
                path=str(path),
            )
        local = cache_path_for(url, cache_dir)
        if not local.exists():
            try:
                _download(url, local)
            except OSError as err:
                raise KgQgenInputError(f"could not download {url}: {err}", path=str(path)) from err
    try:
        data = json.loads(local.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise KgQgenInputError(
            f"invalid JSON: {err.msg}", path=str(local), line=err.lineno
        ) from err
    if limit is not None:
        data = data[:limit]
    return graph_from_mquake(data, path=str(local))


def _need(case: Any, key: str, path: str, i: int, field_prefix: str = "") -> Any:
    if not isinstance(case, dict) or key not in case:
        raise KgQgenInputError(
            "missing field", path=path, line=None, field=f"[{i}].{field_prefix}{key}"
        )
    return case[key]


def graph_from_mquake(data: Any, *, path: str = "<mquake>") -> KnowledgeGraph:
    if not isinstance(data, list):
        raise KgQgenInputError("expected a JSON array of cases", path=path)
    if not data:
        raise KgQgenInputError("no cases", path=path)
    kg = KnowledgeGraph()
    for i, case in enumerate(data):
        orig = _need(case, "orig", path, i)
        triples = _need(orig, "triples", path, i, "orig.")
        labeled = _need(orig, "triples_labeled", path, i, "orig.")
        if len(triples) != len(labeled):
            raise KgQgenInputError(
                "orig.triples and orig.triples_labeled differ in length", path=path, field=f"[{i}]"
            )
        case_id = case.get("case_id", i)
        hops = case.get("single_hops", [])
        for h, (ids, labels) in enumerate(zip(triples, labeled, strict=True)):
            if len(ids) != 3 or len(labels) != 3:
                raise KgQgenInputError(
                    "triple must have 3 items", path=path, field=f"[{i}].orig.triples[{h}]"
                )
            (s, p, o), (sl, pl, ol) = ids, labels
            kg.add_relation(p, pl)
            kg.add_entity(s, sl)
            aliases: list[str] = []
            # hop h's answer_alias belongs to its object only when the chain is aligned
            if h < len(hops) and hops[h].get("answer") == ol:
                aliases = list(hops[h].get("answer_alias", []))
            kg.add_entity(o, ol, aliases)
            kg.add_fact(s, p, o, source=f"mquake:{case_id}")
        answer = case.get("answer", "")
        for q in case.get("questions", []):
            kg.source_questions.append({"question": q, "answer": answer, "record_id": str(case_id)})
    return kg
