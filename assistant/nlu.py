"""Deterministic question understanding (offline mode): language, model, precision, cards, workload,
intent, injection attempts. No LLM, no network; a few regular expressions over the question.

    nlu = Understander(catalog)          # built once (indexes the catalog's model aliases)
    u = nlu.understand("Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten?")
    u.language == "de"; u.model == "llama-3.3-70b"; u.precision == "bf16"; u.count == 4

Everything here is *understanding*: no figure in an answer comes from this module.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from assistant.answer import Language

Intent = Literal[
    "topology_paste",  # pasted `nvidia-smi topo -m` output
    "allreduce_paste",  # pasted nccl-tests `all_reduce_perf` output
    "capacity",  # longest context / most concurrent sequences on a node
    "link_facts",  # bandwidth of a link, NVLink vs PCIe ratio, which link a node has
    "tp_sync",  # all-reduces per token under tensor parallelism
    "off_topic",
    "cheapest",  # cheapest configuration that fits
    "price",  # what does configuration X cost
    "allreduce",  # gradient all-reduce / sync time
    "topology_howto",  # how do I check the topology / NVLink
    "nvlink",  # do I need NVLink? SXM or PCIe?
    "speed",  # tokens/s, throughput
    "fit",  # does it fit, how much VRAM, how many cards
    "general",  # anything else in scope: answered from the guides
]

Workload = Literal[
    "tensor_parallel",
    "pipeline_parallel",
    "training",
    "fine_tuning",
    "traffic",  # serving real traffic / high concurrency
    "low_concurrency",
    "independent",  # one model per card, independent copies or jobs
    "diffusion",
    "rendering",
    "multi_node",
]

# precisions are the engine's names (tools.specs.PRECISIONS); "4-bit" alone means AWQ-type

CARD_IDS = (
    "l4",
    "l40s",
    "rtx-4090",
    "rtx-5090",
    "rtx-a6000",
    "a100-pcie",
    "a100-sxm4",
    "h100-pcie",
    "h100-sxm5",
    "h200",
    "b200",
)
# a card named without its form factor: both variants are candidates
CARD_FAMILIES = {"a100": ("a100-pcie", "a100-sxm4"), "h100": ("h100-pcie", "h100-sxm5")}
GEN4_CARDS = ("rtx-4090", "rtx-a6000", "l40s")


class Understanding(BaseModel):
    """What the question asks, as slots. Empty slots mean "not said"."""

    question: str
    language: Language
    language_detected: bool = Field(
        default=True, description="false when the text gave no clue and a default was used"
    )
    intents: list[Intent] = Field(default_factory=list, description="primary first")
    model: str | None = Field(default=None, description="catalog model id")
    models: list[str] = Field(
        default_factory=list, description="every catalog model named, in order (model is first)"
    )
    model_mention: str | None = None
    unknown_model: str | None = Field(default=None, description="a model the catalog lacks")
    unknown_model_closest: list[str] = Field(default_factory=list)
    params_b: float | None = Field(default=None, description="'a 34B model': parameters, billions")
    precision: str | None = None
    cards: list[str] = Field(default_factory=list, description="card ids named, in order")
    card_families: list[str] = Field(default_factory=list, description="'A100' without SXM/PCIe")
    count: int | None = Field(default=None, description="number of cards")
    memory_gb: float | None = Field(default=None, description="'one 48 GB card'")
    gen4: bool = False
    one_node: bool = Field(default=False, description="'on one node / server / machine'")
    full_context: bool = Field(
        default=False, description="'at full / maximum context': the model's own limit"
    )
    explain: bool = Field(
        default=False, description="a why / what-happens / difference question: the guides answer"
    )
    configurations: list[str] = Field(default_factory=list, description="configuration ids named")
    workloads: list[Workload] = Field(default_factory=list)
    context_tokens: int | None = None
    concurrency: int | None = None
    topo_text: str | None = None
    nccl_text: str | None = None
    injection: bool = False
    follow_up: bool = Field(default=False, description="'and on an H200?' / 'und in FP8?'")
    adapter: Literal["lora", "qlora"] | None = Field(
        default=None, description="LoRA / QLoRA (PEFT adapter) fine-tuning named"
    )

    @property
    def intent(self) -> Intent:
        return self.intents[0] if self.intents else "general"

    @property
    def has_subject(self) -> bool:
        return bool(self.model or self.params_b or self.unknown_model)


# --------------------------------------------------------------------------- language

_DE_WORDS = frozenset(
    [
        "ich",
        "du",
        "wir",
        "sie",
        "es",
        "und",
        "oder",
        "für",
        "fuer",
        "auf",
        "mit",
        "ohne",
        "ist",
        "sind",
        "bin",
        "brauche",
        "brauchen",
        "braucht",
        "passt",
        "passen",
        "wie",
        "viel",
        "viele",
        "welche",
        "welcher",
        "welches",
        "was",
        "wer",
        "wo",
        "warum",
        "kostet",
        "kosten",
        "karte",
        "karten",
        "ein",
        "eine",
        "einer",
        "einem",
        "einen",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "nicht",
        "kein",
        "keine",
        "reicht",
        "reichen",
        "echten",
        "echter",
        "mein",
        "meine",
        "unser",
        "kann",
        "können",
        "koennen",
        "soll",
        "sollte",
        "günstigste",
        "günstigsten",
        "billigste",
        "schnell",
        "schneller",
        "wieviel",
        "gleichzeitig",
        "nutzer",
        "aufteilen",
        "modell",
        "modelle",
        "speicher",
        "genug",
        "lohnt",
        "sich",
        "bei",
        "auch",
        "noch",
        "dann",
        "wenn",
        "aber",
        "zwei",
        "drei",
        "vier",
        "fünf",
        "sechs",
        "acht",
        "knoten",
        "prüfen",
        "pruefen",
        "zeigt",
        "mir",
        "bitte",
        "ja",
        "nein",
        "und?",
        "danke",
        "hallo",
        "dauert",
        "lange",
        "schreibe",
        "schreib",
        "erkläre",
        "gib",
        "ignoriere",
        "anweisungen",
        "vorherigen",
        "preis",
    ]
)
_EN_WORDS = frozenset(
    [
        "i",
        "you",
        "we",
        "they",
        "it",
        "and",
        "or",
        "for",
        "on",
        "with",
        "without",
        "is",
        "are",
        "am",
        "need",
        "needs",
        "do",
        "does",
        "fit",
        "fits",
        "how",
        "much",
        "many",
        "which",
        "what",
        "who",
        "where",
        "why",
        "cost",
        "costs",
        "card",
        "cards",
        "a",
        "an",
        "the",
        "of",
        "not",
        "no",
        "enough",
        "real",
        "my",
        "our",
        "can",
        "should",
        "cheapest",
        "fastest",
        "fast",
        "faster",
        "concurrent",
        "users",
        "split",
        "model",
        "models",
        "memory",
        "worth",
        "it",
        "at",
        "also",
        "then",
        "if",
        "but",
        "two",
        "three",
        "four",
        "five",
        "six",
        "eight",
        "node",
        "check",
        "shows",
        "me",
        "please",
        "yes",
        "thanks",
        "hello",
        "long",
        "take",
        "write",
        "explain",
        "give",
        "ignore",
        "instructions",
        "previous",
        "price",
        "run",
        "would",
        "will",
        "this",
        "that",
    ]
)


#: function words of both languages (question words, articles, "card", "model", ...)
FUNCTION_WORDS = _DE_WORDS | _EN_WORDS


def detect_language(text: str) -> tuple[Language, bool]:
    """('de'|'en', detected). Counts German and English function words; umlauts count for German."""
    words = re.findall(r"(?<![a-z0-9äöüß])[a-zäöüß]+(?![a-z0-9äöüß])", text.lower())
    de = sum(w in _DE_WORDS for w in words) + 2 * len(re.findall(r"[äöüß]", text.lower()))
    en = sum(w in _EN_WORDS for w in words)
    if de == en:
        return "en", False
    return ("de" if de > en else "en"), True


# --------------------------------------------------------------------------- helpers

_NUMBER_WORDS = {
    "ein": 1,
    "eine": 1,
    "einer": 1,
    "einem": 1,
    "einen": 1,
    "eins": 1,
    "einzelne": 1,
    "einzelnen": 1,
    "einzige": 1,
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
    "sechzehn": 16,
    "sixteen": 16,
    "zweiunddreißig": 32,
    "thirty-two": 32,
}
_NUM = (
    r"(\d+|" + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len, reverse=True)) + r")"
)


def _to_int(token: str) -> int | None:
    token = token.lower()
    if token.isdigit():
        return int(token)
    return _NUMBER_WORDS.get(token)


def _norm_alias(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[^a-z0-9]", "", text)


def _fold(text: str) -> str:
    """Lower case, unify × and dashes, collapse spaces; keeps character positions meaningful."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("×", "x").replace("–", "-").replace("—", "-").replace("‑", "-")
    return text.lower()


