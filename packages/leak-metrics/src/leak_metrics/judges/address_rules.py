"""Rules v13: the last link of an address that leads to the gold.

Contract of :func:`named_last_link`: given the words between a name and a gold mention, it
tells whether they are container words, placing the name *in* what follows ("in", "within") (``CONTAINER_WORDS``-like links: "in the city of") that
end in one more place name joined to the gold by a bare comma ("in the city of Rome, Italy",
"the island of Hikari in the RyukCity, Japan"). Such a chain places the first name inside the
gold, as "Salzburg, a city in Austria" does, so the first name is no other answer. The place
in between must not be a country or continent of the demonym table ("in France, Germany" is a
list, not an address).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from leak_metrics.judges.demonyms import demonym_table


def named_last_link(span: Any, hi: int, lo_gold: int, link: Callable[[int, str], bool]) -> bool:
    """Words ``hi .. lo_gold`` of ``span`` are links (``link(k, word)``) and then a capitalised
    place that is no country or continent, with a bare comma before the gold at ``lo_gold``."""
    if lo_gold - hi < 2 or span.gap(lo_gold).strip() != ",":
        return False
    start = lo_gold
    while start > hi and span.capitalised(start - 1) and span.gap(start).strip() in ("", ","):
        start -= 1
        if span.gap(start + 1).strip() == "," and start + 1 != lo_gold:
            return False  # two places listed ("Rome, Milan, Italy")
    place = tuple(span.words[start:lo_gold])
    if start in (hi, lo_gold) or place in demonym_table():
        return False
    links = span.words[hi:start]
    if not {"in", "within"} & set(links):
        return False  # "the Museum of the Museum, Lyon": nothing placed inside the next place
    return all(link(k, span.words[k]) for k in range(hi, start))
