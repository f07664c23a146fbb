"""`Understander`: indexes the catalog once; `understand()` runs the finders in order and
sets the explain flag."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from assistant.language import Language
from assistant.nlu import constraints
from assistant.nlu.asks import _SPEED_RX as SPEED_RX
from assistant.nlu.asks import BARE_K_RX, MEMORY_ASK_RX, find_asks
from assistant.nlu.entities import EntityMixin
from assistant.nlu.intents import (
    _CONCEPT_RX,
    _EXPLAIN_RX,
    _FOLLOW_UP_RX,
    _INJECTION_RX,
    _LITERAL_INTENTS,
    _STRONG_EXPLAIN_RX,
    IntentMixin,
)
from assistant.nlu.language import detect_language
from assistant.nlu.lexicon import (
    _FAMILY_RX,
    _find_cards,
    _fold,
    _norm_alias,
    spell_sizes,
    topo_prose,
)
from assistant.nlu.mail import what_is_asked
from assistant.nlu.neighbours import Neighbours
from assistant.nlu.query import CARD_FAMILIES, Query
from assistant.nlu.scope import find_outside
from assistant.nlu.topics import cue_topics, find_topics
from assistant.nlu.typos import correct_typos, expand_shorthand
from assistant.nlu.workloads import LOAD_DECIDED, WorkloadMixin
from assistant.spelled import spelled_counts
from tools.load import concurrent_sequences, traffic_of

LOW = "low_concurrency"

_NCCL_RX = re.compile(r"all_reduce_perf|avg bus bandwidth|#\s+size\s+count\s+type|busbw\s+#wrong")
# a result row of all_reduce_perf (size count type redop root time algbw busbw ...) or its summary
_NCCL_TABLE_RX = re.compile(
    r"^\s*\d+\s+\d+\s+(?:float|half|bfloat16|double|int\w*)\s|#\s*avg bus bandwidth\s*:",
    re.M,
)
_TOPO_RX = re.compile(
    r"gpu0\s.*\n.*gpu1|(?:^|\s)(?:nv\d+|sys|pix|phb|pxb|node)\s+(?:nv\d+|sys|pix|"
    r"phb|pxb|node|x)\s",
    re.S,
)


# questions whose reading is kept (a Query is a few KB; the cache starts over when full)
UNDERSTOOD_CACHE_SIZE = 1024


# an all_reduce_perf result row ("1048576  262144  float  sum  -1 …"), not prose that starts with
# a count ("4x A100 SXM4 bei uns …")
_RESULT_ROW_RX = re.compile(r"\s*\d+\s+\d+\s+[a-z]\w*\s+[a-z]\w*\s+-?\d")


_LINK_WORDS_RX = re.compile(r"nvlink|nvswitch|\bsxm|\bpcie\b|interconnect")


def _kv_size_asked(prose: str, u: Query) -> bool:
    """The KV cache's size asked of a model, with no link named and no other ask leading."""
    if not u.has_subject or u.intents[:1] in (["fit"], ["capacity"], ["speed"]):
        return False
    return "kv_cache_size" in cue_topics(prose) and not _LINK_WORDS_RX.search(prose)


def _figures_per_precision(prose: str, u: Query) -> bool:
    """A model's memory asked in each of two formats ("Qwen 72B: AWQ vs GGUF Q4_K_M – how much
    memory in each?") or with each of two KV-cache precisions: figures, not an explanation."""
    if not u.has_subject:
        return False
    return len(u.kv_precisions) >= 2 or bool(len(u.precisions) >= 2 and MEMORY_ASK_RX.search(prose))


_DESCRIBED_CHEAPER_RX = re.compile(
    r"\b(the|die|der|das|den|dem)\s+(?:cheaper|less expensive|lower[\s-]priced|"
    r"günstiger\w*|billiger\w*|preiswerter\w*)(?:\s+(?:one|option|node|variante))?\s+"
    r"(with|mit)\s+(?=(?:\w+\s+){0,1}(?:\d|one|two|four|eight|zwei|vier|acht|einer|a\b|an\b))"
)


#: "which server?", "welcher Knoten passt?", "what box should we rent?": a pick asked
_WHICH_NODE_RX = re.compile(
    r"\b(?:which|what|welche[nrs]?)\s+(?:\w+\s+)?(?:server|node|box|machine|config\w*|setup|"
    r"knoten|maschine|konfiguration|instan[cz]e?)\b|"
    # "was brauchen wir da für einen Server?", "what kind of server do we need?"
    r"\bwas\s+(?:\w+\s+){0,3}?für\s+(?:einen?\s+|eine\s+)?(?:server|knoten|maschine|gpu|"
    r"karte|setup|konfiguration)\b|"
    r"\bwhat\s+(?:kind|sort|type)\s+of\s+(?:server|node|box|machine|gpu|card|setup)\b|"
    # "… 10 gleichzeitig am Chatten. Was brauchen wir da?", "what do we need for that?"
    r"\bwas\s+(?:brauchen|bräuchten|benötigen|nehmen)\s+(?:wir|ich)(?:\s+(?:da|dafür|dann))?\s*\?|"
    r"\bwhat\s+(?:do|would|should)\s+(?:we|i)\s+(?:need|get|take)(?:\s+(?:for\s+(?:that|this)|"
    r"then))?\s*\?"
)


