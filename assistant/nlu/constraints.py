"""What a question rules in or out, and what it reports: budget, minimum total memory, users,
cards and links excluded or required, the runtime, jobs bigger than one node, measurements given
in words, and the yes/no claim it asks about with its polarity.

Each finder reads the folded question and fills a part of the `Query`; none of them produces a
figure for an answer (the tools do).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant.nlu.batch import find_output_tokens
from assistant.nlu.claims import find_stated_claim
from assistant.nlu.lexicon import (
    _NUM,
    _NUMBER_WORDS,
    NEEDED_WORDS,
    NO_LINK_NEEDED,
    _find_cards,
    _to_int,
    without_abbreviation_dots,
)
from assistant.nlu.query import CARD_FAMILIES, Claim, Query
from assistant.spelled import spelled_amounts
from tools.load import traffic_of
from tools.specs import ARCHITECTURES, Architecture
from tools.throughput import HOURS_PER_MONTH

# ---------------------------------------------------------------- money and memory

_AMOUNT = r"(\d{1,3}(?:[.,\s]\d{3})+|\d+(?:[.,]\d+)?)\s*(k|tsd\.?|tausend|thousand)?"
_CURRENCY = r"(?:\$|usd|us-?\$|dollars?|€|eur|euros?)"
_BUDGET_CUE = (
    r"budget|max(?:imum|imal)?\.?|höchstens|hoechstens|at most|up to|bis (?:zu )?|under|unter|"
    r"below|less than|weniger als|no more than|nicht mehr als|limit|spend|ausgeben|afford|"
    r"within|innerhalb|i have|we have|ich habe|ich hab|wir haben|i've got|we've got|we got|"
    # "hab so 1000 dollar im monat": the subject left out
    r"hab(?:e|en)?\s+(?:so|nur|etwa|ca\.?|rund|um die|maximal)|"
    # "got about $400 a month to spend"
    r"(?<![a-z])got\s+(?:about|around|roughly|like|maybe|only|just)|"
    # "nichts über 400 €", "nothing above $500", "not over 2k"
    r"(?:nichts|nicht|kein\w*)\s+(?:über|ueber|teurer als|mehr als)|"
    r"(?:nothing|not|none)\s+(?:over|above|more than|pricier than)"
)
_BUDGET_RX = re.compile(
    rf"(?:{_BUDGET_CUE})\W{{0,12}}(?:(?:of|von|about|ca\.?|around|rund|etwa)\s+)?"
    rf"(?:{_CURRENCY}\s*)?{_AMOUNT}\s*(?:{_CURRENCY})?"
    rf"|{_CURRENCY}\s*{_AMOUNT}\s*(?:budget|max|or less|oder weniger|tops|maximal)"
    rf"|{_AMOUNT}\s*{_CURRENCY}\s*"
    # "4.500 € im Monat Budget", "$3k a month max"
    r"(?:(?:im|pro|je|per|a|each)\s+(?:monat|month)\s+|/\s*(?:monat|month|mo)\s+|monthly\s+)?"
    r"(?:budget|max|or less|oder weniger|tops|maximal|höchstens)"
)
_NOT_MONEY_AFTER = re.compile(r"\s*(?:gb|tb|k?\s*token|kontext|context|users|nutzer|gb/s)")
_MONEY_NEAR_RX = re.compile(rf"{_CURRENCY}|/\s*(?:month|monat|mo)\b|per month|pro monat|monthly")
_MIN_MEMORY_RX = re.compile(
    r"(?:at least|mindestens|mind\.|min(?:imum)?\.?|minimal|>=|≥|more than|mehr als|über|over|"
    r"no less than|nicht weniger als)\s*(\d{2,5}(?:[.,]\d+)?)\s*(gb|tb)\b(?!\s*(?:/s|per card|"
    r"pro karte|je karte|each|each card))(?:\s*(?:vram|gpu[\s-]?memory|speicher|grafikspeicher|"
    r"in total|insgesamt|total))?"
    r"|(\d{2,5})\s*(gb|tb)\s*(?:vram\s*)?(?:or more|oder mehr|\+)"
)


def _amount(raw: str, scale: str | None) -> float | None:
    text = raw.replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", text):
        value = float(re.sub(r"[.,]", "", text))
    else:
        value = float(text.replace(",", "."))
    if scale:
        value *= 1000
    return value if value > 0 else None


# money said with its currency ("$1,000", "3.000 €", "2k usd") and a budget cue up to four words
# before it in the same clause ("our budget is $1,000 a month", "we can pay about 2k $")
_MONEY_RX = re.compile(rf"{_CURRENCY}\s*{_AMOUNT}|{_AMOUNT}\s*{_CURRENCY}")
_CUE_BEFORE_RX = re.compile(
    rf"(?:{_BUDGET_CUE}|pay|zahlen|bezahlen|kosten darf|may cost|can cost|cap|obergrenze|"
    r"rahmen|ceiling|"
    # "the most vram i can get for $1000", "was bekomme ich für 500 €?"
    r"(?:get|rent|buy|bekomm\w*|krieg\w*|miete\w*)\s+(?:\w+\s+){0,2}?(?:for|für))"
    r"\b(?:\W+\w+){0,4}\W*$"
)


# "das meiste VRAM, das ich für 2.000 € im Monat bekomme": the verb after the money
_FOR_BEFORE_RX = re.compile(r"\b(?:für|for)\s*$")
_GET_AFTER_RX = re.compile(
    r"^\W*(?:(?:im|pro|je|a|per|each)\s+(?:monat|month)\W+)?(?:bekomm\w*|krieg\w*|get|rent|"
    r"miete\w*)\b"
)

# "is 900 dollars a month enough for …?", "sind 1.000 € im Monat genug?": a budget put to the test
# "reichen 1500 €", "reichen uns 1500 €"
_ENOUGH_BEFORE_RX = re.compile(
    r"(?<![a-z])(?:reich\w*|genüg\w*)(?:\s+(?:uns|mir|euch|dann|denn|wohl|auch|da))*\s*$"
)
_ENOUGH_AFTER_RX = re.compile(
    r"^\s*(?:(?:im|pro|je|a|per|each)\s+(?:monat|month)\s+)?(?:be\s+)?(?:enough|genug|"
    r"ausreichend|sufficient)\b"
)


def _cued_money(folded: str) -> float | None:
    for m in _MONEY_RX.finditer(folded):
        before = re.split(r"[.;!?\n]", folded[max(0, m.start() - 60) : m.start()])[-1]
        after = folded[m.end() : m.end() + 40]
        got = _FOR_BEFORE_RX.search(before) and _GET_AFTER_RX.search(after)
        enough = _ENOUGH_BEFORE_RX.search(before) or _ENOUGH_AFTER_RX.search(after)
        if not (_CUE_BEFORE_RX.search(before) or got or enough):
            continue
        value = _amount_of(m)
        if value is not None and value >= 50:
            return value
    return None


def _amount_of(m: re.Match[str]) -> float | None:
    """The amount of a match of an amount beside its currency, either way round ("$5k",
    "2.000 €": `_MONEY_RX`, `_HOURLY_RX`)."""
    raw, scale = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return _amount(raw, scale)


def _money_in_figures(folded: str) -> str:
    """Amounts in words and slang as figures ("achttausend Euro", "three grand", "a buck")."""
    folded = spelled_amounts(folded)
    return _BUCKS_RX.sub(lambda m: f"${m.group(1) or 1}", folded)  # "a buck an hour": $1


def find_budget(folded: str) -> float | None:
    """'budget 8k/month', 'max. 2000 $', 'unter 3.000 € im Monat', 'we can spend $5,000', 'our
    budget is $1,000 a month'; an hourly budget as a month of hours ('höchstens 2 € pro
    Stunde': 2 x 730). Amounts in words are read as figures ('achttausend Euro', 'three grand
    a month')."""
    folded = _money_in_figures(folded)
    return _hourly_budget(folded) or _budget_said(folded) or _cued_money(folded)


def money_said(folded: str) -> float | None:
    """The first amount of money the text says, with no budget word needed, as a month ("es
    sind zwei Euro pro Stunde, nicht vier": 2 x 730; "it's $800 a month": 800): for a budget
    being corrected."""
    folded = _money_in_figures(folded)
    hourly = _HOURLY_RX.search(folded)
    if hourly is not None:
        value = _amount_of(hourly)
        return round(value * HOURS_PER_MONTH, 2) if value else None
    amounts = (_amount_of(m) for m in _MONEY_RX.finditer(folded))
    return next((v for v in amounts if v is not None and v >= 50), None)


# "a buck", "5 bucks", "two bucks" (a number word is read before this): dollars in slang
_BUCKS_RX = re.compile(r"\b(?:a|one|(\d+(?:[.,]\d+)?))\s*bucks?\b")


# "2 € pro Stunde", "$3/h", "3 dollars an hour": money per hour
_HOURLY_RX = re.compile(
    rf"(?:{_CURRENCY}\s*{_AMOUNT}|{_AMOUNT}\s*{_CURRENCY})\s*"
    r"(?:/\s*|pro\s+|per\s+|an\s+|a\s+|je\s+|die\s+)(?:stunde|std\.?|hour|hr|h)\b"
)
_SPEND_CUE_RX = re.compile(rf"(?:{_BUDGET_CUE}|zahlen|bezahlen|pay|ausgeben|spend)\b")


def _hourly_budget(folded: str) -> float | None:
    """A budget said per hour, with a budget cue in its sentence, as a month of hours
    (tools.throughput.HOURS_PER_MONTH, the hours the catalog's monthly prices cover)."""
    m = _HOURLY_RX.search(folded)
    if m is None:
        return None
    plain = without_abbreviation_dots(folded)  # "Budget so ca. 4 Euro die Stunde"
    start = max(plain.rfind(c, 0, m.start()) for c in ".!?\n")
    ends = [i for i in (plain.find(c, m.end()) for c in ".!?\n") if i >= 0]
    if not _SPEND_CUE_RX.search(folded[start + 1 : min(ends, default=len(folded))]):
        return None  # "L4 costs $0.40 an hour?": a price said, not a budget
    value = _amount_of(m)
    return round(value * HOURS_PER_MONTH, 2) if value else None


# a context said just before an amount ("context up to 128k", "kontext bis 64k")
_CONTEXT_BEFORE_RX = re.compile(r"\b(?:context|kontext|ctx|kontextlänge|context length)\b")


