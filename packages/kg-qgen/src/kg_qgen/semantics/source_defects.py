"""Facts a question must not ask, although the source states them: general rules, not a list.

Three kinds of source fact give a question with no single right answer:

* **Containment with a chain of containers.** "Which region contains the Flavian Amphitheatre?"
  has Rome as gold, but Lazio and Italy contain it too. For the containment relations of
  :data:`CONTAINMENT` (located in the administrative territorial entity, location) a fact is
  asked only when its object is a city (the graph's class of it, :mod:`kg_qgen.semantics.classes`);
  the question then names the level ("In which city is ... located?"), where one answer is right.
  Any other object (a region, a state, a district) is refused: the graph rarely lists the whole
  chain, so the other containers could not even be accepted as aliases. (Continent and country
  name their level in the relation itself and are not in the table.)
* **A sport given to someone who is not in sport.** MQuAKE gives the writer Michael Lewis (author
  of *Moneyball*) the sport baseball and a businessman (director of a drinks company) association
  football: "which sport does Moneyball's author belong to?" has no real answer. A ``P641``
  (sport) fact of a subject that is not a position or a team is refused when the graph gives
  the subject a role outside sport (author, creator, performer, founder / chief executive /
  director / chairperson / owner of an organisation with no sport, an occupation that does not
  name a sport) and no role in sport (a playing position, a sports team, head coach, a
  sport-naming occupation, a leading role in a team). With no role either way the fact is kept
  (a triples file that lists athletes with their sport only, like CounterFact).
* **A subject label that names many things** (:func:`label_problem`): a label with no letter
  (the Beatles album "1": "which artist does Eleanor Rigby share with 1?"), and a position
  labelled with a word of several sports ("which sport is center associated with?": basketball,
  ice hockey and American football all have one; the shipped list
  ``kg_qgen/data/position_words.tsv`` says which words).

A fourth kind asks nonsense: **a person's relation given to a non-person** (:func:`person_problem`:
MQuAKE's "University of Coimbra, country of citizenship, Portugal").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kg_qgen.textnorm import normalize

__all__ = [
    "CONTAINMENT",
    "NON_SPORT_OBJECT_ROLES",
    "SPORT_OBJECT_ROLES",
    "SPORT_SUBJECT_ROLES",
    "containment_problem",
    "label_problem",
    "person_problem",
    "sport_problem",
]

CONTAINMENT = frozenset({"P131", "P276"})  # located in the admin. territorial entity, location
SPORT = "P641"
# the subject of these takes part in a sport: playing position, member of sports team, league,
# country for sport
SPORT_SUBJECT_ROLES = frozenset({"P413", "P54", "P118", "P1532"})
# the object of these leads a team when the subject is a team (head coach always does)
SPORT_OBJECT_ROLES = frozenset({"P286"})
_LEADING_ROLES = frozenset({"P169", "P488", "P1037", "P127", "P112"})
# the object of these has a role outside sport (author, creator, performer, composer, director,
# screenwriter; the leading roles when the subject is not a team)
NON_SPORT_OBJECT_ROLES = frozenset({"P50", "P170", "P175", "P86", "P57", "P58"})
_SPORT_OCCUPATION_WORDS = (
    "player",
    "footballer",
    "athlete",
    "coach",
    "sportsperson",
    "cricketer",
    "boxer",
    "swimmer",
    "cyclist",
    "racing driver",
    "golfer",
    "wrestler",
    "jockey",
)


def label_problem(label: str, subject_class: str, relation: str) -> str | None:
    """Why a fact whose subject is labelled ``label`` cannot be asked, or None: a label with no
    letter ("1", a Beatles album) names many things; a position labelled with a word of several
    sports ("center": basketball, ice hockey, American football) has several sports."""
    if not any(ch.isalpha() for ch in label):
        return "the subject's label has no letter (a bare number names many things)"
    if relation == SPORT and subject_class == "position":
        from kg_qgen.semantics.aliases import position_words, strip_article

        if position_words().get(strip_article(normalize(label))) == "several sports":
            return "the position's label names positions in several sports, so several sports"
    return None


def person_problem(relation: str, subject_class: str) -> str | None:
    """Why a fact of a relation only a person has (citizenship, place of birth, spouse, ...,
    :data:`kg_qgen.semantics.classes.SUBJECT_ROLES`) cannot be asked of a subject the graph does
    not take for a person, or None. MQuAKE gives the University of Coimbra a country of
    citizenship; "Which country is the University of Coimbra a citizen of?" asks nonsense. The
    fact itself votes "person", so only other evidence (a P31 class, another role) refuses it."""
    from kg_qgen.semantics.classes import SUBJECT_ROLES

    if SUBJECT_ROLES.get(relation) == "person" and subject_class != "person":
        return (
            "a relation only a person has, given to a subject the graph does not take for a "
            f"person (its class: {subject_class})"
        )
    return None


def containment_problem(relation: str, object_class: str) -> str | None:
    """Why a (s, relation, o) containment fact cannot be asked, or None (module docs)."""
    if relation in CONTAINMENT and object_class != "city":
        return (
            "a containment relation whose object is not a city: the containers above it "
            "(region, country) are right answers too"
        )
    return None


def _names_sport(occupation: str, sports: Iterable[str]) -> bool:
    occ = normalize(occupation)
    return any(w in occ for w in _SPORT_OCCUPATION_WORDS) or any(
        s and normalize(s) in occ for s in sports
    )


def sport_problem(
    subject_class: str,
    subject_relations: Iterable[tuple[str, str]],
    object_relations: Iterable[tuple[str, str]],
    *,
    label: Callable[[str], str],
    in_sport: Callable[[str], bool],
) -> str | None:
    """Why the subject's sport (``P641``) fact cannot be asked, or None (module docs).

    ``subject_relations``: (relation, object) of the subject's facts; ``object_relations``:
    (relation, subject) of the facts whose object it is; ``label`` gives an entity's label and
    ``in_sport`` tells whether an organisation is in sport (a team, or one with a sport fact).
    """
    if subject_class in ("position", "team", "sport"):
        return None
    own = list(subject_relations)
    sports = [label(o) for r, o in own if r == SPORT]
    sporty, outside = False, False
    for r, o in own:
        if r in SPORT_SUBJECT_ROLES:
            sporty = True
        elif r == "P106":
            if _names_sport(label(o), sports):
                sporty = True
            else:
                outside = True
    for r, s in object_relations:
        if r in SPORT_OBJECT_ROLES:
            sporty = True
        elif r in _LEADING_ROLES:
            if in_sport(s):
                sporty = True
            else:
                outside = True
        elif r in NON_SPORT_OBJECT_ROLES:
            outside = True
    if outside and not sporty:
        return (
            "the source gives a sport to a subject whose roles in the graph are outside sport "
            "(an author, a businessman) and none in it"
        )
    return None
