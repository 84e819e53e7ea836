"""What kind of thing an entity is (person, country, city, organization, work, ...).

Used where the logic or the grammar depends on it: an MP rule is only instantiated on subjects of
the class it is true for, DS treats ``P641`` (sport) as single-valued only for positions and teams,
and templates say "their" for a person and "its" for a thing.

**Evidence, in order.**

1. Wikidata *instance of* (``P31``) facts, when the source has them: the object's Q-id in
   :data:`P31_CLASSES`, else keywords in the object's label (:data:`P31_KEYWORDS`, e.g. "human" ->
   person, "city" -> city, "film" -> work).
2. Otherwise the relations the entity takes part in: :data:`SUBJECT_ROLES` / :data:`OBJECT_ROLES`
   map an unambiguous role to a class (the subject of "country of citizenship" is a person; the
   object of "place of birth" is a city). Roles that fit several kinds of thing give no evidence:
   the subject of "country" (a city, a company or an anthem), the object of "performer" (a person
   or a band), the subject of "sport" (a person, a team or a position).

Evidence is combined along :data:`PARENT` (a city is a place, a team is an organization): the
most specific class wins when all evidence agrees; conflicting evidence (a person and a country)
or none gives ``"thing"`` (unknown), and callers treat unknown conservatively: no MP rule, no
pronoun (the noun phrase is repeated instead).
"""

from __future__ import annotations

from collections.abc import Iterable

from kg_qgen.textnorm import normalize

__all__ = [
    "OBJECT_ROLES",
    "P31_CLASSES",
    "P31_KEYWORDS",
    "PARENT",
    "SUBJECT_ROLES",
    "UNKNOWN",
    "combine",
    "infer_class",
    "is_a",
]

UNKNOWN = "thing"

# child class -> parent class
PARENT: dict[str, str] = {
    "city": "place",
    "country": "place",
    "continent": "place",
    "team": "organization",
    "group": "organization",
}

P31_CLASSES: dict[str, str] = {
    "Q5": "person",
    "Q6256": "country",
    "Q3624078": "country",
    "Q515": "city",
    "Q1549591": "city",
    "Q5119": "city",
    "Q5107": "continent",
    "Q43229": "organization",
    "Q4830453": "organization",
    "Q783794": "organization",
    "Q891723": "organization",
    "Q476028": "team",
    "Q847017": "team",
    "Q12973014": "team",
    "Q215380": "group",
    "Q5741069": "group",
    "Q349": "sport",
    "Q34770": "language",
    "Q1288568": "language",
    "Q8142": "currency",
    "Q11424": "work",
    "Q5398426": "work",
    "Q7366": "work",
    "Q482994": "work",
    "Q7889": "work",
    "Q571": "work",
    "Q7725634": "work",
    "Q134556": "work",
    "Q7397": "product",
}

# keyword in the (normalised) label of a P31 object -> class; the first match wins
P31_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("human", "person"),
    ("person", "person"),
    ("sovereign state", "country"),
    ("country", "country"),
    ("continent", "continent"),
    ("capital", "city"),
    ("city", "city"),
    ("town", "city"),
    ("village", "city"),
    ("municipality", "city"),
    ("musical group", "group"),
    ("band", "group"),
    ("club", "team"),
    ("team", "team"),
    ("company", "organization"),
    ("business", "organization"),
    ("enterprise", "organization"),
    ("organization", "organization"),
    ("organisation", "organization"),
    ("university", "organization"),
    ("political party", "organization"),
    ("record label", "organization"),
    ("broadcaster", "organization"),
    ("film", "work"),
    ("television series", "work"),
    ("song", "work"),
    ("album", "work"),
    ("single", "work"),
    ("novel", "work"),
    ("book", "work"),
    ("literary work", "work"),
    ("video game", "work"),
    ("anthem", "work"),
    ("software", "product"),
    ("product", "product"),
    ("language", "language"),
    ("currency", "currency"),
    ("sport", "sport"),
)

