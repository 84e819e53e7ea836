"""When an alias may stand for its entity in a Leibniz's-law (LL) question.

An LL question asks about an entity through another of its names, so the name must identify the
entity on its own. An alias is refused when (normalised; a leading "the"/"a"/"an" is ignored):

* it is a code or abbreviation: three letters/digits or fewer ("fr", "GK", "ENG", "U.K.") or at
  least half of its words single letters ("Big G", "G. W. B.");
* it is a fragment of the label: all its words are words of the label ("Barack" or "Obama" for
  Barack Obama, "Ford" for Ford Motor Company);
* it contains the whole label (then the question names the entity anyway) or the answer;
* it resolves to more than one entity of the graph (it is the label or an alias of another one).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["alias_problem", "strip_article"]

_ARTICLES = ("the ", "a ", "an ")


def strip_article(norm: str) -> str:
    for art in _ARTICLES:
        if norm.startswith(art) and len(norm) > len(art):
            return norm[len(art) :]
    return norm


def alias_problem(
    alias: str,
    label: str,
    owners: Collection[str] | Callable[[str], Collection[str]],
    entity: str,
    answer_forms: Iterable[str] = (),
) -> str | None:
    """Why ``alias`` cannot stand for ``entity`` (labelled ``label``), or None.

    ``owners`` are the ids of every entity whose label or alias normalises to the alias (or a
    function from the normalised alias to them, called only when the cheap tests pass).
    """
    norm = normalize(alias)
    core = strip_article(norm)
    lab = normalize(label)
    if not core:
        return "the alias has no letters or digits"
    if len(core.replace(" ", "")) <= 3:
        return "the alias is a code or abbreviation of 3 characters or fewer"
    words = core.split()
    if sum(len(w) == 1 for w in words) * 2 >= len(words):
        return "the alias is an abbreviation (half or more of its words are single letters)"
    if core == strip_article(lab) or contains_phrase(norm, lab):
        return "the alias contains the label itself"
    if set(words) <= set(lab.split()):
        return "the alias is a fragment of the label"
    for form in answer_forms:
        f = normalize(form)
        if f and contains_phrase(norm, f):
            return "the alias contains the answer"
    found = set(owners(norm) if callable(owners) else owners)
    if found != {entity}:
        others = sorted(found - {entity})
        return f"the alias also names {len(others)} other entit{'y' if len(others) == 1 else 'ies'}"
    return None