def _budget_said(folded: str) -> float | None:
    for m in _BUDGET_RX.finditer(folded):
        groups = [g for g in m.groups()]
        raw, scale = next(
            ((groups[i], groups[i + 1]) for i in range(0, len(groups), 2) if groups[i]),
            (None, None),
        )
        if raw is None:
            continue
        around = folded[max(0, m.start() - 20) : m.end() + 25]
        if not (scale or "budget" in around or _MONEY_NEAR_RX.search(around)):
            continue  # "under 80 GB", "bis 32k Kontext": not money
        if _CONTEXT_BEFORE_RX.search(folded[max(0, m.start() - 25) : m.start() + 1]) and not (
            "budget" in around or _MONEY_NEAR_RX.search(around)
        ):
            continue  # "crank context up to 128k": tokens, not money
        if re.match(
            r"\s*(?:gb|tb|k?\s*token|kontext|context|users|nutzer|gb/s)", folded[m.end() :]
        ):
            continue
        value = _amount(raw, scale)
        if value is not None and value >= 50:
            return value
    return None


def find_min_memory(folded: str) -> float | None:
    m = _MIN_MEMORY_RX.search(folded)
    if not m:
        return None
    raw, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    value = float(raw.replace(",", "."))
    return value * 1000 if unit == "tb" else value


# ---------------------------------------------------------------- users and nodes

_USERS_RX = re.compile(
    # ("a 25-lawyer firm", "ein 12-Personen-Büro": the hyphenated count of a group)
    r"(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+|\d+(?:[.,]\d+)?)\s*(k)?(?:\s*|-(?=[a-zäöü]))(?:\w+\s+)?"
    r"(?:users?|nutzer\w*|benutzer\w*|kunden|customers|people|personen|mitarbeit\w*|of us|von uns|"
    r"employees|seats|clients|anwender\w*|leuten?|agents?|staff|team members|kolleg\w*|"
    r"developers|devs|entwickler\w*|students|studenten|analysts|analyst\w*|researchers|"
    r"forscher\w*|engineers|ingenieur\w*|colleagues|lawyers?|anwält\w*|doctors|ärzt\w*|"
    r"designers?|designer\w*|artists|künstler\w*|creatives|editors|redakteur\w*|writers|"
    r"autoren|marketers|grafiker\w*|illustrator\w*)\b"
)
_CONCURRENT_RX = re.compile(
    r"concurrent|gleichzeitig|simultan|parallel|at once|at the same time|zur gleichen zeit|"
    r"at a time|zeitgleich|auf einmal|at the same moment|im selben moment|zur selben zeit"
)


# a number or range said of the concurrency itself: "usually 10-15 at the same time", "davon
# 20 gleichzeitig", "up to 12 concurrently" (the upper end of a range is what is sized for)
_NUMBER_AT_ONCE_RX = re.compile(
    r"(?<![\w.,$€])(\d{1,5})(?:\s*(?:-|–|to|bis)\s*(\d{1,5}))?\s+"
    # "4 requests running in parallel"; never "4 GPUs in parallel"
    # ("around 12 of them use it at the same time": up to five words between)
    r"(?:(?!(?:gpus?|cards?|karten|nodes?|knoten|servers?|x)\b)[a-zä]+\s+){0,5}?"
    r"(?:at the same time|at the same moment|at once|at a time|concurrent(?:ly)?|"
    r"simultaneous(?:ly)?|gleichzeitig|zeitgleich|zur gleichen zeit|im selben moment|"
    r"auf einmal|parallel)\b"
)

# the cue before the number: "gleichzeitig laufen aber höchstens 10 Anfragen", "at the same
# time at most 8 requests"
_AT_ONCE_NUMBER_RX = re.compile(
    r"\b(?:gleichzeitig|zeitgleich|parallel|at the same time|at once|concurrently|"
    r"simultaneously)\s+(?:[a-zäöü]+\s+){0,4}?(\d{1,5})\s+(?:\w+\s+)?(?:anfragen|requests?|"
    r"sequen\w*|nutzer\w*|users?|leute|people|sessions?|chats?|streams?|personen)\b"
)
# "… but at the same time maybe 5", "gleichzeitig vielleicht 5", "gleichzeitig am tippen
# vielleicht 8": a hedged number after the cue
_AT_ONCE_ABOUT_RX = re.compile(
    r"\b(?:gleichzeitig|zeitgleich|at the same time|at once|concurrently|simultaneously)\s+"
    r"(?:(?!\d)[a-zäöü]+\s+){0,3}?(?:maybe|perhaps|about|around|roughly|approx\.?|usually|typically|vielleicht|etwa|ca\.?|"
    r"so|rund|meist|höchstens|at most|max\.?)\s+(\d{1,5})\b(?!\s*(?:gb|k\b|tokens?|cards?|gpus?|"
    r"karten|x\b|%))"
)


#: "… who would all be generating … at the same time", "die alle gleichzeitig …": all of them
_ALL_OF_THEM_RX = re.compile(
    r"^\W*(?:\w+\s+){0,3}?(?:all|alle|everyone|jeder)\b(?:(?!\d)[^,])*?"
    r"(?:at the same time|at once|simultaneously|concurrently|gleichzeitig|zeitgleich)"
)


def _at_once(folded: str, m: re.Match[str]) -> bool:
    """'20 people ... at the same time', '20 Leute gleichzeitig': the same clause says so, and
    no other number comes between ('60 employees, usually 10-15 at the same time': the 60 are
    people, the 10-15 are at once)."""
    after = re.split(r"[.;!?]", folded[m.end() : m.end() + 60], maxsplit=1)[0]
    longer = re.split(r"[.;!?]", folded[m.end() : m.end() + 90], maxsplit=1)[0]
    if _ALL_OF_THEM_RX.search(longer):
        after = longer  # "3 designers who would all be generating with flux at the same time"
    cue = _CONCURRENT_RX.search(after)
    if cue and re.search(r"(?<![\w.,])\d+(?![\w.,])", after[: cue.start()]):
        return False
    if cue and (
        _AT_ONCE_NUMBER_RX.match(after[cue.start() :])
        or _AT_ONCE_ABOUT_RX.match(folded[m.end() + cue.start() : m.end() + cue.start() + 60])
    ):
        return False  # "120 staff, at the same time at most 10 requests": the 10 are at once
    return bool(_CONCURRENT_RX.search(folded[max(0, m.start() - 30) : m.end()] + after))


# number words of a count at once ("zwei Anfragen gleichzeitig", "a dozen at once")
_COUNT_WORDS = {w: n for w, n in _NUMBER_WORDS.items() if n >= 2 and w != "pair"} | {
    "a dozen": 12,
    "ein dutzend": 12,
    "dutzend": 12,
}
_COUNT_WORDS_RX = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _COUNT_WORDS), key=len, reverse=True)) + r")\b"
)


def find_people_at_once(folded: str) -> int | None:
    """'about 20 people hitting it at the same time', '20 Leute gleichzeitig', '30 devs in
    parallel', 'usually 10-15 at the same time', 'zwei Anfragen gleichzeitig', 'gleichzeitig
    höchstens 10 Anfragen': people generating at the same moment, i.e. concurrent sequences."""
    folded = _COUNT_WORDS_RX.sub(lambda m: str(_COUNT_WORDS[m.group(1)]), folded)
    said = _NUMBER_AT_ONCE_RX.search(folded)
    if said and int(said.group(2) or said.group(1)) >= 2:
        return int(said.group(2) or said.group(1))
    cue_first = _AT_ONCE_NUMBER_RX.search(folded) or _AT_ONCE_ABOUT_RX.search(folded)
    if cue_first and int(cue_first.group(1)) >= 2:
        return int(cue_first.group(1))
    for m in _USERS_RX.finditer(folded):
        value = _amount(m.group(1), m.group(2))
        if value and value >= 2 and _at_once(folded, m):
            return int(value)
    return 1 if _ONE_AT_ONCE_RX.search(folded) else None


# "und wenn nur eine Person gleichzeitig drauf ist?", "only one user at a time": one at once
_ONE_AT_ONCE_RX = re.compile(
    r"\b(?:eine|einer|one|1|a single|a)\s+(?:person|user|nutzer\w*|mensch|request|anfrage|"
    r"sequence|sequenz)\s+(?:\w+\s+){0,2}?(?:gleichzeitig|at a time|at once|at the same time|"
    r"zur gleichen zeit|zeitgleich)\b|"
    # "wenn immer nur einer gleichzeitig damit arbeitet", "only one at a time"
    r"\b(?:nur|only|just)\s+(?:einer|eine[rn]?|one|1)\s+(?:\w+\s+){0,3}?(?:gleichzeitig|"
    r"at a time|at once|zeitgleich)\b"
)


# "a team of 10", "ein Team von 12 Leuten", "our company of 80": a group and its size
_GROUP_OF_RX = re.compile(
    r"\b(?:team|group|staff|company|firm|office|department|class|gruppe|firma|abteilung|"
    r"büro|klasse)\s+(?:of|von|mit)\s+(?:about\s+|around\s+|ca\.?\s+|etwa\s+|rund\s+)?"
    r"(\d{1,6})\b(?!\s*(?:gb|tb|k\b|tokens?|cards?|gpus?|karten))|"
    # "we're a 50-person agency", "ein 12-köpfiges Team", "20-Mann-Firma"
    r"\b(\d{1,6})[\s-]*(?:person|people|persons|man|köpfig\w*|mann|personen)[\s-]+"
    r"(?:agency|company|team|firm|startup|shop|office|business|studio|agentur|firma|team|"
    r"unternehmen|büro|kanzlei|praxis)\b"
)


# "just me", "nur ich alleine", "nur für mich zum Testen", "one user": one person
_ONE_USER_RX = re.compile(
    r"\b(?:just|only|nur)\s+(?:for\s+|für\s+)?(?:me|myself|ich|mich)\b|\bich\s+allein\w*|"
    r"\bfor myself\b|\bfür mich selbst\b|\b(?:one|a single|single|ein|einen|einem|einzelne[rn]?)\s+"
    r"(?:user|nutzer|anwender|person)\b"
)


_FACTORS = {"doppelt": 2, "zweimal": 2, "twice": 2, "double": 2, "dreimal": 3, "three times": 3,
            "triple": 3, "viermal": 4, "four times": 4, "fünfmal": 5, "five times": 5,
            "zehnmal": 10, "ten times": 10, "halb": 0.5, "half": 0.5}  # fmt: skip
_PEOPLE = r"(?:nutzer\w*|benutzer\w*|user\w*|leute|people|mitarbeiter\w*|employees|staff|kunden)"
_USERS_FACTOR_RX = re.compile(
    r"\b(" + "|".join(_FACTORS) + r")\s+(?:so\s+viele|as\s+many|the(?:\s+number\s+of)?|die|"
    r"so\s+viel)\s+(?:\w+\s+)?" + _PEOPLE + r"|\b(" + "|".join(_FACTORS) + r")\s+" + _PEOPLE
)