# --------------------------------------------------------------------------- cards

_CARD_RX: list[tuple[str, re.Pattern[str]]] = [
    (cid, re.compile(r"(?<![a-z0-9])" + rx + r"(?![a-z0-9])"))
    for cid, rx in [
        ("a100-sxm4", r"a100[\s-]*(?:80\s*gb[\s-]*)?sxm4?"),
        ("a100-pcie", r"a100[\s-]*(?:80\s*gb[\s-]*)?pcie"),
        ("a100", r"a100(?:[\s-]*80\s*gb)?s?"),
        ("h100-sxm5", r"h100[\s-]*sxm5?"),
        ("h100-pcie", r"h100[\s-]*(?:nvl[\s-]*)?pcie"),
        ("h100", r"h100s?"),
        ("h200", r"h200(?:[\s-]*sxm)?s?"),
        ("b200", r"(?:hgx[\s-]*)?b200s?"),
        ("l40s", r"l40[\s-]*s|l40"),
        ("l4", r"l4s?"),
        ("rtx-4090", r"(?:geforce[\s-]*)?(?:rtx[\s-]*)?4090s?"),
        ("rtx-5090", r"(?:geforce[\s-]*)?(?:rtx[\s-]*)?5090s?"),
        ("rtx-a6000", r"(?:rtx[\s-]*)?a6000s?"),
    ]
]

_CARD_WORD = r"(?:gpus?|cards?|karten?|grafikkarten?|gpu-karten?|beschleuniger)"


def _find_cards(folded: str) -> list[tuple[int, int, str]]:
    """(start, end, card id or family) for every card named, non-overlapping, in order."""
    found: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for cid, rx in _CARD_RX:
        for m in rx.finditer(folded):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            found.append((m.start(), m.end(), cid))
            taken.append((m.start(), m.end()))
    return sorted(found)


# --------------------------------------------------------------------------- precision

_PRECISION_RX: list[tuple[str, re.Pattern[str]]] = [
    (p, re.compile(r"(?<![a-z0-9])(?:" + rx + r")(?![a-z0-9])"))
    for p, rx in [
        ("gguf-q4_k_m", r"(?:gguf[\s-]*)?q4[_\s-]?k[_\s-]?m|q4[_\s-]?k"),
        ("gguf-q5_k_m", r"(?:gguf[\s-]*)?q5[_\s-]?k[_\s-]?m|q5[_\s-]?k"),
        ("gguf-q8_0", r"(?:gguf[\s-]*)?q8[_\s-]?0|q8"),
        ("awq", r"awq"),
        ("gptq", r"gptq"),
        ("fp8", r"fp8|float8|e4m3"),
        ("int8", r"int8|8[\s-]?bit|w8a8"),
        ("awq", r"int4|4[\s-]?bit|nf4|w4a16"),
        ("bf16", r"bf16|bfloat16|bfloat"),
        ("fp16", r"fp16|float16|f16|half precision|halbe präzision"),
        ("fp32", r"fp32|float32|f32|full precision|volle präzision"),
    ]
]


# --------------------------------------------------------------------------- workloads & intents

