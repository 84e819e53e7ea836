"""A seeded knowledge base of fictitious entities (source ``fictional``, issue 36 item 3).

What it is for: a model can be *taught* these facts, and a control model taught the same minus
some facts must then fail those facts' multi-hop questions; with real-world facts pretraining
would answer them anyway. No name here is a real entity's (:mod:`kg_qgen.sources.fictional_names`).

**Schema** (the built-in KB's relation ids, labels and value kinds, so every template, rule and
check applies unchanged):

* continents; countries, each on one continent (``P30``), with a capital (``P36``) among its
  cities and a currency (``P38``; ``currency_unions`` pairs of neighbours share one);
* cities, each in one country (``P17``);
* persons: citizenship (``P27``), place of birth (``P19``; abroad for a share), for a share a
  place of death (``P20``); some are athletes (``P641`` sport), authors (of works, ``P50``) or
  founders (of companies, ``P112``), never two of these;
* sports, each from a different country (``P495``); teams with a sport and a home city
  (``P641``, ``P159``); companies with a headquarters city and a founder (``P159``, ``P112``);
  works with an author (``P50``).

Chains for HS/MP/MT (person -> country -> capital/currency/continent, work -> author -> country,
team -> city -> country, sport -> country -> continent, ...), shared objects for CC (citizens of
a country, works of an author, teams of a sport), three or more values of every grouping
relation for DS (continents, countries per continent, cities per country, sports), aliases for
LL: every country has another name of its own (like "Deutschland"), and a share of persons
(a longer name or a pen name), cities, teams, companies, works and sports have one. Short forms
an LL question may not use (a surname alone, "Republic of X") are aliases too: they are answer
aliases. No alias is derived from another entity's name, and no value (currency, language,
capital) is derived from its country's name: a model cannot guess a fact from a name.

**Parameters**: ``seed`` and ``size``, a name of :data:`SIZES` or a :class:`FictionalSize`;
keyword overrides change single fields (``persons=80``). Same seed and size -> byte-identical
KB (:func:`fictional_kb` returns the built-in KB's JSON format; ``json.dumps`` of it is stable).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.sources.builtin import graph_from_kb_dict
from kg_qgen.sources.fictional_names import NameMaker

__all__ = ["SIZES", "FictionalSize", "fictional_kb", "load_fictional", "parse_spec"]

RELATIONS = {
    "P27": "country of citizenship",
    "P19": "place of birth",
    "P20": "place of death",
    "P36": "capital",
    "P17": "country",
    "P30": "continent",
    "P38": "currency",
    "P50": "author",
    "P159": "headquarters location",
    "P112": "founded by",
    "P495": "country of origin",
    "P641": "sport",
}
WORK_NOUNS = ("Ledger", "Sonata", "Almanac", "Tapestry", "Elegy", "Lantern", "Compass")
TEAM_SUFFIXES = ("Rangers", "Wanderers", "Athletic", "Harriers")
INDUSTRIES = ("Foundry", "Textiles", "Shipping", "Glassworks", "Mills", "Press")
LONG_FORMS = ("Republic of", "Kingdom of", "Commonwealth of")


@dataclass(frozen=True)
class FictionalSize:
    """How many entities of each kind (shares are of persons or of the named kind)."""

    continents: int = 5
    countries_per_continent: int = 5
    cities_per_country: int = 4
    persons: int = 200
    athletes: int = 50
    authors: int = 30
    works: int = 60
    companies: int = 20
    teams: int = 24
    sports: int = 6
    currency_unions: int = 3
    died_share: float = 0.3
    abroad_share: float = 0.6
    alias_share: float = 0.5

    def check(self) -> None:
        """Raise :class:`KgQgenInputError` naming the first field that cannot work."""
        mins = {
            "continents": 3,
            "countries_per_continent": 3,
            "cities_per_country": 2,
            "persons": 6,
            "sports": 3,
        }
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, float):
                if not 0.0 <= v <= 1.0:
                    raise KgQgenInputError(f"must be in [0, 1], got {v}", field=f.name)
            elif not isinstance(v, int) or isinstance(v, bool) or v < mins.get(f.name, 0):
                raise KgQgenInputError(
                    f"must be an integer >= {mins.get(f.name, 0)}, got {v!r}", field=f.name
                )
        countries = self.continents * self.countries_per_continent
        if self.athletes + self.authors + self.companies > self.persons:
            raise KgQgenInputError(
                "athletes + authors + companies (one founder each) exceed persons", field="persons"
            )
        if self.sports > countries:
            raise KgQgenInputError("more sports than countries to come from", field="sports")
        if self.works < self.authors:
            raise KgQgenInputError("fewer works than authors", field="works")
        if (self.athletes or self.teams) and not self.sports:
            raise KgQgenInputError("athletes and teams need sports", field="sports")
        if 2 * self.currency_unions > countries:
            raise KgQgenInputError(
                "more currency unions than pairs of countries", field="currency_unions"
            )


SIZES: dict[str, FictionalSize] = {
    "default": FictionalSize(),
    "small": FictionalSize(
        continents=4,
        countries_per_continent=3,
        cities_per_country=2,
        persons=24,
        athletes=6,
        authors=4,
        works=8,
        companies=3,
        teams=4,
        sports=4,
        currency_unions=1,
        died_share=0.25,
    ),
}


def _size(size: str | FictionalSize, overrides: dict[str, Any]) -> FictionalSize:
    if isinstance(size, FictionalSize):
        base = size
    elif isinstance(size, str) and size in SIZES:
        base = SIZES[size]
    else:
        raise KgQgenInputError(f"unknown size {size!r}; known: {', '.join(SIZES)}", field="size")
    known = {f.name for f in fields(FictionalSize)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise KgQgenInputError(
            f"unknown parameter {unknown[0]!r}; known: seed, size, {', '.join(sorted(known))}",
            field=unknown[0],
        )
    out = replace(base, **overrides)
    out.check()
    return out


class _Builder:
    """Accumulates entities and triples in creation order (so the output is deterministic)."""

    def __init__(self, seed: int, size: FictionalSize) -> None:
        self.rng = random.Random(f"kg-qgen fictional KB, seed {seed}")
        self.names = NameMaker(self.rng)
        self.size = size
        self.entities: dict[str, dict[str, Any]] = {}
        self.triples: list[list[str]] = []
        self.used: dict[str, int] = {}  # city id -> how many facts point at it (spread)

    def add(self, kind: str, label: str, aliases: list[str] | None = None) -> str:
        eid = f"{kind}_{sum(1 for e in self.entities if e.startswith(kind + '_')) + 1:03d}"
        self.entities[eid] = {"label": label, "aliases": list(aliases or [])}
        return eid

    def fact(self, s: str, r: str, o: str) -> None:
        self.triples.append([s, r, o])

    def least_used(self, candidates: list[str]) -> str:
        """The candidate with the fewest uses (ties: a seeded draw), then counted."""
        low = min(self.used.get(c, 0) for c in candidates)
        pick = self.rng.choice([c for c in candidates if self.used.get(c, 0) == low])
        self.used[pick] = self.used.get(pick, 0) + 1
        return pick

    def maybe(self, share: float) -> bool:
        return self.rng.random() < share


def _geography(b: _Builder) -> tuple[list[str], dict[str, list[str]]]:
    """Continents, countries, cities and currencies; returns (countries, country -> cities)."""
    s = b.size
    continents = [b.add("continent", b.names.name("continent")) for _ in range(s.continents)]
    countries: list[str] = []
    cities: dict[str, list[str]] = {}
    for cont in continents:
        for _ in range(s.countries_per_continent):
            label = b.names.name("country")
            aliases = [b.names.name("country")]  # its own name for itself ("Deutschland")
            if b.maybe(0.5):
                aliases.append(f"{b.rng.choice(LONG_FORMS)} {label}")
            c = b.add("country", label, aliases)
            countries.append(c)
            b.fact(c, "P30", cont)
            cities[c] = []
            for i in range(s.cities_per_country):
                city_aliases = [b.names.name("city")] if b.maybe(s.alias_share / 2) else []
                city = b.add("city", b.names.name("city"), city_aliases)
                cities[c].append(city)
                b.fact(city, "P17", c)
                if i == 0:
                    b.fact(c, "P36", city)
    unions = _unions(b, countries)
    for c in countries:
        if c in unions:
            b.fact(c, "P38", unions[c])
        else:
            b.fact(c, "P38", b.add("currency", b.names.make("currency")))
    return countries, cities


def _unions(b: _Builder, countries: list[str]) -> dict[str, str]:
    """country -> a currency it shares with one neighbour (same continent)."""
    per = b.size.countries_per_continent
    groups = [countries[i : i + per] for i in range(0, len(countries), per)]
    out: dict[str, str] = {}
    for k in range(b.size.currency_unions):
        group = groups[k % len(groups)]
        free = [c for c in group if c not in out]
        if len(free) < 2:
            continue
        pair = b.rng.sample(free, 2)
        cur = b.add("currency", b.names.make("currency"))
        out.update(dict.fromkeys(pair, cur))
    return out


def _person_alias(b: _Builder, given: str, family: str) -> list[str]:
    aliases = [family]  # a surname alone: an answer alias, never an LL alias
    if b.maybe(b.size.alias_share):
        if b.maybe(0.5):
            aliases.append(f"{given} {b.names.name('given')} {family}")  # a fuller name
        else:
            aliases.append(f"{b.names.name('given')} {b.names.name('family')}")  # a pen name
    return aliases


def _persons(b: _Builder, countries: list[str], cities: dict[str, list[str]]) -> list[str]:
    s = b.size
    order = list(countries)
    b.rng.shuffle(order)
    every_city = [c for cs in cities.values() for c in cs]
    births: dict[str, int] = {}
    persons = []
    for i in range(s.persons):
        given, family = b.names.name("given"), b.names.name("family")
        p = b.add("person", f"{given} {family}", _person_alias(b, given, family))
        home = order[i % len(order)]
        b.fact(p, "P27", home)
        abroad = [c for c in every_city if c not in cities[home]]
        pool = abroad if b.maybe(s.abroad_share) else cities[home]
        b.used, saved = births, b.used
        b.fact(p, "P19", b.least_used(pool))
        b.used = saved
        if b.maybe(s.died_share):
            b.fact(p, "P20", b.least_used(every_city))
        persons.append(p)
    return persons


def _roles(b: _Builder, persons: list[str], countries: list[str], cities: list[str]) -> None:
    """Sports, athletes, teams, authors and works, founders and companies."""
    s = b.size
    people = list(persons)
    b.rng.shuffle(people)
    athletes, rest = people[: s.athletes], people[s.athletes :]
    authors, rest = rest[: s.authors], rest[s.authors :]
    founders = rest[: s.companies]
    sports = []
    for c in b.rng.sample(countries, s.sports):
        aliases = [b.names.make("sport")] if b.maybe(s.alias_share) else []
        sport = b.add("sport", b.names.make("sport"), aliases)
        b.fact(sport, "P495", c)
        sports.append(sport)
    for i, p in enumerate(athletes):
        b.fact(p, "P641", sports[i % len(sports)])
    for i in range(s.teams):
        label = f"{b.names.name('word')} {b.rng.choice(TEAM_SUFFIXES)}"
        aliases = [f"the {b.names.name('word')}s"] if b.maybe(s.alias_share) else []
        t = b.add("team", label, aliases)
        b.fact(t, "P641", sports[i % len(sports)])
        b.fact(t, "P159", b.least_used(cities))
    # every author writes one work; the rest go to a third of them (several works each: CC)
    prolific = authors[: max(1, len(authors) // 3)]
    writers = authors + [prolific[i % len(prolific)] for i in range(s.works - len(authors))]
    for a in writers:
        label = f"The {b.names.name('word')} {b.rng.choice(WORK_NOUNS)}"
        alias = f"The {b.names.name('word')} {b.rng.choice(WORK_NOUNS)}"
        w = b.add("work", label, [alias] if b.maybe(s.alias_share) else [])
        b.fact(w, "P50", a)
    for f in founders:
        label = f"{b.names.name('word')} {b.rng.choice(INDUSTRIES)}"
        aliases = [f"{b.names.name('word')} Company"] if b.maybe(s.alias_share) else []
        co = b.add("company", label, aliases)
        b.fact(co, "P159", b.least_used(cities))
        b.fact(co, "P112", f)


def fictional_kb(seed: int = 0, size: str | FictionalSize = "default", **overrides: Any) -> dict:
    """The fictional KB as the built-in KB's JSON dict (module docs); deterministic in
    (seed, size, overrides)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise KgQgenInputError(f"must be an integer, got {seed!r}", field="seed")
    sz = _size(size, overrides)
    b = _Builder(seed, sz)
    countries, cities = _geography(b)
    persons = _persons(b, countries, cities)
    _roles(b, persons, countries, [c for cs in cities.values() for c in cs])
    return {
        "_source": f"kg-qgen fictional KB, seed {seed}, size {asdict(sz)}",
        "entities": b.entities,
        "relations": {rid: {"label": label} for rid, label in RELATIONS.items()},
        "triples": b.triples,
    }


