"""Topics: what the words of a question ask about that no entity carries — a comparison ("A or
B?"), a recommendation ("what do you suggest?"), the node with the most VRAM, VRAM per dollar,
where prices come from, a price per million tokens, a topology described in words, whether FP8 is
supported, what runs on a node, a card's own specs, a yes/no or a tag question.

The reader sets `Query.topics` (and `Query.yes_no`) from the question's words once; the planner's
flow table decides from them and the other reading fields, never from the text
(assistant/compose/table.py). A new topic is one regex here and one name in `Topic`.
"""

from __future__ import annotations

import re

from assistant.nlu.asks import _WH_RX, is_yes_no
from assistant.nlu.lexicon import NO_LINK_NEEDED, _cards_in, _fold
from assistant.nlu.query import Query, Topic
from assistant.nlu.scope import LLM_JOB_RX

_VERSUS = re.compile(
    r"\b(?:vs\.?|versus|or|oder|gegenüber|compared?|vergleich\w*|verglichen|better|besser|"
    r"lohnt|worth)\b"
)


_RECOMMEND = re.compile(
    r"\b(?:suggest|recommend|advise|offer|propose|empfehl\w*|vorschlag\w*|schlagen sie|"
    r"anbieten|bieten wir|what (?:should|would|do) (?:we|i|you) (?:rent|take|get|pick|offer)|"
    # "was sollen wir da nehmen?", "was sollte ich mieten?"
    r"was (?:soll|sollen|sollte|sollten|würde\w*) (?:wir|ich|man) (?:\w+ )?(?:nehmen|mieten|"
    r"holen|buchen)|"
    # "which server should we rent?", "welchen Server sollten wir bei euch mieten?"
    r"(?:which|what) (?:\w+ )?(?:server|node|gpu|card|box|machine|setup|config\w*) "
    r"(?:should|would|do|must|could) (?:we|i) (?:\w+ ){0,3}(?:rent|take|get|pick|book)|"
    r"welche[nrs]? (?:\w+ )?(?:server|knoten|gpu|karte|maschine|konfiguration|setup) "
    r"(?:soll|sollen|sollte|sollten|würde\w*|müss\w*|könnt\w*|brauch\w*) (?:wir|ich|man) "
    r"(?:\w+ ){0,4}(?:nehmen|mieten|holen|buchen))"
)


_MOST_VRAM = re.compile(
    r"most (?:vram|memory|gpu memory)|(?:meiste[nr]?|größte[nr]?|grösste[nr]?) "
    r"(?:vram|speicher|grafikspeicher)|(?:largest|biggest|most powerful|beefiest|strongest) "
    r"(?:\w+ )?(?:vram|memory|node|server|machine|box|configuration|config|setup)|"
    r"(?:größte[nrs]?|grösste[nrs]?|stärkste[nrs]?|mächtigste[nrs]?) (?:knoten|server|maschine|"
    r"konfiguration|system)"
)


_VRAM_PER_DOLLAR = re.compile(
    r"(?:vram|memory|speicher|gb)\s*(?:per|pro|je)\s*(?:dollar|\$|euro)|"
    r"(?:per|pro|je)\s*gb\b.{0,30}(?:cheapest|günstigst|billigst|lowest|niedrigst)|"
    r"(?:cheapest|günstigst|billigst|lowest|niedrigst)\w*.{0,30}(?:per|pro|je)\s*gb\b"
)


_PRICE_SOURCE = re.compile(
    r"(?:prices?|preise?)\b.{0,40}\b(?:real|actual|binding|verbindlich|echt|placeholder|"
    r"platzhalter|published|veröffentlicht|official|offiziell)"
)


_PER_TOKEN = re.compile(r"million|mio\.?\b|per (?:1m |1 m )?tokens?|pro (?:million )?token")


_DESCRIBED_TOPO = re.compile(
    r"(?=.*\b(?:shows?|showing|zeigt|zeigen|between|zwischen|überall|everywhere|"
    r"all (?:cards|pairs)|alle[nr]? (?:karten|paare))\b)(?=.*(?:topo|nvidia-smi))"
)


_ASKS_SUPPORT = re.compile(
    r"\bfp8\b.{0,40}\b(?:support\w*|native\w*|tensor[\s-]?cores?|run\w*|use\w*|work\w*|"
    r"possible|capable|unterstütz\w*|läuft|laufen|nutz\w*|geht|gehen|möglich|fähig|kann|"
    r"können)\b|\b(?:support\w*|unterstütz\w*|native\w*|kann|können|can|does|do|"
    r"run|läuft|nutzen)\b.{0,40}\bfp8\b|^\W*fp8\b.{0,30}\?\s*$"
)