def find_users_factor(folded: str) -> float | None:
    """'und für doppelt so viele Nutzer?', 'twice as many users', 'double the users': the
    factor a follow-up applies to the users said before."""
    m = _USERS_FACTOR_RX.search(folded)
    return float(_FACTORS[m.group(1) or m.group(2)]) if m else None


# "me and 2 colleagues", "ich und drei Kollegen": the speaker counts too
_ME_AND_RX = re.compile(
    r"\b(?:me|myself|ich|mir)\s+(?:and|und|\+)\s+" + _NUM + r"\s+(?:\w+\s+)?(?:colleagues|"
    r"coworkers|co-workers|friends|people|others|devs|developers|kollegen|kolleginnen|leute|"
    r"andere|mitarbeiter\w*|entwickler\w*)\b"
)


def find_users(folded: str) -> int | None:
    """'for 200 users', '~1.5k Nutzer', 'a team of 10', 'just me', 'me and 2 colleagues':
    people, not simultaneous sequences."""
    me_and = _ME_AND_RX.search(folded)
    if me_and and _to_int(me_and.group(1)):
        return 1 + int(_to_int(me_and.group(1)) or 0)
    group = _GROUP_OF_RX.search(folded)
    size = int(group.group(1) or group.group(2)) if group else 0
    if size >= 2:
        return size
    for m in _USERS_RX.finditer(folded):
        if _at_once(folded, m):
            continue
        value = _amount(m.group(1), m.group(2))
        if value and value >= 2:
            return int(value)
    return 1 if _ONE_USER_RX.search(folded) else None


_NODES_RX = re.compile(
    r"(?<![a-z0-9])" + _NUM + r"\s*(?:x\s*)?(?:\d+\s*x?\s*[a-z0-9-]+\s+)?(?:nodes?|knoten|servers?|"
    r"maschinen|machines|boxes|hosts|rechner)\b"
)
_MULTI_NODE_RX = re.compile(
    r"multi[\s-]?node|mehrere[n]? (?:server|knoten|maschinen)|several (?:servers|nodes|machines)|"
    r"multiple (?:servers|nodes|machines)|across (?:servers|nodes|machines)|"
    r"über (?:mehrere|zwei|2) (?:server|knoten)|infiniband|"
    r"between (?:two |the )?(?:servers|nodes)|zwischen (?:zwei |den )?(?:servern|knoten)|"
    r"connect(?:ing)? (?:two|2|several) (?:servers|nodes)"
)


# "your two 4x A100 nodes", "Ihre beiden 8x H100-Server", "the two A100 boxes you have": the
# catalog's nodes, named to compare or price, not a job spread over several
_CATALOG_NODES_RX = re.compile(
    r"\b(?:your|you'?r|ihre[nm]?|eure[nm]?|deine[nm]?|the|die|den|der|those|these|diese[nm]?)\s+"
    r"(?:both\s+|beiden\s+)?$|\b(?:both|beide[nn]?)\s+$"
)
_NODE_WORD_RX = re.compile(r"\b(?:nodes?|knoten|servers?|maschinen|machines|boxes|rechner)\b")
_CONNECT_SEVERAL_RX = re.compile(
    r"(?:connect|link|couple|combine|join|bridge|cluster|verbind|koppel|zusammenschalt|"
    r"zusammenleg|kombinier)\w*\s+(?:\w+\s+)?(?:two|2|zwei|several|mehrere|both|beide|multiple)\b"
)


def find_nodes(folded: str, u: Query) -> None:
    """'two 8x H100 nodes', '16 GPUs', 'multi-node': a job bigger than one node."""
    cards = _find_cards(folded)
    for m in _NODES_RX.finditer(folded):
        if any(s <= m.start(1) < e for s, e, _ in cards):
            continue  # "4090 nodes": a card name, not a count
        n = _to_int(m.group(1))
        if _CATALOG_NODES_RX.search(folded[max(0, m.start() - 20) : m.start()]):
            continue  # "your two 4x A100 nodes": nodes of the catalog, not one job's
        if n is not None and 2 <= n <= 64 and m.group(1) not in ("a", "an"):
            u.nodes = n
            break
    if u.nodes is None and (
        _MULTI_NODE_RX.search(folded)
        or (_NODE_WORD_RX.search(folded) and _CONNECT_SEVERAL_RX.search(folded))
    ):
        u.nodes = 2
    per_node = u.count or 8
    if u.nodes and u.nodes > 1:
        u.total_cards = u.nodes * per_node
    elif u.count and u.count > 8:
        u.total_cards = u.count


# ---------------------------------------------------------------- exclusions and links

_NEG_BEFORE = re.compile(
    r"(?:\bnot (?:to )?(?:use|using|want|rent|take|have)|n[o']?t (?:want|use|rent|take|need|like)|"
    r"\bno|\bnot|without|except|excluding|"
    r"other than|but not|never|nothing with|none of|"
    r"avoid(?:ing)?|\bkein\w*|\bnicht|\bohne|"
    r"außer|ausser|ausgenommen|abgesehen von|statt|instead of|anstelle)\s+(?:(?:the|an?|any|"
    r"die|der|den|das|eine?[nmr]?|mit)\s+)?(?:\d+\s*x?\s*)?$"
)
_NEG_AFTER = re.compile(
    # ("A6000s last year, those are out for them": the card referred back to in its clause)
    r"^\s*(?:[^.?!,]{0,30},\s*(?:those|these|they|die|diese|sie)\s+(?=(?:are|is|sind|ist)\b))?"
    r"(?:(?:is|are|ist|sind|kommt|kommen|fällt|fallen)\s+(?:\w+\s+){0,3}?)?"
    r"(?:out\b|not an option|not possible|(?:a\s+|ein\s+)?no[\s-]?go\b|off the table|"
    r"excluded|ausgeschlossen|keine option|nicht in frage|weg\b|nicht verfügbar|not available|"
    r"too expensive|zu teuer)"
)
_EXCLUDE_LINK = (
    (
        "nvlink",
        r"(?:without|ohne|no|kein\w*|not|nicht|never|avoid\w*|vermeid\w*|skip)\s+(?:the\s+|"
        r"mit\s+)?(?:nvlink|sxm|nvswitch)(?!\s+(?:\w+\s+){0,2}?" + NEEDED_WORDS + r"\b)|"
        # "kein NVLink nötig", "no nvlink needed": the claim that PCIe is enough, not a refusal
        r"nvlink[\s-]*(?:free|frei|los)\b|"
        # "they explicitly don't want nvlink nodes (budget thing)"
        r"(?:don'?t|do not|does not|doesn'?t|won'?t|will not)\s+(?:\w+\s+)?(?:want|like|pay for|"
        r"buy|rent)\s+(?:any\s+|the\s+)?(?:nvlink|sxm|nvswitch)",
    ),
    ("pcie", r"(?:without|ohne|no|kein\w*|not)\s+(?:the\s+)?pcie"),
)
_REQUIRE_LINK = (
    (
        "nvlink",
        r"(?:nvlink|sxm)(?:\s*/\s*(?:nvlink|sxm))?[\s-]*(?:nodes?|knoten|server|only|pflicht|"
        # "sxm/nvlink machines only", not "is an nvlink machine worth it?"
        r"(?:machines?|maschinen?|box(?:es|en)?)\s+only)|(?<!connected )"
        r"(?<!linked )(?<!verbunden )(?<!not )(?<!nicht )(?:only|nur|with|mit)\s+"
        # "it has to be an nvlink machine", "muss eine NVLink-Maschine sein"
        r"(?:nvlink|sxm)|(?:must|muss|has to|have to|needs to|should|ought to|soll|sollte)\s+"
        r"(?:have\s+|haben\s+|"
        r"be\s+|sein\s+|use\s+)?(?:an?\s+|ein\w*\s+)?(?:nvlink|sxm)|"
        # "wenn es NVLink haben soll", "falls es SXM sein muss"
        r"(?:nvlink|sxm)\s+(?:haben|sein|nutzen|verwenden)\s+(?:soll|sollte|muss|müsste)|"
        # "die Karten müssen per NVLink verbunden sein", "must be connected via NVLink"
        r"(?:per|über|mit|via|over|through|by)\s+nvlink\s+(?:verbunden|vernetzt|gekoppelt)\s+"
        r"(?:sein|werden)|(?:must|has to|have to|need to|needs to|should)\s+be\s+(?:\w+\s+)?"
        r"(?:connected|linked|interconnected|coupled)\s+(?:via|over|through|with|by)\s+nvlink",
    ),
    ("pcie", r"pcie[\s-]*(?:nodes?|knoten|only)|(?:only|nur)\s+pcie"),
)
# "we want mixtral 8x22b on an nvlink box", "auf einer NVLink-Maschine": the node asked for
_ON_LINKED_NODE_RX = re.compile(
    r"\b(?:on|auf|want|need|brauchen|wollen|rent|mieten)\s+(?:an?\s+|einer?\s+|einem\s+|einen\s+)?"
    r"(nvlink|sxm)[\s-]*(?:box|boxes|machines?|maschinen?|servers?|nodes?|knoten)\b"
)


# a class of cards refused after its name: "Consumer-Karten (GeForce) lässt unsere
# IT-Sicherheit nicht zu", "gaming cards are not allowed", "GeForce kommt nicht in Frage"
_CLASS_REFUSED_RX = re.compile(
    r"^[\w\s()/-]{0,30}?\b(?:(?:lässt|lassen|erlaubt|erlauben|darf|dürfen)\s+(?:[\w-]+\s+){0,4}?"
    r"nicht\b|(?:is|are)\s+(?:not allowed|not permitted|not an option|out\b|off the table|"
    r"a no[\s-]go)|"
    r"(?:ist|sind)\s+(?:\w+\s+)?(?:nicht erlaubt|verboten|ausgeschlossen|tabu)|"
    r"(?:kommt|kommen)\s+(?:\w+\s+){0,3}?nicht in frage|won'?t be allowed|aren'?t allowed|"
    r"isn'?t allowed|not allowed)"
)
# card classes people exclude by name ("not consumer GPUs")
#: the cards that are no data-center cards: GeForce (consumer) and the RTX workstation card
NOT_DATACENTER = ("rtx-4090", "rtx-5090", "rtx-a6000")
CARD_CLASSES: dict[str, tuple[str, ...]] = {
    r"consumer|gaming|geforce|endkunden|spiele": ("rtx-4090", "rtx-5090"),
    # "ohne RTX-Karten", "no RTX cards" (not "no RTX 4090": that card alone)
    r"rtx(?![\s-]*(?:a?\d{4}|a6000|pro\b))": NOT_DATACENTER,
}
#: "nur Rechenzentrumskarten", "data-center GPUs only": the consumer and workstation cards out
_DATACENTER_ONLY_RX = re.compile(
    r"\b(?:nur|only|just|ausschließlich)\s+(?:rechenzentrums|datacenter|data[\s-]cent(?:er|re)|"
    r"server)[\s-]*(?:karten|cards|gpus|grafikkarten)\b|\brechenzentrumskarten\b|"
    r"\b(?:datacenter|data[\s-]cent(?:er|re))[\s-]*(?:cards|gpus)\s+only\b"
)
# card generations by name, oldest first (the catalog says which card is which: `architecture`)
ARCHITECTURE_WORDS: dict[Architecture, str] = {
    "ampere": r"ampere",
    "ada": r"ada(?:[\s-]lovelace)?|lovelace",
    "hopper": r"hopper",
    "blackwell": r"blackwell",
}
_ARCH = "|".join(ARCHITECTURE_WORDS.values())
# "no H100 or H200", "ohne A100, H100 und H200": the negation covers the whole list
_LIST_JOIN = re.compile(
    r"^\s*(?:,|/|or|and|oder|und|nor|noch|&)\s*(?:(?:the|an?|die|der|eine?)\s+)?$"
)