def _primary_intent(prose: str, u: Query) -> None:
    """The intent the question leads with, where its words outrank the intents' order."""
    hardware = u.cards or u.card_families or u.configurations
    which_node = _WHICH_NODE_RX.search(prose) and u.intents[:1] in (["fit"], ["general"])
    load = u.concurrency or u.users or u.constraints.active()
    if which_node and load and u.has_subject and not hardware:
        # "model qwen3 14b fp8, 15 at once. which server?": the pick for that job (without a
        # load, "which node holds X?" is the fit, which says where it fits and why)
        u.intents = ["cheapest", *(i for i in u.intents if i != "cheapest")]
    if u.claim == "faster" and "speed" in u.intents and u.intents[:1] == ["nvlink"]:
        # "is the sxm5 one much faster?": the speeds compared, not whether NVLink is needed
        u.intents = ["speed", *(i for i in u.intents if i != "speed")]


def _budget_enough(u: Query) -> bool:
    """A model, a budget, no hardware, and only whether it fits asked ("reicht das für …?"):
    whether anything within the budget holds it, the cheapest pick's question."""
    hardware = u.cards or u.card_families or u.configurations
    return bool(
        set(u.intents) <= {"fit", "price"}
        and "fit" in u.intents
        and u.constraints.budget_usd_month
        and u.has_subject
        and not hardware
        and not {"training", "fine_tuning"} & set(u.workloads)
    )