_WHAT_RUNS = re.compile(
    r"what (?:can|could|will|would) (?:i|we|you) (?:run|serve|host|load|fit|put)|"
    r"which models?\b.{0,30}\b(?:fit|run|work|go)|what (?:models? )?(?:fits?|runs?)\b|"
    r"welche modelle?\b|was (?:kann|könnte|lässt sich|passt|läuft)\b.{0,40}"
    r"(?:laufen|betreiben|darauf|drauf|damit|auf (?:dem|der|den|ihm|ihr|ihnen))|"
    r"was passt (?:auf|in|drauf)|was läuft (?:auf|darauf|drauf)"
)


_ARCHITECTURE = re.compile(r"ampere|hopper|ada|blackwell")
_TAG_QUESTION = re.compile(r",\s*(?:oder|right)\W*$")
_CARD_SPEC = re.compile(r"\bvram\b|\bmemory\b|\bspeicher\w*|\bhbm\b|\bgb\b|bandwidth|bandbreite")
_LINK_WORDS = re.compile(r"nvlink|pcie|interconnect|verbindung")
_MEMORY_BANDWIDTH = re.compile(r"memory bandwidth|speicherbandbreite|vram|hbm")
_PRICE_WORDS = re.compile(r"\bcost|\bprice|preis|kostet|per dollar|pro dollar")
_HAS_WORDS = re.compile(
    r"\b(?:have|has|hat|haben|does|do|wie viel|how much|what is|what's|was ist|"
    r"wie (?:hoch|groß)|welche)\b"
)
_WHICH_CARDS = re.compile(r"\b(?:which|what|welche)\b.{0,20}\b(?:gpus?|cards?|karten?)\b")

#: topics read by one regex over the lower-cased question
# "can you guys run deepseek?", "könnt ihr das hosten?", "do you have anything for …": asked of
# the catalog, so yes when any node holds it
_CATALOG_ASK = re.compile(
    r"\b(?:can|could) you(?: guys| folks| all)?(?: even| actually| really| also)? "
    r"(?:run|host|serve|handle|do|support)\b|"
    r"\b(?:könnt|koennt) ihr\b|\bkönnen sie\b.{0,40}\b(?:betreiben|hosten|laufen)|"
    r"\bdo you (?:have|offer) (?:anything|something|a (?:server|node|box|gpu))\b|"
    r"\bhabt ihr (?:was|etwas|einen|eine)\b|"
    # "Kann ich Llama 3.1 405B in BF16 mieten?", "can I rent Llama 70B from you?"
    r"\b(?:kann|können) (?:ich|wir|man)\b.{0,60}\bmieten\b|\bcan (?:i|we)\s+rent\b"
)


# "fine-tune it first and then serve it on the same box", "danach ausliefern": served after
_SERVE_AFTER = re.compile(
    r"\b(?:then|afterwards|after that|later|danach|anschließend|dann|später|"
    r"after (?:the )?(?:training|fine[\s-]?tun\w*)|nach dem (?:training|feintuning|fine-tuning))"
    r"\b[^.?!]{0,40}"
    r"\b(?:serve|serving|host|deploy|run it|inference|ausliefern|betreiben|hosten|bereitstellen|"
    r"inferenz|laufen lassen|produktiv)|"
    # "… for serving it afterwards", "reicht zum Ausliefern danach eine L4?"
    r"\b(?:serv(?:e|ing)|ausliefern|hosten|deploy\w*)\b[^.?!]{0,20}\b(?:afterwards|after that|"
    r"danach|anschließend|later|später)\b|"
    # "danach soll es mit 20 Anfragen gleichzeitig laufen", "afterwards it should run …"
    r"\b(?:afterwards|after that|danach|anschließend)\b[^.?!]{0,50}\b(?:laufen|run|running)\b"
)


_SERVE_WORDS = re.compile(
    r"\b(?:serve|serving|served|host|hosting|deploy\w*|inference|ausliefer\w*|auszuliefern|"
    r"betreiben|hosten|bereitstell\w*|inferenz)\b"
)
_TRAIN_WORDS = re.compile(r"train|tun(?:e|ing|en)\b|tunen|lora\b|feintun|finetun")
_CLAUSE_SPLIT = re.compile(r"[.?!;,\n]|\b(?:und|and|aber|but|then|dann)\b")