def _negated(folded: str, start: int) -> bool:
    """Whether a negation ("no", "ohne", "except", "not using") ends where a name starts ("reicht
    da nicht eine RTX 5090?" hopes for that card: no exclusion)."""
    before = folded[max(0, start - 40) : start]
    return bool(_NEG_BEFORE.search(before)) and not _HOPED_FOR_RX.search(before)


# "reicht da nicht eine …", "passt das nicht auf eine …", "wouldn't one … do": a card hoped for
_HOPED_FOR_RX = re.compile(
    r"\b(?:reicht|reichen|passt|passen|läuft|laufen|geht|gehen|genügt|genügen|tut'?s|tut es)\s+"
    r"(?:\S+\s+){0,3}?nicht\s+(?:(?:auch|schon|einfach)\s+)?(?:(?:auf|mit)\s+)?"
    r"(?:eine?[nmr]?\s+)?(?:einzige[nmr]?\s+|einzelne[nmr]?\s+)?(?:\d+\s*x?\s*)?$"
)


def _negated_word_ends(folded: str) -> list[int]:
    """Where a negated generation or class of cards ends ("no Ampere", "keine Consumer-Karten"):
    a card listed right after it ("no Ampere / A100") is excluded with it."""
    return [
        m.end()
        for word in (_ARCH, *CARD_CLASSES)
        for m in re.finditer(rf"\b(?:{word})\b", folded)
        if _negated(folded, m.start())
    ]


def find_exclusions(folded: str, u: Query) -> None:
    """'no H100', 'ohne 4090', 'H100 is out', 'without NVLink', 'no Ampere cards': filters, and
    the excluded cards are not the cards asked about."""
    excluded: list[str] = []
    # where an excluded item ends: a card, or a generation or class of cards ("no Ampere / A100")
    item_ends = _negated_word_ends(folded)
    counted = False  # "no 4x H100": the count named belongs to the excluded cards
    for start, end, cid in _find_cards(folded):
        before = folded[max(0, start - 40) : start]
        listed = any(_LIST_JOIN.match(folded[e:start]) for e in item_ends if e <= start)
        if _negated(folded, start) or _NEG_AFTER.match(folded[end : end + 40]) or listed:
            excluded += list(CARD_FAMILIES.get(cid, (cid,)))
            item_ends.append(end)
            counted = counted or bool(re.search(r"\d\s*x?\s*$", before))
    for word, cards in CARD_CLASSES.items():
        m = re.search(rf"\b(?:{word})\b", folded)
        if m and (_negated(folded, m.start()) or _CLASS_REFUSED_RX.match(folded[m.end() :])):
            excluded += list(cards)
    find_architectures(folded, u)
    if _DATACENTER_ONLY_RX.search(folded):
        excluded += NOT_DATACENTER
    if excluded:
        c = u.constraints
        c.exclude_cards = sorted(set(excluded))
        u.cards = [x for x in u.cards if x not in excluded]
        u.card_families = [f for f in u.card_families if not set(CARD_FAMILIES[f]) <= set(excluded)]
        u.configurations = [x for x in u.configurations if not any(e in x for e in excluded)]
        u.absent_nodes = [(n, x) for n, x in u.absent_nodes if x not in excluded]
        if counted and not (u.cards or u.card_families or u.configurations):
            u.count = None  # "no 4x H100" names no card count for the pick; "single card" does
    for kind, rx in _EXCLUDE_LINK:
        if re.search(rx, folded):
            u.constraints.exclude_link = kind  # type: ignore[assignment]
            break
    if u.topo_text or u.nccl_text:
        return  # a pasted diagnosis: what links there are is measured, not required
    # "the 4x A100 PCIe node" names a card's node, not a PCIe node asked for
    unnamed = folded
    for start, end, _cid in reversed(_find_cards(folded)):
        unnamed = unnamed[:start] + " gpu " + unnamed[end:]
    for kind, rx in _REQUIRE_LINK:
        m = re.search(rx, unnamed)
        if m and u.constraints.exclude_link != kind and not _asked_alternative(unnamed, m.start()):
            u.constraints.require_link = kind  # type: ignore[assignment]
            break
    if u.constraints.exclude_link != "nvlink" and (
        _stated_nvlink(folded) or _firm_nvlink(folded) or _ON_LINKED_NODE_RX.search(unnamed)
    ):
        u.constraints.require_link = "nvlink"


# "… enough, or do we need the SXM one with NVLink?": the link asked about as the other choice
_OR_NEED_RX = re.compile(
    r"\b(?:or|oder)\s+(?:do|does|would|will|should|must)?\s*(?:we|i|they|you|wir|ich|sie)?\s*"
    r"(?:really\s+|wirklich\s+)?(?:need|have to|brauch\w*|benötig\w*|müss\w*|muss)\b[^?.!]*$"
)


def _asked_alternative(text: str, at: int) -> bool:
    """The link words at `at` sit in a question's "or do we need …?" alternative (asked, not
    required)."""
    start = max(text.rfind(".", 0, at), text.rfind("?", 0, at), text.rfind("\n", 0, at)) + 1
    end = text.find("?", at)
    return end != -1 and "." not in text[at:end] and bool(_OR_NEED_RX.search(text[start:at]))


# "kunde braucht zwingend NVLink.", "we definitely need NVLink, cheapest node?": said as a fact
_FIRM_LINK_RX = re.compile(
    r"\b(?:zwingend|unbedingt|definitiv|definitely|absolutely|strictly|auf jeden fall|"
    r"in jedem fall|für uns pflicht|really|mandatory)\s+(?:\w+\s+)?(?:nvlink|sxm)|"
    # "kunde besteht jetzt aber auf nvlink/sxm", "they insist on SXM"
    r"\b(?:besteh\w*|bestand\w*)\s+(?:\w+\s+){0,3}?auf\s+(?:\w+\s+)?(?:nvlink|sxm)|"
    r"\binsist\w*\s+on\s+(?:\w+\s+)?(?:nvlink|sxm)|"
    # "need nvlink for sure.", "brauchen nvlink auf jeden fall"
    r"\b(?:need|needs|require|requires|brauch\w*|benötig\w*)\s+(?:\w+\s+)?(?:nvlink|sxm)\s+"
    r"(?:for sure|definitely|absolutely|no matter what|zwingend|unbedingt|auf jeden fall|"
    r"in jedem fall)\b"
)


def _firm_nvlink(folded: str) -> bool:
    """NVLink required in a statement, not asked about ("brauchen wir unbedingt NVLink?")."""
    for sentence in re.split(r"(?<=[.?!])\s+|\n+", folded):  # "llama 3.3" ends nothing
        m = _FIRM_LINK_RX.search(sentence)
        if m and not sentence.rstrip().endswith("?"):
            return True
        if m and "," in sentence[m.end() :]:  # "… definitely need nvlink, cheapest node?"
            return True
    return False


# "Our consultant insists we need NVLink. Do we?": the statement is put to the test
_DOUBTED_RX = re.compile(
    r"^[^?]{0,40}?\b(?:do we|do i|is (?:that|this|it) (?:true|right|correct|so)|really\s*\?|"
    r"stimmt das|ist das (?:so|richtig|wahr|nötig)|wirklich\s*\?|brauchen wir (?:das|es)|"
    r"müssen wir das|right\s*\?)"
)


def _stated_nvlink(folded: str) -> bool:
    """NVLink said to be needed as a requirement, not as a claim the question doubts."""
    m = _STATED_NVLINK_RX.search(folded)
    return m is not None and not _DOUBTED_RX.search(folded[m.end() : m.end() + 80])


# ---------------------------------------------------------------- card capabilities

