"""Intent scoring and selection; the explain, injection, follow-up and off-topic signals."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from assistant.nlu.constraints import without_link_exclusion
from assistant.nlu.lexicon import _find_cards, attached_variant
from assistant.nlu.query import Intent, Query

# --------------------------------------------------------------------------- intents

#: "was zahlt er eigentlich im Monat für die Kiste?", "what do they pay a month for it?"
_PAYS = (
    r"\b(?:zahl|bezahl)\w*\b[^.?!]{0,40}\b(?:im|pro|je|jeden|per) monat|"
    r"\bpay\w*\b[^.?!]{0,30}\b(?:a|per|each|every) month"
)

_INTENT_RX: dict[str, re.Pattern[str]] = {
    k: re.compile(v)
    for k, v in {
        "capacity": r"how many (?:of (?:those|these|them) |such )?"
        r"(?:concurrent |parallel |simultaneous )?(?:[\d.,]+\s*k?[\s-]*"
        # ("how many chat sessions", "how many customer requests": a word may describe them)
        # ("how many 16k-context requests …")
        r"(?:(?:tokens?|context|ctx)[\s-]*)?)?(?:(?:chat|customer|user|api|client|support|"
        r"inference)[\s-])?"
        r"(?:users|sequences|requests|streams|sessions|conversations|chats|"
        r"people|persons|clients|customers|ppl|convos|folks|seqs)|"
        r"wie ?viele (?:(?:von )?(?:diesen|solchen|solcher|dieser|davon) )?"
        r"(?:gleichzeitige[n]? |parallele[n]? )?"
        r"(?:[\d.,]+\s*k?[\s-]*(?:(?:token|kontext)[\s-]*)?)?(?:(?:chat|kunden|api|support)[\s-]?)?"
        r"(?:nutzer|anfragen|sequenzen|seqs|streams|user|sitzungen|sessions?|chats|gespräche|"
        r"unterhaltungen|leute|personen|kunden|requests|konversationen)|"
        # people at once: "how many people could chat on it at the same time"
        r"how many (?:people|persons|users|folks|clients|customers|chats|colleagues|ppl|convos)"
        r"\b.{0,60}"
        r"(?:at (?:the same|one|once) time|at once|simultaneous|concurrent|in parallel|parallel)|"
        r"wie viele (?:leute|personen|menschen|nutzer\w*|user|kunden|kollegen|chats|gespräche)\b"
        r".{0,60}(?:gleichzeitig|parallel|zur (?:gleichen|selben) zeit|auf einmal)|"
        # the noun left out: "wie viele gleichzeitig gehen dann?", "how many at once then?"
        r"\bwie ?viele (?!(?:gpus?|karten?|cards?|knoten|nodes?)\b)(?:\w+\s+){0,2}?"
        r"(?:gleichzeitig|parallel|auf einmal)\b|"
        r"\bhow many (?!(?:gpus?|cards?|nodes?|servers?)\b)(?:\w+\s+){0,2}?"
        r"(?:at once|at the same time|in parallel|concurrently|simultaneously)\b|"
        r"max(?:imum|imal)?(?:e|en)? "
        r"(?:context|kontext)|"
        # "max concurrent seqs?", "maximale Anzahl gleichzeitiger Anfragen": the sequences at once
        r"\bmax(?:imum|\.)?\s+(?:number of\s+)?(?:concurrent|parallel|simultaneous)\s+"
        r"(?:seqs|sequences|requests|streams|sessions|users)\b|"
        r"\bmax(?:imal)?(?:e|en)?\s+(?:anzahl\s+)?(?:gleichzeitige[rn]?|parallele[rn]?)\s+"
        r"(?:seqs|sequenzen|anfragen|streams|sitzungen|nutzer)\b|"
        r"longest context|längste[nr]? kontext|"
        r"wie ?(?:viel|lang)\w*\b.{0,24}(?:kontext|context)|how (?:much|long)\b.{0,24}context|"
        r"kontextlänge|"
        r"context length|kv[\s-]*cache (?:room|platz)",
        "cheapest": r"cheapest|least (?:expensive|money|cost)|lowest (?:price|cost)|"
        r"most affordable|"
        # "which of your machines can hold it? the smallest one pls"
        r"\bsmallest (?:one|node|machine|server|box|setup|option|config\w*)\b|"
        r"\b(?:der|die|das|den) kleinste[nr]? (?:knoten|server|maschine|konfiguration)?\b|"
        r"(?:for|with) (?:the )?(?:little|less|least) money|am wenigsten (?:geld|kosten)|"
        r"(?:für|mit) (?:möglichst )?wenig geld|möglichst (?:günstig|billig)|günstigste|"
        r"billigste|am günstigsten|am billigsten|preiswerteste|kostengünstigste|cheaper|günstiger|"
        r"billiger|budget|\bspar(?:en|t)?\b",
        "price": r"\bcost|\bprice|\bpric|\bpreis|kostet|kosten\b|how much is|was kostet|per month|"
        r"\bcharge\b|\bcharges\b|\bverlangt\b|"
        # ("würden euren 4x H100 mieten. Geht das?": renting asks no price; "die Miete" does)
        r"pro monat|/month|/monat|monthly|monatlich|per hour|pro stunde|hourly|stündlich|"
        r"an hour\b|die stunde\b|\$|\busd\b|\beuros?\b|€|\bmiete\b|" + _PAYS,
        "allreduce": r"all[\s-]*reduce|allreduce|gradient(?:en)?[\s-]*(?:sync|synchron|austausch)|"
        r"trainingsschritt\w*[\s-]*abgleich|(?:schritt|step)\w*[\s-]*(?:abgleich|sync)|"
        r"gradienten[\s-]*abgleich|"
        r"sync(?:hroni[sz]ation)? time|synchroni[sz]ations?zeit|how long .*sync|wie lange .*sync|"
        r"per (?:training )?step|pro (?:trainings)?schritt|busbw|nccl",
        "topology_howto": r"topolog|nvidia-smi|topo -m|"
        # "what should GPU0-GPU3 show on that node?", "was sollte zwischen GPU0 und GPU3 stehen?"
        r"\bgpu\d\b[^?]{0,40}\b(?:show|display|read|zeigen|anzeigen|stehen)\b|"
        r"how (?:do|can) i (?:check|verify|see|test|"
        r"measure)|wie (?:prüfe|teste|messe|sehe|überprüfe|kann ich .*(?:prüfen|testen|messen|"
        r"sehen))|verify|überprüf|nachprüf|check (?:whether|if|that)|prüfen,? ob|measure|messen",
        "link_facts": r"bandwidth|bandbreite|"
        r"(?:how much faster|wie viel schneller|um wie viel).{0,40}(?:nvlink|pcie|sxm|link|"
        r"interconnect|verbindung)|"
        r"(?:nvlink|pcie|sxm).{0,40}(?:how much faster|wie viel schneller)|"
        r"(?:nvlink|pcie|link)[\s-]*(?:generation|version|gen\b)|"
        r"(?:which|what|welche[nrs]?) (?:nvlink|pcie)|(?:run|runs|läuft|laufen) .{0,30}"
        r"(?:pcie|nvlink)|(?:pcie|pci-e)\s*(?:gen)?\s*[345]\b|"
        r"\bgen\s*[345]\s*(?:card|karte|gpu|slot|device)|"
        r"which link|what link|welche verbindung|welcher link|which interconnect|welcher "
        r"interconnect|gb/s|how fast is (?:nvlink|pcie)|wie schnell ist (?:nvlink|pcie)|"
        # "how fast is the link between the cards", "wie schnell ist die Verbindung zwischen …"
        r"how fast (?:is|are) (?:the |its |their )?(?:links?|interconnects?|connections?)\b|"
        r"wie schnell (?:ist|sind) (?:die |deren )?(?:verbindung\w*|links?|interconnects?)\b",
        "tp_sync": r"synchroni[sz]ations?|abgleiche|all-?reduces? per token|syncs? per token|"
        r"pro token|per token",
        "nvlink": r"nvlink|nvswitch|\bsxm|interconnect|verbindung zwischen|\bpcie\b|pci-e|"
        r"pci express|bridge|brücke|\bnv\d|link between|karten verbind",
        "speed": r"tokens?\s*(?:/|pro|per|a|je|in der|in a)\s*(?:s\b|sec\w*|sekunde)|tok/s|\bt/s|"
        r"how (?:fast|quick\w*|snappy|speedy)|wie (?:schnell|flott|zügig|fix)|"
        # "how quickly does it answer", not "quick context: we run …" or "quick question, runs X"
        r"\bquick(?:ly)?\b(?! (?:context|question|reply|one|note|update|check|thing|q|sanity|"
        r"heads|favou?r)\b)"
        r"[^.:;?!\n]{0,30}\b(?:run|generat|answer|respond)|"
        # "how long would it need to write 300 descriptions?", "wie lange braucht es für 500
        # Zusammenfassungen?": a batch of output timed
        r"\bhow long (?:would|will|does|do|did|to)\b[^?!\n]{0,70}\b(?:write|generat\w*|produc\w*|"
        r"output|answer|summari[sz]\w*|translat\w*|process\w*)|"
        r"\bwie lange? (?:braucht|bräuchte|dauert|dauern|würde)\b[^?!\n]{0,70}\b(?:schreib\w*|"
        r"generier\w*|erzeug\w*|zusammenfass\w*|übersetz\w*|verarbeit\w*|token)|"
        # "will it run quick enough on an L4?", "answers fast on one L4?"
        r"\b(?:runs?|answers?|responds?|generates?)\s+(?:\w+\s+)?(?:quick(?:ly)?|fast)\b|"
        r"throughput|durchsatz|\bspeed|geschwindigkeit|latency|latenz|schneller|faster|quicker|"
        r"langsam|slow|performance|leistung",
        "fit": r"\bfit|\bpass(?:t|en|e)\b|reicht|genug|enough|vram|speicher|memory|how many "
        r"(?:cards|gpus)|wie viele (?:karten|gpus)|welche karte|which (?:card|gpu|node|"
        r"configuration)|welche(?:n|r|s)? (?:gpu|knoten|konfiguration)|run\b|runs\b|laufen|läuft|"
        # ("the hourly rate for a single rtx 5090 server": a server is no "serve")
        r"\bserve(?!rs?\b)|bedienen|\bhost|betreiben|deploy|\bload|\bladen|kv[\s-]*cache|context|"
        r"kontext|size|"
        r"dimensionier|need|brauch|benötig|"
        # "und mit 8x H100 SXM, ginge das auch?", "would that work too?"
        r"\bginge\b|würde (?:das|es) gehen|would (?:that|it) work|"
        # "does that work on one L40S?", "klappt das auf einer 4090?"
        r"\b(?:does|do|will|can|could) (?:that|it|this) (?:still |even )?work\b|"
        r"\b(?:funktioniert|klappt|läuft) (?:das|es)\b|"
        # "would a 4090 do it too?", "can one L4 handle that?", "schafft eine 4090 das?"
        r"\b(?:would|could|can|will|does|do)\s+(?:a|an|one|the|that|this|two|2)\s+(?:\S+\s+){1,3}?"
        r"(?:do|handle|manage|take|cope with)\s+(?:it|that|this|the job)\b|"
        r"\bschaff(?:t|en)\s+(?:\S+\s+){1,3}?(?:das|es)\b",
    }.items()
}

# questions the guides answer in prose: why, what happens, what is the difference, ...
#: "läuft X darauf?", "does it run there?": asks whether it fits, like "passt"
_RUNS_RX = re.compile(r"\b(?:läuft|laufen|runs?|geht)\b")

_EXPLAIN_RX = re.compile(
    r"^\W*(?:why|warum|wieso|weshalb)\b|\bwhat happens\b|\bwas passiert\b|"
    # "eli5 tensor parallel? why does everyone say it needs a fast link"
    r"\beli5\b|\bexplain like i'?m (?:five|5)\b|"
    r"[.?!;:]\s*(?:why|warum|wieso|weshalb)\s+(?:does|do|is|are|would|should|sagen|sagt|"
    r"braucht|brauchen|ist|sind|soll)\b|"
    # "if mixtral only uses 13b per token why do i need vram for all 47b??"
    # (a "why does it blow up?" under a log asks for the diagnosis: not this)
    r"\bwhy (?:do|does|would|must) (?:i|we|you|they|one)\b[^?.]{0,20}\bneed\b|"
    r"\b(?:warum|wieso|weshalb) (?:brauch\w*|muss|müssen) (?:ich|wir|man)\b|"
    r"(?<!price )(?<!cost )\bdifference between\b|(?<!preis)\bunterschied(?:e)? zwischen\b|"
    r"\bhow does .{0,40}\bwork|"
    r"\bwie funktionier|\bexplain\b|\berklär|\bactive param|\baktive[n]? param|"
    r"\b(?:support|unterstütz)\w*\b.{0,20}\bfp8|\bfp8\b.{0,20}\b(?:support|unterstütz)|"
    r"\badd up\b|\baddier|\bzusammenzähl|\breally reach|\bin practice\b|\btatsächlich\b|"
    r"\b(?:act|work|behave)s? as (?:one|a single|\d+ ?gb)|\bas one (?:big )?(?:card|gpu)|"
    r"\bby default\b|\bstandardmäßig\b|memory bandwidth|speicherbandbreite|"
    r"\bwas heißt\b|\bwas heisst\b|\bwofür steht\b|\bstands? for\b|\bbedeutet\b|"
    r"\bhow many (?:experts|active)|\bwie viele (?:experten|aktive)|"
    r"^\W*(?:what is|what's|what are|was ist|was sind|was bedeutet|what does .{1,30} mean)\b|"
    # "noob question. what is tensor parallelism and why …": a concept after an opening
    r"[.?!;:]\s*(?:what is|what's|was ist)\b.{0,20}\b(?:tensor|pipeline)\w*[\s-]*parallel|"
    # "sorry noob question, what even is nvlink and how is it different from pcie?"
    r"(?:^|[,;:]\s*)(?:what even is|what exactly is|was genau ist|was ist eigentlich)\b|"
    r"\bhow (?:is|are|does|do) (?:it|they|that|this|\w+) (?:different|differ)\b|"
    r"\b(?:worin|wie) unterscheid\w* sich\b|"
    r"\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b.{0,30}\b(?:than|vs\.?|versus|als)\b"
    r".{0,10}\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b"
)
# a why / what-happens / difference / measured question is prose even when it names a price,
# the cheapest card or a bandwidth
_STRONG_EXPLAIN_RX = re.compile(
    r"^\W*(?:why|warum|wieso|weshalb)\b|\bwhat happens\b|\bwas passiert\b|"
    r"\beli5\b|\bexplain like i'?m (?:five|5)\b|"
    # "eli5 tensor parallel? why does everyone say it needs a fast link"
    r"\beli5\b|\bexplain like i'?m (?:five|5)\b|"
    r"[.?!;:]\s*(?:why|warum|wieso|weshalb)\s+(?:does|do|is|are|would|should|sagen|sagt|"
    r"braucht|brauchen|ist|sind|soll)\b|"
    # "was ist eigentlich tensor parallel? und wieso soll das mit nvlink schneller sein?"
    r"(?:^|[,;:]\s*)(?:what even is|what exactly is|was genau ist|was ist eigentlich)\b|"
    r"(?<!price )(?<!cost )\bdifference between\b|(?<!preis)\bunterschied(?:e)? zwischen\b|"
    r"\breally reach|\bin practice\b|"
    r"\btatsächlich\b|\bmeasured\b|\bgemessen|"
    r"\b(?:moe|mixture[\s-]of[\s-]experts)\b.{0,80}\b(?:dense|dichte[nms]?)\b|"
    r"\b(?:dense|dichte[nms]?)\b.{0,80}\b(?:moe|mixture[\s-]of[\s-]experts)\b|"
    r"(?:^\W*|[.?!;:]\s*)(?:what is|what's|what are|was ist|was sind|was bedeutet|what does)\b"
    r".{0,20}\b(?:busbw|algbw|phb|pix|pxb|sys|nv#|numa|nvswitch|mla|moe|awq|gptq|gguf|tensor\w*"
    r"[\s-]*parallel\w*|pipeline\w*[\s-]*parallel\w*)\b|"
    r"\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b.{0,30}\b(?:than|vs\.?|versus|als)\b"
    r".{0,10}\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b"
)
# concepts the guides explain about a model (not its sizing)
_CONCEPT_RX = re.compile(
    r"kv[\s-]*cache|\bactive\b|\baktive|expert|experten|\bmla\b|latent|quanti[sz]|format|"
    r"all-to-all|attention|router|routing|calibration|kalibrier|embedding|lm_head|scale|"
    r"add up|addier|zusammenzähl|summier|combine|\bpool|\b(?:act|work|behave)s? as (?:one|a single|"
    r"\d+ ?gb)|\bas one (?:big )?(?:card|gpu)|"
    r"\bmoe\b|mixture[\s-]of[\s-]experts|\bdense\b|\bdichte[nms]?\b|"
    r"param\w*\s+(?:per|pro|je)\s+token"
)
# intents a "what is ..." question still means literally
_LITERAL_INTENTS = ("price", "cheapest", "capacity", "allreduce", "tp_sync", "speed", "link_facts")

# price words other than "rent"/"mieten" (which also mean "which one should I take?")
_MONEY_RX = re.compile(
    r"\bcost|\bprice|\bpric|\bpreis|kostet|kosten\b|how much is|was kostet|per month|pro monat|"
    r"/month|/monat|monthly|monatlich|\$|usd|euro|€|" + _PAYS
)

_DOMAIN_RX = re.compile(
    r"gpu|vram|nvlink|nvswitch|pcie|sxm|cuda|modell?|model|llm|inferen|inference|train|\bkarte|card|"
    r"coding[\s-]?assist|code[\s-]?assist|copilot|chat\s?bot|\bki\b|\bai\b|"
    r"token|quant|awq|gptq|fp8|bf16|fp16|gguf|vllm|ollama|llama|server|knoten|node|"
    r"diffusion|render|blender|gpuserver|nvidia|a100|h100|h200|b200|rtx|l40|\bl4\b|memory|"
    r"speicher|parameter|\d+\s*b\b|moe|experts|konfigur|configur|interconnect|topolog|"
    r"all-?reduce|tensor|pipeline|mistral|qwen|deepseek|mixtral|flux|sdxl|guide|price|preis|"
    r"kost|cost|miete|rent|nvidia-smi|batch|context|kontext|throughput|durchsatz|"
    r"\btopo\b|\bphb\b|\bpix\b|\bpxb\b|\bnv\d+\b|\bnuma\b|nccl|busbw|algbw|p2p|kv[\s-]*cache|"
    # "einen eigenen KI-Assistenten auf eigener Hardware", "our own ChatGPT-like thing"
    r"\bki[\s-]?(?:assistent|modell|system|lösung|chat)|\bai[\s-]?(?:assistant|model|system|"
    r"chat)|chat[\s-]?gpt|chatbot|sprachmodell|language model|eigene[rn]? hardware|own hardware|"
    r"self[\s-]?host|selbst (?:hosten|betreiben)|on[\s-]?prem",
)

_INJECTION_RX = re.compile(
    r"ignore (?:all |any |the )?(?:previous|prior|above|earlier|your)|disregard|"
    # "forget the training, we'd just serve it" changes the job, it instructs nothing
    r"forget (?:all |your |everything|the (?!training|fine|lora|qlora|training\b))|ignoriere|"
    r"ignorier|vergiss(?! (?:das|den|die) (?:training|feintuning|fine))|missachte|you are now|"
    r"du bist (?:jetzt|nun|ab jetzt)|"
    r"system prompt|systemprompt|new instructions|neue anweisung|developer mode|jailbreak|"
    r"pretend|tu so als|act as|override|überschreib|the price is now|der preis ist (?:jetzt|ab "
    r"sofort|nun)|price is \$|preis ist \$|set the price|setze den preis|from now on|ab jetzt|"
    r"reveal your|zeige? deine? (?:anweisungen|instruktionen)|<\s*/?\s*system|\[inst\]|"
    r"###\s*instruction|as an admin|als admin",
)

# a link named with its generation: "NVLink 4", "PCIe Gen5", "PCIe 4.0", "Gen4"
_LINK_GENERATION_RX = re.compile(r"nvlink\s*[345]\b|(?:pcie|pci-e)?\s*gen\s*[345]\b|pcie\s*[345]")

_CHOICE_RX = re.compile(
    r"\b(?:pcie|nvlink|sxm)\s+it\s+is\b|\b(?:go|going|we'll go|let's go)\s+with\s+(?:the\s+)?"
    r"(?:pcie|nvlink|sxm)\b|\b(?:nehmen|nehme)\s+(?:wir|ich)\s+(?:\w+\s+){0,2}?(?:pcie|nvlink|sxm)"
    r"\b|\b(?:pcie|nvlink|sxm)\s+(?:also|dann|then)\b(?!\s*\?)|"
    # "Dann nehmen wir den, der passt": the node that fits, a reference, not a fit ask
    r"\b(?:den|die|das|the one)\s*,?\s*(?:der|die|das|that|which)\s+(?:passt|fits|geht|works)\b"
)
_FOLLOW_UP_RX = re.compile(
    # "ok and with 8 requests at once?", "gut, und in FP8?": an opening word, then the follow-up
    r"^\s*(?:(?:ok(?:ay)?|alright|right|gut|super|prima|danke|thanks)[\s,.!:-]+)?"
    r"(?:and|und|what about|wie (?:sieht es|ist es) (?:mit|bei)|how about|und wie|und was|und "
    r"bei|und auf|und mit|und in|and on|and in|and with|and for|und für|same|dasselbe|das gleiche|"
    r"gleiche|also|auch|instead|stattdessen|statt|or|oder)\b",
)


@dataclass(frozen=True)
class _Said:
    """What the intent rules read: the folded question, the same with the card names blanked,
    the entities found so far, and the link kinds of named configurations (from the catalog)."""

    folded: str
    no_cards: str
    u: Query
    link_kinds: Callable[[list[str]], set[str]]

    @property
    def names_cards(self) -> bool:
        return bool(self.u.cards or self.u.card_families)


#: the rules below correct the raw regex hits, in this order; each one reads the hits the ones
#: before it left
_HitRule = Callable[[dict[str, bool], _Said], None]


def _memory_bandwidth(hits: dict[str, bool], s: _Said) -> None:
    """The card's memory bandwidth, not the link's."""
    if (
        hits["link_facts"]
        and re.search(r"memory bandwidth|speicherbandbreite|hbm|vram bandwidth", s.folded)
        and not re.search(r"nvlink|pcie|interconnect|verbindung", s.folded)
    ):
        hits["link_facts"] = False


def _link_for_the_job(hits: dict[str, bool], s: _Said) -> None:
    """ "Is PCIe Gen4 a problem for tensor parallelism?" asks what the job needs."""
    if (
        hits["link_facts"]
        and {"tensor_parallel", "pipeline_parallel", "training", "fine_tuning", "traffic"}
        & set(s.u.workloads)
        and not re.search(
            r"bandwidth|bandbreite|how much faster|wie viel schneller|generation|"
            r"which link|welche verbindung",
            s.folded,
        )
    ):
        hits["link_facts"], hits["nvlink"] = False, True


def _allreduce_over_link(hits: dict[str, bool], s: _Said) -> None:
    """ "all-reduce over PCIe Gen4" asks for a time."""
    if hits["link_facts"] and re.search(r"all[\s-]*reduce|allreduce|gradient", s.folded):
        hits["link_facts"] = False


def _link_for_model(hits: dict[str, bool], s: _Said) -> None:
    """ "bandwidth for Llama on 4x A100" is about the model."""
    if (hits["link_facts"] or hits["tp_sync"]) and s.u.model:
        hits["link_facts"] = False


def _per_token_sync(hits: dict[str, bool], s: _Said) -> None:
    """Syncs per token are tensor parallelism's (a split model), not the training step's."""
    per_token_sync = re.search(
        r"(?:all-?reduces?|synchroni[sz]ations?|abgleiche|syncs?)\b.{0,20}"
        r"\b(?:pro|per) token|\blayers?\b.{0,60}\ball-?reduce",
        s.folded,
    )
    if hits["tp_sync"] and not (
        re.search(r"tensor|\btp\b|split|aufgeteilt|aufteil", s.folded) or per_token_sync
    ):
        hits["tp_sync"] = False
    if per_token_sync:
        hits["allreduce"] = False


# the least that does the job: "what gpu do I need for …", "welche Karte reicht für …"
_LEAST_NEEDED_RX = re.compile(
    r"\b(?:which|what)(?: kind of)? (?:gpus?|cards?|graphics cards?|nodes?|servers?) "
    r"(?:do|would|will|should) (?:i|we) need\b|"
    # "what would i need for llama 3.3 70b?", "was bräuchte ich für …?"
    r"^\W*what (?:would|do|will) (?:i|we) need (?:for|to run)\b|"
    r"^\W*was (?:bräuchte|brauche|brauchen|bräuchten) (?:ich|wir) (?:für|um)\b|"
    r"\b(?:which|what) (?:gpu|card|node|server) (?:is|would be) enough\b|"
    r"\bwelche[nrs]? (?:grafik)?(?:karten?|gpus?|knoten|server) (?:reicht|reichen|genügt|"
    r"brauche|brauchen|bräuchte)|"
    r"\bwas für (?:eine )?(?:grafik)?(?:karte|gpu) (?:brauch|reicht)"
)


def _least_needed(hits: dict[str, bool], s: _Said) -> None:
    """ "What GPU do I need for a 70B model?": the cheapest that holds it (with no model named
    it asks nothing to size: the models to pick from are offered)."""
    if s.u.has_subject and _LEAST_NEEDED_RX.search(s.folded):
        hits["cheapest"] = True


def _rent_which(hits: dict[str, bool], s: _Said) -> None:
    """ "Should I rent SXM for rendering?", "reicht eine 4090? will nicht mehrere Karten mieten"
    ask what to rent or whether it fits, not what it costs."""
    if not hits["price"] or _MONEY_RX.search(s.no_cards):
        return
    if hits["fit"] or ((hits["nvlink"] or s.u.workloads) and not s.u.configurations):
        hits["price"] = False


# "do H200s have NVLink?", "sind die per NVLink verbunden?": the verb beside the link word (not
# "i dont have the sheet open. … the sxm4 one")
_HAS_VERB = (
    r"(?:have|has|come with|comes with|connected|linked|use|uses|support|supports|hat|haben|"
    r"verbunden|nutzt|nutzen|unterstützt|unterstützen)"
)
_HAS_LINK_RX = re.compile(
    rf"\b{_HAS_VERB}\b[^.?!]{{0,40}}\b(?:nvlink|nvswitch|sxm\w*|pcie|link\w*)|"
    rf"\b(?:nvlink|nvswitch|sxm\w*|pcie|link\w*)\b[^.?!]{{0,40}}\b{_HAS_VERB}\b"
)


def _card_has_link(hits: dict[str, bool], s: _Said) -> None:
    """ "Do H200s have NVLink?": the fact about that card's node, not the general rule."""
    if (
        hits["nvlink"]
        and s.names_cards
        and not s.u.has_subject
        and not s.u.workloads
        and _HAS_LINK_RX.search(s.folded)
    ):
        hits["nvlink"], hits["link_facts"] = False, True