def serves_on_named(q: str) -> bool:
    """ "Full fine-tune Mistral 7B … und reicht zum Ausliefern danach eine L4?", "After training
    we'd serve the result on a single L4": every card named is named for the serving (in its
    clause, the nearest job word before the card serves, else the nearest after it); the
    training's own hardware is then the planner's pick."""
    clauses = [c for c in _CLAUSE_SPLIT.split(_fold(q)) if _cards_in(c)]
    return bool(clauses) and all(_card_serves(c) for c in clauses)


def _card_serves(clause: str) -> bool:
    start = _cards_in(clause)[0][0]
    words = [(m.start(), "serve") for m in _SERVE_WORDS.finditer(clause)]
    words += [(m.start(), "train") for m in _TRAIN_WORDS.finditer(clause)]
    before = [w for w in words if w[0] < start]
    after = [w for w in words if w[0] > start]
    nearest = max(before) if before else min(after) if after else None
    return nearest is not None and nearest[1] == "serve"


_SIMPLE: tuple[tuple[Topic, re.Pattern[str]], ...] = (
    ("versus", _VERSUS),
    ("recommend", _RECOMMEND),
    ("vram_per_dollar", _VRAM_PER_DOLLAR),
    ("price_sources", _PRICE_SOURCE),
    ("per_token", _PER_TOKEN),
    ("fp8_support", _ASKS_SUPPORT),
    ("architecture_named", _ARCHITECTURE),
    ("what_runs", _WHAT_RUNS),
    ("spec_has", _HAS_WORDS),
    ("which_cards", _WHICH_CARDS),
    ("serve_after", _SERVE_AFTER),
)