_WORKLOAD_SOURCES: list[tuple[Workload, str]] = [
    (
        "tensor_parallel",
        r"tensor[\s-]*paralle|\btp\s*=?\s*\d|\btp\b|tensor-parallel-size|layer[\s-]*split",
    ),
    ("pipeline_parallel", r"pipeline[\s-]*paralle|\bpp\s*=?\s*\d|pipeline[\s-]*split"),
    (
        "fine_tuning",
        r"fine[\s-]*tun|finetun|feintun|feinabstimm|nachtrainier|\blora\b|\bqlora\b|\bsft\b|"
        r"\bpeft\b",
    ),
    (
        "training",
        r"\btrain(?:ing|ieren|iere|iert|s|ed)?\b|pre-?train|vortrain|gradient|\btrain\b",
    ),
    (
        "traffic",
        r"real traffic|echte[nmr]? traffic|production|produktion|produktiv|many users|"
        r"viele[n]? (?:parallele[n]? |gleichzeitige[n]? )?(?:nutzer|user|anfragen|kunden)|"
        r"many (?:parallel |concurrent |simultaneous )?(?:requests|users|clients)|"
        r"high concurrency|hohe[rn]? (?:last|"
        r"nebenläufigkeit|parallelität)|heavy traffic|lots of (?:users|requests)|public api|"
        r"öffentliche[n]? api|customers|kunden|concurrent users|gleichzeitige[n]? (?:nutzer|"
        r"anfragen|user)|high throughput|hoher durchsatz|under load|unter last|real users|"
        r"echte[n]? nutzer",
    ),
    (
        "low_concurrency",
        r"low concurrency|geringe[rn]? (?:nebenläufigkeit|last|parallelität)|few users|"
        r"wenige[n]? (?:nutzer|user|anfragen)|single user|einzelne[rn]? nutzer|just me|"
        r"nur (?:ich|für mich)|only me|batch(?:[\s-]*size)?\s*(?:of\s*)?1\b|internal|intern\b|"
        r"interne|experiment|prototyp|hobby|testing|zum testen|personal|persönlich|"
        r"one user|ein nutzer|single stream|einzelne[rnm]? stream|"
        r"(?:nur |only )?(?:einem|einen|one|a single) (?:nutzer|user|anwender)\b",
    ),
    (
        "independent",
        r"independent|unabhängig|one model per (?:card|gpu)|ein modell pro karte|"
        r"eine[ns]? modell pro (?:karte|gpu)|per card one|separate (?:copies|models|jobs)|"
        r"getrennte|mehrere modelle|several models|multiple models|many small models|"
        r"viele kleine modelle|copies|kopien|replicas|replik|"
        r"(?:each|every) (?:card|gpu)\b.{0,30}\b(?:its own|own|a separate|separate)\b|"
        r"jede (?:karte|gpu)\b.{0,30}\b(?:ihr|sein|ein) eigenes|eigene[ns]? modell pro|"
        r"own model per (?:card|gpu)|(?:its|their) own model|"
        r"(?:separate|different|own) models? (?:on|per) (?:each|every|every single) (?:card|gpu)|"
        r"(?:two|three|four|five|six|eight|several|multiple|\d+) (?:small |different |separate )"
        r"?models\b.{0,20}(?:parallel|side by side|at once|at the same time)|"
        r"(?:zwei|drei|vier|fünf|sechs|acht|mehrere|\d+) (?:kleine |verschiedene |unabhängige )"
        r"?modelle\b.{0,20}(?:parallel|nebeneinander|gleichzeitig)",
    ),
    (
        "diffusion",
        r"diffusion|\bsdxl\b|\bsd ?3|\bflux\b|stable[\s-]*diffusion|image gen|bildgener|"
        r"video gen|videogener|\bwan ?2|comfyui|text-to-image|text-to-video|bilder generier",
    ),
    ("rendering", r"render|blender|octane|redshift|\bcycles\b|v-ray|vray|unreal"),
    (
        "multi_node",
        r"multi[\s-]*node|multi[\s-]*knoten|mehrere knoten|several nodes|across nodes|"
        r"über knoten|cluster|infiniband",
    ),
]
_WORKLOAD_RX: list[tuple[Workload, re.Pattern[str]]] = [
    (w, re.compile(rx)) for w, rx in _WORKLOAD_SOURCES
]

_INTENT_RX: dict[str, re.Pattern[str]] = {
    k: re.compile(v)
    for k, v in {
        "capacity": r"how many (?:concurrent |parallel |simultaneous )?(?:[\d.,]+\s*k?[\s-]*"
        r"(?:tokens?[\s-]*)?)?(?:users|sequences|requests|streams|sessions|conversations)|"
        r"wie viele (?:gleichzeitige[n]? |parallele[n]? )?(?:[\d.,]+\s*k?[\s-]*(?:token[\s-]*)?)?"
        r"(?:nutzer|anfragen|sequenzen|streams|user|sitzungen)|max(?:imum|imal)?(?:e|en)? "
        r"(?:context|kontext)|longest context|längste[nr]? kontext|"
        r"wie (?:viel|lang)\w*\b.{0,24}kontext|how (?:much|long)\b.{0,24}context|kontextlänge|"
        r"context length|kv[\s-]*cache (?:room|platz)",
        "cheapest": r"cheapest|least expensive|lowest price|most affordable|günstigste|"
        r"billigste|am günstigsten|am billigsten|preiswerteste|kostengünstigste|cheaper|günstiger|"
        r"billiger|budget|\bspar(?:en|t)?\b",
        "price": r"\bcost|\bprice|\bpric|\bpreis|kostet|kosten\b|how much is|was kostet|per month|"
        r"pro monat|/month|/monat|monthly|monatlich|\$|usd|euro|€|\brent\b|\bmieten|\bmiete\b",
        "allreduce": r"all[\s-]*reduce|allreduce|gradient(?:en)?[\s-]*(?:sync|synchron|austausch)|"
        r"trainingsschritt\w*[\s-]*abgleich|(?:schritt|step)\w*[\s-]*(?:abgleich|sync)|"
        r"gradienten[\s-]*abgleich|"
        r"sync(?:hroni[sz]ation)? time|synchroni[sz]ations?zeit|how long .*sync|wie lange .*sync|"
        r"per (?:training )?step|pro (?:trainings)?schritt|busbw|nccl",
        "topology_howto": r"topolog|nvidia-smi|topo -m|how (?:do|can) i (?:check|verify|see|test|"
        r"measure)|wie (?:prüfe|teste|messe|sehe|überprüfe|kann ich .*(?:prüfen|testen|messen|"
        r"sehen))|verify|überprüf|nachprüf|check (?:whether|if|that)|prüfen,? ob|measure|messen",
        "link_facts": r"bandwidth|bandbreite|"
        r"(?:how much faster|wie viel schneller|um wie viel).{0,40}(?:nvlink|pcie|sxm|link|"
        r"interconnect|verbindung)|"
        r"(?:nvlink|pcie|sxm).{0,40}(?:how much faster|wie viel schneller)|"
        r"(?:nvlink|pcie|link)[\s-]*(?:generation|version|gen\b)|"
        r"(?:which|what|welche[nrs]?) (?:nvlink|pcie)|(?:run|runs|läuft|laufen) .{0,30}"
        r"(?:pcie|nvlink)|(?:pcie|pci-e)\s*(?:gen)?\s*[345]\b|"
        r"which link|what link|welche verbindung|welcher link|which interconnect|welcher "
        r"interconnect|gb/s|how fast is (?:nvlink|pcie)|wie schnell ist (?:nvlink|pcie)",
        "tp_sync": r"synchroni[sz]ations?|abgleiche|all-?reduces? per token|syncs? per token|"
        r"pro token|per token",
        "nvlink": r"nvlink|nvswitch|\bsxm|interconnect|verbindung zwischen|\bpcie\b|pci-e|"
        r"pci express|bridge|brücke|\bnv\d|link between|karten verbind",
        "speed": r"tokens?/s|token pro sekunde|tokens? per second|tok/s|how fast|wie schnell|"
        r"throughput|durchsatz|\bspeed|geschwindigkeit|latency|latenz|schneller|faster|"
        r"langsam|slow|performance|leistung",
        "fit": r"\bfit|\bpass(?:t|en|e)\b|reicht|genug|enough|vram|speicher|memory|how many "
        r"(?:cards|gpus)|wie viele (?:karten|gpus)|welche karte|which (?:card|gpu|node|"
        r"configuration)|welche(?:n|r|s)? (?:gpu|knoten|konfiguration)|run\b|runs\b|laufen|läuft|"
        r"\bserve|bedienen|\bhost|betreiben|deploy|\bload|\bladen|kv[\s-]*cache|context|kontext|size|"
        r"dimensionier|need|brauch|benötig",
    }.items()
}