class Understander(EntityMixin, WorkloadMixin, IntentMixin):
    """Deterministic NLU over one catalog (model aliases indexed once)."""

    def __init__(self, catalog: Any = None, neighbours: Neighbours | None = None) -> None:
        self.catalog = catalog
        self.neighbours = neighbours
        self._aliases: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._max_alias_tokens = 6
        self._configs: set[str] = set()
        self._understood: dict[tuple[str, Language | None], Query] = {}
        if catalog is not None:
            for model in _iter_models(catalog):
                mid = str(getattr(model, "id", ""))
                self._names[mid] = str(getattr(model, "name", mid))
                said = [mid, getattr(model, "name", ""), *(getattr(model, "aliases", []) or [])]
                # a repository "org/Name" is also said without its organisation
                # ("Mistral-Small-24B-Instruct-2501" for mistralai/…)
                repos = [str(a).split("/", 1)[1] for a in said if "/" in str(a)]
                for alias in [*said, *repos]:
                    key = _norm_alias(str(alias))
                    if len(key) >= 3:
                        self._aliases.setdefault(key, mid)
            self._configs = set(getattr(catalog, "configurations", {}) or {})

    # ------------------------------------------------------------------ public

    def understand(self, question: str, language: Language | None = None) -> Query:
        """The question, understood (a deterministic function of the question, the language
        asked for and the catalog: a repeated question is read once, and each caller gets its
        own copy to change; a reading made while the neighbours were unavailable is not kept)."""
        key = (question, language)
        known = self._understood.get(key)
        if known is None:
            failures = getattr(self.neighbours, "failures", 0)
            known = self._understand(question, language)
            if getattr(self.neighbours, "failures", 0) != failures:
                return known  # read without the neighbours (their embedder failed): not kept
            if len(self._understood) >= UNDERSTOOD_CACHE_SIZE:
                self._understood.clear()
            self._understood[key] = known
        return _own_copy(known)

    def _understand(self, question: str, language: Language | None) -> Query:
        text = _WRAPPED_QUOTE_RX.sub(" ", what_is_asked(question.strip()))
        lang, detected = detect_language(text)
        corrected = expand_shorthand(correct_typos(_fold(text)))
        if corrected != _fold(text):
            text = corrected  # "nvlnk", "lama": read as the domain words they misspell
        text = spell_sizes(text)  # "thirteen billion parameters": 13 billion
        if language is not None:
            lang, detected = language, True
        folded = _fold(text)
        u = Query(question=question, language=lang, language_detected=detected)

        asked = what_is_asked(question.strip())  # as pasted: no case folding, no typo fixes
        if _NCCL_RX.search(folded) and _NCCL_TABLE_RX.search(folded):
            u.nccl_text = asked  # pasted output; a figure named in prose is a measurement
        elif _TOPO_RX.search(folded):
            u.topo_text = asked
        u.injection = bool(_INJECTION_RX.search(folded))
        u.follow_up = bool(_FOLLOW_UP_RX.search(folded)) and len(folded) < 80

        # "moved from 4x A100 PCIe to our 8x A100 SXM4", "switching our Mistral 7B bot to OLMo 2
        # 13B": what is left behind is not what is asked about
        text, folded = _left_behind_blanked(text, folded)
        # the topology matrix is not prose: don't mine it for cards or models
        prose = folded if u.topo_text is None else topo_prose(folded)
        prose = _smi_table_said(prose)  # a pasted nvidia-smi: "2x nvidia l40s"
        if u.nccl_text is not None:
            prose = "\n".join(
                ln
                for ln in folded.splitlines()
                if not ln.lstrip().startswith("#") and not _RESULT_ROW_RX.match(ln)
            )

        self._find_model(_sizes_in_words(text), prose, u)
        self._corrected_model(prose, u)
        self._find_precision(prose, u)
        self._find_cards_and_counts(prose, u)
        _split_said(prose, u)
        self._find_workloads(prose, u)
        self._find_context_and_concurrency(prose, u)
        constraints.find_all(prose, u)
        self._pair_of_links(u)
        self._changed_setup(prose, u)
        _load_from_counts(u)
        prose = self._asked_text(prose, u)  # the ask, without an out-of-scope goal's clauses
        u.full_context = u.context_tokens is None and bool(
            re.search(
                r"(?:full|maximum|max\.?|whole|entire|complete|native|longest) context|"
                r"(?:vollen?|vollem|volle[rs]?|vollständige[nmr]?|komplette[nmr]?|gesamte[nmr]?|"
                r"maximale[nm]?|ganzen?|längste[nm]?) kontext",
                prose,
            )
        )
        # "and the cheaper one with 4 L4s?": "cheaper" describes the node it names, it asks no
        # cheapest pick (the follow-up asks what the turn before asked, of that node)
        prose = _DESCRIBED_CHEAPER_RX.sub(r"\1 one \2", prose)
        u.intents = self._intents(prose, u) if prose.strip() else []
        if _budget_enough(u):
            u.intents = ["cheapest"]  # "hab so 1000 dollar im monat, reicht das für qwen 32b?"
        _primary_intent(prose, u)
        if u.output_tokens and u.intents[:1] in (["fit"], ["general"], ["price"], []):
            # "5000 Beschreibungen à 200 Token … wie lange dauert das?": a batch timed is a
            # speed ask, however the words around it are ordered ("… and what does that time
            # on the box cost us?": the speed answer prices the batch's time)
            u.intents = ["speed", *(i for i in u.intents if i != "speed")]
        if u.outside:
            u.intents = ["off_topic", *(i for i in u.intents if i != "off_topic")]
        two_links = len(re.findall(r"nvlink\s*\d|pcie\s*(?:gen\s*)?\d|\bgen\s*\d", prose)) >= 2
        # "why does Llama 3.3 70B not fit on one H100?" is best answered with the sizing itself;
        # "why does DeepSeek V3 need so little KV cache?" asks about a concept of the model
        sizing_about_model = (
            u.has_subject
            and any(i in ("fit", "nvlink", "speed", "cheapest") for i in u.intents)
            and not _CONCEPT_RX.search(prose)
        ) or _figures_per_precision(prose, u)
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
        self._ask_neighbours(u)
        if _kv_size_asked(prose, u):
            # "how big does the KV cache get for X at 120k?": its size, answered with the fit's
            # figures (not a neighbour's guess such as the link)
            u.intents = ["fit", *(i for i in u.intents if i not in ("fit", "nvlink"))]
        if u.explain and "off_topic" in u.intents and re.search(r"nccl|busbw|algbw", prose):
            u.intents = ["general"]
        find_asks(prose, u)
        _setup_asks_nothing(prose, u)
        find_topics(u)
        if "recommend" in u.topics and u.intents == ["general"] and not u.explain:
            u.intents = ["fit"]  # "Welchen Server müssten wir mieten?": what to rent, sized
        _complaint_beside_paste(prose, u)
        if constraints.asks_if_healthy(u, u.intents):
            u.claim = "healthy"  # "er will wissen, ob das so normal ist": is the node healthy?
        return u

    def _changed_setup(self, prose: str, u: Query) -> None:
        """ "We run Llama 3.1 8B on one L4 (8k context). Want to bump it to 32k, does it still
        fit?", "wir haben Qwen 32B in BF16 auf 2x L40S laufen. Wenn wir auf FP8 umstellen,
        reicht dann eine L40S?": the setup said first is today's; what the rest says of the
        precision, the context, the load and the hardware is what is asked about (what it leaves
        out, "auf derselben Karte", stays today's)."""
        change = after_setup(prose)
        if change is None:
            return
        v = Query(question=u.question, language=u.language)
        self._find_model(change, change, v)
        if v.model is not None and v.model != u.model:
            # "… wan 2.1 1.3b on a 4090 right now. want to step up to wan 2.1 14b": the new one
            u.model, u.model_mention, u.models = v.model, v.model_mention, [v.model]
            if not (_find_cards(change) or _SAME_HARDWARE_RX.search(change)):
                # "today we run Llama 8B on a 4090 … move to Llama 70B: the cheapest server?":
                # today's card is not where the new model is asked about
                u.cards, u.card_families, u.configurations, u.count = [], [], [], None
        if u.claim == "defect" and not _COMPLAINT_RX.search(change):
            u.claim = None  # "… which is getting too slow" said of today's setup
        self._find_precision(change, v)
        self._find_cards_and_counts(change, v)
        self._find_context_and_concurrency(change, v)
        v.concurrency = v.concurrency or constraints.find_people_at_once(change)
        bare = BARE_K_RX.search(change) if u.context_tokens and not v.context_tokens else None
        if bare:  # "… (8k context). we'd like to go to 16k": the context, said bare
            v.context_tokens = int(bare.group(1)) * 1024
        if v.precision is not None:
            u.precision, u.precisions = v.precision, list(v.precisions)
            if u.runtime == "llama.cpp" and not _LLAMA_CPP_RX.search(change):
                u.runtime = None  # "… als GGUF Q4 lokal … dann in BF16": today's runtime
        if v.context_tokens is not None:
            u.context_tokens = v.context_tokens
        if v.concurrency is not None and v.concurrency != u.concurrency:
            u.concurrency = v.concurrency
            u.workloads = [w for w in u.workloads if w not in ("traffic", "low_concurrency")]
            load = traffic_of(v.concurrency)
            if load:
                u.workloads.append(load)  # type: ignore[arg-type]
        kept = [c for c in u.configurations if c not in v.configurations]
        # ("… switching to the 4x A100 SXM4. How much more per month would that be?")
        compared = u.claim in ("faster", "cheaper", "costlier") or (
            "difference_asked" in cue_topics(change)
        )
        if compared and v.configurations and kept:
            # "… auf eine H100 PCIe wechseln: ist die deutlich schneller?": the new against today's
            u.configurations = [*v.configurations, *kept]
            return
        if not _other_hardware(v, u):
            return
        u.cards, u.card_families = list(v.cards), list(v.card_families)
        u.configurations, u.count = list(v.configurations), v.count

    def _asked_text(self, prose: str, u: Query) -> str:
        """What the question asks within the domain: the prose without the clauses that ask
        for an out-of-scope goal (`Query.outside`, assistant/nlu/scope.py; the entities are
        blanked before the goals are read). Intents, the explain flag and the asks are read from
        it; the entities stay those of the whole question."""
        spans = [(s, e) for s, e, _cid in _find_cards(prose)]
        spans += [m.span() for c in u.configurations for m in re.finditer(re.escape(c), prose)]
        mention = (u.model_mention or "").lower()
        if mention:
            spans += [m.span() for m in re.finditer(re.escape(mention), prose)]
        u.outside, rest = find_outside(prose, spans, sizing=u.has_subject)
        if u.outside:
            u.asked_text = rest
        # "they said they do not care about price for now": the price is not asked; "forget the
        # nvlink": the link dropped is not asked about
        rest = _PRICE_NOT_ASKED_RX.sub(lambda m: " " * len(m.group(0)), rest)
        return constraints.DROPPED_RX.sub(lambda m: " " * len(m.group(0)), rest)

    def _pair_of_links(self, u: Query) -> None:
        """ "vier A100 mit NVLink und vier A100 PCIe": an NVLink card and a PCIe card named side
        by side are the two compared; "mit NVLink" names one of them, it requires nothing."""
        configs = getattr(self.catalog, "configurations", None) or {}
        named = [c.id for c in configs.values() if c.gpu in u.cards]
        if u.constraints.require_link == "nvlink" and self._link_kinds(named) == {"nvlink", "pcie"}:
            u.constraints.require_link = None

    def _ask_neighbours(self, u: Query) -> None:
        """Where the keyword intents fall back to a catch-all, the nearest paraphrases decide."""
        if u.explain or u.nccl_text or u.topo_text or u.intent not in NEIGHBOUR_ARBITRATED:
            return
        if self.neighbours is None:
            return
        winner = self.neighbours.decide(u.question, u.intent)
        if winner is not None:
            u.intents = [winner, *(i for i in u.intents if i != winner)]  # type: ignore[list-item]


