"""Does a recall query ask about the past?

"Who owned the billing rotation in March?", "What was the limit before it
was raised?", "Which vendor did we use originally?" — the answer may be a
lesson a later one superseded. Recall then searches the superseded lessons
too (``memory.selectors.lesson_recall``); they come back with their status
and successor, so the caller sees what is no longer true. A question about
now is answered from the active lessons alone, as before.

The test is on the words of the question: a month or year it is set in
("in March", "the February incident", "back in 2024", "2024-03"), words
that look back ("before the …", "previously", "originally", "used to",
"no longer", "former", "at the time"), or a past-tense question about a state ("what was", "who
was", "how many … were"). It errs towards yes: a superseded lesson is only
returned when it ranks among the best answers.
"""

from __future__ import annotations

import re

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PAST = re.compile(
    r"|".join(
        [
            # set in a month, a quarter or a year
            rf"\b(?:in|during|as of|by|until|through|since|back in|early|late|mid|end of|start of)"
            rf"[\s-]+{_MONTH}\b",
            rf"\b{_MONTH}\s+(?:19|20)\d\d\b",
            # a month named anywhere ("the February incident"; not the verb "may")
            r"\b(?:january|february|march|april|june|july|august|september|october|november"
            r"|december)\b",
            r"\b(?:in|during|back in|as of|since|until)\s+(?:q[1-4]\s+)?(?:19|20)\d\d\b",
            r"\b(?:19|20)\d\d-[01]\d\b",
            # looking back
            r"\b(?:previous(?:ly)?|originally|original|initially|at first|formerly|former|earlier"
            r"|used to|no longer|any more|anymore|at the time|back then|in the past|old)\b",
            r"\bbefore\b.{0,60}\b(?:chang|switch|mov|replac|rais|lower|increas|decreas|took over"
            r"|handed|left|join|migrat|upgrad|renew|hired|promot)\w*",
            r"\b(?:changed|switched|moved|replaced|raised|lowered|swapped)\b.{0,30}\bfrom\b",
            r"\bbefore (?:the|that|this|it|its|our|we|they|he|she)\b",
            # a past-tense question about a state
            r"^\s*(?:what|who|which|where|how (?:many|much|long|often))\b"
            r"[^?]{0,40}\b(?:was|were)\b",
            r"\bfirst\b.{0,40}\b(?:was|were|did|had)\b",
        ]
    ),
    re.IGNORECASE,
)


def asks_about_the_past(query: str) -> bool:
    return _PAST.search(query) is not None
