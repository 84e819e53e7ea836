"""Alias forms a reader would not use for an entity (issue 34 item 4): codes, jokes, emojis.

Rules read off the aliases Wikidata gives MQuAKE's entities (``MQuAKE-hard-dev.json``), each a
shape, not a list of records. :func:`form_problem` says why an alias is not a reader's form:

* ``emoji``: it has a symbol character (Unicode category S*: emoji, pictographs) or no
  letter/digit at all;
* ``machine code``: a token joins letters with ``_`` or ``.`` and no space (``en_us``,
  ``uc.pt``, ``umich.edu``) or is pieces of at most two letters joined by hyphens (``en-US``);
* ``code mix``: a code of two or three capitals (not a Roman numeral nor a legal form) that
  stands for part of the name before "of" (``US of A``, ``US of America``) or comes first before
  words the label does not have (``BR Deutschland``); a code after the name as a qualifier
  (``Detroit, MI``, ``Manchester United FC``) and an all-capitals name pass;
* ``jumble``: one word made of the starts of two or more of the label's words, at least two of
  them two letters or longer and one cut short (``FoMoCo`` for Ford Motor Company); initials
  (``FDR``) are codes, judged by length and the reviewed list;
* ``borrowed name``: a person's alias with a word of four letters or more, not in its label,
  taken from the name of a person or organisation linked to it by a fact (``Tim Apple`` for Tim
  Cook, CEO of Apple Inc.; a spouse's surname: the alias may point to the other entity);
* ``another's name``: a comparison nickname, "<name> of <place>", whose head is the label of
  another entity of the source (``The Athens of America`` when Athens is in it), or any
  "<name> of the East/West/North/South/Orient" (``Paris of the East``, ``Venice of the North``):
  nicknames several entities share.

:func:`answer_alias_problem` is the rule for answer aliases (matched by a judge in responses):
at least three letters/digits unless it is a code listed for that entity in the reviewed list
``kg_qgen/data/entity_codes.tsv`` (:func:`entity_codes`; leak-metrics' judge reads an identical
copy), and none of the forms above. Reasons are short keys (:data:`ANSWER_REASONS`) so a build can
count its drops per reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable
from functools import lru_cache
from importlib import resources

from kg_qgen.textnorm import normalize

__all__ = [
    "ANSWER_REASONS",
    "answer_alias_problem",
    "entity_codes",
    "form_problem",
    "letters_digits",
]

ANSWER_REASONS = (
    "short",
    "emoji",
    "machine code",
    "code mix",
    "jumble",
    "borrowed name",
    "another's name",
)
_ROMAN = re.compile(r"^(?:I{1,3}|IV|VI{0,3}|IX|XI{0,3})$")
_CODE_TOKEN = re.compile(r"^[A-Z]{2,3}$")
_MACHINE = re.compile(r"[A-Za-z0-9](?:_[A-Za-z]|\.[a-z])")
_LEGAL_CODES = frozenset({"LLC", "PLC", "AG", "SA", "NV", "BV", "LTD", "INC", "CO", "SE", "KG"})
_COMPASS_NICKNAME = re.compile(r"^(?:the )?\w+(?: \w+)? of the (?:east|west|north|south|orient)$")
_HYPHEN_CODE = re.compile(r"^[A-Za-z]{1,2}(?:-[A-Za-z]{1,2})+$")
_MIN_LETTERS = 3


def letters_digits(text: str) -> int:
    return sum(c.isalnum() for c in text)


@lru_cache(maxsize=1)
def entity_codes() -> dict[str, frozenset[str]]:
    """Normalised entity label -> its reviewed short codes as letters/digits in lower case
    (``entity_codes.tsv``; "U.S." and "US" are one code)."""
    ref = resources.files("kg_qgen") / "data" / "entity_codes.tsv"
    out: dict[str, set[str]] = {}
    for line in ref.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#") and "\t" in line:
            code, label = line.split("\t", 1)
            out.setdefault(normalize(label), set()).add(_compact(code))
    return {k: frozenset(v) for k, v in out.items()}


def _compact(code: str) -> str:
    """A code's letters and digits, lower case ("U.S." -> "us")."""
    return normalize(code).replace(" ", "")


def _is_code_token(tok: str) -> bool:
    return bool(_CODE_TOKEN.match(tok)) and not _ROMAN.match(tok) and tok not in _LEGAL_CODES