# a quoted e-mail wrapped mid-sentence ("Reicht dafür eine einzelne\n> A100 80GB (PCIe)?"): one
# line of prose (no tabs or column gaps, as a pasted table has)
# today's setup, said as a statement first: "we run X on one L4", "X runs fine on our A100",
# "wir haben X auf 2x L40S laufen", "wir serven X auf einer L40S", "currently …", "bisher …"
_SETUP_RX = re.compile(
    r"\b(?:we|wir|i|ich|they|sie|er|kunde|der kunde|customer|the customer|client)\s+"
    r"(?:currently\s+|aktuell\s+|derzeit\s+|gerade\s+)?(?:run|runs|are running|'re running|"
    r"have|has|haben|hat|"
    r"nutzen|nutzt|betreiben|betreibt|serven|serve|serves|hosten|host|hosts|use|uses|are using|"
    r"'re using|fahren|lassen)\b|\bruns?\b[^.?!\n]{0,40}\b(?:on our|on my)\b|"
    r"\bläuft\b[^.?!\n]{0,40}\b(?:bei uns|auf unsere[rmn]?)\b|"
    r"\b(?:our|my|unser\w*)\b[^.?!\n]{0,40}\b(?:runs|läuft)\b|"
    r"\b(?:currently|aktuell|derzeit|bisher|today|heute|right now|im moment|so far)\b"
)
# what the rest asks is a change: "bump it to", "now it's going to be", "wenn wir … umstellen"
_CHANGE_RX = re.compile(
    r"\b(?:bump|increase|raise|erhöh\w*|going to be|will be|is becoming|switch\w*|move|moving|"
    r"umstell\w*|umsteig\w*|wechsel\w*|instead|statt\w*|now|jetzt|nun|künftig|soon|"
    r"demnächst|bald|next|want to|wollen|möchten|would like|'d like|like to|go to|going to|"
    r"if we|if i|wenn wir|wenn ich|falls wir|falls ich|add|more|mehr|need|brauchen|bräuchten|"
    r"should|sollen|soll|rent|renting|mieten|would|could|würde|könnte)\b"
)
# (a change said in the setup's own sentence: "they run X in FP8 today and want to go back to
# BF16", "wir haben X laufen und wollen auf FP8 umstellen")
_SENTENCE_RX = re.compile(
    r"(?:(?!\s+(?:and|but|und|aber)\s+(?:now\s+|jetzt\s+)?(?:want|wants|would like|plan|plans|"
    r"need|needs|wollen|will|möchten|planen|müssen)\b)[^\n.!?]|\.(?=\d))+[.!?]*"
)