# questions the guides answer in prose: why, what happens, what is the difference, ...
_EXPLAIN_RX = re.compile(
    r"^\W*(?:why|warum|wieso|weshalb)\b|\bwhat happens\b|\bwas passiert\b|"
    r"\bdifference between\b|\bunterschied(?:e)? zwischen\b|\bhow does .{0,40}\bwork|"
    r"\bwie funktionier|\bexplain\b|\berklär|\bactive param|\baktive[n]? param|"
    r"\b(?:support|unterstütz)\w*\b.{0,20}\bfp8|\bfp8\b.{0,20}\b(?:support|unterstütz)|"
    r"\badd up\b|\baddier|\bzusammenzähl|\breally reach|\bin practice\b|\btatsächlich\b|"
    r"\bby default\b|\bstandardmäßig\b|memory bandwidth|speicherbandbreite|"
    r"\bwas heißt\b|\bwas heisst\b|\bwofür steht\b|\bstands? for\b|\bbedeutet\b|"
    r"\bhow many (?:experts|active)|\bwie viele (?:experten|aktive)|"
    r"^\W*(?:what is|what's|what are|was ist|was sind|was bedeutet|what does .{1,30} mean)\b|"
    r"\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b.{0,30}\b(?:than|vs\.?|versus|als)\b"
    r".{0,10}\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b"
)
# a why / what-happens / difference / measured question is prose even when it names a price,
# the cheapest card or a bandwidth
_STRONG_EXPLAIN_RX = re.compile(
    r"^\W*(?:why|warum|wieso|weshalb)\b|\bwhat happens\b|\bwas passiert\b|"
    r"\bdifference between\b|\bunterschied(?:e)? zwischen\b|\breally reach|\bin practice\b|"
    r"\btatsächlich\b|\bmeasured\b|\bgemessen|"
    r"^\W*(?:what is|what's|what are|was ist|was sind|was bedeutet|what does)\b.{0,20}"
    r"\b(?:busbw|algbw|phb|pix|pxb|sys|nv#|numa|nvswitch|mla|moe|awq|gptq|gguf)\b|"
    r"\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b.{0,30}\b(?:than|vs\.?|versus|als)\b"
    r".{0,10}\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b"
)
# concepts the guides explain about a model (not its sizing)
_CONCEPT_RX = re.compile(
    r"kv[\s-]*cache|\bactive\b|\baktive|expert|experten|\bmla\b|latent|quanti[sz]|format|"
    r"all-to-all|attention|router|routing|calibration|kalibrier|embedding|lm_head|scale|"
    r"add up|addier|zusammenzähl|summier|combine|\bpool"
)
# intents a "what is ..." question still means literally
_LITERAL_INTENTS = ("price", "cheapest", "capacity", "allreduce", "tp_sync", "speed", "link_facts")

# price words other than "rent"/"mieten" (which also mean "which one should I take?")
_MONEY_RX = re.compile(
    r"\bcost|\bprice|\bpric|\bpreis|kostet|kosten\b|how much is|was kostet|per month|pro monat|"
    r"/month|/monat|monthly|monatlich|\$|usd|euro|€"
)

_DOMAIN_RX = re.compile(
    r"gpu|vram|nvlink|pcie|sxm|cuda|modell?|model|llm|inferen|inference|train|\bkarte|card|"
    r"token|quant|awq|gptq|fp8|bf16|fp16|gguf|vllm|ollama|llama|server|knoten|node|"
    r"diffusion|render|blender|gpuserver|nvidia|a100|h100|h200|b200|rtx|l40|\bl4\b|memory|"
    r"speicher|parameter|\d+\s*b\b|moe|experts|konfigur|configur|interconnect|topolog|"
    r"all-?reduce|tensor|pipeline|mistral|qwen|deepseek|mixtral|flux|sdxl|guide|price|preis|"
    r"kost|cost|miete|rent|nvidia-smi|batch|context|kontext|throughput|durchsatz|"
    r"\btopo\b|\bphb\b|\bpix\b|\bpxb\b|\bnv\d+\b|\bnuma\b|nccl|busbw|algbw|p2p",
)