def _code_mix(tokens: list[str], label_words: list[str]) -> str | None:
    """A code truncating the name ("US of America") or put before a word the label does not
    have ("BR Deutschland"); a code after the name as a qualifier ("Detroit, MI", "Manchester
    United FC"), an article before it ("the UK") and an all-capitals name pass."""
    if all(not c.isalpha() or c.isupper() for c in "".join(tokens)):
        return None
    words = [t for t in tokens if t.lower() not in ("the", "a", "an")]
    for k, tok in enumerate(words):
        if not _is_code_token(tok) or normalize(tok) in label_words:
            continue
        nxt = words[k + 1 :]
        if nxt and nxt[0].lower() == "of":
            return f"the code {tok!r} stands for part of the name before 'of'"
        if k == 0 and any(normalize(w) not in label_words for w in nxt if normalize(w)):
            return f"the code {tok!r} is put before words the label does not have"
    return None


def _jumble(alias: str, label_words: list[str]) -> bool:
    """One word made of the starts of >= 2 of the label's words, in order, at least two pieces
    of two letters or more and one cut short (FoMoCo); initials (FDR) and words run together
    (rightfielder) are not jumbles."""
    word = normalize(alias)
    if " " in word or len(label_words) < 2:
        return False

    def fits(rest: str, words: list[str], pieces: list[tuple[int, int]]) -> bool:
        if not rest:
            long_ = sum(n >= 2 for n, _ in pieces)
            return long_ >= 2 and any(n < size for n, size in pieces)
        for k, w in enumerate(words):
            for n in range(len(w), 0, -1):
                if rest.startswith(w[:n]) and fits(
                    rest[n:], words[k + 1 :], [*pieces, (n, len(w))]
                ):
                    return True
        return False

    return word not in label_words and fits(word, label_words, [])


def form_problem(
    alias: str,
    label: str,
    *,
    linked: Iterable[str] = (),
    labels: Callable[[str], Collection[str]] | None = None,
    entity: str = "",
) -> str | None:
    """Why ``alias`` is not a form a reader uses for the entity labelled ``label`` (module
    docs), as ``"<reason key>: <explanation>"``, or None. ``linked``: labels of the persons and
    organisations linked to a person by a fact (empty for other classes); ``labels``: normalised
    label -> the ids of the entities with that label (the comparison-nickname test uses it)."""
    if any(unicodedata.category(c).startswith("S") for c in alias) or not letters_digits(alias):
        return "emoji: the alias is a symbol or emoji"
    tokens = alias.replace(",", " ").split()
    if any(_MACHINE.search(t) for t in tokens) or _HYPHEN_CODE.match(alias.strip()):
        return "machine code: the alias is a language, domain or file code"
    lab = normalize(label).split()
    mixed = _code_mix(tokens, lab)
    if mixed:
        return f"code mix: {mixed}"
    if _jumble(alias, [w for w in lab if w not in ("of", "the", "and")]):
        return "jumble: the alias is a word made of pieces of the label's words"
    norm = normalize(alias)
    if _COMPASS_NICKNAME.match(norm):
        return "another's name: a comparison nickname several places share"
    words = set(norm.split())
    for other in linked:
        borrowed = sorted(w for w in set(normalize(other).split()) & words if len(w) >= 4)
        borrowed = [w for w in borrowed if w not in lab]
        if borrowed:
            return f"borrowed name: the alias takes {borrowed[0]!r} from {other!r}, linked to it"
    if labels is not None and " of " in f" {norm} ":
        head = norm.split(" of ", 1)[0].removeprefix("the ").strip()
        if head and set(head.split()) - set(lab) and labels(head) - {entity}:
            return f"another's name: a comparison nickname on {head!r}, another entity's name"
    return None


def answer_alias_problem(alias: str, label: str, *, linked: Iterable[str] = ()) -> str | None:
    """Why ``alias`` may not stand for the answer labelled ``label`` in a judge's matching, as
    ``"<reason key>: <explanation>"`` (keys: :data:`ANSWER_REASONS`), or None (module docs)."""
    return _answer_problem(alias, label, tuple(linked))


@lru_cache(maxsize=1 << 15)
def _answer_problem(alias: str, label: str, linked: tuple[str, ...]) -> str | None:
    form = form_problem(alias, label, linked=linked)
    if form is not None:
        return form
    if letters_digits(alias) < _MIN_LETTERS:
        if _compact(alias) in entity_codes().get(normalize(label), frozenset()):
            return None
        return "short: the alias has fewer than 3 letters/digits and is not a listed code"
    return None
