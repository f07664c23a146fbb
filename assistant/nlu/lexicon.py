"""Vocabularies and regular expressions for the entities: number words, text folding, card
names, precisions, model families, parameter counts, context and concurrency figures."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# --------------------------------------------------------------------------- helpers

_NUMBER_WORDS = {
    "ein": 1,
    "eine": 1,
    "einer": 1,
    "ner": 1,  # colloquial: "auf ner L40S"
    "ne": 1,  # "auf ne 4090"
    "nem": 1,
    "einem": 1,
    "einen": 1,
    "eins": 1,
    "einzelne": 1,
    "einzelnen": 1,
    "einzige": 1,
    "my": 1,  # "on my 4090": one card
    "meiner": 1,
    "meinem": 1,
    "einzigen": 1,
    "einzigem": 1,
    "einziger": 1,
    "one": 1,
    "a": 1,
    "an": 1,
    "single": 1,
    "zwei": 2,
    "two": 2,
    "pair": 2,
    "drei": 3,
    "three": 3,
    "vier": 4,
    "four": 4,
    "fünf": 5,
    "fuenf": 5,
    "five": 5,
    "sechs": 6,
    "six": 6,
    "sieben": 7,
    "seven": 7,
    "acht": 8,
    "eight": 8,
    "neun": 9,
    "nine": 9,
    "zehn": 10,
    "ten": 10,
    "zwölf": 12,
    "twelve": 12,
    "fünfzehn": 15,
    "fifteen": 15,
    "zwanzig": 20,
    "twenty": 20,
    "sechzehn": 16,
    "sixteen": 16,
    "zweiunddreißig": 32,
    "thirty-two": 32,
    "thirty": 30,
    "dreißig": 30,
    "dreissig": 30,
    "forty": 40,
    "vierzig": 40,
    "fifty": 50,
    "fünfzig": 50,
    "sixty": 60,
    "sechzig": 60,
}
_NUM = (
    r"(\d+|" + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len, reverse=True)) + r")"
)


def _to_int(token: str) -> int | None:
    token = token.lower()
    if token.isdigit():
        return int(token)
    return _NUMBER_WORDS.get(token)


_NOT_ALNUM_RX = re.compile(r"[^a-z0-9]")
_PLUS_RX = re.compile(r"(?<=[a-z0-9])\+(?![a-z0-9])")


def _norm_alias(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    if "+" in text:  # 'Command R+' is 'command r plus', not 'Command R'
        text = _PLUS_RX.sub("plus", text)
    return _NOT_ALNUM_RX.sub("", text)


def _fold(text: str) -> str:
    """Lower case, unify × and dashes, collapse spaces; keeps character positions meaningful."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("×", "x").replace("–", "-").replace("—", "-").replace("‑", "-")
    return text.lower()


# --------------------------------------------------------------------------- cards

_CARD_RX: list[tuple[str, re.Pattern[str]]] = [
    # "8x4090", "2xA100": a count written onto the card
    (cid, re.compile(r"(?:(?<![a-z0-9])|(?<=\dx))" + rx + r"(?:ern|er|en|n)?(?![a-z0-9])"))
    for cid, rx in [
        # "A100 80GB (PCIe)": the form factor may follow in brackets
        ("a100-sxm4", r"a100[\s-]*\(?\s*(?:80\s*gb[\s,-]*)?\(?sxm4?\)?"),
        ("a100-pcie", r"a100[\s-]*\(?\s*(?:80\s*gb[\s,-]*)?\(?pcie\)?"),
        ("a100", r"a100(?:[\s-]*80\s*gb)?s?"),
        ("h100-sxm5", r"h100[\s-]*\(?\s*(?:80\s*gb[\s,-]*)?\(?sxm5?\)?"),
        ("h100-pcie", r"h100[\s-]*\(?\s*(?:80\s*gb[\s,-]*)?(?:nvl[\s-]*)?\(?pcie\)?"),
        ("h100", r"h100(?:[\s-]*80\s*gb)?s?"),
        ("h200", r"h200(?:[\s-]*sxm)?s?"),
        ("b200", r"(?:hgx[\s-]*)?b200s?"),
        ("l40s", r"l40[\s-]*s|l40"),
        ("l4", r"l4s?"),
        ("rtx-4090", r"(?:geforce[\s-]*)?(?:rtx[\s-]*)?4090s?"),
        ("rtx-5090", r"(?:geforce[\s-]*)?(?:rtx[\s-]*)?5090s?"),
        ("rtx-a6000", r"(?:rtx[\s-]*)?a6000s?"),
    ]
]