# a move from something to something else, in one sentence: the "from" side is left behind
_MOVE_RX = re.compile(
    r"\b(?:mov\w*|switch\w*|migrat\w*|upgrad\w*|downgrad\w*|"
    r"umgezogen|umzieh\w*|zieh\w*|wechsel\w*|gewechselt|umsteig\w*|umgestiegen|umstell\w*|"
    r"umgestellt|runter|hoch|replac\w*|ersetz\w*)\b|"
    # ("wir gehen von …", "go from …": right before it; "geht LoRA von X auf Y?" moves nothing)
    r"\b(?:go|going|gehen|gegangen)\s+(?:\w+\s+)?$"
)
# said after the new side: "von 4x A100 PCIe auf unseren 8x A100 SXM4 umgezogen", "… zieht um"
# (not "geht das?": "LoRA von Mistral 7B auf einer 4090, geht das?" moves nothing)
_MOVED_AFTER_RX = re.compile(
    r"\b(?:umgezogen|umziehen|zieht\w* um|gewechselt|wechseln|umgestiegen|umsteigen|umgestellt|"
    r"umstellen|migrier\w*|moved|switched|migrated|upgraded|downgraded|runter|hoch)\b"
)
_FROM_TO_RX = re.compile(
    r"\b(?:from|von)\s+(?P<old>(?:[^.?!:;\n]|\.(?=\d)){2,40}?)\s+(?:to|onto|auf|zu|nach)\s+\S"
)
# "switching our mistral 7b bot to OLMo 2 13B": the own thing switched, then "to"
_SWITCH_TO_RX = re.compile(
    r"\b(?:switch\w*|mov\w*|migrat\w*|upgrad\w*)\s+(?P<old>(?:our|my|the|unser\w*)\s"
    r"(?:[^.?!:;\n]|\.(?=\d)){2,40}?)\s+(?:to|onto)\s+\S"
)
# "von Llama 3.3 70B auf 2x A100 PCIe runter auf Qwen3 30B": the setup left is both
_FURTHER_RX = re.compile(
    r"^(?:[^.?!\n]|\.(?=\d)){0,40}?\b(?:runter|hoch|down|rüber)\s+(?:auf|to|onto|zu)\s+"
)


