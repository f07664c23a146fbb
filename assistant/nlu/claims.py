"""Claims the user states about a mechanism, and the guide concepts a yes/no question asks about.

A question often carries its own reasoning: "the 4 x 32 GB add up to 128 GB, so my video model
fits?", "only 3B parameters are active, so it needs that little memory?", "Q4_K_M and AWQ are
both 4-bit, so the GGUF is just as small?". That reasoning is the claim the first word of the
answer must settle, whatever the question's other words ask for. Each finder here reads the
folded question and sets `Query.claim` (and `Query.formats`) when the question states one;
the composer checks it with a tool (assistant/compose/claims.py) and answers yes or no in the
user's polarity.

Guide concepts (`CONCEPTS`) are yes/no questions one guide passage settles ("Is the quality
loss of FP8 noticeable?"); the finder names the concept, the composer holds the passage and its
verdict. `Query.claim_negated` marks a question asked the other way round ("Is FP8 practically
lossless?").
"""

from __future__ import annotations

import re

from assistant.nlu.lexicon import _PRECISION_RX
from assistant.nlu.query import Query

# ---------------------------------------------------------------- memory of several cards

_POOL_VERB = (
    r"\badd(?:s|ed)? up\b|\badd(?:ed)? together\b|\bsum(?:med)? up\b|\baddier\w*|"
    r"\bzusammen(?:ge)?(?:zähl|rechn|leg|schalt|fass|nommen)\w*|"
    r"\b(?:legt|legen|zählt|zählen|rechnet|rechnen|schaltet|schalten)\b[^?!]{0,60}\bzusammen\b|\bsummier\w*|\baufaddier\w*|"
    r"\bpool(?:s|ed|ing)?\b|\bcombine[ds]?\b|\bcombining\b|\bkombinier\w*|"
    r"\b(?:acts?|works?|behaves?|counts?|läuft|laufen|zählt|zählen|funktionier\w*) "
    r"(?:as|like|wie|als) (?:one|a single|eine?|eine einzige|eine große)\b|"
    r"\bas one (?:big |large |single )?(?:card|gpu|pool|memory)|"
    r"\b(?:as|als|wie) (?:one|a single|eine?) (?:(?:big|large|große|einzige) )?"
    r"(?:\d+[\s-]?gb[\s-]*)?(?:card|karte|gpu)\b|\bzusammen\b[^.?!]{0,20}\b(?:als|wie) eine?\b|"
    r"\bwie eine (?:große |einzige |einzelne )?(?:karte|gpu)|"
    r"\b(?:use|using|nutzen|verwenden|ausnutzen|belegen) (?:all|the (?:full|whole|entire|"
    r"combined|total)|den (?:ganzen|gesamten|kompletten)|die (?:ganzen|gesamten|vollen)|alle)\b"
    r"(?: (?:of )?(?:the |die |den )?\d+ ?gb)?(?!\s*(?:\d+ ?gb\s*)?(?:card|karte|gpu)\b)|"
    r"\b(?:in total|insgesamt|in summe|combined|zusammengenommen)\b[^?!]{0,12}[-–,;:]\s*"
    r"(?:so|also|damit|dann)\b|"
    r"\b(?:so|also|damit|dann|thus|hence)\b[^.?!]{0,40}\b(?:have|hätten|haben|get|bekommen|"
    r"kriegen)\b[^.?!]{0,10}\b\d+ ?gb\b[^.?!]{0,30}\b(?:for|für)\b"
)
_POOL_RX = re.compile(_POOL_VERB)
_MEMORY_WORD = re.compile(
    r"(?<![\d.,])\d+[\s-]?gb\b|\b(?:vram|memory|memories|speicher\w*|grafikspeicher)\b"
)
_SEVERAL = re.compile(
    r"(?<![a-z0-9])(?:[2-9]|two|three|four|eight|zwei|drei|vier|acht)\s*(?:x|×|mal)?\s*"
    r"(?:\d+ ?gb|cards?|karten|gpus?|[a-z]*\d{2,4}|rtx|l4|l40s|a100|h100|h200|b200)|"
    r"\bthe (?:two|four|eight|\d) (?:cards|gpus)\b|\bmehrere[n]? (?:karten|gpus)\b|"
    r"\b(?:several|multiple) (?:cards|gpus)\b|\b(?:both|all) (?:cards|gpus)\b|\bbeide[n]? karten\b|"
    r"\balle(?:n)? karten\b|\bacross (?:the )?(?:cards|gpus)\b"
)


