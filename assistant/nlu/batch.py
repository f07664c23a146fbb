"""A batch of output to time: "how long for 200 texts of about 500 tokens each?" writes 100,000
tokens. The reader places the total (`output_tokens`); `throughput_estimate` turns it into the time
one stream takes, so the answer states a duration instead of a speed alone.

Only a question that asks how long (or how fast it gets through the batch) places a batch: "20
requests of 4k tokens each, at the same time" is a load and a context, not output to write.
"""

from __future__ import annotations

import re

from assistant.nlu.query import Query
from assistant.spelled import spelled_counts

_COUNT = (
    r"(\d{1,3}(?:[.,]\d{3})+|\d+(?:[.,]\d+)?)\s*"
    r"(k\b|tsd\.?|tausend\b|thousand\b|m\b|mio\.?|millions?\b|millionen\b)?"
)
# what a batch is made of ("200 Texte", "10k product descriptions", "1.000 E-Mails")
_ITEM = (
    r"(?:texts?|texte?n?|documents?|dokumenten?|docs?|prompts?|answers?|antworten|"
    r"summar(?:y|ies)|zusammenfassung(?:en)?|articles?|artikeln?|e-?mails?|mails?|"
    r"descriptions?|\w*beschreibung(?:en)?|reports?|berichten?|requests?|anfragen?|quer(?:y|ies)|"
    r"completions?|responses?|repl(?:y|ies)|generations?|outputs?|items?|posts?|pages?|seiten|records?|datensätzen?|tickets?|"
    r"reviews?|bewertung(?:en)?|translations?|übersetzung(?:en)?|chunks?|abschnitten?|"
    r"briefe?n?|letters?|stories|geschichten|blog ?posts?|beiträgen?|skus?|blurbs?|"
    r"listings?|einträgen?|entries|transcripts?|transkripte?n?|protokollen?|minutes)"
)
_TOKENS = (
    r"\s*(?:output[- ]?|ausgabe[- ]?)?tok(?:en)?s?\b"
    # "20 requests with 8k tokens context": input read, not output written
    r"(?!\s*(?:of\s+)?(?:context|kontext|input|eingabe|prompt|window|fenster|in\b))"
)
# "200 texte mit je ca. 500 tokens", "10k docs of about 300 tokens each"
_ITEMS_FIRST_RX = re.compile(
    r"(?<![\w.,])"
    + _COUNT
    # (the words between are no figures: "auf einer RTX 5090 200 Produkttexte" counts 200)
    + r"\s+(?:(?!\d)[\w-]+\s+){0,2}?(?:\w+-|(?!con|kon)[a-zäöüß]{3,}(?=te?xt))?"
    + _ITEM
    # ("dreihundert Dokumente zusammenfassen lassen, pro Dokument kommen ca. 800 Tokens raus",
    # "zwölfhundert Produktbeschreibungen mit Qwen2.5 7B auf einer RTX 4090 …, jede um die 350")
    + r"\b[^?!\n]{0,80}?"
    r"(?<![\w.,])" + _COUNT + _TOKENS,
    re.IGNORECASE,
)
# "blurbs for roughly 2,500 SKUs … (a long clause) …, and each blurb should come out at about 300
# tokens": the items counted, then "each …" with their length further on in the sentence
_EACH_LATER_RX = re.compile(
    r"(?<![\w.,])"
    + _COUNT
    + r"\s+(?:(?!\d)[\w-]+\s+){0,2}?"
    + _ITEM
    + r"\b[^?!\n]{0,300}?\b(?:each|every|jede[rsn]?|pro stück)\b[^.?!\n]{0,50}?(?<![\w.,])"
    + _COUNT
    + _TOKENS,
    re.IGNORECASE,
)
# "500 tokens per answer, 2,000 answers", "je 300 Token für 1.000 Beschreibungen"
_TOKENS_FIRST_RX = re.compile(
    r"(?<![\w.,])"
    + _COUNT
    + _TOKENS
    + r"[^.?!\n]{0,40}?(?<![\w.,])"
    + _COUNT
    + r"\s+(?:[\w-]+\s+){0,2}?"
    + _ITEM
    + r"\b",
    re.IGNORECASE,
)
# "replies to customer emails … 200 of them, each roughly 600 tokens": the items named before
_OF_THEM_RX = re.compile(
    r"(?<![\w.,])"
    + _COUNT
    + r"\s+(?:of them|of those|of these|davon|stück)\b[^.?!\n]{0,40}?(?<![\w.,])"
    + _COUNT
    + _TOKENS,
    re.IGNORECASE,
)
# "1 million tokens to generate", "50k Token erzeugen": a total said outright
_TOTAL_RX = re.compile(
    r"(?<![\w.,])" + _COUNT + _TOKENS + r"[^.?!\n]{0,20}?\b(?:zu\s+)?(?:generier\w*|generat\w*|"
    r"erzeug\w*|schreib\w*|writ\w*|produc\w*|ausgeb\w*|output)"
    r"|\b(?:generier\w*|generat\w*|erzeug\w*|schreib\w*|writ\w*|produc\w*)\s+(?:\w+\s+){0,2}?"
    + _COUNT
    + _TOKENS,
    re.IGNORECASE,
)
# the question asks for a duration
HOW_LONG_RX = re.compile(
    r"\bhow long\b|\bhow much time\b|\bwie lange?\b|\bwie ?viel zeit\b|\bdauer\w*|\bduration\b|"
    r"\btime (?:it )?(?:takes?|would take|needed)\b|\bget through\b|\bdurchkomm\w*|"
    r"\bwann (?:ist|wäre|sind|wären) (?:\w+ )?fertig\b|\bfinish\w*\b",
    re.IGNORECASE,
)
_SCALE = {"k": 1_000, "tsd": 1_000, "tausend": 1_000, "thousand": 1_000, "m": 1_000_000}


def _count(raw: str, scale: str | None) -> float:
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", raw):
        value = float(re.sub(r"[.,]", "", raw))
    else:
        value = float(raw.replace(",", "."))
    word = (scale or "").lower().rstrip(".")
    factor = _SCALE.get(word) or (1_000_000 if word.startswith(("mio", "million")) else 1)
    return value * factor


def output_tokens_of(folded: str) -> int | None:
    """The tokens a batch writes in total, when the question asks how long it takes."""
    if not HOW_LONG_RX.search(folded):
        return None
    folded = spelled_counts(folded)  # "zweihundert Texte", "a thousand answers"
    m = _ITEMS_FIRST_RX.search(folded) or _OF_THEM_RX.search(folded)
    m = m or _EACH_LATER_RX.search(folded)
    if m is not None or (m := _TOKENS_FIRST_RX.search(folded)) is not None:
        total = _count(m.group(1), m.group(2)) * _count(m.group(3), m.group(4))
    elif (m := _TOTAL_RX.search(folded)) is not None:
        raw, scale = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        total = _count(raw, scale)
    else:
        return None
    return int(total) if total >= 1 else None


def find_output_tokens(folded: str, u: Query) -> None:
    """A batch's output, placed as the tokens to write in total (`Query.output_tokens`)."""
    u.output_tokens = output_tokens_of(folded)