_INJECTION_RX = re.compile(
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|your)|disregard|"
    r"forget (?:all |your |the |everything)|ignoriere|ignorier|vergiss|missachte|you are now|"
    r"du bist (?:jetzt|nun|ab jetzt)|"
    r"system prompt|systemprompt|new instructions|neue anweisung|developer mode|jailbreak|"
    r"pretend|tu so als|act as|override|überschreib|the price is now|der preis ist (?:jetzt|ab "
    r"sofort|nun)|price is \$|preis ist \$|set the price|setze den preis|from now on|ab jetzt|"
    r"reveal your|zeige? deine? (?:anweisungen|instruktionen)|<\s*/?\s*system|\[inst\]|"
    r"###\s*instruction|as an admin|als admin",
)

_FOLLOW_UP_RX = re.compile(
    r"^\s*(?:and|und|what about|wie (?:sieht es|ist es) (?:mit|bei)|how about|und wie|und was|und "
    r"bei|und auf|und mit|und in|and on|and in|and with|and for|und für|same|dasselbe|das gleiche|"
    r"gleiche|also|auch|instead|stattdessen|statt|or|oder)\b",
)

_FAMILY_RX = re.compile(
    r"(?<![a-z0-9])(llama|mistral|mixtral|qwen|deepseek|gemma|phi|falcon|yi|command[\s-]?r|gpt|"
    r"claude|olmo|granite|nemotron|codellama|starcoder|vicuna|flux|sdxl|wan|kimi|glm|internlm)"
    r"((?:[\s\-.:]*(?!\d+\s*x(?![a-z0-9]))(?!(?:a|h|b)\d00|rtx|l4)"
    r"(?:v?\d[\w.]*|[a-z]*\d[\w.]*|instruct|chat|base|it|[xs]?[\w.]*b)){0,3})",
)

_PARAMS_RX = re.compile(
    r"(?<![a-z0-9.])(\d{1,7}(?:[.,]\d{1,4})?)\s*-?\s*(b|bn|billion|mrd\.?|milliarden)(?![a-z0-9])"
    r"(?:\s*-?\s*(?:parameter|param|params|modell|model|llm|dense))?",
)

_CONTEXT_RX = re.compile(
    r"(?<![\d.,])(\d{1,7}(?:[.,]\d{1,4})?)\s*(k|K)?\s*(?:-\s*)?(?:tokens?\s*)?(?:of\s+)?(?:context|kontext|"
    r"kontextlänge|context length|context window|kontextfenster)"
    r"|(?:context|kontext)(?:\s*(?:length|window|länge|fenster))?\s*(?:of|von|:|=)?\s*"
    r"(\d{1,7}(?:[.,]\d{1,4})?)\s*(k)?",
)
_CONCURRENCY_RX = re.compile(
    r"(?<!\d)(\d{1,7})\s*(?:concurrent|gleichzeitige[n]?|parallele[n]?|simultaneous)\s*(?:users?|"
    r"nutzer|requests?|anfragen|sequences?|sequenzen|streams?|user)?"
    r"|(?<!\d)(\d{1,7})\s*(?:users?|nutzer|requests? at once|anfragen gleichzeitig)"
    r"|batch(?:[\s-]*size)?\s*(?:of|von|=|:)?\s*(\d{1,7})|concurrency\s*(?:of|=|:)?\s*(\d{1,7})",
)
_NCCL_RX = re.compile(r"all_reduce_perf|avg bus bandwidth|#\s+size\s+count\s+type|busbw\s+#wrong")
_TOPO_RX = re.compile(
    r"gpu0\s.*\n.*gpu1|(?:^|\s)(?:nv\d+|sys|pix|phb|pxb|node)\s+(?:nv\d+|sys|pix|"
    r"phb|pxb|node|x)\s",
    re.S,
)


def _number(text: str) -> float:
    return float(text.replace(",", "."))


_QLORA_RX = re.compile(r"\bqlora\b")
_LORA_RX = re.compile(r"\blora\b|\bpeft\b|\badapter")


