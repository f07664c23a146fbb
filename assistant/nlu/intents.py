"""Intent scoring and selection; the explain, injection, follow-up and off-topic signals."""

from __future__ import annotations

import re

from assistant.nlu.lexicon import _find_cards
from assistant.nlu.query import Intent, Query

# --------------------------------------------------------------------------- intents

_INTENT_RX: dict[str, re.Pattern[str]] = {
    k: re.compile(v)
    for k, v in {
        "capacity": r"how many (?:concurrent |parallel |simultaneous )?(?:[\d.,]+\s*k?[\s-]*"
        r"(?:tokens?[\s-]*)?)?(?:users|sequences|requests|streams|sessions|conversations|chats|"
        r"people|persons|clients|customers)|"
        r"wie viele (?:gleichzeitige[n]? |parallele[n]? )?(?:[\d.,]+\s*k?[\s-]*(?:token[\s-]*)?)?"
        r"(?:nutzer|anfragen|sequenzen|streams|user|sitzungen|chats|gespräche|unterhaltungen|"
        r"leute|personen|kunden)|"
        # people at once: "how many people could chat on it at the same time"
        r"how many (?:people|persons|users|folks|clients|customers|chats|colleagues)\b.{0,60}"
        r"(?:at (?:the same|one|once) time|at once|simultaneous|concurrent|in parallel|parallel)|"
        r"wie viele (?:leute|personen|menschen|nutzer\w*|user|kunden|kollegen|chats|gespräche)\b"
        r".{0,60}(?:gleichzeitig|parallel|zur (?:gleichen|selben) zeit|auf einmal)|"
        r"max(?:imum|imal)?(?:e|en)? "
        r"(?:context|kontext)|longest context|längste[nr]? kontext|"
        r"wie (?:viel|lang)\w*\b.{0,24}kontext|how (?:much|long)\b.{0,24}context|kontextlänge|"
        r"context length|kv[\s-]*cache (?:room|platz)",
        "cheapest": r"cheapest|least (?:expensive|money|cost)|lowest (?:price|cost)|"
        r"most affordable|"
        r"(?:for|with) (?:the )?(?:little|less|least) money|am wenigsten (?:geld|kosten)|"
        r"(?:für|mit) (?:möglichst )?wenig geld|möglichst (?:günstig|billig)|günstigste|"
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
        r"\bgen\s*[345]\s*(?:card|karte|gpu|slot|device)|"
        r"which link|what link|welche verbindung|welcher link|which interconnect|welcher "
        r"interconnect|gb/s|how fast is (?:nvlink|pcie)|wie schnell ist (?:nvlink|pcie)",
        "tp_sync": r"synchroni[sz]ations?|abgleiche|all-?reduces? per token|syncs? per token|"
        r"pro token|per token",
        "nvlink": r"nvlink|nvswitch|\bsxm|interconnect|verbindung zwischen|\bpcie\b|pci-e|"
        r"pci express|bridge|brücke|\bnv\d|link between|karten verbind",
        "speed": r"tokens?\s*(?:/|pro|per|a|je|in der|in a)\s*(?:s\b|sec\w*|sekunde)|tok/s|\bt/s|"
        r"how (?:fast|quick\w*|snappy|speedy)|wie (?:schnell|flott|zügig|fix)|"
        r"\bquick(?:ly)?\b.{0,30}\b(?:run|generat|answer|respond)|"
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
#: "läuft X darauf?", "does it run there?": asks whether it fits, like "passt"
_RUNS_RX = re.compile(r"\b(?:läuft|laufen|runs?|geht)\b")

_EXPLAIN_RX = re.compile(
    r"^\W*(?:why|warum|wieso|weshalb)\b|\bwhat happens\b|\bwas passiert\b|"
    r"\bdifference between\b|\bunterschied(?:e)? zwischen\b|\bhow does .{0,40}\bwork|"
    r"\bwie funktionier|\bexplain\b|\berklär|\bactive param|\baktive[n]? param|"
    r"\b(?:support|unterstütz)\w*\b.{0,20}\bfp8|\bfp8\b.{0,20}\b(?:support|unterstütz)|"
    r"\badd up\b|\baddier|\bzusammenzähl|\breally reach|\bin practice\b|\btatsächlich\b|"
    r"\b(?:act|work|behave)s? as (?:one|a single|\d+ ?gb)|\bas one (?:big )?(?:card|gpu)|"
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
    r"\b(?:moe|mixture[\s-]of[\s-]experts)\b.{0,80}\b(?:dense|dichte[nms]?)\b|"
    r"\b(?:dense|dichte[nms]?)\b.{0,80}\b(?:moe|mixture[\s-]of[\s-]experts)\b|"
    r"^\W*(?:what is|what's|what are|was ist|was sind|was bedeutet|what does)\b.{0,20}"
    r"\b(?:busbw|algbw|phb|pix|pxb|sys|nv#|numa|nvswitch|mla|moe|awq|gptq|gguf)\b|"
    r"\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b.{0,30}\b(?:than|vs\.?|versus|als)\b"
    r".{0,10}\b(?:fp8|bf16|fp16|awq|gptq|int8|int4|4-bit|gguf)\b"
)
# concepts the guides explain about a model (not its sizing)
_CONCEPT_RX = re.compile(
    r"kv[\s-]*cache|\bactive\b|\baktive|expert|experten|\bmla\b|latent|quanti[sz]|format|"
    r"all-to-all|attention|router|routing|calibration|kalibrier|embedding|lm_head|scale|"
    r"add up|addier|zusammenzähl|summier|combine|\bpool|\b(?:act|work|behave)s? as (?:one|a single|"
    r"\d+ ?gb)|\bas one (?:big )?(?:card|gpu)|"
    r"\bmoe\b|mixture[\s-]of[\s-]experts|\bdense\b|\bdichte[nms]?\b"
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
    r"\btopo\b|\bphb\b|\bpix\b|\bpxb\b|\bnv\d+\b|\bnuma\b|nccl|busbw|algbw|p2p|kv[\s-]*cache",
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

# a link named with its generation: "NVLink 4", "PCIe Gen5", "PCIe 4.0", "Gen4"
_LINK_GENERATION_RX = re.compile(r"nvlink\s*[345]\b|(?:pcie|pci-e)?\s*gen\s*[345]\b|pcie\s*[345]")

_FOLLOW_UP_RX = re.compile(
    r"^\s*(?:and|und|what about|wie (?:sieht es|ist es) (?:mit|bei)|how about|und wie|und was|und "
    r"bei|und auf|und mit|und in|and on|and in|and with|and for|und für|same|dasselbe|das gleiche|"
    r"gleiche|also|auch|instead|stattdessen|statt|or|oder)\b",
)


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

    def _intents(self, folded: str, u: Query) -> list[Intent]:  # noqa: C901
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
            and self._link_kinds(u.configurations) == {"pcie", "nvlink"}
            and len(
                {re.sub(r"^\d+x-|-(?:pcie|sxm\d?)(?:-gen4)?$", "", c) for c in u.configurations}
            )
            == 1
        ):
            # "Is 4x A100 PCIe or 4x A100 SXM4 better for Llama 3.3 70B?": the same job both ways
            # (two NVLink nodes, "8x H100 or 8x H200?", are a comparison, not a link question)
            hits["nvlink"] = True
        if (
            (u.cards or u.card_families)
            and not u.has_subject
            and _LINK_GENERATION_RX.search(folded)
            and not any(hits[k] for k in ("allreduce", "price", "cheapest", "speed", "capacity"))
        ):
            # "A100 SXM4 mit NVLink 4?", "Is the L40S on PCIe Gen5?": the link that card runs
            hits["link_facts"], hits["nvlink"] = True, False
        if hits["cheapest"] and hits["price"] and not u.has_subject and not u.workloads:
            # "what's cheaper, 4x A100 PCIe or SXM4?" is a price comparison
            hits["cheapest"] = bool(re.search(r"cheapest|günstigste|billigste", folded))
        for intent in order:
            if hits[intent]:
                intents.append(intent)
        u.asks_fit = bool(hits["fit"] or _RUNS_RX.search(folded))
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