def _which_parallelism(hits: dict[str, bool], s: _Said) -> None:
    """Pipeline or tensor parallelism asks which link."""
    if {"pipeline_parallel", "tensor_parallel"} <= set(s.u.workloads) and not (
        hits["speed"] or hits["price"] or hits["cheapest"]
    ):
        hits["nvlink"] = True


def _gen4_or_gen5(hits: dict[str, bool], s: _Said) -> None:
    """ "2x RTX 4090 in the Gen4 chassis vs a Gen5 node": what link each really runs at."""
    if (
        s.names_cards
        and not s.u.has_subject
        and re.search(r"gen\s*4|pcie\s*4", s.folded)
        and re.search(r"gen\s*5|pcie\s*5", s.folded)
    ):
        hits["link_facts"] = True
        hits["speed"] = hits["nvlink"] = False


def _which_is_cheaper(hits: dict[str, bool], s: _Said) -> None:
    """ "Was ist günstiger: 4x A100 PCIe oder 4x A100 SXM4?" compares two prices."""
    if hits["cheapest"] and len(s.u.configurations) >= 2 and not s.u.has_subject:
        hits["cheapest"], hits["price"] = False, True


def _same_job_both_links(hits: dict[str, bool], s: _Said) -> None:
    """ "Is 4x A100 PCIe or 4x A100 SXM4 better for Llama 3.3 70B?": the same job both ways (two
    NVLink nodes, "8x H100 or 8x H200?", are a comparison, not a link question)."""
    configs = s.u.configurations
    if (
        len(configs) >= 2
        and s.u.has_subject
        and not any(hits[k] for k in ("price", "cheapest", "speed", "capacity", "allreduce"))
        and s.link_kinds(configs) == {"pcie", "nvlink"}
        and len({re.sub(r"^\d+x-|-(?:pcie|sxm\d?)(?:-gen4)?$", "", c) for c in configs}) == 1
    ):
        hits["nvlink"] = True