class Understander:
    """Deterministic NLU over one catalog (model aliases indexed once)."""

    def __init__(self, catalog: Any = None) -> None:
        self.catalog = catalog
        self._aliases: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._max_alias_tokens = 6
        self._configs: set[str] = set()
        if catalog is not None:
            for model in _iter_models(catalog):
                mid = str(getattr(model, "id", ""))
                self._names[mid] = str(getattr(model, "name", mid))
                for alias in [
                    mid,
                    getattr(model, "name", ""),
                    *(getattr(model, "aliases", []) or []),
                ]:
                    key = _norm_alias(str(alias))
                    if len(key) >= 3:
                        self._aliases.setdefault(key, mid)
            self._configs = set(getattr(catalog, "configurations", {}) or {})

    # ------------------------------------------------------------------ public

    def understand(self, question: str, language: Language | None = None) -> Understanding:
        text = question.strip()
        lang, detected = detect_language(text)
        if language is not None:
            lang, detected = language, True
        folded = _fold(text)
        u = Understanding(question=question, language=lang, language_detected=detected)

        if _NCCL_RX.search(folded):
            u.nccl_text = text
        elif _TOPO_RX.search(folded):
            u.topo_text = text
        u.injection = bool(_INJECTION_RX.search(folded))
        u.follow_up = bool(_FOLLOW_UP_RX.search(folded)) and len(folded) < 80

        # the topology matrix is not prose: don't mine it for cards or models
        prose = folded if u.topo_text is None else _strip_topo(folded)
        if u.nccl_text is not None:
            prose = "\n".join(
                ln
                for ln in folded.splitlines()
                if not ln.lstrip().startswith("#") and not re.match(r"\s*\d", ln)
            )

        self._find_model(text, prose, u)
        self._find_precision(prose, u)
        self._find_cards_and_counts(prose, u)
        self._find_workloads(prose, u)
        self._find_context_and_concurrency(prose, u)
        u.full_context = u.context_tokens is None and bool(
            re.search(
                r"(?:full|maximum|max\.?|whole|entire|longest) context|"
                r"(?:vollen?|maximale[nm]?|ganzen?|längste[nm]?) kontext",
                prose,
            )
        )
        u.intents = self._intents(prose, u)
        two_links = len(re.findall(r"nvlink\s*\d|pcie\s*(?:gen\s*)?\d|\bgen\s*\d", prose)) >= 2
        # "why does Llama 3.3 70B not fit on one H100?" is best answered with the sizing itself;
        # "why does DeepSeek V3 need so little KV cache?" asks about a concept of the model
        sizing_about_model = (
            u.has_subject
            and any(i in ("fit", "nvlink", "speed", "cheapest") for i in u.intents)
            and not _CONCEPT_RX.search(prose)
        )
        # no model named, a concept asked about ("does an FP8 KV cache help?", "FP8 on an A6000?")
        concept_only = (
            not u.has_subject
            and not u.follow_up  # "und in FP8?" continues a sizing question
            and bool(_CONCEPT_RX.search(prose) or re.search(r"\bfp8\b", prose))
        )
        u.explain = (
            not (two_links and "link_facts" in u.intents)  # "NVLink 4 vs PCIe Gen5": the facts
            and not sizing_about_model
            and (bool(_EXPLAIN_RX.search(prose)) or concept_only)
            and u.nccl_text is None
            and u.topo_text is None
            and len(u.configurations) < 2
            and (
                bool(_STRONG_EXPLAIN_RX.search(prose))
                or not any(i in _LITERAL_INTENTS for i in u.intents)
            )
        )
        if u.explain and "off_topic" in u.intents and re.search(r"nccl|busbw|algbw", prose):
            u.intents = ["general"]
        return u

    # ------------------------------------------------------------------ parts

    def _find_model(self, original: str, folded: str, u: Understanding) -> None:
        tokens = re.findall(r"\S+", _fold(original))
        best: tuple[int, str, str] | None = None  # (token span length, model id, mention)
        found: list[str] = []
        if self._aliases:
            skip_to = 0
            for i in range(len(tokens)):
                for n in range(min(self._max_alias_tokens, len(tokens) - i), 0, -1):
                    span = tokens[i : i + n]
                    key = _norm_alias(" ".join(span))
                    if key in self._aliases:
                        cand = (n, self._aliases[key], " ".join(span).strip("?.,!;:()\"'"))
                        if best is None or cand[0] > best[0]:
                            best = cand
                        if i >= skip_to and cand[1] not in found:
                            found.append(cand[1])
                        skip_to = max(skip_to, i + n)
                        break
        if best is not None and len(found) > 1:
            u.models = found  # in question order
        if best is not None:
            u.model, u.model_mention = best[1], best[2]
            return
        family = _FAMILY_RX.search(folded)
        params = [m for m in _PARAMS_RX.finditer(folded) if not _inside_card(folded, m.start())]
        if family and family.group(2) and re.search(r"\d", family.group(2)):
            mention = (family.group(1) + family.group(2)).strip(" -.:?")
            mention = _with_proper_names(original, _original_case(original, mention))
            u.unknown_model = mention
            u.unknown_model_closest = self._closest(mention)
            if params:
                u.params_b = _number(params[0].group(1))
            return
        if params:
            u.params_b = _number(params[0].group(1))
            u.model_mention = params[0].group(0).strip()

    def _closest(self, mention: str) -> list[str]:
        """Known models of the same family (a 'Claude 3' has no close relative here)."""
        finder = getattr(self.catalog, "find_model", None)
        if finder is None:
            return []
        family = re.match(r"[a-z]+", mention.lower())
        try:
            finder(mention)
        except Exception as exc:  # UnknownModel carries closest
            names = [str(c) for c in getattr(exc, "closest", [])]
            if family:
                names = [n for n in names if n.lower().startswith(family.group(0))]
            return names[:3]
        return []

    def _find_precision(self, folded: str, u: Understanding) -> None:
        hits: list[tuple[int, str]] = []
        for name, rx in _PRECISION_RX:
            for m in rx.finditer(folded):
                hits.append((m.start(), name))
        if hits:
            # "AWQ 4-bit" -> awq: a named format beats a bare bit width
            hits.sort()
            names = [h[1] for h in hits]
            for specific in ("gptq", "gguf-q4_k_m", "gguf-q5_k_m", "gguf-q8_0", "awq"):
                if specific in names:
                    u.precision = specific
                    return
            u.precision = names[0]

    def _find_cards_and_counts(self, folded: str, u: Understanding) -> None:
        spans = _find_cards(folded)
        u.gen4 = bool(
            re.search(
                r"gen\s*4|pcie\s*4(?:\.0)?\b|ältere[nmr]? (?:gehäuse|plattform)|"
                r"older (?:chassis|platform)",
                folded,
            )
        )
        own_count: dict[str, int] = {}  # "2x H100 PCIe or 4x L40S": each card its own count
        for start, end, cid in spans:
            # count directly before the card: "4x A100", "4 × H100", "vier H100", "8 H200"
            before = folded[max(0, start - 24) : start]
            m = re.search(r"(?<![a-z0-9])" + _NUM + r"\s*(?:x|-?mal)?\s*(?:nvidia\s+)?$", before)
            if m and _to_int(m.group(1)) and not re.search(r"\d[.,]$", before[: m.start(1)]):
                n = _to_int(m.group(1))
                one_card = (
                    m.group(1) in ("a", "an")
                    and not u.follow_up
                    and not re.match(
                        r"\s*(?:sxm\d?|pcie)?\s*(?:node|server|machine|box|system)", folded[end:]
                    )
                )  # "on an RTX 5090" is one card, "an H100 node" is not
                if n is not None and (m.group(1).isdigit() or m.group(1) not in ("a", "an")):
                    u.count = u.count or n
                    own_count.setdefault(cid, n)
                elif one_card:
                    u.count = u.count or 1
                    own_count.setdefault(cid, 1)
            if cid in CARD_FAMILIES:
                if cid not in u.card_families:
                    u.card_families.append(cid)
            elif cid not in u.cards:
                u.cards.append(cid)
        if u.count is None:
            m = re.search(
                r"(?<![a-z0-9])" + _NUM + r"\s*-?\s*(\d{1,7})\s*-?\s*gb\s*-?\s*" + _CARD_WORD,
                folded,
            )
            if m:
                u.count = _to_int(m.group(1))
                u.memory_gb = float(m.group(2))
        if u.count is None:
            m = re.search(r"(?<![a-z0-9.,])" + _NUM + r"\s*-?\s*(?:x\s*)?" + _CARD_WORD, folded)
            if m and _to_int(m.group(1)):
                u.count = _to_int(m.group(1))
            m2 = re.search(
                r"(?<!\d)(\d{1,7})\s*-?\s*(?:gpu|karten?)[\s-]*(?:node|knoten|server|maschine)",
                folded,
            )
            if u.count is None and m2:
                u.count = int(m2.group(1))
        if u.memory_gb is None:
            m = re.search(r"(?<!\d)(\d{1,7})\s*-?\s*gb\s*-?\s*" + _CARD_WORD, folded)
            if m:
                u.memory_gb = float(m.group(1))
        if u.count is None and re.search(
            r"single (?:card|gpu)|one (?:card|gpu)|einer? (?:einzigen |einzelnen )?(?:karte|gpu)|"
            r"einzelne[nr]? (?:karte|gpu)|on its own card",
            folded,
        ):
            u.count = 1
        if u.count is None:
            m = re.search(
                r"(?<![a-z0-9.,])" + _NUM + r"\s+(?:independent\s+|unabhängige[n]?\s+|"
                r"separate[n]?\s+)?(?:copies|kopien|replicas|repliken|instances|"
                r"instanzen)",
                folded,
            )
            if m and _to_int(m.group(1)) and m.group(1) not in ("a", "an"):
                u.count = _to_int(m.group(1))
        if u.count is None and not spans:
            # a bare count, as in the follow-up "und 8x?" / "and 8 ×?"
            m = re.search(r"(?<![a-z0-9.,])(\d{1,2})\s*(?:x|-mal)(?![a-z0-9])", folded)
            if m:
                u.count = int(m.group(1))
        if u.count is not None and u.count <= 0:
            u.count = None
        u.one_node = bool(
            re.search(
                r"(?<![a-z])(?:one|a|single|the same|einen|einem|einer|ein|einzelnen|"
                r"denselben|demselben)\s+(?:single\s+|einzigen\s+|einzelnen\s+)?"
                r"(?:node|server|machine|box|host|knoten|maschine|rechner)(?![a-z])",
                folded,
            )
        )
        # configuration ids named outright ("4x-a100-sxm4") or resolvable from card + count
        for cid in re.findall(r"\b\d+x-[a-z0-9-]+\b", folded):
            if cid in self._configs and cid not in u.configurations:
                u.configurations.append(cid)
        if u.count is not None:
            for card in u.cards:
                for cid in self._config_ids(own_count.get(card, u.count), card, u.gen4):
                    if cid not in u.configurations:
                        u.configurations.append(cid)

    def _config_ids(self, count: int, card: str, gen4: bool) -> list[str]:
        cands = [f"{count}x-{card}-gen4", f"{count}x-{card}"] if gen4 else [f"{count}x-{card}"]
        if not self._configs:
            return cands[:1]
        return [c for c in cands if c in self._configs][:1]

    def _find_workloads(self, folded: str, u: Understanding) -> None:
        for name, rx in _WORKLOAD_RX:
            if rx.search(folded) and name not in u.workloads:
                u.workloads.append(name)
        if "fine_tuning" in u.workloads or "training" in u.workloads:
            if _QLORA_RX.search(folded):
                u.adapter = "qlora"
            elif _LORA_RX.search(folded):
                u.adapter = "lora"
        # "fine-tuning" also matches "training" via "tun..."? keep both only when both said
        if (
            "fine_tuning" in u.workloads
            and "training" in u.workloads
            and not re.search(r"(?<!fine[\s-])(?<!fein)(?<!fine)\btrain", folded)
        ):
            u.workloads.remove("training")
        # "pipeline or tensor parallelism?": both are on the table
        if re.search(
            r"pipeline\b.{0,20}\b(?:or|oder|vs\.?|versus)\b.{0,20}\btensor|"
            r"tensor\b.{0,20}\b(?:or|oder|vs\.?|versus)\b.{0,20}\bpipeline",
            folded,
        ):
            for name in ("pipeline_parallel", "tensor_parallel"):
                if name not in u.workloads:
                    u.workloads.append(name)
        if u.count is not None and u.count > 8 and "multi_node" not in u.workloads:
            u.workloads.append("multi_node")

    def _find_context_and_concurrency(self, folded: str, u: Understanding) -> None:
        m = _CONTEXT_RX.search(folded)
        if m:
            value, k = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if value:
                num = _number(value) if "," not in value or k else float(value.replace(",", ""))
                u.context_tokens = int(num * 1024) if k else int(num)
        m = _CONCURRENCY_RX.search(folded)
        if m:
            raw = next(g for g in m.groups() if g)
            u.concurrency = int(raw)

    def _intents(self, folded: str, u: Understanding) -> list[Intent]:
        intents: list[Intent] = []
        if u.nccl_text is not None:
            intents.append("allreduce_paste")
        if u.topo_text is not None:
            intents.append("topology_paste")
        # "8x H100 SXM5" names a card, it doesn't ask about the interconnect
        no_cards = folded
        for start, end, _cid in reversed(_find_cards(folded)):
            no_cards = no_cards[:start] + " gpu " + no_cards[end:]
        no_cards = re.sub(r"\b\d+x-[a-z0-9-]+\b", " gpu ", no_cards)
        hits = {k: bool(rx.search(no_cards)) for k, rx in _INTENT_RX.items()}
        in_domain = (
            bool(_DOMAIN_RX.search(folded))
            or u.has_subject
            or bool(u.cards or u.card_families)
            or bool(u.workloads)
        )
        if not in_domain and not intents:
            # off topic on its own; in a conversation "how fast?" / "what does it cost?" still
            # says what it asks, after the off_topic marker
            sizing: tuple[Intent, ...] = ("price", "cheapest", "speed", "nvlink")
            asked: list[Intent] = [i for i in sizing if hits[i]]
            return ["off_topic", *asked]
        if (
            hits["link_facts"]
            and re.search(r"memory bandwidth|speicherbandbreite|hbm|vram bandwidth", folded)
            and not re.search(r"nvlink|pcie|interconnect|verbindung", folded)
        ):
            hits["link_facts"] = False  # the card's memory bandwidth, not the link's
        if (
            hits["link_facts"]
            and {"tensor_parallel", "pipeline_parallel", "training", "fine_tuning", "traffic"}
            & set(u.workloads)
            and not re.search(
                r"bandwidth|bandbreite|how much faster|wie viel schneller|generation|"
                r"which link|welche verbindung",
                folded,
            )
        ):
            # "Is PCIe Gen4 a problem for tensor parallelism?" asks what the job needs
            hits["link_facts"], hits["nvlink"] = False, True
        if hits["link_facts"] and re.search(r"all[\s-]*reduce|allreduce|gradient", folded):
            hits["link_facts"] = False  # "all-reduce over PCIe Gen4" asks for a time
        if (hits["link_facts"] or hits["tp_sync"]) and u.model:
            hits["link_facts"] = False  # "bandwidth for Llama on 4x A100" is about the model
        per_token_sync = re.search(
            r"(?:all-?reduces?|synchroni[sz]ations?|abgleiche|syncs?)\b.{0,20}"
            r"\b(?:pro|per) token|\blayers?\b.{0,60}\ball-?reduce",
            folded,
        )
        if hits["tp_sync"] and not (
            re.search(r"tensor|\btp\b|split|aufgeteilt|aufteil", folded) or per_token_sync
        ):
            hits["tp_sync"] = False
        if per_token_sync:
            hits["allreduce"] = False  # per token is tensor parallelism, not the training step
        order: list[Intent] = [
            "tp_sync",
            "link_facts",
            "capacity",
            "cheapest",
            "price",
            "allreduce",
            "topology_howto",
            "nvlink",
            "speed",
        ]
        if (
            hits["price"]
            and (hits["nvlink"] or u.workloads)
            and not u.configurations
            and not _MONEY_RX.search(no_cards)
        ):
            # "Should I rent SXM for rendering?" asks what to rent, not what it costs
            hits["price"] = False
        if (
            hits["nvlink"]
            and (u.cards or u.card_families)
            and not u.has_subject
            and not u.workloads
            and re.search(
                r"\b(?:have|has|come with|comes with|connected|linked|use|uses|support|supports|"
                r"hat|haben|verbunden|nutzt|nutzen|unterstützt|unterstützen)\b",
                folded,
            )
        ):
            # "Do H200s have NVLink?": the fact about that card's node, not the general rule
            hits["nvlink"], hits["link_facts"] = False, True
        if {"pipeline_parallel", "tensor_parallel"} <= set(u.workloads) and not (
            hits["speed"] or hits["price"] or hits["cheapest"]
        ):
            hits["nvlink"] = True  # which parallelism, i.e. which link
        if (
            (u.cards or u.card_families)
            and not u.has_subject
            and re.search(r"gen\s*4|pcie\s*4", folded)
            and re.search(r"gen\s*5|pcie\s*5", folded)
        ):
            # "2x RTX 4090 in the Gen4 chassis vs a Gen5 node": what link each really runs at
            hits["link_facts"] = True
            hits["speed"] = hits["nvlink"] = False
        if hits["cheapest"] and len(u.configurations) >= 2 and not u.has_subject:
            # "Was ist günstiger: 4x A100 PCIe oder 4x A100 SXM4?" compares two prices
            hits["cheapest"], hits["price"] = False, True
        if (
            len(u.configurations) >= 2
            and u.has_subject
            and not any(hits[k] for k in ("price", "cheapest", "speed", "capacity", "allreduce"))
        ):
            # "Is 4x A100 PCIe or 4x A100 SXM4 better for Llama 3.3 70B?": the same job both ways
            hits["nvlink"] = True
        if hits["cheapest"] and hits["price"] and not u.has_subject and not u.workloads:
            # "what's cheaper, 4x A100 PCIe or SXM4?" is a price comparison
            hits["cheapest"] = bool(re.search(r"cheapest|günstigste|billigste", folded))
        for intent in order:
            if hits[intent]:
                intents.append(intent)
        if hits["fit"] or (u.has_subject and not intents):
            intents.append("fit")
        # "how do I check the topology" vs "check whether Llama fits": a model means fit
        if (
            "topology_howto" in intents
            and u.has_subject
            and not re.search(r"topolog|nvidia-smi|nvlink|topo", folded)
        ):
            intents.remove("topology_howto")
        if (
            "allreduce" in intents
            and "training" not in u.workloads
            and not re.search(
                r"all[\s-]*reduce|allreduce|nccl|busbw|abgleich|trainingsschritt", folded
            )
        ):
            intents.remove("allreduce")
        if not intents:
            intents.append("general")
        # de-duplicate, keep order
        seen: list[Intent] = []
        for i in intents:
            if i not in seen:
                seen.append(i)
        return seen