def _states_pooling(folded: str, u: Query) -> bool:
    """'do the 4 x 32 GB add up to 128 GB for my video model?', 'Can one FLUX job use all 96 GB
    of a 4x L4 node?', 'Zählen zwei 4090 wie eine 48-GB-Karte?'"""
    several = (u.count or 0) > 1 or bool(_SEVERAL.search(folded)) or bool(u.configurations)
    if _DIRECTIONS_RX.search(folded):
        return False  # "is that 900 GB/s per direction, or both ways added up?": a link's rate
    return several and bool(_POOL_RX.search(folded)) and bool(_MEMORY_WORD.search(folded))


#: a link's rate counted per direction or both ways
_DIRECTIONS_RX = re.compile(
    r"\b(?:per direction|each direction|one direction|both (?:ways|directions)|bidirectional|"
    r"je richtung|pro richtung|eine richtung|beide richtungen|bidirektional)\b"
)


# ---------------------------------------------------------------- MoE: active parameters

_ACTIVE_RX = re.compile(
    r"\b(?:only|nur|just|lediglich|bloß|blos|merely)\s+(?:\S+\s+){0,5}?(?:activ\w*|aktiv\w*)\b|"
    r"(?<![a-z0-9.,])\d+(?:[.,]\d+)?\s*b\s+(?:\S+\s+){0,2}?(?:active|aktiv\w*)\b|"
    r"\b(?:active|aktive\w*)\s+(?:param\w*|experts?|experten|weights|gewichte)\b"
    r"[^.?!]{0,60}\b(?:so|also|therefore|daher|deshalb|dann|then)\b"
)
_MEMORY_CUE = re.compile(
    r"\b(?:vram|memory|speicher\w*|grafikspeicher|ram|gb|fits?|passt|passen|reicht|reichen|"
    r"need\w*|brauch\w*|benötig\w*|small|smaller|klein\w*|wenig\w*|little|less|load\w*|lad\w*|"
    r"dense|dicht\w*|card|karte|gpu|enough|plenty|genug|ausreich\w*|single|einzelne\w*|"
    r"fine|ok|okay|runs?|läuft|laufen)\b"
)
_SPEED_ONLY = re.compile(r"\b(?:fast|faster|schnell\w*|speed|tempo|tokens?/s|token/s)\b")


def states_active_memory(folded: str) -> bool:
    """'Qwen3-30B-A3B has only 3B active, so one 4090 is enough?', 'Bei Mixtral sind nur 12,9B
    aktiv — reicht dann Speicher wie für ein 13B-Modell?'"""
    m = _ACTIVE_RX.search(folded)
    if not m:
        return False
    rest = folded[: m.start()] + " " + folded[m.end() :]
    if _SPEED_ONLY.search(folded) and not re.search(
        r"\b(?:vram|memory|speicher\w*|gb|fits?|passt|reicht|enough|plenty|genug)\b", rest
    ):
        return False  # "only 37B active, so it is fast?": a claim about speed
    # the cue may sit inside the claim itself ("so I only need VRAM for the 22B active?")
    return bool(_MEMORY_CUE.search(rest) or _MEMORY_CUE.search(m.group(0)))


# ---------------------------------------------------------------- sizes of two formats

_SAME_SIZE_RX = re.compile(
    r"\b(?:just |equally |exactly )?as (?:small|big|large|compact)\b|\bthe same size\b|"
    r"\bsame (?:size|memory|footprint|amount of (?:memory|vram))\b|\bequally (?:small|big|large)\b|"
    r"\bidentical (?:in )?size\b|\bno (?:bigger|larger)\b|\bnot (?:any )?(?:bigger|larger)\b|"
    r"\bgenauso (?:klein|groß|gross|viel)\b|\bebenso (?:klein|groß|gross|viel)\b|"
    r"\bgleich (?:klein|groß|gross|viel)\b|\bgleich ?groß\b|\bdieselbe größe\b|"
    r"\bdie gleiche größe\b|\bnicht größer\b|\bso klein wie\b|\bso viel (?:speicher|vram) wie\b|"
    r"\bas much (?:memory|vram) as\b"
)
_LARGER_RX = re.compile(
    r"\b(?:bigger|larger|größer|grösser|more memory|mehr speicher|more vram|mehr vram)\b"
)
_BARE_GGUF = re.compile(r"(?<![a-z0-9])gguf(?![a-z0-9_-]*q\d)")


