"""Per-relation English phrasing for the template generator (our own wording).

For every relation: a noun ("country of citizenship"), whether its objects are people ("who")
and one or more direct single-hop questions with ``[X]`` for the subject. Relations not in the
table fall back to phrasing built from the relation label ("What is the <label> of X?"). A
relation whose noun reads wrong as "the <noun> of X" names its object by a phrase instead
(:data:`OBJECT_PHRASES`: "the city where X is located", not "the city of X").
Coverage: every relation kg-qgen ships a Wikidata label for (:mod:`kg_qgen.semantics.relations`:
MQuAKE's 44 question templates, ROME/CounterFact's 34 relations, the built-in KB) except the
schema relations P31/P279, which are never asked about.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

__all__ = ["PHRASES", "RelationPhrase", "phrase_for"]


_TRAILING_PREPOSITIONS = ("of", "in", "at", "by", "for", "to", "on", "from", "with", "after")


@dataclass(frozen=True)
class RelationPhrase:
    noun: str
    person: bool = False  # objects are people or groups -> "Who", else "What"
    questions: tuple[str, ...] = ()
    # a label ending in a preposition ("capital of", "located in") reads "the thing X is capital
    # of", never "the capital of of X": ``inverse`` holds the label, ``noun`` is unused
    inverse: str = ""
    alt_nouns: tuple[str, ...] = ()  # other nouns with the same meaning ("nationality")
    # the fact as a clause, "{s} was{not} developed by {o}": "{not}" is " not" or "", so the
    # negated clause has the same words plus "not" (MT's mirrored wordings need that)
    verbs: tuple[str, ...] = ()
    # the object named by a phrase of its own, ``{x}`` = the subject ("the city where {x} is
    # located"), for a relation whose noun reads wrong with "of" or a possessive: "the city of
    # the Golden Gate Bridge" reads as a city named after the bridge. np() and possessive()
    # use it; frames that need "its <noun>" check :attr:`plain` and pick another wording
    object_phrase: str = ""

    @property
    def plain(self) -> bool:
        """Whether "the <noun> of X", "X's <noun>" and "its <noun>" read right."""
        return not self.inverse and not self.object_phrase

    def varied(self, rng: random.Random) -> RelationPhrase:
        """This phrasing with its noun drawn from the noun and :attr:`alt_nouns` (seeded)."""
        if not self.alt_nouns:
            return self
        return replace(self, noun=rng.choice((self.noun, *self.alt_nouns)))

    @property
    def wh(self) -> str:
        return "Who" if self.person else "What"

    def np(self, x: str) -> str:
        """Noun phrase for the object: "the country of citizenship of X"."""
        if self.inverse:
            return f"the one that {x} is {self.inverse}"
        if self.object_phrase:
            return self.object_phrase.format(x=x)
        return f"the {self.noun} of {x}"

    def possessive(self, x: str) -> str:
        """ "X's country of citizenship" (used when X is a plain name)."""
        if not self.plain:
            return self.np(x)
        suffix = "'" if x.endswith("s") else "'s"
        return f"{x}{suffix} {self.noun}"

    def direct(self, x: str, choice: int = 0) -> str:
        if self.inverse:
            return f"{self.wh} is {x} {self.inverse}?"
        qs = self.questions or (f"{self.wh} is the {self.noun} of [X]?",)
        return qs[choice % len(qs)].replace("[X]", x)


def _p(noun: str, *questions: str, person: bool = False) -> RelationPhrase:
    return RelationPhrase(noun=noun, person=person, questions=questions)


PHRASES: dict[str, RelationPhrase] = {
    "P6": _p("head of government", "Who leads the government of [X]?", person=True),
    "P17": _p("country", "In which country is [X] located?", "Which country does [X] belong to?"),
    "P19": _p("place of birth", "In which city was [X] born?", "Where was [X] born?"),
    "P20": _p("place of death", "In which city did [X] die?", "Where did [X] pass away?"),
    "P26": _p("spouse", "Who is [X] married to?", "Who is the spouse of [X]?", person=True),
    "P27": _p(
        "country of citizenship",
        "What is the country of citizenship of [X]?",
        "Which country is [X] a citizen of?",
    ),
    "P30": _p("continent", "On which continent is [X]?", "Which continent is [X] part of?"),
    "P35": _p("head of state", "Who is the head of state of [X]?", person=True),
    "P36": _p("capital", "What is the capital of [X]?", "Which city is the capital of [X]?"),
    "P37": _p(
        "official language",
        "What is the official language of [X]?",
        "Which language is official in [X]?",
    ),
    "P38": _p("currency", "What is the currency of [X]?", "Which currency is used in [X]?"),
    "P39": _p("position held", "Which position has [X] held?", "What position did [X] hold?"),
    "P40": _p("child", "Who is a child of [X]?", person=True),
    "P50": _p("author", "Who wrote [X]?", "Who is the author of [X]?", person=True),
    "P69": _p("alma mater", "Where was [X] educated?", "Which university did [X] attend?"),
    "P101": _p(
        "field of work", "What is the field of work of [X]?", "In which field does [X] work?"
    ),
    "P103": _p(
        "native language",
        "What is the native language of [X]?",
        "Which language is [X]'s mother tongue?",
    ),
    "P106": _p("occupation", "What is the occupation of [X]?", "What does [X] do for a living?"),
    "P108": _p("employer", "Who employs [X]?", "Which organization does [X] work for?"),
    "P112": _p("founder", "Who founded [X]?", "Who is the founder of [X]?", person=True),
    "P127": _p("owner", "Who owns [X]?", "Who is the owner of [X]?", person=True),
    # containment: asked only when the object is a city (kg_qgen.semantics.source_defects), so
    # the question names that level and the region or country above it is not a second answer;
    # "the city of X" would read as a city named X (OBJECT_PHRASES below)
    "P131": _p("city", "In which city is [X] located?", "Which city is [X] in?"),
    "P136": _p("genre", "What is the genre of [X]?", "Which genre does [X] belong to?"),
    "P138": _p("namesake", "What is [X] named after?", "Who or what is [X] named after?"),
    "P140": _p("religion", "What is the religion of [X]?", "Which religion does [X] follow?"),
    "P159": _p(
        "headquarters location",
        "Where are the headquarters of [X]?",
        "In which city is [X] headquartered?",
    ),
    "P169": _p(
        "chief executive officer", "Who is the chief executive officer of [X]?", person=True
    ),
    "P170": _p("creator", "Who created [X]?", "Who is the creator of [X]?", person=True),
    "P175": _p("performer", "Who performed [X]?", "Who is the performer of [X]?", person=True),
    "P176": _p("manufacturer", "Which company manufactures [X]?", "Who makes [X]?"),
    "P178": _p("developer", "Who developed [X]?", "Which company is the developer of [X]?"),
    "P190": _p("twin town", "What is a twin town of [X]?", "Which city is twinned with [X]?"),
    "P264": _p("record label", "What is the record label of [X]?", "Which label signed [X]?"),
    "P276": _p("city", "In which city is [X]?", "Which city is [X] located in?"),
    "P286": _p("head coach", "Who is the head coach of [X]?", "Who coaches [X]?", person=True),
    "P364": _p(
        "original language",
        "What is the original language of [X]?",
        "In which language was [X] originally made?",
    ),
    "P407": _p("language", "In which language is [X] written?", "What language is [X] in?"),
    "P413": _p(
        "playing position",
        "Which position does [X] play?",
        "What is the playing position of [X]?",
    ),
    "P449": _p(
        "original broadcaster",
        "Which network first broadcast [X]?",
        "Who is the original broadcaster of [X]?",
    ),
    "P463": _p("organization membership", "Which organization is [X] a member of?"),
    "P488": _p("chairperson", "Who chairs [X]?", "Who is the chairperson of [X]?", person=True),
    "P495": _p(
        "country of origin",
        "What is the country of origin of [X]?",
        "Which country does [X] come from?",
    ),
    "P641": _p("sport", "Which sport is [X] associated with?", "Which sport does [X] belong to?"),
    "P740": _p("place of formation", "Where was [X] formed?", "In which place was [X] founded?"),
    "P800": _p("notable work", "What is a notable work of [X]?", "What is [X] known for?"),
    "P937": _p("work location", "In which city does [X] work?", "Where did [X] work?"),
    "P1037": _p(
        "director or manager",
        "Who is the director or manager of [X]?",
        "Who manages [X]?",
        person=True,
    ),
    "P1303": _p("instrument", "Which instrument does [X] play?", "What instrument does [X] play?"),
    "P1308": _p("officeholder", "Who holds the office of [X]?", person=True),
    "P1412": _p(
        "language spoken", "Which language does [X] speak?", "What language is spoken by [X]?"
    ),
}

# Other nouns of the same meaning for the most used relations (template variety)
ALT_NOUNS: dict[str, tuple[str, ...]] = {
    "P27": ("country of nationality", "citizenship country"),
    # not "seat of government": that is The Hague for the Netherlands, whose capital is Amsterdam
    "P36": ("capital city",),
    "P169": ("CEO", "chief executive"),
    "P178": ("developing company", "maker"),
    "P1037": ("manager", "director"),
    "P175": ("performing artist", "artist"),
    "P449": ("original network", "first broadcaster"),
    "P413": ("position", "field position"),
    "P495": ("country of creation", "home country"),
    "P26": ("husband or wife", "partner in marriage"),
    "P170": ("author or creator", "originator"),
    "P112": ("founder or co-founder",),
    "P286": ("coach", "main coach"),
    "P37": ("official tongue",),
    "P50": ("writer",),
    "P176": ("maker", "producing company"),
    "P108": ("employing organization",),
    "P19": ("birthplace", "city of birth"),
}
# The fact as a clause with a place for "not" (MT antecedents and asks; the subject first)
VERBS: dict[str, tuple[str, ...]] = {
    "P178": ("{s} was{not} developed by {o}", "{s} is{not} a product of {o}"),
    "P176": ("{s} was{not} made by {o}", "{s} is{not} manufactured by {o}"),
    "P27": ("{s} is{not} a citizen of {o}", "{s} is{not} a national of {o}"),
    "P495": ("{s} was{not} created in {o}", "{s} is{not} a creation of {o}"),
    "P175": ("{s} was{not} performed by {o}", "{s} is{not} a work by {o}"),
    "P449": ("{s} was{not} first broadcast by {o}", "{s} was{not} first aired by {o}"),
    "P170": ("{s} was{not} created by {o}", "{s} is{not} a creation of {o}"),
    "P50": ("{s} was{not} written by {o}", "{s} is{not} a work by {o}"),
    "P112": ("{s} was{not} founded by {o}", "{s} is{not} an organisation founded by {o}"),
    "P127": ("{s} is{not} owned by {o}", "{s} is{not} a property of {o}"),
    "P19": ("{s} was{not} born in {o}", "{s} is{not} a native of {o}"),
    "P159": ("{s} is{not} headquartered in {o}", "{s} has{not} got its headquarters in {o}"),
    "P740": ("{s} was{not} formed in {o}", "{s} was{not} founded in {o}"),
    "P286": ("{s} is{not} coached by {o}", "{s} is{not} trained by {o}"),
    "P1037": ("{s} is{not} managed by {o}", "{s} is{not} directed by {o}"),
    "P169": ("{s} is{not} led by {o}", "{s} is{not} run by {o}"),
}
# More direct questions for the relations most sources ask (template variety: a frame-0 question
# shares its words only with questions of the same relation and wording); other structures too,
# the subject last, first or inside ("[X] lies on which continent?", "By whom was [X] written?")
MORE_QUESTIONS: dict[str, tuple[str, ...]] = {
    "P27": ("[X] holds the citizenship of which country?", "Of which country is [X] a national?"),
    "P30": ("[X] lies on which continent?", "What continent is [X] on?"),
    "P36": ("Which city serves as the capital of [X]?", "[X] has which city as its capital?"),
    "P17": ("[X] is in which country?", "What country is [X] in?"),
    "P50": ("By whom was [X] written?", "[X] was written by whom?"),
    "P112": ("By whom was [X] founded?", "[X] was founded by whom?"),
    "P641": ("With which sport is [X] connected?",),
    "P413": ("What position does [X] play?", "[X] plays in which position?"),
    "P175": ("Which artist performed [X]?", "[X] was performed by whom?"),
    "P178": ("Which company developed [X]?", "[X] was developed by whom?"),
    "P169": ("Who runs [X] as its chief executive?", "Who is the CEO of [X]?"),
    "P495": ("In which country did [X] originate?", "Where does [X] originate from?"),
    "P19": ("What is the birthplace of [X]?", "[X] was born in which city?"),
    "P20": ("[X] died in which city?",),
    "P38": ("[X] uses which currency?", "What money is used in [X]?"),
    "P159": ("Where is [X] based?", "[X] has its headquarters in which city?"),
    "P449": ("On which network did [X] first air?",),
    "P286": ("Who is the coach of [X]?", "[X] is coached by whom?"),
    "P1037": ("[X] is managed by whom?",),
    "P740": ("[X] was formed in which place?",),
    "P176": ("Who is the manufacturer of [X]?", "Which company produces [X]?"),
    "P170": ("[X] was created by whom?",),
    "P131": ("In what city can [X] be found?",),
    "P276": ("In what city can [X] be found?",),
    "P127": ("[X] is owned by whom?",),
    "P488": ("[X] is chaired by whom?",),
}
for _rid, _more in MORE_QUESTIONS.items():
    PHRASES[_rid] = replace(PHRASES[_rid], questions=PHRASES[_rid].questions + _more)

# Relations whose noun reads wrong as "the <noun> of X" ("the city of the Eiffel Tower"): the
# object is named by a phrase instead (RelationPhrase.object_phrase)
OBJECT_PHRASES: dict[str, str] = {
    "P131": "the city where {x} is located",
    "P276": "the city where {x} is",
}
for _rid, _phrase in OBJECT_PHRASES.items():
    PHRASES[_rid] = replace(PHRASES[_rid], object_phrase=_phrase)
for _rid, _verbs in VERBS.items():
    if _rid in PHRASES:
        PHRASES[_rid] = replace(PHRASES[_rid], verbs=_verbs)
for _rid, _alts in ALT_NOUNS.items():
    if _rid in PHRASES:
        PHRASES[_rid] = replace(PHRASES[_rid], alt_nouns=_alts)

# Wikidata labels that read badly as nouns, mapped to the noun we use in the fallback
_FALLBACK_NOUNS = {"director / manager": "director or manager"}


def phrase_for(relation_id: str, relation_label: str) -> RelationPhrase:
    """The phrasing for a relation, or a generic one built from its label."""
    if relation_id in PHRASES:
        return PHRASES[relation_id]
    noun = _FALLBACK_NOUNS.get(relation_label, relation_label).strip() or relation_id
    words = noun.split()
    if len(words) >= 2 and words[-1].lower() in _TRAILING_PREPOSITIONS:
        # "capital of" -> "What is Berlin the capital of?"; "located in" -> "... located in?"
        head = words[0].lower()
        inverse = noun if head.endswith("ed") or head in ("a", "an", "the") else f"the {noun}"
        return RelationPhrase(noun=noun, inverse=inverse)
    return RelationPhrase(noun=noun)