#: "needed" in both languages, after a link named ("kein NVLink nötig", "no nvlink needed")
NEEDED_WORDS = r"(?:nötig|notwendig|erforderlich|benötigt|needed|necessary|required)"
#: the link said not to be needed: "we don't need nvlink", "da ist kein NVLink nötig", "ich
#: brauche doch kein NVLink", "NVLink is not needed" (the claim that PCIe is enough)
NO_LINK_NEEDED = (
    r"\b(?:don'?t|do not|doesn'?t|does not|won'?t)\s+(?:really\s+|actually\s+)?need\s+"
    r"(?:\w+\s+)?(?:nvlink|sxm)|\b(?:no|kein\w*)\s+(?:nvlink|sxm)\s+(?:\w+\s+){0,2}?"
    + NEEDED_WORDS
    + r"\b|\b(?:brauch\w*|benötig\w*)\s+(?:\w+\s+){0,5}?kein\w*\s+(?:nvlink|sxm)|"
    r"\b(?:nvlink|sxm)\s+(?:is\s+|ist\s+)?(?:not|nicht)\s+" + NEEDED_WORDS + r"\b"
)
_CARD_WORD = r"(?:gpus?|cards?|karten?|grafikkarten?|gpu-karten?|beschleuniger)"


def _find_cards(folded: str) -> list[tuple[int, int, str]]:
    """(start, end, card id or family) for every card named, non-overlapping, in order (found
    once per text: several finders of one question ask for the same text)."""
    return list(_cards_in(folded))


@lru_cache(maxsize=1024)
def _cards_in(folded: str) -> tuple[tuple[int, int, str], ...]:
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for cid, rx in _CARD_RX:
        for m in rx.finditer(folded):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            found.append((m.start(), m.end(), cid))
            taken.append((m.start(), m.end()))
    return tuple(sorted(found))


# --------------------------------------------------------------------------- precision

_PRECISION_RX: list[tuple[str, re.Pattern[str]]] = [
    (p, re.compile(r"(?<![a-z0-9])(?:" + rx + r")(?![a-z0-9])"))
    for p, rx in [
        ("gguf-q4_k_m", r"(?:gguf[\s-]*)?q4[_\s-]?k[_\s-]?m|q4[_\s-]?k|q4(?:_0|_1)?"),
        ("gguf-q5_k_m", r"(?:gguf[\s-]*)?q5[_\s-]?k[_\s-]?m|q5[_\s-]?k|q5(?:_0|_1)?"),
        ("gguf-q8_0", r"(?:gguf[\s-]*)?q8[_\s-]?0|q8"),
        ("awq", r"awq"),
        ("gptq", r"gptq"),
        ("mxfp4", r"mxfp4|mx[\s-]?fp4"),
        ("fp8", r"fp8|float8|e4m3"),
        ("int8", r"int8|8[\s-]?bit|w8a8"),
        ("awq", r"int4|4[\s-]?bit|nf4|w4a16"),
        # "unquantized": the weights as published, BF16 for the language models here
        (
            "bf16",
            r"bf16|bfloat16|bfloat|unquanti[sz]ed|non[\s-]?quanti[sz]ed|ungequant\w*|"
            r"nicht quantisiert\w*|without quanti[sz]ation|ohne quantisierung|"
            # "full precision": the weights as published (BF16), as people say it of LLMs
            r"full precision|volle[rn]? präzision",
        ),
        ("fp16", r"fp16|float16|f16|half precision|halbe präzision"),
        ("fp32", r"fp32|float32|f32"),
    ]
]


# --------------------------------------------------------------------------- models & figures

