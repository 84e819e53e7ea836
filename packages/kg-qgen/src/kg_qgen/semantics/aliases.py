"""When an alias may stand for its entity in a Leibniz's-law (LL) question.

An LL question asks about an entity through another of its names, so the name must identify the
entity on its own. An alias is refused when (normalised; a leading "the"/"a"/"an" is ignored):

* it is a code or abbreviation: three letters/digits or fewer ("fr", "GK", "ENG", "U.K.") or at
  least half of its words single letters ("Big G", "G. W. B.");
* it is a fragment of the label: all its words are words of the label ("Barack" or "Obama" for
  Barack Obama, "Ford" for Ford Motor Company);
* it contains the whole label (then the question names the entity anyway) or the answer;
* it resolves to more than one entity of the graph (it is the label or an alias of another one);
* it is a ticker or code of any length: all its letters are capitals, or it has digits and no
  word of four letters ("MSFT", "NASA", "U.K.", "F1");
* it is a given name or a surname alone: a one-word alias of a person ("Billy" for Christopher
  Robin Milne, "Messi");
* it is a playing-position word of another sport (shipped list ``kg_qgen/data/position_words.tsv``:
  "goalie" and "defenseman" are ice-hockey words, so not aliases of an association-football
  position), or of any sport when the entity's sport is not in the graph;
* it is an organisation's name with other words than the label's, beyond a legal form or the
  spelt-out initials of the label ("Apple Computer Inc." for Apple Inc.: a former name, which a
  source lists as an alias without marking it);
* it is a misspelling or spelling variant of the label (same words up to two edits, or a
  character similarity of 0.85 or more: "The Beattles" for The Beatles).

* it is not a form a reader uses (:mod:`kg_qgen.semantics.alias_forms`): an emoji, a machine
  code ("en_us", "uc.pt"), a code mixed with words ("US of America", "BR Deutschland"), a jumble
  of the label's word starts ("FoMoCo"), a person's alias borrowing a linked entity's name ("Tim
  Apple"), a comparison nickname several entities share ("Paris of the East").

Historical names: a source can mark an alias as historical only through its own data; kg-qgen has
no such field yet, so it cannot tell an unmarked former name from a current one (documented gap).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable
from functools import lru_cache
from importlib import resources

from kg_qgen.semantics.alias_forms import form_problem
from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["alias_problem", "position_words", "strip_article"]


@lru_cache(maxsize=1)
def position_words() -> dict[str, str]:
    """Normalised position word -> normalised sport (the shipped list, module docs)."""
    ref = resources.files("kg_qgen") / "data" / "position_words.tsv"
    out = {}
    for line in ref.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "\t" in line:
            word, sport = line.split("\t", 1)
            out[normalize(word)] = normalize(sport)
    return out


def _is_code(alias: str) -> bool:
    letters = [c for c in alias if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) >= 2:
        return True
    words = normalize(alias).split()
    return any(c.isdigit() for c in alias) and not any(len(w) >= 4 and w.isalpha() for w in words)


def _misspelling(core: str, label_core: str) -> bool:
    if core == label_core or not core or not label_core:
        return False
    a, b = core.replace(" ", ""), label_core.replace(" ", "")
    if a == b:
        return True  # "Face book" for "Facebook"
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.85 and abs(len(a) - len(b)) <= 2


# organisations change their names ("Apple Computer Inc." -> Apple Inc., "Walt Disney Productions"
# -> The Walt Disney Company) and sources list the old one as an alias without saying so
_RENAMED_CLASSES = frozenset({"organization", "team", "group"})
_LEGAL_FORM_WORDS = frozenset(
    [
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "ltd",
        "limited",
        "llc",
        "plc",
        "gmbh",
        "ag",
        "sa",
        "spa",
        "s",
        "p",
        "a",
        "nv",
        "bv",
        "group",
        "holdings",
        "the",
        "and",
        "of",
    ]
)


def _other_name_words(words: list[str], label_words: list[str]) -> bool:
    """True when the alias keeps a word of the label's name but adds words that are neither a
    legal form ("Inc.", "Corporation") nor the spelt-out initials of a label word ("Football
    Club" for "F.C.", "FC")."""
    alias_core = [w for w in words if w not in _LEGAL_FORM_WORDS]
    label_core = [w for w in label_words if w not in _LEGAL_FORM_WORDS]
    shared = set(alias_core) & set(label_core)
    extra = [w for w in alias_core if w not in label_core]
    if not shared or not extra:
        return False
    initials = "".join(w[0] for w in extra)
    label_letters = "".join(w for w in label_core if w not in alias_core)
    return initials != label_letters


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
    *,
    entity_class: str = "thing",
    sports: Collection[str] = (),
    linked: Collection[str] = (),
    labels: Callable[[str], Collection[str]] | None = None,
) -> str | None:
    """Why ``alias`` cannot stand for ``entity`` (labelled ``label``), or None.

    ``owners`` are the ids of every entity whose label or alias normalises to the alias (or a
    function from the normalised alias to them, called only when the cheap tests pass).
    ``entity_class`` is the entity's class and ``sports`` the labels of its sport(s) in the graph
    (for the position-word test). ``linked`` and ``labels`` feed the reader's-form test
    (:func:`kg_qgen.semantics.alias_forms.form_problem`: codes, jokes, shared nicknames).
    """
    norm = normalize(alias)
    core = strip_article(norm)
    lab = normalize(label)
    if not core:
        return "the alias has no letters or digits"
    if len(core.replace(" ", "")) <= 3:
        return "the alias is a code or abbreviation of 3 characters or fewer"
    words = core.split()
    if _is_code(alias):
        return "the alias is a ticker or code (all capitals, or digits)"
    if sum(len(w) == 1 for w in words) * 2 >= len(words):
        return "the alias is an abbreviation (half or more of its words are single letters)"
    if core == strip_article(lab) or contains_phrase(norm, lab):
        return "the alias contains the label itself"
    if set(words) <= set(lab.split()):
        return "the alias is a fragment of the label"
    if entity_class == "person" and len(words) == 1:
        return "the alias is a given name or surname alone"
    sport = position_words().get(core)
    if sport is not None and sport not in {normalize(x) for x in sports}:
        return f"the alias is a position word of {sport}, not of this entity's sport"
    if entity_class in _RENAMED_CLASSES and _other_name_words(words, strip_article(lab).split()):
        return (
            "the alias is the label's name with other words (a former or related name of the "
            "organisation, not marked as current)"
        )
    if _misspelling(core, strip_article(lab)):
        return "the alias is a misspelling or spelling variant of the label"
    for form in answer_forms:
        f = normalize(form)
        if f and contains_phrase(norm, f):
            return "the alias contains the answer"
    form = form_problem(alias, label, linked=linked, labels=labels, entity=entity)
    if form is not None:
        return f"the alias is not a reader's form ({form})"
    found = set(owners(norm) if callable(owners) else owners)
    if found != {entity}:
        others = sorted(found - {entity})
        return f"the alias also names {len(others)} other entit{'y' if len(others) == 1 else 'ies'}"
    return None
