"""MQuAKE (princeton-nlp/MQuAKE) JSON files -> KnowledgeGraph.

From every case we take the pre-edit chain: ``orig.triples`` (Wikidata Q/P ids) with
``orig.triples_labeled`` (labels), and aliases from ``single_hops[i].answer_alias`` (the aliases of
hop i's object; MQuAKE has none for the first subject). The multi-hop ``questions`` are kept as
``graph.source_questions`` (baseline for ``kg-qgen stats``). Post-edit (counterfactual) triples
are ignored: an unlearning benchmark forgets true facts.

Every field used is checked: a case of the wrong shape (``single_hops: ["oops"]``,
``questions: 5``, numeric ids, a triple of two items, non-UTF-8 bytes) is a one-line
:class:`~kg_qgen.errors.KgQgenInputError` naming the file, the record (index and ``case_id``) and
the field.

**Downloads.** ``load_mquake`` accepts a local path, an http(s) URL, or the name of a canonical
file (:data:`CANONICAL`), fetched once and cached on disk. Canonical files come from a PINNED
commit, never a moving branch: ``MQuAKE-CF-3k-v2``, ``MQuAKE-CF-3k``, ``MQuAKE-CF`` and
``MQuAKE-T`` from princeton-nlp/MQuAKE at ``fb43dadc`` (2024-09-12), ``MQuAKE-hard`` from
wangywUST/DeepEdit at ``c90b2958``. A download is streamed into a temporary file next to the
cache entry with a size cap (``max_bytes``, default 256 MiB; a larger ``Content-Length`` is
refused before reading), verified, and only then renamed into place, together with a sidecar
``<entry>.sha256`` (written last). A cache entry is used only when its sha256 still matches the
sidecar (and the known digest, where there is one); a truncated or altered entry is deleted and
fetched again. What is verified:

* ``MQuAKE-hard``: its git blob sha1 (``1425b170...``, from the pinned commit's tree) is checked
  as git computes it (sha1 of ``b"blob <size>\\0" + content``) on download and on every use.
* the four princeton-nlp files: none of them could be obtained offline (each is over 4 MiB and
  missing from every snapshot available to us), so no digest is shipped for them; they are pinned
  to the commit, must parse as MQuAKE, and their sha256 is recorded on first download (trust on
  first use) and checked on every later use. A user who has a digest can pass it as
  ``sha256=`` (the download is then refused unless it matches).
"""

from __future__ import annotations

import hashlib
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg_qgen.atomic import atomic_write
from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.textio import parse_json, read_utf8

__all__ = [
    "CANONICAL",
    "CANONICAL_FILES",
    "CanonicalFile",
    "cache_path_for",
    "git_blob_sha1",
    "graph_from_mquake",
    "load_mquake",
    "resolve_url",
]

MQUAKE_COMMIT = "fb43dadc2d8cd19d08ce81c63d957b59deb3f3cd"
DEEPEDIT_COMMIT = "c90b29588dec8325a6481054e63bf10baf3cff57"
REPO_RAW = f"https://raw.githubusercontent.com/princeton-nlp/MQuAKE/{MQUAKE_COMMIT}/datasets"
DEEPEDIT_RAW = f"https://raw.githubusercontent.com/wangywUST/DeepEdit/{DEEPEDIT_COMMIT}/datasets"
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class CanonicalFile:
    url: str
    git_blob_sha1: str | None = None  # as in the pinned commit's tree (None: not known offline)
    sha256: str | None = None


CANONICAL: dict[str, CanonicalFile] = {
    "MQuAKE-CF-3k-v2": CanonicalFile(f"{REPO_RAW}/MQuAKE-CF-3k-v2.json"),
    "MQuAKE-CF-3k": CanonicalFile(f"{REPO_RAW}/MQuAKE-CF-3k.json"),
    "MQuAKE-CF": CanonicalFile(f"{REPO_RAW}/MQuAKE-CF.json"),
    "MQuAKE-T": CanonicalFile(f"{REPO_RAW}/MQuAKE-T.json"),
    "MQuAKE-hard": CanonicalFile(
        f"{DEEPEDIT_RAW}/MQuAKE-hard.json",
        git_blob_sha1="1425b170ab045beef777f9dbd28e08a4a52eb224",
    ),
}
CANONICAL_FILES = tuple(CANONICAL)