# "we need NVLink", "NVLink is a must", "Wir brauchen NVLink": a requirement stated, not asked
_STATED_NVLINK_RX = re.compile(
    r"(?<!do )(?<!did )(?<!would )(?<!will )(?<!if )(?<!whether )\b(?:we|i)\s+(?:really\s+|"
    r"definitely\s+|absolutely\s+)?(?:need|require|want)\s+(?:an?\s+)?(?:nvlink|sxm)|"
    r"^\W*(?:wir|ich)\s+(?:brauchen|brauche|benötigen|benötige|wollen|will)\s+(?:\w+\s+)?"
    r"(?:nvlink|sxm)|[,.;:]\s*(?:wir|ich)\s+(?:brauchen|brauche|benötigen|benötige)\s+"
    r"(?:\w+\s+)?(?:nvlink|sxm)|(?:nvlink|sxm)\s+(?:is|ist)\s+(?:\w+\s+){0,3}?(?:a\s+)?(?:must|pflicht|"
    r"required|a requirement|erforderlich|gesetzt|voraussetzung)|"
    r"(?:^|[,.;:]\s*)\W*(?:must|has to|needs to|muss)\s+(?:have|haben)\s+(?:an?\s+)?(?:nvlink|sxm)|"
    r"\b(?:bestehen|besteht|bestehe|insist|insists|insisting)\s+(?:\w+\s+)?(?:auf|on)\s+"
    r"(?:nvlink|sxm)|"
    # "ok and if it has to be nvlink?", "und wenn es NVLink sein muss?": a requirement posed
    r"\b(?:if|when|falls|wenn)\s+(?:it|that|es|das|der|die)\s+(?:has to|must|needs to|should|"
    r"muss|soll|sollte)\s+(?:be\s+|have\s+|haben\s+)?(?:an?\s+)?(?:nvlink|sxm)|"
    r"\b(?:if|when|falls|wenn)\s+(?:it|es|das)\s+(?:nvlink|sxm)\s+(?:sein|haben)\s+(?:muss|soll)|"
    # "need nvlink, no h100 pls.", "brauche nvlink. was ist das günstigste?": a shorthand
    # requirement, said and closed (not "need nvlink?")
    r"(?:^|[.;:!\n]\s*)\W*(?:need|needs|require|requires|gotta have|must have|brauche|brauchen|"
    r"benötige|benötigen)\s+(?:an?\s+)?(?:nvlink|sxm)\b(?=\s*[,.;:!\n]|\s+(?:pls|please|bitte)\b)"
)
# FP8 as a capability of the card, not a precision: "FP8 tensor cores", "needs FP8 support",
# "native FP8", "FP8-fähig", "mit FP8-Unterstützung"
_FP8_CAPABILITY_RX = re.compile(
    r"fp8[\s-]*(?:tensor[\s-]*(?:cores?|kerne?n?)|support\w*|capab\w*|fähig\w*|unterstütz\w*|"
    r"hardware|kerne?n?|cores?)|(?:native[ns]?|nativem|natives|hardware)[\s-]*fp8|"
    r"(?:supports?|unterstützt|unterstützen|beherrsch\w*)\s+(?:\w+\s+)?fp8\b"
)
# it is required (not asked whether a named card has it): a pick or a requirement is asked
_REQUIREMENT_RX = re.compile(
    r"\b(?:need\w*|require\w*|must|have to|has to|brauch\w*|benötig\w*|muss|müssen|"
    r"sollte?n?|only|nur|cheapest|günstigst\w*|am günstigsten|billigst\w*|recommend\w*|"
    r"empfehl\w*|suggest\w*|ticks?|erfüll\w*|meets?|which (?:node|server|configuration|card|"
    r"gpu)|welche[nrs]? (?:knoten|server|konfiguration|karte|gpu))\b"
)
_PER_CARD = r"(?:per card|per gpu|pro karte|pro gpu|je karte|je gpu|each|on each card|jeweils)"
_MIN_PER_CARD_RX = re.compile(
    rf"(?:at least|mindestens|min(?:imum)?\.?|>=|≥)\s*(\d{{2,3}})\s*gb\s*(?:vram\s*)?{_PER_CARD}"
    rf"|(?:cards?|gpus?|karten)\s+(?:with|mit)\s+(?:at least|mindestens)\s*(\d{{2,3}})\s*gb"
    # "only 80 GB cards please", "nur 80-GB-Karten", "80gb cards only"
    r"|(?:only|nur|ausschließlich)\s+(\d{2,3})\s*-?\s*gb[\s-]*(?:cards?|gpus?|karten)\b"
    r"|(\d{2,3})\s*-?\s*gb[\s-]*(?:cards?|gpus?|karten)\s+(?:only|nur)\b"
)


def _newer_or_equal(arch: Architecture) -> list[Architecture]:
    return list(ARCHITECTURES[ARCHITECTURES.index(arch) :])


def _arch_of(word: str) -> Architecture | None:
    return next((a for a, rx in ARCHITECTURE_WORDS.items() if re.fullmatch(rx, word)), None)


_ARCH_NEWER_RX = re.compile(
    rf"\b({_ARCH})\s*(?:or|oder)\s*(?:newer|later|above|better|neuer|höher|später|aufwärts)|"
    rf"(?:at least|mindestens|min\.?)\s*({_ARCH})\b|\b({_ARCH})\s*\+|"
    rf"\b({_ARCH})\s*(?:and|und)\s*(?:newer|later|neuer|höher)"
)
_ARCH_LIST = rf"(?:{_ARCH})(?:\s*(?:,|/|or|oder|and|und|&)\s*(?:{_ARCH}))*"
# "the cheapest Blackwell node", "ein Hopper-Knoten": a generation said as the kind of node
_ARCH_NODE_RX = re.compile(
    rf"\b({_ARCH_LIST})[\s-]*(?:nodes?|knoten|servers?|cards?|karten?|gpus?|maschinen?|"
    r"machines?|systems?|systeme?)\b"
)
_ARCH_ONLY_RX = re.compile(
    rf"(?:only|nur|ausschließlich|just)\s+(?:\w+\s+)?({_ARCH_LIST})\b|"
    rf"\b({_ARCH_LIST})\s*(?:cards?|gpus?|karten)?\s*(?:only|nur)\b"
)


def find_architectures(folded: str, u: Query) -> None:
    """'no Ampere', 'Hopper or Blackwell only', 'Ada or newer': card generations as filters."""
    c = u.constraints
    for arch, word in ARCHITECTURE_WORDS.items():
        for m in re.finditer(rf"\b(?:{word})\b", folded):
            if _negated(folded, m.start()) or _NEG_AFTER.match(folded[m.end() : m.end() + 40]):
                c.exclude_architectures.append(arch)
                break
    newer = _ARCH_NEWER_RX.search(folded)
    only = _ARCH_ONLY_RX.search(folded)
    if newer:
        oldest = _arch_of(next(g for g in newer.groups() if g))
        c.architectures = _newer_or_equal(oldest) if oldest else []
    elif only:
        words = re.findall(_ARCH, only.group(1) or only.group(2))
        c.architectures = [a for a in ARCHITECTURES if any(_arch_of(w) == a for w in words)]
    elif (kind := _ARCH_NODE_RX.search(folded)) and _REQUIREMENT_RX.search(folded):
        words = re.findall(_ARCH, kind.group(1))
        c.architectures = [a for a in ARCHITECTURES if any(_arch_of(w) == a for w in words)]
    c.architectures = [a for a in c.architectures if a not in c.exclude_architectures]


def find_capabilities(folded: str, u: Query) -> None:
    """FP8 tensor cores and memory per card, when the question requires them."""
    if _FP8_CAPABILITY_RX.search(folded) and _REQUIREMENT_RX.search(folded):
        u.constraints.require_fp8 = True
    m = _MIN_PER_CARD_RX.search(folded)
    if m:
        u.constraints.min_memory_per_card_gb = float(next(g for g in m.groups() if g))


_NOT_ADAPTER_RX = re.compile(
    r"(?:not|no|kein\w*|ohne|nicht|statt|instead of|rather than|anstatt)\s+(?:a\s+|mit\s+|"
    r"per\s+)?q?lora|full(?:[\s-]*parameter)?[\s-]*fine[\s-]*tun\w*|voll\w*[\s-]*fine[\s-]*tun\w*|"
    r"vollständig\w* (?:fine[\s-]*tun\w*|feinabstimm\w*|nachtrainier\w*)"
)


_ADAPTER_REFUSED_RX = re.compile(
    r"(?:not|no|kein\w*|ohne|nicht|statt|instead of|rather than|anstatt)\s+(?:a\s+|mit\s+|"
    r"per\s+)?(q?lora)\b"
)
_FULL_SAID_RX = re.compile(
    r"full(?:[\s-]*parameter)?[\s-]*fine[\s-]*tun\w*|voll\w*[\s-]*fine[\s-]*tun\w*|"
    r"vollständig\w* (?:fine[\s-]*tun\w*|feinabstimm\w*|nachtrainier\w*)"
)


def find_adapter_negation(folded: str, u: Query) -> None:
    """'full fine-tune (not LoRA)': the full training job, not adapters."""
    from assistant.nlu.workloads import INSTEAD_ADAPTER_RX

    if INSTEAD_ADAPTER_RX.search(folded):
        return  # "LoRA statt QLoRA": one adapter for the other, not a full fine-tune
    refused = _ADAPTER_REFUSED_RX.search(folded)
    if refused and u.adapter not in (None, refused.group(1)) and not _FULL_SAID_RX.search(folded):
        return  # "LoRA (kein QLoRA)": the other adapter refused, the one named kept
    if u.adapter is not None and _NOT_ADAPTER_RX.search(folded):
        u.adapter = None
        u.lora_rank = None
        u.lora_attention_only = False
        if "training" not in u.workloads and "fine_tuning" not in u.workloads:
            u.workloads.append("fine_tuning")


# ---------------------------------------------------------------- runtime and measurements

_RUNTIME_RX = (
    ("llama.cpp", r"llama[\s.-]?cpp|ollama|\bgguf\b|lm[\s-]?studio|koboldcpp|llamafile"),
    ("vllm", r"\bvllm\b|\btgi\b|text-generation-inference|sglang|tensorrt|\btrt-llm\b"),
)


_KV_FP8_RX = re.compile(
    r"(?:fp8|8[\s-]?bit)[\s-]*kv|kv[\s-]*cache\w*\s*(?:in|als|as|=|:|auf)?\s*fp8|"
    r"kv[\s-]*cache[\s-]*dtype\s*=?\s*fp8"
)


def find_runtime(folded: str, u: Query) -> None:
    if u.kv_precision is None and not u.kv_precisions and _KV_FP8_RX.search(folded):
        u.kv_precision = "fp8"
    for name, rx in _RUNTIME_RX:
        if re.search(rx, folded):
            u.runtime = name  # type: ignore[assignment]
            break
    else:
        if u.precision and u.precision.startswith("gguf"):
            u.runtime = "llama.cpp"
    if u.runtime == "llama.cpp" and u.precision in GGUF_OF:
        # llama.cpp / Ollama run GGUF files: "4-bit" (AWQ, GPTQ) there is a GGUF 4-bit quant,
        # "8-bit" Q8_0; sizing AWQ with llama.cpp's memory rule mixed two engines (issue 24).
        u.precision = GGUF_OF[u.precision]


#: The GGUF file llama.cpp / Ollama run for a format of another engine.
GGUF_OF = {"awq": "gguf-q4_k_m", "gptq": "gguf-q4_k_m", "fp8": "gguf-q8_0", "int8": "gguf-q8_0"}


_BUSBW_RX = re.compile(
    r"(?:busbw|bus[\s-]?bandwidth|bus[\s-]?bandbreite|all[\s-]?reduce\w*)\D{0,30}?"
    r"(\d+(?:[.,]\d+)?)\s*gb/?s"
    r"|(\d+(?:[.,]\d+)?)\s*gb/?s\s*(?:\w+\s+){0,2}(?:busbw|bus[\s-]?bandwidth|bus[\s-]?bandbreite)"
)
_TPS_RX = re.compile(
    r"(?:\bget|\bgets|getting|only|nur|measured|measure|\bsee|\bsees|seeing|reach\w*|"
    r"gemessen|messen|bekomm\w*|wir haben|komme auf|kommen auf|kommt auf|\bseh\w*|schaff\w*|"
    r"erreich\w*)\D{0,20}?(\d+(?:[.,]\d+)?)\s*"
    r"(?:tok(?:ens?)?/s|tokens? (?:per|a|/) ?s(?:ec(?:ond)?)?|token pro sekunde|t/s)"
)
_PAIR_RX = re.compile(r"gpu\s*(\d)\s*(?:<->|↔|<>|-|–|to|and|und|zu|/|&)\s*(?:gpu\s*)?(\d)\b(?!\d)")
# topo -m labels as printed (upper case, so "node" the word is not NODE the label)
_LABEL_RX = re.compile(r"\b(SYS|PHB|PIX|PXB|NODE|NV\d{1,2})\b")
_SHOWS_RX = re.compile(
    r"\b(?:shows?|showing|displays?|reports?|says|see|seeing|zeigt|zeigen|steht|sehe|sehen|"
    r"meldet|between|zwischen|topo)\b",
    re.IGNORECASE,
)