#: "(the PCIe one)", "die SXM-Variante", "the sxm4 version": which variant of a card family
VARIANT_PHRASE_RX = re.compile(
    r"\b(?:the\s+|die\s+|das\s+|der\s+)?(pcie|sxm\d?)[\s-]*(?:one|version|variant\w*|"
    r"model|modell|ausführung)\b"
)
#: "vier A100 mit NVLink", "H100s with NVLink": the family's SXM variant, said by its link
_WITH_NVLINK_RX = re.compile(r"(?:mit|with)\s+(?:nv)?link\b|\(\s*nvlink\s*\)")
# what may stand between a card and the variant phrase that says which one it is ("A100 80GB
# (the PCIe one)"): a memory size and a bracket, no alternative and no sentence end
_ATTACHED_GAP_RX = re.compile(r"[\s,(\-]*(?:\d{2,3}\s*gb)?[\s,(\-]*")


def attached_variant(folded: str, end: int) -> re.Match[str] | None:
    """The variant phrase said right after a card named at `end` ("A100 80GB (the PCIe one)")."""
    gap = _ATTACHED_GAP_RX.match(folded, end)
    at = gap.end() if gap else end
    linked = _WITH_NVLINK_RX.match(folded, at)
    if linked:  # read as "the SXM one"
        return VARIANT_PHRASE_RX.match("sxm one", 0)
    return VARIANT_PHRASE_RX.match(folded, at)


_FAMILY_RX = re.compile(
    r"(?<![a-z0-9])(llama|mistral|mixtral|qwen|deepseek|gemma|phi|falcon|yi|command[\s-]?r|gpt|"
    r"claude|olmo|granite|nemotron|codellama|starcoder|vicuna|flux|sdxl|wan|kimi|glm|internlm|"
    r"grok|gemini|dbrx|jamba|baichuan|ernie|aya|teuken|eurollm|pixtral|ministral|minimax|"
    r"hunyuan|stablelm|bloom|exaone|smollm|tinyllama|zephyr|hermes|wizardlm)"
    r"(?![a-z])"
    r"((?:[\s\-.:]*(?!\d+\s*x(?![a-z0-9]))(?!(?:a|h|b)\d00|rtx|l4)"
    r"(?:v?\d[\w.]*|[a-z]*\d[\w.]*|instruct|chat|base|it|[xs]?[\w.]*b)){0,3})",
)

_PARAMS_RX = re.compile(
    r"(?<![a-z0-9.])(\d{1,7}(?:[.,]\d{1,4})?)\s*-?\s*(b|bn|billion|mrd\.?|milliarden)(?![a-z0-9])"
    r"(?:\s*-?\s*(?:parameter|param|params|modell|model|llm|dense))?",
)

