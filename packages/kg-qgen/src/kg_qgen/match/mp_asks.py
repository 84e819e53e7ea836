"""Ways to ask an MP question's conclusion (:attr:`kg_qgen.match.mp.MPRule.conclusions`).

Data only: lead-ins and, per table question, other questions with the same answer, so the last
sentence of an MP question varies in structure ("which sport does X play?", "X plays which
sport?", "in which sport does X compete?"), not only in its first words.
"""

from __future__ import annotations

__all__ = ["ASK_ALT", "ASK_LEADS"]

# lead-ins of the conclusion question (the rule is applied, not recalled)
ASK_LEADS = (
    "According to this rule, ",
    "Following the rule, ",
    "So ",
    "Using the rule, ",
    "Then ",
    "By this rule, ",
    "Hence, ",
    "Applying the rule, ",
)
# other ways to ask the same conclusion (same answer), keyed by the table's question
ASK_ALT: dict[str, tuple[str, ...]] = {
    "which sport does [X] play?": (
        "what sport does [X] play?",
        "in which sport does [X] compete?",
        "[X] plays which sport?",
        "what is the sport that [X] plays?",
        "which sport is [X] a player of?",
    ),
    "on which continent does [X] hold a citizenship?": (
        "[X] is a citizen of a country on which continent?",
        "which continent is the country of citizenship of [X] on?",
        "on which continent is the country that [X] is a citizen of?",
    ),
    "from which continent does [X] originate?": (
        "which continent does [X] come from?",
        "[X] originates from which continent?",
        "what is the continent of origin of [X]?",
    ),
    "on which continent was [X] born?": (
        "which continent was [X] born on?",
        "[X] was born on which continent?",
        "what is the continent of birth of [X]?",
    ),
    "on which continent did [X] die?": (
        "which continent did [X] die on?",
        "[X] died on which continent?",
        "on what continent did [X] pass away?",
    ),
    "in which country was [X] born?": (
        "[X] was born in which country?",
        "which country was [X] born in?",
    ),
    "in which country did [X] die?": (
        "[X] died in which country?",
        "which country did [X] die in?",
    ),
}