#: a bandwidth a calculator, a guide or a datasheet states, not one measured on the node
_QUOTED_RX = re.compile(
    r"\b(?:calc\w*|calculator|rechner|guide|spec\w*|datasheet|datenblatt|laut)\b|"
    r"per direction|je richtung|pro richtung"
)


def _measured_anything(u: Query) -> bool:
    """A paste, a measured figure or a topology label said: something a defect claim judges."""
    m = u.measured
    return bool(u.topo_text or u.nccl_text or m.busbw_gb_s or m.tokens_per_s or m.topo_label)


def find_measurements(folded: str, u: Query) -> None:
    if u.nccl_text is None:
        # ("the allreduce calc says 450 GB/s per direction": a figure quoted, not measured)
        m = next((x for x in _BUSBW_RX.finditer(folded) if not _QUOTED_RX.search(x.group(0))), None)
        if m:
            u.measured.busbw_gb_s = float((m.group(1) or m.group(2)).replace(",", "."))
    m = _TPS_RX.search(folded)
    if m:
        u.measured.tokens_per_s = float(m.group(1).replace(",", "."))
    if u.topo_text is None:
        pair = _PAIR_RX.search(folded)
        label = _LABEL_RX.search(u.question)
        if label and (pair or _SHOWS_RX.search(u.question)):
            u.measured.topo_label = label.group(1)
            if pair:
                u.measured.topo_pair = (int(pair.group(1)), int(pair.group(2)))


# ---------------------------------------------------------------- the claim asked about

_CLAIMS: tuple[tuple[Claim, str], ...] = (
    (
        "pcie_enough",
        # "Is the 4x A100 PCIe enough, or do we really need the SXM one?": the first alternative
        r"\b(?:enough|sufficient|genug|ausreichend|reicht|reichen)\b[^?]{0,40}\b(?:or|oder)\b"
        r"[^?]{0,30}\b(?:need|brauch\w*|benötig\w*|must|müssen)\b[^?]{0,50}\b(?:sxm|nvlink)|"
        r"(?:reicht|reichen|genügt|genuegt|langt)\s+(?:\w+\s+){0,5}?(?<!a100 )(?<!h100 )pcie|"
        r"(?<!a100 )(?<!h100 )pcie\s+(?:\w+\s+){0,4}?(?:enough|sufficient|ok\b|okay|fine|"
        r"good enough|ausreichend|"
        r"genug|reicht|genügt|aus\b)|"
        r"(?:get away|auskommen|klarkommen|zurechtkommen|leben)\s+(?:\w+\s+){0,3}?(?:with|mit)\s+"
        r"(?:\w+\s+){0,2}?pcie|" + NO_LINK_NEEDED + r"|"
        # "da ist kein nvlink nötig, oder?", "no nvlink needed, right?", "we don't need nvlink"
        r"nvlink\s+(?:\w+\s+){0,3}?(?:overkill|übertrieben|unnötig|unnecessary|not necessary|"
        r"nicht nötig|nicht notwendig|überflüssig|verzichtbar|a waste|geldverschwendung)|"
        r"(?:avoid|skip|save|spar\w*|verzicht\w*|vermeid\w*)\s+(?:\w+\s+){0,3}?(?:nvlink|sxm)|"
        r"(?:nvlink|sxm)\s+(?:\w+\s+){0,3}?(?:verzichten|sparen|vermeiden|weglassen)|"
        r"(?:without|ohne)\s+(?:\w+\s+)?(?:nvlink|sxm)|"
        # "still ok on pcie?", "passt das noch mit pcie?", "fine over pcie?"
        r"\b(?:ok|okay|fine|good|alright|in ordnung|passt das)\s+(?:\w+\s+)?(?:on|with|over|"
        r"mit|über)\s+(?:the\s+)?pcie",
    ),
    (
        "nvlink_needed",
        r"(?:need|needs|needed|require[sd]?|necessary|must|brauch\w*|bräucht\w*|benötig\w*|nötig|"
        r"notwendig|erforderlich|pflicht|muss)\b.{0,45}\b(?:nvlink|sxm|nvswitch)|"
        r"(?:nvlink|sxm|nvswitch)\b.{0,30}\b(?:need|needed|required|necessary|nötig|notwendig|"
        r"erforderlich|pflicht|a must|worth|sinnvoll|lohnt)|"
        # "should we move to the SXM5 version?", "sollen wir auf SXM umsteigen?"
        r"\b(?:move|switch|upgrade|migrate|go|wechseln|umsteigen|umziehen)\s+(?:\w+\s+){0,3}?"
        r"(?:sxm\w*|nvlink)\b|\b(?:auf|zu|zur)\s+(?:\w+\s+){0,2}?(?:sxm\w*|nvlink)\S*\s+"
        r"(?:wechseln|umsteigen|umziehen|gehen)|"
        # "ist das SYS dann ein Problem?", "is the PCIe path a bottleneck for that?": whether
        # the link matters for the job (rule 2: not for copies that never talk to each other)
        r"\b(?:ist|is|are|sind|wäre|would)\s+(?:das|the|that|this|dieses?|der)?\s*(?:sys|node|"
        r"phb|pxb|pcie|pci-?e)(?:[\s-]+(?:pfad|weg|path|link|verbindung))?\s+(?:dann\s+|then\s+|"
        r"da\s+|there\s+)?(?:\w+\s+)?(?:ein|a|an)?\s*(?:problem|issue|bottleneck|flaschenhals)",
    ),
    ("worth_it", r"\bworth\b|\blohnt|\brentiert|\bsinnvoll\b|\bpays off\b"),
    # "ist ne H100 nicht total overkill für Llama 3.1 8B?" (NVLink overkill is pcie_enough)
    (
        "oversized",
        r"\b(?:overkill|overpowered|oversized|over[\s-]?dimensioned|überdimensioniert|"
        r"more than (?:we|i) need|mehr als (?:wir|ich) brauch\w*|mit kanonen auf spatzen)\b",
    ),
    # "is the L40S faster than the RTX 5090?": the first named against the second
    # "and on an h100? much faster?": a bare comparison asked of the node named
    (
        "faster",
        r"\b(?:faster|quicker|schneller)\s+(?:than|als)\b|"
        r"\b(?:faster|quicker|schneller)\s*(?:then|dann|da|there)?\s*\?|"
        # "ist die deutlich schneller, und was kostet die?": a yes/no whose clause ends there
        r"(?:^\W*|[:;,]\s*)(?:is|are|would|ist|sind|wäre|wären)\s+(?:\w+\s+){0,3}?"
        r"(?:faster|quicker|schneller)\s*,",
    ),
    # "Ist ein 2x H100 PCIe teurer als ein 4x L40S?": a price comparison of two things named
    ("costlier", r"\b(?:more expensive|costlier|pricier|teurer)\s+(?:than|als)\b"),
    ("cheaper", r"\b(?:cheaper|less expensive|günstiger|billiger|preiswerter)\s+(?:than|als)\b"),
    (
        "too_small",
        r"\b(?:too|zu) (?:small|little|klein|knapp|wenig)\b|"
        r"\bnot (?:big|large) enough\b|\bnicht groß genug\b",
    ),
    (
        # "will wissen, ob die Karten da über NVLink verbunden sind": the link the pairs run
        "link_is",
        r"\b(?:über|via|over|through|mit|per)\s+nvlink\s+(?:verbunden|angebunden|gekoppelt|"
        r"connected|linked)|\b(?:verbunden|angebunden|connected|linked)\s+(?:über|via|over|"
        r"through|with|mit|per)\s+nvlink\b",
    ),
    (
        "defect",
        r"\b(?:broken|defect\w*|faulty|wrong|a problem|an issue|kaputt|defekt\w*|fehlerhaft|"
        r"bad|schlecht|"
        r"falsch|ein problem|kaputt|nicht in ordnung|something (?:is )?(?:off|wrong)|"
        r"stimmt\s+(?:da\s+|hier\s+|damit\s+)?(?:was|etwas)\s+nicht|"
        r"(?:ist|is)\s+(?:da\s+)?(?:was|etwas)\s+(?:faul|kaputt)|"
        # "meint, die Werte sind zu niedrig": a measurement said to fall short
        r"(?:zu|too|viel zu|way too|far too)\s+(?:niedrig|low|langsam|slow|gering)|"
        r"underperform\w*|slower than expected|langsamer als erwartet|"
        # "says one of the nvlinks is dead", "ein Link ist tot / ausgefallen"
        r"(?:is|are|ist|sind|seems?|scheint)\s+(?:\w+\s+)?(?:dead|down|tot|ausgefallen)|"
        r"(?:link|nvlink)s?\s+(?:\w+\s+)?(?:dead|down|missing|ausgefallen|fehlt))\b",
    ),
    (
        "healthy",
        r"\b(?:normal|correct|(?<!, )(?<!,)right|fine(?![- ]?tun)|ok|okay|good|alright|expected|"
        r"as it should|healthy|richtig|korrekt|gut|"
        r"in ordnung|erwartet|stimmt das|"
        # "passt das?" of a paste, never "passt das auf …" nor "passt das dann noch?" (a fit)
        r"passt das(?!\s+(?:\w+\s+)?(?:auf|in|für|bei|mit)\b)(?!\s+(?:dann\s+)?(?:noch|immer))|"
        r"gesund|plausibel|plausible|as advertised|as promised|wie versprochen|wie beworben|"
        # "bei uns läuft doch alles über nvlink, oder?": every pair on NVLink, as it should be
        r"(?:alles|everything|all (?:cards|gpus|pairs|karten|paare))\s+(?:\w+\s+)?(?:über|"
        r"over|via|on|auf|per|mit|with)\s+nvlink|"
        r"what (?:they|we|i|he|she|you)(?:'re| are)? (?:pay|paying|paid) for|"
        # "is this what they should expect on that box, or is something off?"
        r"what (?:they|we|i|he|she|you) (?:should|would|can|could) expect|"
        r"(?:wofür|was) (?:er|sie|wir|ich) (?:\w+ )?(?:zahl|bezahl)\w*)\b",
    ),
)