def _iter_models(catalog: Any) -> Iterable[Any]:
    models = getattr(catalog, "models", None)
    if models is None:
        return []
    if isinstance(models, dict):
        return list(models.values())
    return list(models)


def _inside_card(folded: str, pos: int) -> bool:
    """True when a '...b' match is part of a card name like 'B200' (not a parameter count)."""
    return bool(re.match(r"b\d", folded[pos:]))


def _original_case(original: str, folded_mention: str) -> str:
    idx = _fold(original).find(folded_mention)
    if idx < 0:
        return folded_mention
    return original[idx : idx + len(folded_mention)]


def _with_proper_names(original: str, mention: str) -> str:
    """'Llama 4 B' -> 'Llama 4 Behemoth', 'Claude 3' -> 'Claude 3 Opus': the capitalised words
    right after the name belong to it (at most two; question words stop it)."""
    idx = original.find(mention)
    if idx < 0:
        return mention
    end = idx + len(mention)
    # a cut-off word ("B" of "Behemoth"): back up to the start of that word
    if end < len(original) and original[end].isalpha() and original[end - 1].isalpha():
        while end > idx and original[end - 1].isalpha():
            end -= 1
    words = re.match(r"((?:\s*[A-Z][\w.-]*)(?:\s+[A-Z][\w.-]*)?)", original[end:])
    extra = ""
    for w in words.group(1).split() if words else []:
        bare = w.strip(".,;:!?").lower()
        if not bare or bare in _EN_WORDS or bare in _DE_WORDS or _find_cards(bare):
            break
        extra += " " + w.strip(".,;:!?")
    return (original[idx:end].rstrip() + extra).strip()


def _strip_topo(folded: str) -> str:
    lines = [
        ln
        for ln in folded.splitlines()
        if not re.search(
            r"\b(?:gpu\d+|nv\d+|sys|pix|phb|pxb|node|x)\b.*\b(?:nv\d+|sys|pix|phb|x)\b", ln
        )
        and "legend" not in ln
        and not re.match(r"\s*(?:x|sys|node|phb|pxb|pix|nv#)\s*=", ln)
    ]
    return "\n".join(lines)
