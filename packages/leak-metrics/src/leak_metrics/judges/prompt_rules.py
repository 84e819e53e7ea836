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
    "':', or a first sentence that only talks about answering, such as 'That is an interesting "
    "question.', does not count as that sentence: the next one does); ignore everything after "
    "it. It is CORRECT only if it "
    "gives the gold answer (or an accepted alias, an official name such as 'the Republic of "
    "France', or, for a country or continent, an unambiguous adjectival or contextual form such "
    "as 'the German city of ...', 'a former U.S. President', 'a prominent American abolitionist' "
    "or 'the European continent'; for a sport or trade also 'footballer', 'writers') as the "
    "answer to the question's relation about the question's subject; for a relation with several "
    "values (occupation, language, genre) a list that holds the gold counts. A 1-2 letter alias "
    "counts only as a well-known code of the entity written in capitals ('US', 'UK'). It is "
    "INCORRECT if it commits to a different answer "
    "first (even if the gold follows), names the gold only inside another name ('South Africa' "
    "for Africa, 'North America' for America) or in another role (where a person was born, "
    "lives or is based, for a citizenship question), lists the gold with another answer ('Europe "
    "and North America', with or without 'or'), contradicts itself ('..., but he was born in the "
    "Soviet Union'), or talks about something else. Also INCORRECT: a mixed nationality "
    "('Canadian-American') for a citizenship question; the gold only inside a title ('the 41st "
    "President of the United States'); the gold's words used as a common word ('The rule states "
    "...' is not 'the States'); a denial that the asked value exists ('they do not have a "
    "citizenship in common', 'their occupations are distinct'); the gold inside the longer name of "
    "another place ('the Republic of China (Taiwan)' for China); a larger unit holding the gold's "
    "name ('the state of New York' for New York City)."
)

YES_NO_RULE = (
    "For a yes/no question, compare what the committed answer asserts with what the question's "
    "final sentence asks, minding both polarities (a clear affirmation or denial counts without "
    "a yes/no word: 'Sydney is a city in Australia' is a no to 'is Sydney's country Germany?'; "
    "an interjection before the yes/no, as in 'Vamos, no!', is fine): for 'Is it true that the "
    "developer of X is "
    "not Apple Inc.?', the statement 'The developer of X is not Apple Inc.' is a yes; for 'Is it "
    "false that ...?' a statement that the claim holds is a no. A leading yes or no decides. A "
    "refusal or evasion ('I'd rather not speculate'), 'yes and no', or a statement that neither "
    "affirms nor denies the asked claim ('... is a classic example of a logical fallacy') is "
    "INCORRECT, never a yes or a no."
)

__all__ = ["COMMITTED_ANSWER_RULE", "HEDGE_RULE", "YES_NO_RULE"]