#: "A or B?" (not "or not"): the question offers alternatives
ALTERNATIVE_RX = re.compile(r"\b(?:or|oder)\b(?!\s+(?:not|nicht)\b)", re.IGNORECASE)


_OPENING_RX = re.compile(
    r"^\W*(?:ok(?:ay)?|alright|right|good|gut|super|prima|danke|thanks)\b[\s,.!:-]*"
)


_CHEAPEST_WORD_RX = re.compile(
    r"cheapest|günstigste|billigste|am günstigsten|am billigsten|preiswerteste|lowest price"
)


def without_link_exclusion(folded: str) -> str:
    """The text with a link refused as a filter blanked out ("kein NVLink, was ist das
    günstigste?": a constraint on the pick, not an NVLink question); unchanged when the question
    asks no cheapest pick ("geht es ohne NVLink?" asks about the link)."""
    if not _CHEAPEST_WORD_RX.search(folded):
        return folded
    for _, rx in _EXCLUDE_LINK:
        folded = re.sub(rx, lambda m: " " * len(m.group(0)), folded)
    return folded


# "bf16 is fine", "FP8 ist ok für uns": a precision accepted, no claim to answer yes to
_PREFERENCE_RX = re.compile(
    r"\b(?:bf16|fp16|fp8|int8|int4|awq|gptq|gguf|q4_k_m|4[\s-]?bit|8[\s-]?bit|quanti\w+)\s+"
    r"(?:is|are|ist|sind|wäre|wären|would be)\s+(?:also\s+|auch\s+|totally\s+)?(?:fine|ok|okay|"
    r"good|gut|in ordnung|acceptable|enough|ausreichend)\b"
)

# a fit said and a tag after it: "X won't fit on one L4, right?", "passt nicht, oder?"
_FIT_TAG_RX = re.compile(
    r"\b(?:fit|fits|passt|passen|run|runs|läuft|laufen|reicht|reichen|enough|plenty|genug|"
    # (not "läuft alles über nvlink, oder?": the link is the claim there)
    r"ausreichend|squeeze|squeezes)\b(?:(?!nvlink)[^.?!]){0,60}?,?\s*"
    r"\b(?:right|correct|richtig|oder|stimmt'?s?|ne|isn'?t it|does it|doesn'?t it)\s*\?"
)

# "stimmt es, dass …", "is it true that …": the claim is the clause's, not "richtig" / "true"
_VERIFY_FRAME_RX = re.compile(
    r"\b(?:stimmt es|ist es (?:richtig|wahr|korrekt|so)|trifft es zu|is it (?:true|right|correct|"
    r"the case)|am i right)\s*,?\s*(?:dass|daß|that)\b"
)


def find_claim(folded: str, u: Query) -> None:
    """The claim a yes/no answers: the first of _CLAIMS that the question states; in an
    alternative question ('is that normal or is something broken?') the one stated first, since
    'yes' answers the first alternative."""
    from assistant.nlu.asks import (  # asks reads this module's patterns
        _INDIRECT_RX,
        _WRAPPED_RX,
        is_yes_no,
    )

    # an e-mail wrapped at 72 characters: "… or do we\nreally need the SXM one?" is one question
    folded = _WRAPPED_RX.sub(" ", folded)
    # "ok and if it's only inference …", "gut, und …": an opening interjection claims nothing
    folded = _OPENING_RX.sub(lambda m: " " * len(m.group(0)), folded, count=1)
    # "on a single 8x H100 SXM box, or do we need …": a card's name is not the link asked about
    for start, end, _cid in reversed(_find_cards(folded)):
        folded = folded[:start] + " " * (end - start) + folded[end:]
    folded = _VERIFY_FRAME_RX.sub(lambda m: " " * len(m.group(0)), folded)
    folded = _PREFERENCE_RX.sub(lambda m: " " * len(m.group(0)), folded)
    # "… thinks the NVLink is broken. Is the topology fine?": the question's own claim first
    asked = [
        q for q in _QUESTION_SENTENCE_RX.findall(folded) if q.strip() and not _VERIFY_RX.match(q)
    ]
    # "cust asks if this is normal for the node …. what do i tell her?": the reported yes/no
    asked += [folded[m.end() :].split(".")[0] for m in _INDIRECT_RX.finditer(folded)]
    # "… what does that one cost and would it even work without nvlink": a last question
    # typed without its question mark
    tail = re.split(r"[.?!]\s", folded.rstrip())[-1]
    if tail and not tail.rstrip().endswith((".", "?", "!")) and _UNMARKED_Q_RX.search(tail):
        asked.append(tail)

    # a statement's claim ("FP8 is fine for us") is the question's only when the question is a
    # yes/no one ("… Do we?") or there is no question ("The H200 is just an H100 with more RAM")
    questions = [q for q in _QUESTION_SENTENCE_RX.findall(folded) if q.strip()]
    yes_no = not questions or any(is_yes_no(q.strip()) for q in questions)
    stated = [folded] if yes_no else []
    if any(_fit_asked_first(q) for q in asked):
        return  # the fit is the claim: the first alternative asks it
    if asked and _claim_in(asked[0]) is None and FIT_QUESTION_RX.search(asked[0]):
        # "does it fit on 2x L40S? what would it cost, do we need nvlink …?": the first
        # question is the fit, whose claim the reading states ("fits"), not a later one's
        return
    for text in [*asked, *stated]:
        claim = _claim_in(text)
        if claim == "healthy" and _FIT_TAG_RX.search(folded):
            return  # "… wont fit on a single L4, right?": the fit is the claim, not "right"
        if claim == "healthy" and ok_is_the_fit(u, text):
            claim = "fits"  # "qwen3 32b in fp8 on ONE l40s — ok or not?": the fit is asked
        if claim == "pcie_enough" and _RUNS_WITHOUT_LINK_RX.search(text):
            claim = "fits"  # "kann man R1 bei euch auch ohne nvlink betreiben?": under it
        if claim is not None:
            u.claim = claim
            return


#: whether the job runs with the link refused ("kann man DeepSeek R1 bei euch auch ohne NVLink
#: betreiben?", "can we run it without nvlink?"): a fit within that exclusion, not the guide's
#: rule ("reicht PCIe?", "do we need NVLink?")
_RUNS_WITHOUT_LINK_RX = re.compile(
    r"(?:^|[.,;:!?]\s*)\W*(?:(?:und|and|also|so|ok)\W+)?(?:kann man|können wir|kann ich|"
    r"könnt ihr|geht|läuft|"
    r"lässt sich|can (?:i|we|you|one)|could (?:i|we|you)|does it (?:run|work)|will it (?:run|work)"
    r")\b(?:(?!reicht|enough|need|brauch|genug)[^?])*\b(?:without|ohne)\s+(?:\w+\s+)?"
    r"(?:nvlink|sxm)"
)


#: a question asked without its question mark: "… and would it even work without nvlink"
_UNMARKED_Q_RX = re.compile(
    r"(?:^|\b(?:and|und)\s+)(?:would|will|does|do|is|are|can|could|würde|wird|geht|läuft|reicht|"
    r"passt|brauch\w*)\b"
)

#: a yes/no opened by a fit verb: "does it fit on …?", "passt das auf …?", "läuft X auf …?"
FIT_QUESTION_RX = re.compile(
    r"^\W*(?:(?:does|do|will|would|can|could)\s+(?:it|this|that|they|\S+(?:\s+\S+){0,4}?)\s+"
    r"(?:fit|run)|(?:passt|passen|läuft|laufen|reicht|reichen)\b)"
)


#: "… with --tensor-parallel-size 4. Good idea?": a plan judged, not a fit
PLAN_RX = re.compile(
    r"\b(?:good|bad|smart|wise)\s+(?:idea|plan|choice)|\b(?:gute|schlechte)\s+(?:idee|wahl)|"
    r"\bsinnvoll|\bworth it|tensor[\s-]*parallel"
)


def asks_if_healthy(said: Any, intents: Sequence[str]) -> bool:
    """A yes/no about a paste that states no claim ("er will wissen, ob das so normal ist",
    "kann das sein?"): whether the node is healthy (the parse's `Query` or any reader's
    `Reading`, with the intents it plans by)."""
    paste = intents[:1] in (["topology_paste"], ["allreduce_paste"])
    fit = any(a.kind == "fit" for a in said.asks)  # "could they run X on those two?": the fit's
    return bool(
        said.claim is None
        and said.yes_no
        and not fit
        and (said.topo_text or said.nccl_text or paste)
    )


def ok_is_the_fit(said: Any, text: str) -> bool:
    """ "ok?", "fine?" said of a model on hardware, with no paste nor measurement and no plan
    judged in `text`: whether it fits, not whether a node is healthy (the parse's `Query` or any
    reader's `Reading`: both carry these fields)."""
    measured = any(v is not None for v in said.measured.model_dump().values())
    hardware = said.cards or said.card_families or said.configurations
    pasted = said.topo_text or said.nccl_text
    plan = PLAN_RX.search(text)
    return bool(said.has_subject and hardware and not (pasted or measured or plan))


# "forget the training and the nvlink", "vergiss das Budget", "never mind the NVLink": a
# constraint of the session dropped (reading/merge.py), asked about by nothing
DROPPED_RX = re.compile(
    r"\b(?:forget|never\s*mind|ignore|scrap|vergiss|vergesst|streich\w*)\b[^.?!]{0,40}?"
    r"\b(nvlink|sxm|pcie|budget|price limit|preislimit)\b"
)


# "much faster?", "deutlich günstiger als": a comparison asked for a large difference
_BY_MUCH_RX = re.compile(
    r"\b(?:much|way|far|a lot|lots|significantly|noticeably|considerably|substantially|viel|"
    r"deutlich|wesentlich|spürbar|merklich|erheblich|bedeutend|signifikant)\s+"
    r"(?:faster|quicker|cheaper|more expensive|pricier|costlier|schneller|günstiger|billiger|"
    r"teurer)\b"
)