#: the part of a setup a switch changes, not the setup left behind
_PART_SWITCHED_RX = re.compile(r"\bkv\b|key[\s-]*value|\bcache\b|\bweights\b|\bgewichte\b")


def old_side_blanked(folded: str) -> str:
    """The question with the side a move leaves behind blanked out (spaces, so positions hold):
    "from a 4x A100 PCIe box to our 4x H100 SXM5 node", "von 8k auf 32k", "switching our
    Mistral 7B bot to OLMo 2 13B"."""
    out = folded
    for sentence in re.finditer(r"(?:[^.?!\n]|\.(?=\d))+", folded):
        text = sentence.group(0)
        m = _FROM_TO_RX.search(text) or _SWITCH_TO_RX.search(text)
        if m is None or not (
            _MOVE_RX.search(text[max(0, m.start() - 40) : m.start("old")])
            or _MOVED_AFTER_RX.search(text[m.end("old") : m.end("old") + 60])
        ):
            continue
        start, end = m.start("old"), m.end("old")
        if _PART_SWITCHED_RX.search(text[start:end]):
            continue  # "switch the KV cache to FP8": what changes, not a setup left behind
        further = _FURTHER_RX.match(text[end:])
        if further:
            end += further.end() - len(further.group(0).split()[-1]) - 1
        a, b = sentence.start() + start, sentence.start() + end
        out = out[:a] + " " * (b - a) + out[b:]
    for m in _RETRACTED_RX.finditer(out):  # "sorry, 16k was wrong, 4k max": 16k is taken back
        side = "old" if m.group("old") else "old2"
        a, b = m.start(side), m.end(side)
        out = out[:a] + " " * (b - a) + out[b:]
    return out


#: a figure the asker takes back: "16k was wrong", "die 20 Nutzer waren falsch", "not 16k but
#: 4k", "nicht 16k, sondern 4k"
_RETRACTED_RX = re.compile(
    r"(?P<old>\b\d+(?:[.,]\d+)?\s*k?\b(?:\s*(?:tokens?|ctx|context|kontext|users|nutzer|"
    r"seqs|sequences|sequenzen|leute|people))?)\s+(?:was|is|were|war|ist|waren)\s+(?:\w+\s+)?"
    r"(?:wrong|a typo|incorrect|falsch|ein tippfehler|nicht richtig)\b|"
    r"\b(?:not|nicht)\s+(?P<old2>\d+(?:[.,]\d+)?\s*k?)\b\s*,?\s*(?:but|sondern)\b"
)


_SAME_HARDWARE_RX = re.compile(
    r"\b(?:the same|same (?:card|gpu|node|server|box|machine)|on (?:it|that|this)|there|"
    r"derselben|dieselbe|demselben|darauf|da drauf|drauf|dort|der karte|dem server)\b"
)
_COMPLAINT_RX = re.compile(
    r"\b(?:langsamer|zu langsam|slower|too slow|kaputt|broken|defekt\w*|schlecht\w*|"
    r"underperform\w*|ein problem|a problem|something(?:'s| is) (?:off|wrong)|stimmt was nicht)\b"
)


def _left_behind_blanked(text: str, folded: str) -> tuple[str, str]:
    """`old_side_blanked` on the folded question, and on its text where the two align."""
    blanked = old_side_blanked(folded)
    if len(text) == len(blanked):
        text = "".join(
            c if f != " " or c == "\n" else " " for c, f in zip(text, blanked, strict=True)
        )
    return text, blanked


def _complaint_beside_paste(prose: str, u: Query) -> None:
    """ "kd sagt, das Training läuft 5x langsamer als auf dem alten Cluster. all_reduce_perf von
    denen:": a complaint beside a paste asks whether the node is broken."""
    if (u.topo_text or u.nccl_text) and not u.yes_no and _COMPLAINT_RX.search(prose):
        u.yes_no, u.claim = True, u.claim or "defect"


def _other_hardware(v: Query, u: Query) -> bool:
    """The change names hardware other than today's ("… reicht dann eine einzige L40S?" after
    2x L40S), not the same again ("does one a100 still hold that?" after a single A100 PCIe)."""
    if not (v.cards or v.card_families or v.configurations):
        return False
    if v.configurations and set(v.configurations) != set(u.configurations):
        return True  # "… on a 4090 today. would qwen3 32b fit on a single rtx 5090?"
    same_cards = set(v.cards) <= set(u.cards) and all(
        any(c in CARD_FAMILIES[f] for c in u.cards) or f in u.card_families for f in v.card_families
    )
    return not (same_cards and v.count in (None, u.count))