def _format_mentions(folded: str) -> list[tuple[int, str]]:
    """Weight formats named, in order; a bare 'GGUF' is the GGUF named elsewhere (else the
    guide's 4-bit GGUF, Q4_K_M); 'the 4-bit GGUF' is that GGUF, not AWQ."""
    hits: list[tuple[int, str]] = []
    for name, rx in _PRECISION_RX:
        for m in rx.finditer(folded):
            if name == "awq" and re.match(r"\s*(?:gguf|q\d)", folded[m.end() :]):
                continue  # "4-bit GGUF": the bit width of the GGUF
            hits.append((m.start(), name))
    ggufs = [n for _, n in hits if n.startswith("gguf")]
    for m in _BARE_GGUF.finditer(folded):
        if not any(abs(m.start() - p) < 8 for p, n in hits if n.startswith("gguf")):
            hits.append((m.start(), ggufs[0] if ggufs else "gguf-q4_k_m"))
    return sorted(hits)


def _states_size(folded: str, u: Query) -> None:
    """'Q4_K_M and AWQ are both 4-bit, so the GGUF is just as small?' (same_size), 'is the
    GGUF bigger than the AWQ?' (larger): the format the claim is about first."""
    cue = _SAME_SIZE_RX.search(folded)
    claim = "same_size"
    if cue is None:
        cue = _LARGER_RX.search(folded)
        claim = "larger"
    hits = _format_mentions(folded)
    names = list(dict.fromkeys(n for _, n in hits))
    if cue is None or len(names) < 2:
        return
    before = [n for p, n in hits if p < cue.start()]
    subject = before[-1] if before else names[0]
    if claim == "same_size" and re.search(r"\b(?:both|beide\w*)\b", folded) and before:
        # "X and Y are both 4-bit, so the GGUF is just as small as the AWQ": the last one named
        subject = before[-1]
    after = [n for p, n in hits if p >= cue.end() and n != subject]
    earlier = [n for n in reversed(before) if n != subject]
    other = (after or earlier or [n for n in names if n != subject])[0]
    u.formats = [subject, other]
    u.claim = claim  # type: ignore[assignment]


# ---------------------------------------------------------------- guide concepts

# concept id -> (what the question says, what says it the other way round)
CONCEPTS: dict[str, tuple[str, str | None]] = {
    "fp8_quality_loss": (
        r"(?=.*\b(?:fp8|q8_0|q8|8[\s-]?bit)\b)(?!.*\b(?:4[\s-]?bit|awq|gptq|q4\w*)\b)"
        r"(?=.*\b(?:quality|qualität\w*|accura\w*|genauigkeit|lossless|verlustfrei|degrad\w*|"
        r"worse|schlechter\w*|loss|verlust\w*|verlier\w*|lose|loses|dumber|dümmer)\b)",
        r"\b(?:lossless|verlustfrei|no (?:quality )?loss|kein\w* (?:qualitäts)?verlust\w*|"
        r"as good as|genauso gut|same quality|gleiche qualität)\b",
    ),
    "four_bit_quality_loss": (
        r"(?=.*\b(?:4[\s-]?bit|awq|gptq|q4_k_m|q4)\b)(?!.*\bfp8\b)"
        r"(?=.*\b(?:quality|qualität\w*|accura\w*|genauigkeit|lossless|verlustfrei|degrad\w*|"
        r"worse|schlechter\w*|loss|verlust\w*|verlier\w*|lose|loses|dumber|dümmer)\b)",
        r"\b(?:lossless|verlustfrei|no (?:quality )?loss|kein\w* (?:qualitäts)?verlust\w*|"
        r"as good as|genauso gut|same quality|gleiche qualität)\b",
    ),
    # "wird der KV-Cache größer, je länger der Kontext ist?": it grows with every token
    "kv_grows_with_context": (
        r"(?=.*\bkv[\s-]*cache\w*)"
        r"(?=.*\b(?:grow\w*|wächst|wachsen|größer|groesser|bigger|larger|more|mehr|increase\w*|"
        r"steigt|zunimmt|scale\w*|skaliert)\b)"
        r"(?=.*\b(?:context|kontext\w*|tokens?|länger|longer|sequen\w*|128k|\d+k)\b)"
        r"(?!.*\b(?:quanti\w*|awq|gptq|4[\s-]?bit|gguf)\b.{0,40}\b(?:shrink\w*|kleiner|smaller)\b)",
        r"\b(?:stays? the same|gleich bleibt|bleibt gleich|constant|konstant|fixed|fest)\b",
    ),
    "kv_follows_weights": (
        r"(?=.*\bkv[\s-]*cache\w*)(?=.*\b(?:quanti\w*|awq|gptq|4[\s-]?bit|fp8|gguf|q4\w*)\b)"
        r"(?=.*\b(?:shrink\w*|smaller|kleiner|too|also|auch|as well|ebenfalls|mit|with|halv\w*|"
        r"halbier\w*|stay\w*|bleib\w*)\b)",
        r"\b(?:stay\w*|bleib\w*|unchanged|unverändert|still|immer noch)\b",
    ),
    "vllm_whole_card": (
        r"(?=.*\bvllm\b)(?=.*\b(?:whole|full|all|entire|ganze\w*|gesamte\w*|komplette\w*|"
        r"volle\w*|alle\w*|100 ?%)\b)(?=.*\b(?:card|karte|memory|speicher|vram|gb|gpu)\b)",
        r"\b(?:leave\w*|lässt|reserv\w*|only|nur|part|teil)\b",
    ),
    "moe_speed_active": (
        r"(?=.*\b(?:moe|mixture|experts?|experten|active|aktiv\w*|mixtral|deepseek|a3b|a22b)\b)"
        r"(?=.*\b(?:fast|faster|schnell\w*|speed|tempo|tokens?/s|token/s)\b)"
        r"(?=.*\b(?:dense|dicht\w*|active|aktiv\w*)\b)",
        r"\b(?:slow|slower|langsam\w*)\b",
    ),
}
_CONCEPT_RX = {k: (re.compile(a), re.compile(b) if b else None) for k, (a, b) in CONCEPTS.items()}


