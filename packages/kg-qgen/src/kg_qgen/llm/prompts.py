"""Every prompt the LLM features send, in one place, versioned.

``PROMPT_VERSION`` is part of every cache key: change it whenever a prompt's wording changes so
stale cached completions are never reused.

Question generation (paper 4.2) has one prompt per question type. Each shows the facts as
``subject | relation | object`` lines; in chained types (HS, MP, MT) the intermediate entity is
written ``[BRIDGE]`` and the prompt names it once, only to say it must not be mentioned, as in
the paper's "compose questions about which continent Louis Joseph held citizenship in, without
mentioning France". Every generation prompt asks for the same JSON object::

    {"questions": [<n paraphrases>], "answer_aliases": [<0-3 other names of the answer>]}

The other prompts: triple extraction from raw text (:func:`extraction_prompt`), decomposition of a
question into single hops (:func:`decomposition_prompt`) and answer uniqueness
(:func:`uniqueness_prompt`).
"""

from __future__ import annotations

import json

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.llm.backend import Messages
from kg_qgen.match.base import Match
from kg_qgen.qtypes import get_question_type
from kg_qgen.wording import capitalize_sentences, phrase_for

__all__ = [
    "GENERATION_SYSTEM",
    "PROMPT_VERSION",
    "TYPE_TASKS",
    "decomposition_prompt",
    "extraction_prompt",
    "generation_prompt",
    "repair_prompt",
    "uniqueness_prompt",
]

PROMPT_VERSION = "kg-qgen-llm/3"

GENERATION_SYSTEM = (
    "You write quiz questions from knowledge-graph facts. "
    "Reply with a single JSON object and nothing else."
)

# One line per type: what kind of question the prompt asks for (also shown to the model).
TYPE_TASKS: dict[str, str] = {
    "SH": "a single-hop question about one fact",
    "HS": "a two-hop question whose intermediate entity stays hidden",
    "MP": "a modus ponens question: a general rule, an instance of it, then the conclusion",
    "LL": "a Leibniz's-law question: a fact asked through another name of the subject",
    "CC": "a conjunction question: two subjects share one value, ask for that shared value",
    "DS": "a disjunctive-syllogism question: options, one ruled out by a fact, pick the true one",
    "MT": "a modus tollens question: one conditional per option, then which option holds",
}


def _fact(g: KnowledgeGraph, s: str, r: str, o: str) -> str:
    return f"{s} | {g.relation_label(r)} | {o}"


def _noun(g: KnowledgeGraph, r: str) -> str:
    """The relation as a noun for instructions ("administrative region", not the Wikidata label
    "located in the administrative territorial entity")."""
    return phrase_for(r, g.relation_label(r)).noun


def _output_spec(n: int, answer: str, yes_no: bool) -> str:
    aliases = (
        '"answer_aliases" must be [] (the answer is yes or no).'
        if yes_no
        else f'"answer_aliases" lists 0 to 3 other common names of the answer "{answer}".'
    )
    return (
        f'Reply with JSON only: {{"questions": [{n} strings], "answer_aliases": [strings]}}. '
        f'"questions" holds {n} different phrasings of the same question, each one complete '
        f"sentence or two ending with a question mark. {aliases}"
    )


def _sh(m: Match, g: KnowledgeGraph) -> str:
    f = m.target
    s, o, r = g.label(f.subject), g.label(f.object), _noun(g, f.relation)
    return (
        f"Fact: {_fact(g, s, f.relation, o)}\n"
        f'Write a question that asks for the {r} of {s}. The answer is "{o}"; '
        f'the question must not contain "{o}".'
    )


def _chain(m: Match, g: KnowledgeGraph) -> tuple[str, str, str, str, str, str]:
    """A two-hop match's labels (subject, bridge, answer), its relations as nouns (first hop,
    second hop) and its "Chain of facts" lines with the bridge written ``[BRIDGE]``."""
    f1, f2 = m.premises
    s, b, o = g.label(f1.subject), g.label(f1.object), g.label(f2.object)
    chain = (
        "Chain of facts:\n"
        f"{_fact(g, s, f1.relation, '[BRIDGE]')}\n{_fact(g, '[BRIDGE]', f2.relation, o)}\n"
    )
    return s, b, o, _noun(g, f1.relation), _noun(g, f2.relation), chain


