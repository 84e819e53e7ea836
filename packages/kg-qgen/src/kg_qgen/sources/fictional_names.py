"""Seeded, pronounceable names for the fictional knowledge base (:mod:`kg_qgen.sources.fictional`).

Every name is built on a **root**: a word of two or three syllables drawn from our own syllable
inventory (onsets, vowels, codas below) with an ending typical of its kind (countries end like
"-ria" or "-esh", currencies are lower-case words, ...). :class:`NameMaker` hands out roots that

* are new to this knowledge base: no root equals another or contains another as a substring
  (so no name contains another name, and no two entities share a word of their names);
* are not real: the normalised root is not a word of any name or alias of the built-in KB
  (``kg_qgen/data/builtin_kb.json``), of the shipped Wikidata relation labels, of the demonym
  table (country names and demonyms), of the reviewed entity codes, the definite names or the
  position words, nor one of :data:`REAL_WORDS` (real currency units and sports, which no
  shipped file lists); and no root contains a real place name of four letters or more from
  those files ("Parisel" would evoke Paris).

Names of several words join a root with a fixed English word of ours (a work's "Ledger", a
company's "Foundry", a team's "Rangers"); those words are the same for many entities and never
the part that identifies one. Everything is drawn from the caller's ``random.Random``, so the
same seed gives the same names.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from importlib import resources

from kg_qgen.errors import KgQgenInputError
from kg_qgen.textnorm import normalize

__all__ = ["REAL_WORDS", "NameMaker", "real_lexicon"]

ONSETS = (
    "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
    "br", "dr", "gr", "kr", "tr", "st", "sk", "th", "vr", "sh", "kh",
)  # fmt: skip
VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ae", "ei", "ou")
CODAS = ("", "", "", "n", "r", "l", "s", "m", "th", "sk", "rn", "nd", "lv", "rk")

# kind -> (syllables before the ending, endings); an ending may be "" (the root ends in a coda)
ENDINGS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "continent": ((2,), ("ane", "ossa", "urith", "aveth", "orune")),
    "country": ((1, 2), ("ria", "esh", "avia", "orn", "undra", "ekh", "ivar")),
    "city": ((1, 2), ("holt", "meth", "ovin", "askar", "urel", "estrum", "ivo")),
    "given": ((1, 2), ("a", "o", "en", "is", "el", "ira", "ander")),
    "family": ((1, 2), ("ow", "ek", "yss", "arde", "venn", "oth", "ismar")),
    "currency": ((1,), ("el", "ask", "orn", "ith", "une")),
    "sport": ((1,), ("lingo", "vass", "orrow", "ketting", "abry")),
    "word": ((1, 2), ("", "", "ar", "en", "is", "oth")),
}

# Real currency units and sports (our list; the shipped files name neither): a generated
# currency or sport must not be one of them.
_REAL = """
    afghani ariary baht balboa birr bolivar boliviano cedi colon cordoba dalasi denar dinar
    dirham dobra dollar dong dram escudo euro florin forint franc gourde guarani guilder hryvnia
    kina kip koruna krona krone kroon kuna kwacha kwanza kyat lari lats lek lempira leone leu lev
    lilangeni lira litas loti manat mark metical naira nakfa ngultrum ouguiya pataca peseta peso
    pound pula quetzal rand real rial riel ringgit riyal ruble rufiyaa rupee rupiah shekel
    shilling sol som somoni sucre taka tala tenge tolar tugrik vatu won yen yuan zloty
    archery badminton bandy baseball basketball biathlon bobsleigh bowling boxing canoeing cricket
    croquet curling cycling darts diving fencing football golf gymnastics handball hockey hurling
    judo karate korfball lacrosse netball pelota polo rowing rugby sailing shinty skating skiing
    softball squash sumo surfing swimming taekwondo tennis triathlon volleyball wrestling
"""
REAL_WORDS = frozenset(_REAL.split())

_MIN_PLACE = 4  # a root never contains a real place name of this many letters or more


def _words_of(text: str) -> list[str]:
    return [w for w in normalize(text).split() if len(w) >= 3]


def _data(name: str) -> str:
    return (resources.files("kg_qgen") / "data" / name).read_text(encoding="utf-8")


def _table_lines(name: str) -> list[str]:
    return [ln for ln in _data(name).splitlines() if ln.strip() and not ln.startswith("#")]


@lru_cache(maxsize=1)
def real_lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(words, place names): every normalised word (3 letters or more) of the shipped real-world
    names, and the normalised real place names of four letters or more (module docs)."""
    words: set[str] = set(REAL_WORDS)
    places: set[str] = set()
    kb = json.loads(_data("builtin_kb.json"))
    place_ids = {s for s, r, _ in kb["triples"] if r in ("P17", "P30", "P36")}
    place_ids |= {o for _, r, o in kb["triples"] if r in ("P17", "P19", "P20", "P30", "P36")}
    for eid, ent in kb["entities"].items():
        for name in (ent["label"], *ent.get("aliases", ())):
            words.update(_words_of(name))
            if eid in place_ids:
                places.add(normalize(name))
    for label in json.loads(_data("wikidata_relation_labels.json"))["labels"].values():
        words.update(_words_of(label))
    for line in _table_lines("demonyms.tsv"):
        names, _, demonyms = line.partition("\t")
        for name in names.split("|"):
            words.update(_words_of(name))
            places.add(normalize(name))
        for dem in demonyms.split("|"):
            words.update(_words_of(dem))
    for line in _table_lines("entity_codes.tsv"):
        words.update(_words_of(line.partition("\t")[2]))
    for name in ("definite_names.txt", "position_words.tsv"):
        for line in _table_lines(name):
            words.update(_words_of(line.partition("\t")[0]))
    long_places = frozenset(p for p in places if len(p.replace(" ", "")) >= _MIN_PLACE)
    return frozenset(words), long_places


class NameMaker:
    """Hands out new roots (module docs); ``make(kind)`` raises when the inventory runs dry."""

    MAX_TRIES = 5000

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.roots: list[str] = []
        self._taken: set[str] = set()
        self._words, self._places = real_lexicon()

    def _draw(self, kind: str) -> str:
        counts, endings = ENDINGS[kind]
        n = self.rng.choice(counts)
        text = ""
        for i in range(n):
            coda = self.rng.choice(CODAS) if i == n - 1 else ""
            text += self.rng.choice(ONSETS) + self.rng.choice(VOWELS) + coda
        ending = self.rng.choice(endings)
        if ending and text[-1] in "aeiou" and ending[0] in "aeiou":
            text = text[:-1]  # "Vela" + "ria" fine, "Velo" + "avia" -> "Velavia"
        return text + ending

    def _fits(self, root: str) -> bool:
        if not 4 <= len(root) <= 11 or root in self._taken or root in self._words:
            return False
        if any(p in root for p in self._places):
            return False
        return not any(root in r or r in root for r in self.roots)

    def make(self, kind: str) -> str:
        """A new root of ``kind`` (lower case; callers capitalise names)."""
        for _ in range(self.MAX_TRIES):
            root = self._draw(kind)
            if self._fits(root):
                self.roots.append(root)
                self._taken.add(root)
                return root
        raise KgQgenInputError(
            f"no new {kind} name after {self.MAX_TRIES} draws: the fictional KB is too large "
            "for the syllable inventory",
            field="size",
        )

    def name(self, kind: str) -> str:
        """A new root, capitalised ("Velorria")."""
        root = self.make(kind)
        return root[:1].upper() + root[1:]