def _first_lookahead(pattern: str) -> str:
    """The body of the pattern's leading `(?=.*BODY)`: where the pattern matches, BODY occurs."""
    assert pattern.startswith("(?=.*"), pattern
    depth = 0
    for i, c in enumerate(pattern):
        if c == "\\":
            continue
        if c == "(" and pattern[i - 1 : i] != "\\":
            depth += 1
        elif c == ")" and pattern[i - 1 : i] != "\\":
            depth -= 1
            if depth == 0:
                return pattern[5:i]
    raise ValueError(pattern)


# a concept's pattern is lookaheads tried from every position of the question (quadratic in its
# length); its first lookahead's words must occur for it to match, found in one linear pass
_CONCEPT_CUE = {k: re.compile(_first_lookahead(a)) for k, (a, _b) in CONCEPTS.items()}


def find_concept(folded: str, u: Query) -> None:
    for concept, (rx, converse) in _CONCEPT_RX.items():
        if _CONCEPT_CUE[concept].search(folded) and rx.search(folded):
            u.concept = concept
            u.claim_negated = bool(converse and converse.search(folded))
            return


def find_stated_claim(folded: str, u: Query) -> None:
    """The claim the question states (it wins over the generic claims of
    `constraints.find_claim`: "...add up, right?" is about pooling, not about being right)."""
    if _states_pooling(folded, u):
        u.claim = "memory_adds_up"
    elif states_active_memory(folded):
        u.claim = "active_sets_memory"
    else:
        _states_size(folded, u)
    if u.claim not in ("memory_adds_up", "active_sets_memory", "same_size", "larger"):
        find_concept(folded, u)


# "so that does not fit on one 4090, right?", "stimmt es, dass X NICHT auf eine 4090 passt?":
# the fit asked about in its negative
_NEGATED_FIT_RX = re.compile(
    # (the words between end no phrase: "(das volle, nicht die distill varianten) läuft" does
    # not negate "läuft")
    r"\b(?:not|doesn'?t|does not|don'?t|won'?t|will not|can'?t|cannot|nicht)\s+"
    r"(?:[^\s),;]+\s+){0,7}?"
    r"(?:fit|fits|run|runs|passt|passen|läuft|laufen|reicht|reichen)\b|"
    r"\b(?:passt|passen|läuft|laufen|reicht|reichen)\s+(?:\S+\s+){0,5}?nicht\b|"
    # "is one l40s not enough?", "ist das nicht genug?"
    r"\b(?:not|nicht)\s+(?:\S+\s+){0,2}?(?:enough|genug|sufficient|ausreichend)\b"
)


def negates_fit(question: str) -> bool:
    """The yes/no fit is asked in its negative ("Stimmt es, dass es NICHT auf eine 4090
    passt?", "so that does not fit on one 4090, right?", "is one L40S not enough?"): 'yes'
    says it does not fit. A negative that hopes for the fit ("Reicht da nicht eine Karte?",
    `topics.RHETORICAL_NEGATIVE_RX`) is answered as the plain fit."""
    from assistant.nlu.topics import RHETORICAL_NEGATIVE_RX

    q = question.lower().strip()
    return bool(_NEGATED_FIT_RX.search(q)) and not RHETORICAL_NEGATIVE_RX.search(q)