_CONTEXT_RX = re.compile(
    r"(?<![\d.,])(\d{1,7}(?:[.,]\d{1,4})?)\s*(k|K)?\s*(?:-\s*)?(?:tokens?\s*)?(?:of\s+)?(?:context|kontext|"
    r"kontextlänge|context length|context window|kontextfenster|ctx\b)"
    # "context of 32k", "crank context up to 128k", "kontext auf 64k"
    # ("for context: about 40 users" is the idiom, not a context)
    r"|(?<!for )(?<!als )(?:context|kontext|ctx)(?:\s*(?:length|window|länge|fenster))?\s*"
    # "Kontext je Anfrage 16.384 Tokens", "context per request 16k"
    r"(?:(?:je|pro|per|each)\s+[a-zäöü]+\s+)?"
    r"(?:of|von|:|=|"
    r"(?:(?:up\s+)?to|bis(?:\s+zu)?|auf|at)\s)?\s*\(?\s*"
    # "context around 16k per request", "kontext so ca. 8k", "context is ~32k"
    r"(?:(?:is|ist|of|von)\s+)?(?:(?:around|about|roughly|approx\.?|approximately|ca\.?|circa|"
    r"etwa|ungefähr|rund|so|~)\s*)*"
    r"(\d{1,7}(?:[.,]\d{1,4})?)\s*(k)?",
)
_CONCURRENCY_RX = re.compile(
    r"(?<!\d)(\d{1,7})\s*(?:concurrent|gleichzeitige[n]?|parallele[n]?|simultaneous)\s*(?:users?|"
    r"nutzer|requests?|anfragen|sequences?|sequenzen|streams?|user)?"
    r"|(?<!\d)(\d{1,7})\s*(?:requests? at once|anfragen gleichzeitig)"
    # "with 4 chats running at 32k each", "4 offene Chats", "6 sessions at 16k context"
    r"|(?<![\d.,$€])(\d{1,4})\s+(?:chats?|sessions?|conversations?|gespräche|dialoge|streams?|"
    r"sequences?|sequenzen)\s+(?:running|open|active|live|laufen\w*|aktiv\w*|offen\w*|"
    r"(?:at|mit|with|à|a)\s+(?:je\s+)?\d{1,3}\s*k\b)"
    r"|(?<![\d.,$€])(\d{1,4})\s+(?:laufende\w*|offene\w*|aktive\w*|parallele\w*)\s+"
    r"(?:chats?|sessions?|gespräche|dialoge|streams?|sequenzen)\b"
    r"|batch(?:[\s-]*size)?\s*(?:of|von|=|:)?\s*(\d{1,7})|concurrency\s*(?:of|=|:)?\s*(\d{1,7})"
    # "eine handvoll anfragen gleichzeitig, also so fünf", "a few requests at once, say 5": a
    # vague load put in a number right after it
    r"|\b(?:at once|at the same time|concurrently|gleichzeitig|parallel)\s*[,;:(-]?\s*"
    r"(?:also|i\.?e\.?|say|sagen wir|like|"
    r"maybe|vielleicht|so|etwa|about|around|roughly|ca\.?|circa)\s+(?:so\s+|ca\.?\s+|etwa\s+|"
    r"about\s+)?(\d{1,4}|"
    + "|".join(
        sorted(
            (w for w, n in _NUMBER_WORDS.items() if n >= 2 and w != "pair"), key=len, reverse=True
        )
    )
    # ("at the same time, roughly 40 requests/min": a rate, not sequences at once)
    + r")\b(?!\s*(?:k\b|gb|x\b|%|\$|€|tokens?|token|(?:requests?|req|anfragen)?\s*(?:/|per\b|pro\b|"
    r"a\s+min|an\s+hour|je\s+min)\s*(?:min|minute|sec|second|s\b|h\b|hour|stunde)|rpm\b))"
    # "… use the bot at once, six maybe": the number, then the hedge
    r"|\b(?:at once|at the same time|concurrently|gleichzeitig|parallel)\s*[,;:(-]\s*(\d{1,4}|"
    + "|".join(
        sorted(
            (w for w, n in _NUMBER_WORDS.items() if n >= 2 and w != "pair"), key=len, reverse=True
        )
    )
    + r")\s+(?:maybe|perhaps|or so|tops|max|at most|vielleicht|oder so|ungefähr|höchstens)\b",
)


def _number(text: str) -> float:
    return float(text.replace(",", "."))


# --------------------------------------------------------------------------- sizes in words

_EN_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9,
}  # fmt: skip
_EN_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_EN_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_DE_UNITS = {
    "ein": 1, "eins": 1, "eine": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "fuenf": 5,
    "sechs": 6, "sieben": 7, "acht": 8, "neun": 9,
}  # fmt: skip
_DE_TEENS = {
    "zehn": 10, "elf": 11, "zwölf": 12, "zwoelf": 12, "dreizehn": 13, "vierzehn": 14,
    "fünfzehn": 15, "fuenfzehn": 15, "sechzehn": 16, "siebzehn": 17, "achtzehn": 18,
    "neunzehn": 19,
}  # fmt: skip
_DE_TENS = {
    "zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50, "fuenfzig": 50,
    "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90,
}  # fmt: skip


