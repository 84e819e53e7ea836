"""The grading rules stated to an LLM judge, word for word: the alias judge's rules in words
(README "Labelling rules"), so both judges grade by the same rules."""

# The rule, stated to the judge model word for word (tests check the prompt carries it).
HEDGE_RULE = (
    "A response is INCORRECT if it hedges between candidates (names two or more of the CANDIDATE "
    "OPTIONS, names a wrong candidate next to the gold answer, or lists the gold answer among "
    "alternatives joined by or/either/maybe/one of), negates the gold answer (e.g. 'it is not "
    "X'), or refuses or does not answer (e.g. 'I don't know')."
)

# The committed-answer rule of the alias judge (README "Labelling rules"), in words.
COMMITTED_ANSWER_RULE = (
    "Judge only the COMMITTED ANSWER: the response's first answer sentence (a lead-in ending in "
    "':' does not count as that sentence); ignore everything after it. It is CORRECT only if it "
    "gives the gold answer (or an accepted alias, an official name such as 'the Republic of "
    "France', or, for a country or continent, an unambiguous adjectival or contextual form such "
    "as 'the German city of ...' or 'a former U.S. President') as the answer to the question's "
    "relation about the question's subject. It is INCORRECT if it commits to a different answer "
    "first (even if the gold follows), names the gold only inside another name ('South Africa' "
    "for Africa, 'North America' for America) or in another role (where a person was born, "
    "lives or is based, for a citizenship question), lists the gold with another answer ('Europe "
    "and North America', with or without 'or'), contradicts itself ('..., but he was born in the "
    "Soviet Union'), or talks about something else."
)

YES_NO_RULE = (
    "For a yes/no question, compare what the committed answer asserts with what the question's "
    "final sentence asks, minding both polarities: for 'Is it true that the developer of X is "
    "not Apple Inc.?', the statement 'The developer of X is not Apple Inc.' is a yes; for 'Is it "
    "false that ...?' a statement that the claim holds is a no. A leading yes or no decides. A "
    "refusal or evasion ('I'd rather not speculate'), 'yes and no', or a statement that neither "
    "affirms nor denies the asked claim ('... is a classic example of a logical fallacy') is "
    "INCORRECT, never a yes or a no."
)

__all__ = ["COMMITTED_ANSWER_RULE", "HEDGE_RULE", "YES_NO_RULE"]