SUBJECT_ROLES: dict[str, str] = {
    # a person has these
    "P19": "person",  # place of birth
    "P20": "person",  # place of death
    "P21": "person",  # sex or gender
    "P22": "person",  # father
    "P25": "person",  # mother
    "P26": "person",  # spouse
    "P27": "person",  # country of citizenship
    "P39": "person",  # position held
    "P69": "person",  # educated at
    "P101": "person",  # field of work
    "P103": "person",  # native language
    "P106": "person",  # occupation
    "P413": "person",  # position played on team / speciality
    "P937": "person",  # work location
    "P1303": "person",  # instrument
    "P1412": "person",  # languages spoken
    # a place (country, region, city) has these
    "P30": "place",  # continent
    "P35": "place",  # head of state
    "P6": "place",  # head of government
    "P36": "place",  # capital
    "P38": "place",  # currency
    "P190": "city",  # twinned administrative body
    # an organization has these
    "P159": "organization",  # headquarters location
    "P169": "organization",  # chief executive officer
    "P488": "organization",  # chairperson
    "P112": "organization",  # founded by
    "P740": "organization",  # location of formation
    "P1037": "organization",  # director / manager (of a company, an agency or a band)
    "P286": "team",  # head coach
    # a work or a product has these
    "P50": "work",  # author
    "P175": "work",  # performer
    "P449": "work",  # original broadcaster
    "P364": "work",  # original language of film or TV show
    "P407": "work",  # language of work or name
    "P57": "work",  # director (of a film)
    "P86": "work",  # composer
    "P176": "product",  # manufacturer
    "P178": "product",  # developer
}

OBJECT_ROLES: dict[str, str] = {
    "P6": "person",
    "P22": "person",
    "P25": "person",
    "P26": "person",
    "P35": "person",
    "P40": "person",
    "P50": "person",
    "P57": "person",
    "P86": "person",
    "P169": "person",
    "P286": "person",
    "P488": "person",
    "P1037": "person",
    "P1308": "person",
    "P27": "country",
    "P17": "country",
    "P495": "country",
    "P19": "city",
    "P20": "city",
    "P36": "city",
    "P159": "city",
    "P190": "city",
    "P937": "city",
    "P131": "place",
    "P276": "place",
    "P740": "place",
    "P30": "continent",
    "P37": "language",
    "P103": "language",
    "P364": "language",
    "P407": "language",
    "P1412": "language",
    "P38": "currency",
    "P69": "organization",
    "P108": "organization",
    "P176": "organization",
    "P178": "organization",
    "P264": "organization",
    "P449": "organization",
    "P463": "organization",
    "P641": "sport",
    "P413": "position",
    "P106": "occupation",
    "P136": "genre",
    "P140": "religion",
    "P800": "work",
}


def _ancestors(cls: str) -> list[str]:
    out = [cls]
    while out[-1] in PARENT:
        out.append(PARENT[out[-1]])
    return out


def is_a(cls: str, wanted: str) -> bool:
    """``cls`` is ``wanted`` or a subclass of it (a city is a place)."""
    return wanted in _ancestors(cls)


def combine(votes: Iterable[str]) -> str:
    """The most specific class consistent with every vote; :data:`UNKNOWN` on conflict or none."""
    best: str | None = None
    for v in votes:
        if best is None or is_a(v, best):
            best = v
        elif not is_a(best, v):
            return UNKNOWN
    return best or UNKNOWN


def class_from_p31(type_ids: Iterable[str], type_labels: Iterable[str]) -> str | None:
    """Class from P31 objects (ids and labels); None when none of them is recognised."""
    votes = [P31_CLASSES[t] for t in type_ids if t in P31_CLASSES]
    for label in type_labels:
        norm = f" {normalize(label)} "
        for kw, cls in P31_KEYWORDS:
            if f" {kw} " in norm:
                votes.append(cls)
                break
    return combine(votes) if votes else None


def infer_class(
    subject_relations: Iterable[str],
    object_relations: Iterable[str],
    type_ids: Iterable[str] = (),
    type_labels: Iterable[str] = (),
) -> str:
    """The class of an entity from its P31 objects, else from the roles it plays (module docs)."""
    from_p31 = class_from_p31(type_ids, type_labels)
    if from_p31 is not None:
        return from_p31
    votes = [SUBJECT_ROLES[r] for r in subject_relations if r in SUBJECT_ROLES]
    votes += [OBJECT_ROLES[r] for r in object_relations if r in OBJECT_ROLES]
    return combine(votes)