def _alt(words: dict[str, int]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_EN_BELOW_100 = (
    rf"(?:(?:{_alt(_EN_TENS)})(?:[\s-]+(?:{_alt(_EN_UNITS)}))?|{_alt(_EN_TEENS)}|{_alt(_EN_UNITS)})"
)
_EN_NUMBER = (
    rf"(?:(?:{_alt(_EN_UNITS)}|a|one)\s+hundred(?:\s+(?:and\s+)?{_EN_BELOW_100})?|{_EN_BELOW_100})"
)
_DE_BELOW_100 = (
    rf"(?:(?:(?:{_alt(_DE_UNITS)})und)?(?:{_alt(_DE_TENS)})|{_alt(_DE_TEENS)}|{_alt(_DE_UNITS)})"
)
_DE_NUMBER = rf"(?:(?:{_alt(_DE_UNITS)})?hundert(?:{_DE_BELOW_100})?|{_DE_BELOW_100})"
_SIZE_WORDS_RX = re.compile(
    rf"(?<![\w-])({_EN_NUMBER}|{_DE_NUMBER})\s+(billion|milliarden|mrd\.?)(?!\w)", re.IGNORECASE
)


def _en_value(words: str) -> int:
    total = 0
    tokens = re.split(r"[\s-]+", words.lower())
    for i, tok in enumerate(tokens):
        if tok == "hundred":
            total = max(total, 1) * 100
        elif tok in _EN_TENS:
            total += _EN_TENS[tok]
        elif tok in _EN_TEENS:
            total += _EN_TEENS[tok]
        elif tok in _EN_UNITS:
            total += _EN_UNITS[tok]
        elif tok in ("a",) and i + 1 < len(tokens) and tokens[i + 1] == "hundred":
            total += 1
    return total


def _de_value(word: str) -> int:
    word = word.lower()
    total = 0
    if "hundert" in word:
        head, word = word.split("hundert", 1)
        total = (_DE_UNITS.get(head, 1) if head else 1) * 100
    if not word:
        return total
    if word in _DE_TEENS:
        return total + _DE_TEENS[word]
    if word in _DE_UNITS:
        return total + _DE_UNITS[word]
    for tens, value in _DE_TENS.items():
        if word.endswith(tens):
            unit = word[: -len(tens)].removesuffix("und")
            return total + value + (_DE_UNITS.get(unit, 0) if unit else 0)
    return total


def spell_sizes(text: str) -> str:
    """A parameter count in words as digits: 'thirteen billion' -> '13 billion', 'siebzig
    Milliarden' -> '70 Milliarden', 'one hundred twenty billion' -> '120 billion'."""

    def repl(m: re.Match[str]) -> str:
        words = m.group(1)
        value = _de_value(words) if re.fullmatch(_DE_NUMBER, words, re.I) else 0
        if not value:
            value = _en_value(words)
        return f"{value} {m.group(2)}" if value else m.group(0)

    if not re.search(r"billion|milliarden|mrd", text, re.IGNORECASE):
        return text
    return _SIZE_WORDS_RX.sub(repl, text)


#: the abbreviations whose dot ends no sentence ("ca. 500 tokens", "z.B. Llama", "approx. 4k",
#: "e.g. FP8", "später evtl. noch"): read by the sentence splitter (`nlu.asks.sentences`) and by
#: `without_abbreviation_dots`
ABBREVIATIONS: tuple[str, ...] = (
    "ca", "bzw", "zb", "z.b", "evtl", "ggf", "inkl", "approx", "e.g", "i.e", "vs", "etc", "max",
    "min", "circa", "vgl", "bspw", "usw", "u.a", "d.h",
)  # fmt: skip
_ABBREVIATION_DOT_RX = re.compile(
    r"\b(" + "|".join(re.escape(a).replace(r"\.", r"\.\s?") for a in ABBREVIATIONS) + r")\."
)


def without_abbreviation_dots(text: str) -> str:
    """The text with each abbreviation's dot blanked (positions kept), so that a search for a
    sentence's end does not stop at "ca." or "evtl."."""
    return _ABBREVIATION_DOT_RX.sub(lambda m: m.group(1) + " ", text)


#: a line of a pasted `topo -m` that is not the asker's words: a matrix row or its header (they
#: start with a device label), the legend and its entries, a code fence ("nur PIX und SYS. Ist
#: der Server defekt?" stays: prose that names labels)
_PASTE_LINE_RX = re.compile(
    r"\s*(?:gpu\d+|nic\d+|mlx5_\d+)\b|\s*(?:x|sys|node|phb|pxb|pix|soc|nv#)\s*=|\s*```|.*legend"
)


def topo_prose(text: str) -> str:
    """The lines of a message with a pasted `topo -m` that are the asker's words."""
    return "\n".join(ln for ln in text.splitlines() if not _PASTE_LINE_RX.match(ln))