def _setup_asks_nothing(prose: str, u: Query) -> None:
    """ "Kunde betreibt gpt-oss-120b auf unserem 4x L40S und findet's zu langsam … ist die H100
    deutlich schneller?": the model placed on today's node, or today's speed, asks nothing; the
    asks are the change's (each kind found again in it, where it is said)."""
    end = setup_end(prose)
    if not end:
        return
    # "… it works but its loud and slow. would it fit on a single 5090?": today's speed
    if "speed" in u.intents and len(u.intents) > 1 and not SPEED_RX.search(prose[end:]):
        u.intents = [i for i in u.intents if i != "speed"]
    kept = [a for a in u.asks if not 0 <= a.at < end]
    again = u.model_copy(deep=True)
    find_asks(prose[end:], again)
    kinds = {a.kind for a in kept}
    kept += [a.model_copy(update={"at": a.at + end}) for a in again.asks if a.kind not in kinds]
    if kept:
        u.asks = sorted(kept, key=lambda a: a.at)


_SPLIT_SAID_RX = re.compile(
    r"\b(?:aufgeteilt|aufteilen|verteilt|split(?:ted)?|sharded|across (?:several|multiple|more) "
    r"(?:cards|gpus)|auf mehrere karten|über mehrere karten)\b"
)
#: a single card said before a card's name ("auf einer RTX 4090", "one L40S", "1x A100")
_ONE_BEFORE_RX = re.compile(
    r"\b(?:eine[rmn]?|ner|one|a single|single|einzelne\w*|einzige\w*|1\s*x?)\s+(?:\w+\s+)?$"
)
#: a single card said without a name ("auf einer Karte", "one GPU")
_ONE_CARD_RX = re.compile(
    r"\b(?:eine[rmn]?|ner|one|a single|single|einzelne\w*|einzige\w*)\s+(?:card|gpu|karte|"
    r"grafikkarte)\b"
)


def _split_said(prose: str, u: Query) -> None:
    """ "sie wollen auf RTX 4090 gehen, da muss das Modell ja aufgeteilt werden": a card named
    without a count, said to hold the model split, names its nodes of several cards, not one."""
    if u.count != 1 or not _SPLIT_SAID_RX.search(prose) or _ONE_CARD_RX.search(prose):
        return
    if any(_ONE_BEFORE_RX.search(prose[max(0, at - 30) : at]) for at, _, _ in _find_cards(prose)):
        return  # "passt das auf eine RTX 5090, oder muss es aufgeteilt werden?": one is said
    u.count = None
    u.configurations = [c for c in u.configurations if not c.startswith("1x-")]


def _load_from_counts(u: Query) -> None:
    """The load the counts said decide: a few at once said beside a word for the kind of
    service is low concurrency; users without a count at once are sized for those generating
    at once; that many at once decides the workload when no word did."""
    if u.concurrency and "traffic" in u.workloads and traffic_of(u.concurrency) == LOW:
        # "… the chatbot, but only a handful at the same time, seven or so": the count said
        # decides the load, not a word for the kind of service
        u.workloads = [w for w in u.workloads if w != "traffic"]
        if "low_concurrency" not in u.workloads:
            u.workloads.append("low_concurrency")
    if u.users and u.concurrency is None:
        # 200 users are not 200 simultaneous sequences: size for those generating at once
        u.concurrency = concurrent_sequences(u.users)
        u.assumed.append("concurrent_sequences")
        # "nur für 3 Leute im Team": a few at once; "for 200 users": traffic
        load = traffic_of(u.concurrency)
        if load and not {"traffic", "low_concurrency"} & set(u.workloads):
            u.workloads.append(load)  # type: ignore[arg-type]
    elif u.concurrency and not set(u.workloads) & LOAD_DECIDED:
        # "wenn ca. 30 Anfragen gleichzeitig reinkommen": that many at once is real traffic
        load = traffic_of(u.concurrency)
        if load:
            u.workloads.append(load)  # type: ignore[arg-type]


def after_setup(prose: str) -> str | None:
    """The text after today's setup when the question states it and the rest states a change
    (None otherwise)."""
    end = setup_end(prose)
    return prose[end:] if end else None


_PARAMS_SAID_RX = re.compile(r"\b\d+(?:\.\d+)?\s*b\b")
_LLAMA_CPP_RX = re.compile(r"llama[\s.-]?cpp|ollama|\bgguf\b|lm[\s-]?studio|\bq[458]")


def _states_setup(sentence: str) -> bool:
    """A statement of what runs today, on what ("we run Llama 3.1 8B on one L4"; not "wir
    haben ca. 12.000 Support-Tickets")."""
    if sentence.rstrip().endswith("?") or not _SETUP_RX.search(sentence):
        return False
    named = _find_cards(sentence) or _PARAMS_SAID_RX.search(sentence)
    return bool(named or _FAMILY_RX.search(sentence))


