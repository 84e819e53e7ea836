"""Demonyms of countries and continents ("Argentine" for Argentina), for bridge masking.

The table ``kg_qgen/data/demonyms.tsv`` is small and written by us: about 200 countries (plus a
few former states and the continents), each with its English names and demonyms/adjectives.
An entity matches a row when its label or one of its aliases equals one of the row's names
(normalised: case, accents and punctuation ignored).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from kg_qgen.textnorm import normalize

__all__ = ["demonym_table", "demonyms_for"]


@lru_cache(maxsize=1)
def demonym_table() -> dict[str, tuple[str, ...]]:
    """Normalised place name -> its demonyms (as written in the table)."""
    ref = resources.files("kg_qgen") / "data" / "demonyms.tsv"
    table: dict[str, tuple[str, ...]] = {}
    for line in ref.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        names, demonyms = line.split("\t")
        forms = tuple(d.strip() for d in demonyms.split("|") if d.strip())
        for name in names.split("|"):
            key = normalize(name)
            table[key] = tuple(dict.fromkeys(table.get(key, ()) + forms))
    return table


def demonyms_for(names: Iterable[str]) -> list[str]:
    """Demonyms of whichever place is called by one of ``names`` (label and aliases)."""
    table = demonym_table()
    out: list[str] = []
    for name in names:
        for d in table.get(normalize(name), ()):
            if d not in out:
                out.append(d)
    return out