def _link_generation(hits: dict[str, bool], s: _Said) -> None:
    """ "A100 SXM4 mit NVLink 4?", "Is the L40S on PCIe Gen5?": the link that card runs."""
    if (
        s.names_cards
        and not s.u.has_subject
        and _LINK_GENERATION_RX.search(s.folded)
        and not any(hits[k] for k in ("allreduce", "price", "cheapest", "speed", "capacity"))
    ):
        hits["link_facts"], hits["nvlink"] = True, False


def _price_comparison(hits: dict[str, bool], s: _Said) -> None:
    """ "what's cheaper, 4x A100 PCIe or SXM4?" is a price comparison."""
    if hits["cheapest"] and hits["price"] and not s.u.has_subject and not s.u.workloads:
        hits["cheapest"] = bool(re.search(r"cheapest|günstigste|billigste", s.folded))


#: money words that pick the cheapest ("günstigste", "cheapest"), not the memory saved
_CHEAP_WORD_RX = re.compile(
    r"cheap|least (?:expensive|money|cost)|lowest (?:price|cost)|affordable|günstig|billig|"
    r"preiswert|kostengünstig|budget|geld|money|\$|€|usd|eur"
)


def _kv_saving(hits: dict[str, bool], s: _Said) -> None:
    """ "wie viel würden wir sparen, wenn wir den KV-Cache in FP8 halten?": memory saved by the
    KV cache's precision, not the cheapest node."""
    if (
        hits["cheapest"]
        and re.search(r"kv[\s-]*cache", s.folded)
        and not _CHEAP_WORD_RX.search(s.folded)
    ):
        hits["cheapest"] = False