# "was wär das günstigste mit nur einer karte?", "cheapest single-gpu box": a pick on one card
_ONE_CARD_PICK_RX = re.compile(
    r"(?:cheapest|günstigst\w*|billigst\w*|am günstigsten)[^.?!]{0,40}?"
    r"(?:(?:only|just|nur|with|mit|on|auf)\s+(?:one|a single|1|einer|eine[rmn]?)\s+(?:single\s+|"
    r"einzigen\s+|einzelnen\s+)?(?:card|gpu|karte|grafikkarte)\b|single[\s-]?(?:gpu|card)|"
    r"one[\s-]gpu|einzelkarte)|"
    r"(?:single[\s-]?(?:gpu|card)|one[\s-]gpu|einzelkarten)[\s-]+(?:\w+\s+){0,2}?"
    r"(?:option|box|server|node|knoten|setup)[^.?!]{0,30}?(?:cheapest|günstigst\w*)|"
    # "welche einzelne Karte wäre die günstigste?", "which single card is the cheapest?"
    r"\b(?:welche|which|what)\s+(?:einzelne|single|one)\s+(?:karte|grafikkarte|card|gpu)\b"
    r"[^.?!]{0,30}?(?:cheapest|günstigst\w*|billigst\w*)|"
    # "hmm lieber alles auf einer karte", "we'd rather have it on a single gpu": a preference
    r"\b(?:lieber|am liebsten|bevorzugt|rather|prefer\w*)\s+(?:\w+\s+){0,3}?(?:(?:auf|on)\s+"
    r"(?:einer|eine[rmn]?|ner|one|a single|1)\s+(?:einzigen\s+|einzelnen\s+|single\s+)?(?:karte|"
    r"grafikkarte|card|gpu)\b|single[\s-]?(?:gpu|card)|einzelkarte)"
)


def find_one_card(folded: str, u: Query) -> None:
    """The cheapest pick asked on one card only ("falls nein: das günstigste mit nur einer
    Karte?")."""
    if _ONE_CARD_PICK_RX.search(folded):
        u.constraints.one_card = True


def find_by_much(folded: str, u: Query) -> None:
    """A comparison claim asked for a large difference ("is the H100 much faster?")."""
    if u.claim in ("faster", "cheaper", "costlier") and _BY_MUCH_RX.search(folded):
        u.claim_by_much = True


# "mehr als 20 Token pro Sekunde?", "at least 30 tokens/s": a speed asked for, not measured
_SPEED_ASKED_RX = re.compile(
    r"(?:\b(?:more than|over|above|at least|faster than|mehr als|über|mindestens|wenigstens|"
    r"schneller als)\s+|\bmind\.\s*|[>≥]=?\s*)(\d{1,4}(?:[.,]\d+)?|"
    + "|".join(sorted((w for w, n in _NUMBER_WORDS.items() if n >= 5), key=len, reverse=True))
    + r")\s*(?:tok(?:ens?)?|token)\s*(?:/\s*s(?:ec)?\b|"
    r"per second|a second|pro sekunde|je sekunde|in der sekunde|/\s*sek)"
)


# "will llama 3.1 8b on a single L4 give me 30 tokens/s?", "schafft die 20 Token/s?": a speed
# a yes/no asks whether it reaches
_SPEED_REACHED_RX = re.compile(
    r"\b(?:will|would|can|could|does|do|kann|wird|würde|schafft|schaffen)\b"
    r"(?:[^.?!\n]|(?<=\d)\.(?=\d)){0,60}?\b"
    r"(?:give|get|reach|do|hit|manage|deliver|liefer\w*|erreich\w*|schaff\w*|bekomm\w*|krieg\w*)\s+"
    r"(?:me\s+|us\s+|mir\s+|uns\s+)?(?:about\s+|around\s+|~\s*|ca\.?\s*|etwa\s+)?"
    r"(\d{1,4}(?:[.,]\d+)?)\s*(?:tok(?:ens?)?|token)\s*(?:/\s*s(?:ec)?\b|per second|a second|"
    r"pro sekunde|/\s*sek)[^.?!\n]{0,40}\?"
)


# "schafft qwen 2.5 7b auf einer l4 20 token/s?", "does it reach 50 tok/s on an h100?": the
# question opened by the verb
_SPEED_VERB_FIRST_RX = re.compile(
    r"(?:^|[.?!]\s+)\W*(?:schafft|schaffen|erreicht|erreichen|packt|packen|reaches|hits|manages|"
    r"does\s+(?:it|that|this|\S+)\s+(?:reach|hit|do|manage))\b"
    r"(?:[^.?!\n]|(?<=\d)\.(?=\d)){0,60}?(?<![\w.,])(\d{1,4}(?:[.,]\d+)?)\s*(?:tok(?:ens?)?|token)\s*"
    r"(?:/\s*s(?:ec)?\b|per second|a second|pro sekunde|/\s*sek)[^.?!\n]{0,40}\?"
)


def find_speed_asked(folded: str, u: Query) -> None:
    """A speed the question asks whether it reaches: the claim is "faster" (than that)."""
    m = (
        _SPEED_ASKED_RX.search(folded)
        or _SPEED_REACHED_RX.search(folded)
        or _SPEED_VERB_FIRST_RX.search(folded)
    )
    if m is None:
        return
    word = _NUMBER_WORDS.get(m.group(1))  # "more than twenty tokens per second"
    asked = float(word) if word is not None else float(m.group(1).replace(",", "."))
    if u.measured.tokens_per_s is not None:
        if u.measured.tokens_per_s != asked:
            return  # a measurement said beside it ("we get 30 tokens/s, can it do 50?")
        u.measured.tokens_per_s = None  # "schaffe ich mehr als 50 Token pro Sekunde?": asked
    u.min_tokens_per_s = asked
    if u.claim in (None, "fits", "healthy"):
        u.claim = "faster"


# (a "." between digits, "Qwen2.5", ends no sentence)
_QUESTION_SENTENCE_RX = re.compile(r"(?:[^.?!\n]|(?<=\d)\.(?=\d))*\?")
# "Stimmt das?", "Is that true?": it asks about a claim said before, with none of its own
_VERIFY_RX = re.compile(
    r"^\W*(?:und\s+|and\s+)?(?:stimmt\s+das|is\s+(?:that|this|it)\s+(?:true|right|correct|so)|"
    r"really|wirklich|ist\s+das\s+(?:so|richtig|wahr|korrekt)|right|oder|"
    # "customer says one of the nvlinks is dead. is he right?": the reported claim is asked
    r"(?:is|are)\s+(?:he|she|they|the customer|the cust|the client)\s+right|"
    r"(?:hat|haben)\s+(?:er|sie|der kunde|die kundin)\s+recht)\W*\?\s*$"
)


# the first alternative asks whether it fits: "will FLUX run on an L4 or is that too small?"
# ("Reicht dafür eine einzelne RTX 4090, oder ist der Speicher zu knapp?": "reicht" and "passt"
# ask the fit by themselves)
_FIT_FIRST_RX = re.compile(
    # (at the start of the question or of its clause: "we tuned it ourselves, can we serve it
    # on one L4 or is that too small")
    r"(?:^|[,;:.]\s)\W*(?:will|would|does|do|can|could|is|passt|läuft|geht|reicht|schafft|"
    r"kann|können|könnte|könnten|würde|würden|wird|ist)\b"
    r"[^?]{0,80}?\b(?:run|fit|work|go|serve|host|passt|läuft|laufen|geht|reicht|schafft|on|auf|"
    r"betreiben|hosten)\b|"
    r"^\W*(?:reicht|reichen|passt|passen|genügt|genügen)\b"
)


def _fit_asked_first(folded: str) -> bool:
    """The question's first alternative asks the fit and its claim words come after the "or"
    ("Reicht eine RTX 4090, oder ist der Speicher zu knapp?"): "yes" answers the fit."""
    found = [m.start() for _claim, rx in _CLAIMS if (m := re.search(rx, folded))]
    before = ALTERNATIVE_RX.search(folded, 0, min(found)) if found else None
    return before is not None and bool(_FIT_FIRST_RX.search(folded[: before.start()]))


def _claim_in(folded: str) -> Claim | None:
    # (two claims found at one place: the one listed first, "brauche … kein nvlink" is
    # pcie_enough before it is nvlink_needed)
    found = [
        (m.start(), i, claim)
        for i, (claim, rx) in enumerate(_CLAIMS)
        if (m := re.search(rx, folded))
    ]
    if not found or _fit_asked_first(folded):
        return None  # none, or the second alternative's; "yes" answers the fit asked first
    first = min(found)[0]
    # the "or" of the first claim's own sentence ("Do we need NVLink, or is PCIe fine?")
    alternative = ALTERNATIVE_RX.search(folded, first)
    between = folded[first : alternative.start()] if alternative else ""
    if alternative and not re.search(r"[.?!]\s", between):
        return min(found)[2]
    return found[0][2]


_COMPARE_RX = re.compile(
    r"\b(?:vs\.?|versus|or|oder|compared? (?:to|with)|verglichen mit|gegenüber|better|besser|"
    r"which (?:one|is)|welche[rs]? (?:ist|davon|nehmen)|best value|bestes? preis)\b"
)


def _hardware_named(u: Query) -> int:
    """How many pieces of hardware the question names: its configurations, and the cards and
    families no configuration named is of ("one L4" is one, not the card and its node)."""
    named = set(u.cards) | set(u.card_families)
    of_nodes = {c for c in named if any(f"-{c}" in cid for cid in u.configurations)}
    return len(u.configurations) + len(named - of_nodes)


def find_all(folded: str, u: Query) -> None:
    """Every constraint, measurement and claim of the question, into `u`."""
    u.constraints.budget_usd_month = find_budget(folded)
    u.constraints.min_total_memory_gb = find_min_memory(folded)
    u.users = find_users(folded)
    at_once = find_people_at_once(folded)
    if at_once and u.concurrency is None:
        u.concurrency = at_once
        load = traffic_of(at_once)
        if load == "traffic":
            # "ca. 20 Leute gleichzeitig": the number said beats a vague word ("intern")
            u.workloads = [w for w in u.workloads if w not in ("low_concurrency", "traffic")]
            u.workloads.append("traffic")
        elif load and not {"traffic", "low_concurrency"} & set(u.workloads):
            # "at most 3 people generating at the same time": a few parallel requests (the
            # guide's low concurrency)
            u.workloads.append("low_concurrency")
    find_exclusions(folded, u)
    find_adapter_negation(folded, u)
    find_runtime(folded, u)
    find_nodes(folded, u)
    find_measurements(folded, u)
    find_claim(without_link_exclusion(folded), u)
    find_speed_asked(folded, u)
    find_output_tokens(folded, u)
    find_by_much(folded, u)
    find_one_card(folded, u)
    find_capabilities(folded, u)
    if u.claim == "nvlink_needed" and _stated_nvlink(folded):
        u.claim = None  # "we need NVLink, ... which node?": a requirement, not the question
    if (
        u.claim in ("link_is", "nvlink_needed")
        and u.constraints.require_link == "nvlink"
        and "?" not in folded
    ):
        u.claim = None  # "die Karten müssen per NVLink verbunden sein.": required, not asked
    if u.claim == "defect" and u.constraints.exclude_cards and not _measured_anything(u):
        u.claim = None  # "bad experience with the A6000s, those are out": a reason to exclude
    find_stated_claim(folded, u)
    u.compare = bool(_COMPARE_RX.search(folded)) and _hardware_named(u) >= 2
