"""The country/continent name <-> adjective table the alias judge reads (``data/demonyms.tsv``,
a copy of kg-qgen's table) and the gold forms derived from it: a gold country's adjectives (and
their plural nouns), and the surface variants of an "<adjective> <noun>" gold ("Jamaica dollar"
for "Jamaican dollar"; "the krona" when the question names Sweden)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from leak_metrics.normalize import tokenize


@lru_cache(maxsize=1)
def demonym_table() -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Normalised place name -> normalised adjectives, from ``data/demonyms.tsv``."""
    table: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    text = (resources.files("leak_metrics") / "data" / "demonyms.tsv").read_text("utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        names, adjectives = line.split("\t")[:2]
        adj = [tuple(tokenize(a)) for a in adjectives.split("|") if tokenize(a)]
        for name in names.split("|"):
            table.setdefault(tuple(tokenize(name)), []).extend(adj)
    return table


def demonyms_of(forms: list[list[str]]) -> list[list[str]]:
    """The adjectives of every gold form that is a known country or continent, with the plural
    noun of those ending in -n or -i ("Americans", "Pakistanis")."""
    table = demonym_table()
    out: list[list[str]] = []
    for form in forms:
        for adj in table.get(tuple(form), []):
            plural = [*adj[:-1], adj[-1] + "s"] if adj[-1][-1:] in ("n", "i") else None
            for found in (list(adj), plural):
                if found is not None and found not in out and found not in forms:
                    out.append(found)
    return out


def gold_variants(forms: list[list[str]], question_words: set[str]) -> list[list[str]]:
    """Surface variants of "<adjective> <noun>" gold forms: the country's name for its adjective
    ("Jamaica dollar" for "Jamaican dollar"), and the bare noun when the question itself names
    the country ("the krona" for "Swedish krona" in "What is Sweden's currency?")."""
    by_adjective: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for name, adjectives in demonym_table().items():
        for adjective in adjectives:
            by_adjective.setdefault(adjective, []).append(name)
    out: list[list[str]] = []
    for form in forms:
        for width in (2, 1):
            head, rest = tuple(form[:width]), form[width:]
            if not rest or head not in by_adjective:
                continue
            for name in by_adjective[head]:
                out.append([*name, *rest])
                if set(name) <= question_words:
                    out.append(list(rest))
            break
    return [v for v in out if v not in forms]


@lru_cache(maxsize=1)
def all_adjective_words() -> frozenset[str]:
    """Every single word of every adjective in the demonym table ("german", "american", ...)."""
    return frozenset(w for adjs in demonym_table().values() for a in adjs for w in a)


# Countries that are parts of another in the table (general knowledge): a statement placing the
# subject in a part ("an English city") does not deny the whole (the United Kingdom).
PARTS: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {
    ("united", "kingdom"): (("england",), ("scotland",), ("wales",), ("northern", "ireland")),
    ("great", "britain"): (("england",), ("scotland",), ("wales",)),
}


def part_words(whole: list[str]) -> set[tuple[str, ...]]:
    """The names and adjectives of the parts of ``whole`` ("england", "english", ...)."""
    table = demonym_table()
    out: set[tuple[str, ...]] = set()
    for part in PARTS.get(tuple(whole), ()):
        out.add(part)
        out.update(table.get(part, []))
    return out