def _hs(m: Match, g: KnowledgeGraph) -> str:
    s, b, o, r1, r2, chain = _chain(m, g)
    return (
        f"{chain}"
        f"Write a question that asks for the {r2} of the {r1} of {s}. Refer to [BRIDGE] only "
        f'as "the {r1} of {s}": [BRIDGE] is "{b}", which must not be mentioned. '
        f'The answer is "{o}"; the question must not contain "{o}".'
    )


def _mp(m: Match, g: KnowledgeGraph) -> str:
    from kg_qgen.match.mp import RULES  # kg-qgen's documented table of true general rules

    s, b, o, r1, r2, chain = _chain(m, g)
    rule = RULES[tuple(f.relation for f in m.premises)]
    instance = capitalize_sentences(rule.instance.replace("[X]", s), [s])
    return (
        f"{chain}"
        f"General rule: {rule.rule}\n"
        f'Masked instance: "{instance}"\n'
        f"Write a question that (1) states the general rule, (2) states the masked instance "
        f"({s} has a certain {r1}, without naming it), and (3) asks what the rule implies for "
        f"{s}, i.e. the {r2} of the {r1} of {s}. Start every sentence with a capital letter. "
        f'[BRIDGE] is "{b}", which must not be mentioned. '
        f'The answer is "{o}"; the question must not contain "{o}".'
    )


def _mt(m: Match, g: KnowledgeGraph) -> str:
    f1, f2, d_fact = m.premises[0], m.premises[1], m.premises[2]
    s, r1, r2 = g.label(f1.subject), _noun(g, f1.relation), _noun(g, f2.relation)
    conds = "\n".join(
        f'"if the {r1} of {s} is {g.label(c)}, then the {r2} of the {r1} of {s} is {g.label(v)}"'
        for c, v in m.extra["conditionals"]
    )
    options = " and ".join(g.label(o) for o in m.extra["options"])
    return (
        f"Facts:\n{_fact(g, s, f1.relation, g.label(f1.object))}\n"
        f"{_fact(g, g.label(f1.object), f2.relation, g.label(f2.object))}\n"
        f"{_fact(g, g.label(d_fact.subject), f2.relation, g.label(d_fact.object))}\n"
        f"Write a question that states these two conditionals, in this order, with the same "
        f'wording for both and in the indicative mood (never "were" or "would"):\n{conds}\n'
        f"then asks which of {options} (in this order) is the {r1} of {s}. Do not say which "
        f'consequent is true, and never write "therefore", "thus", "hence" or "it follows". '
        f'The correct answer is "{g.label(m.answer)}".'
    )


def _ll(m: Match, g: KnowledgeGraph) -> str:
    f = m.target
    s, o, r = g.label(f.subject), g.label(f.object), _noun(g, f.relation)
    alias = m.extra["alias"]
    return (
        f"Fact: {_fact(g, s, f.relation, o)}\n"
        f'"{alias}" is another name of {s}. Write a question that asks for the {r} of {s}, '
        f'naming the subject only as "{alias}" (never write "{s}"). '
        f'The answer is "{o}"; the question must not contain "{o}".'
    )


def _cc(m: Match, g: KnowledgeGraph) -> str:
    f = m.target
    s1, s2, o = g.label(f.subject), g.label(m.extra["partner"]), g.label(f.object)
    r = _noun(g, f.relation)
    return (
        "Facts:\n"
        f"{_fact(g, s1, f.relation, '[ANSWER]')}\n{_fact(g, s2, f.relation, '[ANSWER]')}\n"
        f"Write a question that names both {s1} and {s2} and asks for the {r} they have in "
        f'common. [ANSWER] is "{o}"; the question must not contain "{o}".'
    )