_KV_CACHE = re.compile(r"kv[\s-]*cache")
RHETORICAL_NEGATIVE_RX = re.compile(
    r"(?:^|[.?!,;:–—]\s*|\s-\s+)(?:(?:reicht|reichen|passt|passen|läuft|laufen|geht|gehen|genügt|"
    r"genügen)\s+(?:\S+\s+){0,5}?nicht\b|(?:doesn'?t|don'?t|won'?t|wouldn'?t|isn'?t|aren'?t|"
    r"can'?t|couldn'?t)\s)"
)
#: cue topics: how the words ask for the answer to lead (read from the text by any reader's
#: `to_query`, so the planner's choices come from the reading, not the text)
CUES: tuple[tuple[Topic, re.Pattern[str]], ...] = (
    (
        # "we don't need nvlink, right?", "da ist kein nvlink nötig, oder?": a "yes" confirms
        # the negative, said as "Right" / "Richtig" (compose/polarity.py)
        "no_need_stated",
        re.compile(
            # (unless PCIe is also said to be fine: "pcie is fine, no nvlink needed - right?"
            # states the positive, which "Yes" confirms)
            r"(?s)^(?!.*\bpcie\s+(?:\w+\s+){0,3}?(?:fine|enough|ok|okay|sufficient|ausreichend|"
            r"genug|reicht|genügt)\b)(?!.*\b(?:reicht|genügt)\s+(?:\w+\s+){0,3}?pcie\b).*?"
            r"(?:" + NO_LINK_NEEDED + r")"
        ),
    ),
    (
        "longest_context",
        re.compile(
            r"(?:max\w*|longest|längste\w*|how long|wie lang\w*|how much|wie ?viel)\b.{0,25}"
            r"\b(?:context|kontext)|(?:context|kontext)\w*[\s-]*(?:length|länge|window|fenster)|"
            # "wie lang darf die dann maximal sein?", "how long can it be at most?"
            r"\bwie lang\w*\s+(?:darf|dürfen|kann|können|könnte|geht|ginge)\b[^?]{0,30}"
            r"\b(?:maximal|max\.?|höchstens)\b|"
            r"\bhow long (?:can|could|may) (?:it|that|one|each)\b[^?]{0,20}\b(?:at most|max\w*)\b"
        ),
    ),
    ("how_many", re.compile(r"\bhow many\b|\bwie ?viele\b")),
    (
        "is_the_cheapest",
        # (not "which single card is the cheapest that can?": that asks which)
        re.compile(
            r"(?:^|[?.!:]\s*)(?:(?!\b(?:which|what|welche\w*|was)\b)[^?.!])*?"
            r"\b(?:is|are|ist|sind|wäre|would be)\b[^?.]{0,40}?\b(?:the|das|der|die|den)\s+"
            r"(?:cheapest|günstigste\w*|billigste\w*|preiswerteste\w*)"
        ),
    ),
    (
        "difference_asked",
        re.compile(
            r"preisunterschied|price difference|difference in (?:the )?price|unterschied im "
            r"preis|how much (?:more|less|cheaper)|by how much|um wie ?viel|"
            r"wie ?viel (?:mehr|teurer|günstiger)|"
            # "wie viel spar ich mit pcie?", "how much would we save?"
            r"wie ?viel\w* (?:\w+ ){0,2}?(?:spar|ersparnis)\w*|how much (?:\w+ ){0,3}?sav(?:e|ing)|"
            # "wieviel zahl ich da jetzt genau mehr?", "how much more do we pay for it?"
            r"wie ?viel\w* (?:\w+ ){0,3}?(?:zahl|bezahl|kost)\w* (?:\w+ ){0,4}?"
            r"(?:mehr|weniger|extra)\b|"
            r"how much (?:\w+ ){0,3}?(?:pay|paying|cost\w*|spend\w*) (?:\w+ ){0,4}?"
            r"(?:more|less|extra)\b|"
            r"how much (?:more|extra) (?:\w+ ){0,3}?(?:pay|paying|cost\w*|spend\w*)\b|"
            # "what 4x a100 sxm4 would cost him on top of what he pays now", "zusätzlich zu
            # dem, was er jetzt zahlt": against the node the conversation is about
            r"\bon top of (?:what|the|his|her|their|our|my)\b|\bin addition to what\b|"
            r"\bzusätzlich zu (?:dem|was|seinem|ihrem|unserem)\b|"
            r"\bmehr als (?:er|sie|wir|ich) (?:jetzt |derzeit |aktuell |bisher )?"
            r"(?:zahl|bezahl)\w*|"
            # "was wäre der Aufpreis zum 8x B200?", "what's the premium for the SXM one?"
            r"\b(?:aufpreis\w*|mehrpreis\w*|mehrkosten|upcharge|surcharge|price premium|"
            r"(?:what'?s|whats|what is|what would be) the (?:premium|extra cost))\b"
        ),
    ),
    (
        # "what does that box cost a month? … whats the difference", "und was ist der
        # unterschied im monat zwischen den beiden?": the difference asked of prices
        "difference_asked",
        re.compile(
            r"(?s)^(?=.*\b(?:cost\w*|prices?|pay\w*|kostet|kosten|preis\w*|zahl\w*|month\w*|"
            r"monat\w*)\b).*?\b(?:what'?s|whats|what is|was ist|wie groß ist|wie hoch ist)\s+"
            r"(?:the\s+|der\s+)?(?:difference|unterschied|gap|abstand)\b|"
            # "and the pcie version of that? how big is the gap?" after a price
            r"\bhow (?:big|large|wide) is the (?:gap|difference)\b|"
            r"\bwie groß ist (?:der|die) (?:abstand|lücke|differenz)\b"
        ),
    ),
    ("kv_cache", _KV_CACHE),
    ("bandwidth", re.compile(r"bandwidth|bandbreite")),
    ("layers", re.compile(r"\blayers?\b")),
    ("wh_question", re.compile(_WH_RX.pattern + r"|\b(?:why|warum|wieso|weshalb|how come)\b")),
    ("difference", re.compile(r"\b(?:difference|differ|unterschied\w*|unterscheid\w*)\b")),
    ("ampere", re.compile(r"\bampere\b")),
    ("qlora_named", re.compile(r"\bqlora\b")),
    (
        "full_named",
        re.compile(
            r"\b(?:full|voll\w*|komplett\w*)[\s-]+(?:ft|fine[\s-]?tun\w*|finetun\w*|"
            r"parameter\w*)\b"
        ),
    ),
    ("gen5_named", re.compile(r"gen\s*5|pcie\s*5")),
    ("nvlink_named", re.compile(r"nvlink|\bsxm")),
    (
        "link_either_or",
        re.compile(
            r"(?:sxm|nvlink)\b.{0,12}\b(?:or|oder|vs\.?|versus)\b.{0,12}\bpcie|"
            r"pcie\b.{0,12}\b(?:or|oder|vs\.?|versus)\b.{0,12}\b(?:sxm|nvlink)"
        ),
    ),
    ("per_card", re.compile(r"per (?:gpu|card)|pro (?:gpu|karte)|je (?:gpu|karte)")),
    (
        "per_hour",
        re.compile(
            r"\b(?:per|pro|an|a|je|die)\s+(?:stunde|hour|hr)\b|\bhourly\b|\bstündlich\b|"
            r"\bstunden(?:preis|satz)\b|(?:\$|€|usd|eur|dollar|euro)\s*/\s*h\b"
        ),
    ),
    # "can you guys even run DeepSeek?", "könnt ihr Llama 70B betreiben?": yes when any node
    # holds it
    ("catalog_ask", _CATALOG_ASK),
    (
        "verb_first",
        re.compile(r"^\W*(?:do|does|is|are|has|have|can|hat|haben|ist|sind|gibt|kann|können)\b"),
    ),
    (
        "image_job",
        re.compile(
            r"\b(?:image|images|video\w*|bild\w*|diffusion|flux|sdxl|stable diffusion|wan|"
            r"comfyui|render\w*)\b"
        ),
    ),
    ("llm_job", LLM_JOB_RX),
    # a negative question that hopes for the plain claim ("Reicht da nicht eine Karte?",
    # "passt das dann nicht locker auf eine L40S?", "doesn't it fit on one L4?"): answered as
    # the plain claim; a predicative negative ("is one L40S not enough?") or one put up for
    # confirmation ("… does not fit, right?") asks the negation
    ("rhetorical_negative", RHETORICAL_NEGATIVE_RX),
)