_HIT_RULES: tuple[_HitRule, ...] = (
    _kv_saving,
    _memory_bandwidth,
    _link_for_the_job,
    _allreduce_over_link,
    _link_for_model,
    _per_token_sync,
    _rent_which,
    _least_needed,
    _card_has_link,
    _which_parallelism,
    _gen4_or_gen5,
    _which_is_cheaper,
    _same_job_both_links,
    _link_generation,
    _price_comparison,
)

#: the intents in the order they are answered (fit comes after them)
_ORDER: tuple[Intent, ...] = (
    "tp_sync",
    "link_facts",
    "capacity",
    "cheapest",
    "price",
    "allreduce",
    "topology_howto",
    "nvlink",
    "speed",
)


def _without_card_names(folded: str) -> str:
    """ "8x H100 SXM5" names a card, it doesn't ask about the interconnect: the names blanked."""
    no_cards = folded
    for start, end, _cid in reversed(_find_cards(folded)):
        # "A100 80GB (the PCIe one)": the variant said of the card is part of its name
        said = attached_variant(folded, end)
        end = said.end() if said else end
        no_cards = no_cards[:start] + " gpu " + no_cards[end:]
    return re.sub(r"\b\d+x-[a-z0-9-]+\b", " gpu ", no_cards)


def _in_domain(folded: str, u: Query) -> bool:
    return (
        bool(_DOMAIN_RX.search(folded))
        or u.has_subject
        or bool(u.cards or u.card_families)
        or bool(u.workloads)
    )