def default_cache_dir() -> Path:
    """``$KG_QGEN_CACHE`` or ``~/.cache/kg_qgen``."""
    env = os.environ.get("KG_QGEN_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kg_qgen"


def resolve_url(name_or_url: str) -> str | None:
    """The download URL for a canonical name or an http(s) URL; None for anything else."""
    if name_or_url.startswith(("http://", "https://")):
        return name_or_url
    stem = name_or_url.removesuffix(".json")
    return CANONICAL[stem].url if stem in CANONICAL else None


def cache_path_for(url: str, cache_dir: str | Path | None = None) -> Path:
    """Where a downloaded URL is cached: ``<cache>/mquake/<sha1[:12]>-<basename>``."""
    base = url.rstrip("/").rsplit("/", 1)[-1] or "data.json"
    digest = hashlib.sha1(url.encode()).hexdigest()[:12]
    return Path(cache_dir or default_cache_dir()) / "mquake" / f"{digest}-{base}"


def git_blob_sha1(data: bytes) -> str:
    """The id git gives a file with this content (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _expected(url: str, sha256: str | None) -> CanonicalFile:
    known = next((c for c in CANONICAL.values() if c.url == url), CanonicalFile(url))
    return CanonicalFile(url, known.git_blob_sha1, sha256 or known.sha256)


def _check_digests(data: bytes, want: CanonicalFile, where: str) -> None:
    if want.git_blob_sha1 and git_blob_sha1(data) != want.git_blob_sha1:
        raise KgQgenInputError(
            f"git blob sha1 {git_blob_sha1(data)} != pinned {want.git_blob_sha1}", path=where
        )
    if want.sha256 and hashlib.sha256(data).hexdigest() != want.sha256:
        raise KgQgenInputError(
            f"sha256 {hashlib.sha256(data).hexdigest()} != expected {want.sha256}", path=where
        )


def _download(url: str, dest: Path, want: CanonicalFile, max_bytes: int, timeout: float) -> None:
    """Stream ``url`` into ``dest`` (size cap, digests checked, atomic, sidecar last)."""
    digest = hashlib.sha256()
    chunks = []
    with (
        atomic_write(dest, "wb", suffix=".part", durable=True) as fh,
        urllib.request.urlopen(url, timeout=timeout) as resp,
    ):
        length = resp.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) > max_bytes:
            raise KgQgenInputError(f"refusing {length} bytes (size cap {max_bytes})", path=url)
        size = 0
        while chunk := resp.read(1 << 20):
            size += len(chunk)
            if size > max_bytes:
                raise KgQgenInputError(f"more than the size cap of {max_bytes} bytes", path=url)
            fh.write(chunk)
            digest.update(chunk)
            chunks.append(chunk)
        # checked before the block ends, so a bad download never replaces the cached file
        _check_digests(b"".join(chunks), want, url)
    _write_sidecar(dest, digest.hexdigest())


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _write_sidecar(path: Path, hexdigest: str) -> None:
    with atomic_write(_sidecar(path), suffix=".part", durable=True) as fh:
        fh.write(hexdigest + "\n")


def _cache_is_intact(path: Path, want: CanonicalFile) -> bool:
    """A cache entry is trusted only if its sidecar digest (and any pinned digest) match."""
    side = _sidecar(path)
    if not path.is_file() or not side.is_file():
        return False
    try:
        data = path.read_bytes()
        recorded = side.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return False
    if hashlib.sha256(data).hexdigest() != recorded:
        return False
    try:
        _check_digests(data, want, str(path))
    except KgQgenInputError:
        return False
    return True


def load_mquake(
    path: str | Path,
    *,
    cache_dir: str | Path | None = None,
    limit: int | None = None,
    sha256: str | None = None,
    max_bytes: int = MAX_BYTES,
    timeout: float = 60.0,
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
        want = _expected(url, sha256)
        local = cache_path_for(url, cache_dir)
        if not _cache_is_intact(local, want):
            for stale in (local, _sidecar(local)):
                stale.unlink(missing_ok=True)
            try:
                _download(url, local, want, max_bytes, timeout)
            except OSError as err:
                raise KgQgenInputError(f"could not download {url}: {err}", path=str(path)) from err
    elif sha256 is not None:
        _check_digests(local.read_bytes(), CanonicalFile(str(local), sha256=sha256), str(local))
    data = parse_json(read_utf8(local, "MQuAKE file"), str(local))
    if limit is not None and isinstance(data, list):
        data = data[:limit]
    return graph_from_mquake(data, path=str(local))


class _Case:
    """Typed access to one case, every failure naming the record and the field."""

    def __init__(self, case: Any, index: int, path: str) -> None:
        self.path, self.index = path, index
        cid = case.get("case_id") if isinstance(case, dict) else None
        self.record = f"[{index}]" + (
            f" (case_id {cid})" if isinstance(cid, int | str) and not isinstance(cid, bool) else ""
        )
        if not isinstance(case, dict):
            self.fail("", "must be a JSON object")
        self.case = case

    def fail(self, field: str, why: str) -> None:
        raise KgQgenInputError(why, path=self.path, record=self.record, field=field or None)

    def get(
        self, obj: Any, key: str, field: str, kind: type | tuple[type, ...], default: Any = ...
    ) -> Any:
        if not isinstance(obj, dict):
            self.fail(field.rsplit(".", 1)[0], "must be a JSON object")
        if key not in obj:
            if default is ...:
                self.fail(field, "missing")
            return default
        value = obj[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            self.fail(field, f"must be {_kind(kind)} (got {type(value).__name__})")
        return value

    def strings(self, value: Any, field: str, n: int | None = None) -> list[str]:
        if not isinstance(value, list):
            self.fail(field, f"must be a list (got {type(value).__name__})")
        if n is not None and len(value) != n:
            self.fail(field, f"must have {n} items (has {len(value)})")
        for k, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.fail(f"{field}[{k}]", f"must be a non-empty string (got {item!r:.40})")
        return value


_KIND = {"dict": "a JSON object", "list": "a list", "str": "a string", "int": "an integer"}


def _kind(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_KIND.get(k.__name__, k.__name__) for k in kinds)


def graph_from_mquake(data: Any, *, path: str = "<mquake>") -> KnowledgeGraph:
    if not isinstance(data, list):
        raise KgQgenInputError("expected a JSON array of cases", path=path)
    if not data:
        raise KgQgenInputError("no cases", path=path)
    kg = KnowledgeGraph()
    for i, raw in enumerate(data):
        c = _Case(raw, i, path)
        orig = c.get(c.case, "orig", "orig", dict)
        triples = c.get(orig, "triples", "orig.triples", list)
        labeled = c.get(orig, "triples_labeled", "orig.triples_labeled", list)
        if len(triples) != len(labeled):
            c.fail("orig.triples_labeled", f"has {len(labeled)} items, orig.triples {len(triples)}")
        case_id = c.case.get("case_id", i)
        if not isinstance(case_id, int | str) or isinstance(case_id, bool):
            c.fail("case_id", "must be an integer or a string")
        hops = c.get(c.case, "single_hops", "single_hops", list, default=[])
        for h, hop in enumerate(hops):
            if not isinstance(hop, dict):
                c.fail(f"single_hops[{h}]", f"must be a JSON object (got {type(hop).__name__})")
        for h, (ids, labels) in enumerate(zip(triples, labeled, strict=True)):
            s, p, o = c.strings(ids, f"orig.triples[{h}]", 3)
            sl, pl, ol = c.strings(labels, f"orig.triples_labeled[{h}]", 3)
            kg.add_relation(p, pl)
            kg.add_entity(s, sl)
            aliases: list[str] = []
            # hop h's answer_alias belongs to its object only when the chain is aligned
            if h < len(hops) and hops[h].get("answer") == ol:
                field = f"single_hops[{h}].answer_alias"
                raw_aliases = c.get(hops[h], "answer_alias", field, list, default=[])
                aliases = [a for a in c.strings(raw_aliases, field) if a.strip()]
            kg.add_entity(o, ol, aliases)
            kg.add_fact(s, p, o, source=f"mquake:{case_id}")
        answer = c.get(c.case, "answer", "answer", str, default="")
        questions = c.get(c.case, "questions", "questions", list, default=[])
        for q in c.strings(questions, "questions"):
            kg.source_questions.append({"question": q, "answer": answer, "record_id": str(case_id)})
    return kg