_SIZE_WORDS = re.compile(
    r"how much|how big|how large|wie viel|wie groß|wie gross|take|braucht|belegt|size"
)


def cue_topics(text: str) -> list[Topic]:
    """The cue topics the words of `text` carry (`CUES`); "kv_cache_size" when the KV cache is
    named and its size asked ("how much does the KV cache take?")."""
    q = text.lower()
    found: list[Topic] = [name for name, rx in CUES if rx.search(q)]
    if "kv_cache" in found and _SIZE_WORDS.search(q):
        found.append("kv_cache_size")
    return found


#: link ids a question names outright ("over PCIe Gen4", "NVLink 4")
LINK_MENTIONS = (
    ("pcie-gen4-x16", re.compile(r"(?:pcie|pci-e|pci express)?\s*gen\s*4|pcie\s*4(?:\.0)?\b")),
    ("pcie-gen5-x16", re.compile(r"(?:pcie|pci-e|pci express)?\s*gen\s*5|pcie\s*5(?:\.0)?\b")),
    ("nvlink-3", re.compile(r"nvlink\s*3")),
    ("nvlink-4", re.compile(r"nvlink\s*4")),
    ("nvlink-5", re.compile(r"nvlink\s*5")),
)


def named_links(text: str) -> list[str]:
    """Link ids the text names outright ("over PCIe Gen4", "NVLink 4"), in the order said."""
    q = text.lower()
    hits = [(m.start(), lid) for lid, rx in LINK_MENTIONS if (m := rx.search(q))]
    return [lid for _, lid in sorted(hits)]


def described_topo(question: str) -> re.Match[str] | None:
    """'... shows PHB between all cards in topo -m': the label (upper case as printed)."""
    if not _DESCRIBED_TOPO.match(question.lower()):
        return None
    return re.search(r"\b(PHB|PIX|PXB|NODE|SYS|SOC|NV\d+)\b", question)


def _card_spec(q: str) -> bool:
    """A question about a card's own specs (memory, bandwidth), not its link or price."""
    if not _CARD_SPEC.search(q) or _PRICE_WORDS.search(q):
        return False
    return not (_LINK_WORDS.search(q) and not _MEMORY_BANDWIDTH.search(q))


def find_topics(u: Query) -> None:
    """Set `u.topics` and `u.yes_no` from the question's words."""
    q = u.question.lower()
    topics: list[Topic] = [name for name, rx in _SIMPLE if rx.search(q)]
    if _MOST_VRAM.search(q) and "vram_per_dollar" not in topics:
        topics.append("most_vram")
    if described_topo(u.question) is not None:
        topics.append("topology_described")
    if _card_spec(q):
        topics.append("card_spec")
    if _TAG_QUESTION.search(u.question):
        topics.append("tag_question")
    if "serve_after" in topics and serves_on_named(u.question):
        topics.append("serve_on_named")
    u.topics = [*topics, *cue_topics(u.question)]
    u.links = named_links(u.question)
    u.yes_no = is_yes_no(u.question)