def _drop_unasked(intents: list[Intent], folded: str, u: Query) -> list[Intent]:
    """ "how do I check the topology" vs "check whether Llama fits": a model means fit; an
    all-reduce without training or its words is not asked."""
    if (
        "topology_howto" in intents
        and u.has_subject
        and not re.search(r"topolog|nvidia-smi|nvlink|topo", folded)
    ):
        intents.remove("topology_howto")
    if (
        "allreduce" in intents
        and not {"training", "fine_tuning"} & set(u.workloads)
        and not re.search(
            r"all[\s-]*reduce|allreduce|nccl|busbw|abgleich|trainingsschritt|gradient", folded
        )
    ):
        intents.remove("allreduce")
    return intents


class IntentMixin:
    """`Understander._intents`: which questions the text asks, primary first."""

    catalog: object

    def _link_kinds(self, configurations: list[str]) -> set[str]:
        """The link kinds ("nvlink", "pcie") of the named configurations the catalog has."""
        configs = getattr(self.catalog, "configurations", None) or {}
        links = getattr(self.catalog, "links", None) or {}
        kinds: set[str] = set()
        for cid in configurations:
            cfg = configs.get(cid)
            link = links.get(cfg.interconnect) if cfg is not None else None
            if link is not None:
                kinds.add(str(link.kind))
        return kinds

    def _intents(self, folded: str, u: Query) -> list[Intent]:
        intents: list[Intent] = []
        if u.nccl_text is not None:
            intents.append("allreduce_paste")
        if u.topo_text is not None:
            intents.append("topology_paste")
        # "ok, PCIe it is. how fast …?": a choice between the nodes talked about, not a link ask
        no_cards = _CHOICE_RX.sub(" ", _without_card_names(without_link_exclusion(folded)))
        hits = {k: bool(rx.search(no_cards)) for k, rx in _INTENT_RX.items()}
        if not _in_domain(folded, u) and not intents:
            # off topic on its own; in a conversation "how fast?" / "what does it cost?" still
            # says what it asks, after the off_topic marker
            sizing: tuple[Intent, ...] = ("cheapest", "price", "speed", "nvlink", "capacity")
            return ["off_topic", *(i for i in sizing if hits[i])]
        said = _Said(folded, no_cards, u, self._link_kinds)
        for rule in _HIT_RULES:
            rule(hits, said)
        intents += [i for i in _ORDER if hits[i]]
        u.asks_fit = bool(hits["fit"] or _RUNS_RX.search(folded))
        if hits["fit"] or (u.has_subject and not intents):
            intents.append("fit")
        intents = _drop_unasked(intents, folded, u)
        # de-duplicate, keep order
        return list(dict.fromkeys(intents or ["general"]))