def _ds(m: Match, g: KnowledgeGraph) -> str:
    f = m.target
    s, o, r = g.label(f.subject), g.label(f.object), _noun(g, f.relation)
    options = [g.label(x) for x in m.extra["options"]]
    clues = "; ".join(
        f"not the one whose {_noun(g, c.fact.relation)} is {g.label(c.fact.object)}"
        if c.side == "subject"
        else f"not the {_noun(g, c.fact.relation)} of {g.label(c.fact.subject)}"
        for c in m.extra["clues"]
    )
    return (
        f"Fact: {_fact(g, s, f.relation, '?')}\n"
        f"Options, in this order: {', '.join(options)}.\n"
        f"Write a question that says the {r} of {s} is one of the options (name all of them, "
        f"in this order), then rules out every option but one with these clues, in this order: "
        f'"{clues}" (never say which option a clue rules out), and asks which option '
        f"is the {r} of {s}. "
        f'The correct option is "{o}": never say or hint which option is correct.'
    )


def generation_prompt(m: Match, g: KnowledgeGraph, n_paraphrases: int = 3) -> Messages:
    """The chat messages asking for ``n_paraphrases`` phrasings of the question for ``m``."""
    qtype = get_question_type(m.type)
    if qtype.prompt is None:
        raise KeyError(f"no generation prompt for question type {m.type!r}")
    answer = g.label(m.answer) if m.answer_is_entity else m.answer
    body = qtype.prompt(m, g)
    user = (
        f"Task: {qtype.task}.\n{body}\n"
        f"{_output_spec(n_paraphrases, answer, yes_no=not m.answer_is_entity)}"
    )
    return [{"role": "system", "content": GENERATION_SYSTEM}, {"role": "user", "content": user}]


def repair_prompt(messages: Messages, bad_reply: str, problem: str) -> Messages:
    """Re-ask after an unusable reply: the conversation so far plus what was wrong.

    The extra turn also changes the cache key, so a cached bad reply is not served again.
    """
    return [
        *messages,
        {"role": "assistant", "content": bad_reply},
        {
            "role": "user",
            "content": f"That reply cannot be used: {problem}. "
            "Reply again with only the JSON object, following every rule above.",
        },
    ]


EXTRACTION_SYSTEM = (
    "You extract knowledge-graph facts from text. Reply with a single JSON object and nothing else."
)


def extraction_prompt(chunk: str) -> Messages:
    """Ask for every (subject, relation, object) fact stated in ``chunk``, as a JSON list."""
    user = (
        "Extract every fact stated in the text below as a (subject, relation, object) triple.\n"
        "Rules: subject and object are short names of entities or values, never pronouns "
        '(write the name a pronoun refers to); relation is a short lower-case phrase such as "place '
        'of birth", "capital" or "author"; only facts the text states.\n'
        'Reply with JSON only: {"triples": [{"subject": "...", "relation": "...", "object": '
        '"..."}, ...]}.\n\n'
        f'Text:\n"""\n{chunk}\n"""'
    )
    return [{"role": "system", "content": EXTRACTION_SYSTEM}, {"role": "user", "content": user}]


VERIFY_SYSTEM = (
    "You check quiz questions carefully. Reply with a single JSON object and nothing else."
)


def decomposition_prompt(question: str) -> Messages:
    """Ask for the chain of single-hop questions (with subject, relation, answer) behind a question."""
    example = json.dumps(
        {
            "steps": [
                {
                    "question": "What is the country of citizenship of Ada?",
                    "subject": "Ada",
                    "relation": "country of citizenship",
                    "answer": "Freedonia",
                },
                {
                    "question": "Which continent is Freedonia in?",
                    "subject": "Freedonia",
                    "relation": "continent",
                    "answer": "Europe",
                },
            ]
        }
    )
    user = (
        "Decompose the question below into the single-hop factual questions needed to answer it, "
        "in order. For each step give the question, its subject, the relation asked about and "
        "the answer (use your own knowledge).\n"
        f"Example format: {example}\n"
        f"Question: {question}"
    )
    return [{"role": "system", "content": VERIFY_SYSTEM}, {"role": "user", "content": user}]


def uniqueness_prompt(question: str, answer: str) -> Messages:
    """Ask whether ``question`` has exactly one valid answer."""
    user = (
        "Does the question below have exactly one correct answer? Different names of the same "
        "thing count as one answer; a question with several valid answers, or none, fails.\n"
        f"Question: {question}\nProposed answer: {answer}\n"
        'Reply with JSON only: {"unique": true or false, "reason": "one short sentence"}.'
    )
    return [{"role": "system", "content": VERIFY_SYSTEM}, {"role": "user", "content": user}]