def setup_end(prose: str) -> int:
    """Where today's setup, said as statements ("we run X on one L4 (8k context)."), ends when
    what follows it states a change; 0 when the question says no such setup."""
    parts = [m for m in _SENTENCE_RX.finditer(prose) if m.group(0).strip()]
    said = [_states_setup(m.group(0)) for m in parts]
    if True not in said[:-1]:
        return 0
    end = said.index(True)  # (a relay's own opening line before the customer's setup)
    while end < len(parts) - 1 and said[end]:
        end += 1
    start = parts[end].start()
    return start if _CHANGE_RX.search(prose[start:]) else 0


_WRAPPED_QUOTE_RX = re.compile(r"(?m)(?<=[^\s.!?:;])(?<![ \t]{2})[ \t]*\n[ \t]*>[ \t]?(?=[^\W\d_])")


# workloads that already decide what a number at once means (image jobs take a card each,
# training sizes gradients, not sequences)


# keyword intents the neighbours may overrule: the catch-alls and a bare link fact
NEIGHBOUR_ARBITRATED = ("fit", "general", "link_facts")


def _own_copy(query: Query) -> Query:
    """A copy the caller may change: its lists and nested models are new (a Query's lists hold
    strings and tuples only), at a fraction of a generic deep copy's cost."""
    out = query.model_copy()
    for name, value in query.__dict__.items():
        if isinstance(value, list):
            out.__dict__[name] = list(value)
        elif isinstance(value, BaseModel):
            out.__dict__[name] = value.model_copy(deep=True)
    return out


def _iter_models(catalog: Any) -> Iterable[Any]:
    models = getattr(catalog, "models", None)
    if models is None:
        return []
    if isinstance(models, dict):
        return list(models.values())
    return list(models)


# the price waved aside ("do not care about price", "Preis ist egal", "regardless of cost")
_PRICE_NOT_ASKED_RX = re.compile(
    r"\b(?:do not|don'?t|dont|does not|doesn'?t|not)\s+(?:\w+\s+)?(?:care|worry|bother)\w*\s+"
    r"(?:about\s+|for\s+)?(?:the\s+)?(?:price|pricing|cost|costs|money|budget)\b|"
    r"\b(?:price|pricing|cost|costs|money|budget|preis|kosten|geld)\s+(?:is|are|ist|sind|spielt|"
    r"spielen)?\s*(?:(?:no|kein)\s+(?:object|issue|problem|thema)|egal|keine rolle|"
    r"(?:does not|doesn'?t|do not|don'?t)\s+matter|nicht wichtig|not important|secondary|"
    r"zweitrangig)\b|"
    r"\b(?:regardless of|irrespective of|unabhängig vom?|egal was es kostet|whatever it costs)"
    r"(?:\s+(?:the\s+)?(?:price|cost|preis|kosten))?\b|"
    # "they are also pricing 8x A100 PCIe - what would it be there?": shopping, not a price ask
    r"\b(?:are|is|were|was|we're|they're)\s+(?:also\s+|now\s+)?pricing\b"
)


#: a GPU row of a pasted `nvidia-smi` table: "|   0  NVIDIA L40S        On  |   00000000:41:00.0 …"
_SMI_ROW_RX = re.compile(r"^\|\s+\d+\s+(nvidia\s+[^|]+?)\s+(?:on|off)\s+\|", re.MULTILINE)


def _smi_table_said(folded: str) -> str:
    """The prose with a pasted `nvidia-smi` table replaced by what it shows ("2x nvidia l40s"):
    its header and process list are no asks (the word "nvidia-smi" names no topology check)."""
    rows = _SMI_ROW_RX.findall(folded)
    if not rows:
        return folded
    prose = [
        ln.replace("nvidia-smi", "gpu list")  # ("sent their nvidia-smi": the paste, no howto)
        for ln in folded.splitlines()
        if not ln.lstrip().startswith(("|", "+"))
    ]
    names = list(dict.fromkeys(rows))
    said = ", ".join(f"{rows.count(n)}x {n}" for n in names)
    return "\n".join([*prose, f"(the box: {said})"])


#: a model size in figures ("32 B", "70b")
_SIZE_B_RX = re.compile(r"\b\d{1,4}\s?b\b", re.IGNORECASE)


def _sizes_in_words(text: str) -> str:
    """ "Qwen2.5 thirty-two B", "Llama seventy b": a model size written in words, as figures
    (the text as it is when it says no size in words)."""
    spelled = spelled_counts(text)
    if spelled == text or len(_SIZE_B_RX.findall(spelled)) <= len(_SIZE_B_RX.findall(text)):
        return text
    return spelled