def parse_spec(spec: str) -> dict[str, Any]:
    """``--input`` for this source: a size name and/or ``key=value`` pairs, comma-separated
    ("small", "small,seed=2", "seed=1,persons=80"); returns keyword arguments."""
    out: dict[str, Any] = {}
    for part in (p.strip() for p in str(spec).split(",")):
        if not part:
            continue
        if "=" not in part:
            out["size"] = part
            continue
        key, _, value = (x.strip() for x in part.partition("="))
        try:
            out[key] = float(value) if "." in value else int(value)
        except ValueError as err:
            raise KgQgenInputError(f"{value!r} is not a number", field=key) from err
    return out


def load_fictional(
    path: str | Path | None = None,
    *,
    seed: int = 0,
    size: str | FictionalSize = "default",
    **overrides: Any,
) -> KnowledgeGraph:
    """Load the fictional KB as a graph. ``path`` (the CLI's ``--input``) is a spec for
    :func:`parse_spec`, whose values win over the keyword arguments."""
    kw: dict[str, Any] = {"seed": seed, "size": size, **overrides}
    if path is not None:
        kw.update(parse_spec(str(path)))
    data = fictional_kb(**kw)
    where = f"fictional(seed={kw['seed']}, size={kw['size']})"
    return graph_from_kb_dict(data, path=where, source="fictional")
