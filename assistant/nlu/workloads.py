"""Workloads named in a question (tensor parallelism, training, traffic, ...), LoRA/QLoRA."""

from __future__ import annotations

import re
from typing import Any

from assistant.nlu.lexicon import without_abbreviation_dots
from assistant.nlu.query import Query, Workload
from assistant.spelled import spelled_counts

#: a rank named in words ("rank sixty-four", "Rang vierundsechzig")
_RANK_WORD_RX = re.compile(r"\b(?:rank|rang)\s+[a-zäöüß]")

# --------------------------------------------------------------------------- workloads

# "a few hundred users", "Tausende Nutzer", "hundreds of people at a time": a count in words
_MANY_PEOPLE = (
    r"(?:hundreds|thousands|hunderte[n]?|tausende[n]?|(?:a few|several|some|ein paar|einige|"
    r"mehrere|paar)\s+(?:hundred|thousand|hundert|tausend))\s+(?:of\s+)?(?:\w+\s+)?"
    r"(?:users?|nutzer\w*|benutzer\w*|people|leute|kunden|customers|clients|visitors|besucher\w*|"
    r"anwender\w*|requests|anfragen|sessions|mitarbeiter\w*|employees)"
)

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
        r"high concurrency|(?:high|lots of|a lot of|much|heavy|serious) (?:traffic|load)|"
        r"viel (?:traffic|last)|hohe[rn]? (?:traffic|"
        r"last|"
        r"nebenläufigkeit|parallelität)|heavy traffic|lots of (?:users|requests)|public api|"
        r"öffentliche[n]? api|customers|"
        # "die antwort an den kunden", "dem kunden": the one customer a staff member relays
        r"(?<!an den )(?<!\bdem )(?<!beim )(?<!\bvom )(?<!\bzum )kunden|concurrent users|"
        r"gleichzeitige[n]? (?:nutzer|"
        r"anfragen|user)|high throughput|hoher durchsatz|under load|unter last|real users|"
        r"echte[n]? nutzer|chat[\s-]?bot|chat service|chat-dienst|call[\s-]?cent(?:er|re)|"
        r"support[\s-]?bot|kundenservice|customer service|saas|for our (?:app|product|users)|"
        r"für unsere (?:app|kunden|nutzer)|live[\s-]?betrieb|rag service|rag-dienst|"
        # user counts said in words: hundreds or thousands of people are real traffic
        rf"{_MANY_PEOPLE}|"
        r"public[\s-]?facing|customer[\s-]?facing|for the public|open to the public|"
        r"(?:ein(?:e|en)?\s+)?öffentlich\w*\s+(?:produkt|dienst|service|app|angebot|chat\w*|"
        r"plattform|website|webseite|zugänglich)|für die öffentlichkeit|external users|"
        r"externe[n]? (?:nutzer|kunden|anwender)",
    ),
    (
        "low_concurrency",
        r"low concurrency|geringe[rn]? (?:nebenläufigkeit|last|parallelität)|few users|"
        # "low traffic", "light load", "wenig Last", "kaum Traffic", "niedrige Last"
        r"(?:low|light|little|minimal) (?:traffic|load|usage)|"
        r"(?:wenig|kaum|niedrige[rn]?|leichte[rn]?) (?:last|traffic|verkehr|nutzung|auslastung)\b|"
        r"wenige[n]? (?:nutzer|user|anfragen)|(?:ein paar|a handful of|handful of) (?:nutzer|"
        r"user|users|leute|people|kollegen|colleagues)\b|single user|einzelne[rn]? nutzer|just me|"
        r"nur (?:ich|für mich)|only me|batch(?:[\s-]*size)?\s*(?:of\s*)?1\b|internal|intern\b|"
        r"interne|experiment|prototyp|hobby|testing|zum testen|personal|persönlich|"
        r"one user|ein nutzer|single stream|einzelne[rnm]? stream|"
        r"(?:nur |only )?(?:einem|einen|one|a single) (?:nutzer|user|anwender)\b|"
        r"\bbatch[\s-]?(?:job|jobs|run|verarbeitung|inference)|offline[\s-]?(?:job|batch|"
        r"inference|verarbeitung)|nightly|nächtlich|over night|über nacht|\bollama\b|lm studio|"
        r"\blocal(?:ly)?\b|\blokal\b|for myself|für mich selbst|evaluation runs?|research|"
        # "never many at once", "nie viele gleichzeitig"
        r"(?:never|rarely|seldom|nie|selten|kaum)\s+(?:\w+\s+)?(?:many|viele|more than a few)"
        r"\s+(?:\w+\s+)?(?:at once|at the same time|concurrently|gleichzeitig|parallel|"
        r"auf einmal)",
    ),
    (
        "independent",
        r"independent|unabhängig|one model per (?:card|gpu)|ein modell pro karte|"
        r"eine[ns]? modell pro (?:karte|gpu)|per card one|separate (?:copies|models|jobs)|"
        # "4 separate llama 8b instances, one per GPU", "eine Instanz pro Karte"
        r"(?:separate|independent|getrennte|eigene)\s+(?:\S+\s+){0,4}?(?:instances?|instanzen)\b|"
        r"\b(?:one|eine[nr]?|1)\s+(?:instance\s+|instanz\s+)?(?:per|pro|je)\s+(?:gpu|card|karte)\b(?!\s*(?:layers?|schicht))|"
        r"getrennte|mehrere modelle|several models|multiple models|many small models|"
        r"viele kleine modelle|copies|kopien|replicas|replik|"
        # "auf jeder Karte eine eigene Kopie", "a copy per card", "viermal nebeneinander",
        # "jede Karte rendert für sich", "each GPU works on its own"
        r"(?:eigene|own|separate|one|a|eine)\s+(?:copy|kopie)\b|"
        r"(?:zweimal|dreimal|viermal|fünfmal|sechsmal|achtmal|mehrmals|\d+\s*-?mal)\s+"
        r"(?:nebeneinander|parallel)|(?:two|three|four|five|six|eight|\d+)\s+times\s+side\s+by"
        r"\s+side|(?:jede|each|every)\s+(?:karte|gpu|card)\s+(?:\w+\s+){0,2}?(?:für sich|"
        r"on its own|by itself|independently|separately|unabhängig|allein)\b|"
        r"(?:each|every) (?:card|gpu)\b.{0,30}\b(?:its own|own|a separate|separate)\b|"
        # "wenn auf jeder Karte ein eigenes Llama 3.1 8B läuft"
        r"\bjede[rnms]?\s+(?:karte|gpu)\s+(?:\w+\s+){0,2}?(?:eigene[snmr]?|separate[snmr]?)\b|"
        r"jede (?:karte|gpu)\b.{0,30}\b(?:ihr|sein|ein) eigenes|eigene[ns]? modell pro|"
        # "auf jeder der 4 karten ein eigenes …", "on each of the 4 cards its own …"
        r"\bjede[rnms]? der (?:\w+ )?(?:karten|gpus)\b.{0,30}\beigene[snmr]?\b|"
        r"\b(?:each|every one) of the (?:\w+ )?(?:cards|gpus)\b.{0,30}\b(?:its own|separate)\b|"
        r"own model per (?:card|gpu)|(?:its|their) own model|"
        r"(?:separate|different|own|its own|their own)\s+(?:\w+\s+){0,2}models?\s+(?:on|per|for)\s+"
        r"(?:each|every|every single)\s+(?:card|gpu)|"
        r"(?:eigene[snm]?|andere[snm]?|verschiedene[n]?|separate[n]?)\s+(?:\w+\s+){0,2}modell\w*\s+"
        r"(?:auf|pro|je|für)\s+(?:jede[rnm]?|jeder)\s+(?:karte|gpu)|"
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

# "only a few concurrent requests", "wenig gleichzeitige Anfragen": a traffic word with a low
# quantity before it is low concurrency, not real traffic
_FEW_AT_ONCE_RX = re.compile(
    r"\b(?:few|a handful of|not many|only a couple of|low|small number of|wenige?[nrs]?|"
    r"ein paar|kaum|nicht viele|geringe?[nr]?|nur zwei|nur drei)\s+(?:\w+\s+)?(?:parallel\w*|"
    r"concurrent|gleichzeitig\w*|simultan\w*|simultaneous)\s+(?:\w+\s+)?(?:requests|anfragen|"
    r"users?|nutzer\w*|sequences|sequenzen|streams|sessions)"
)
# "not much traffic", "no heavy load", "nicht viel Traffic", "keine hohe Last": a traffic word
# said negated is low concurrency
_NOT_MUCH_RX = re.compile(
    r"\b(?:not|no|nicht|kein\w*)\s+(?:\w+\s+){0,2}?(?:traffic|load|last|verkehr|production|"
    r"produktion|produktiv\w*)\b|"
    # "its just me and 2 colleagues testing it": a few people, testing
    r"\bjust (?:me|us)\b|\bnur (?:ich|wir)\b|\b(?:testing|zum testen|ausprobieren)\b"
)
# "ist nur ein interner chatbot, wenig last": a load said outright is the load, whatever the kind
# of service implies ("chatbot", "SaaS" are real traffic only when nothing says how much)
_LOW_LOAD_RX = re.compile(
    r"\b(?:low|light|little|minimal) (?:traffic|load|usage)\b|\blow concurrency\b|"
    r"\b(?:wenig|kaum|niedrige[rn]?|leichte[rn]?|geringe[rn]?) (?:last|traffic|verkehr|nutzung|"
    r"auslastung|nebenläufigkeit)\b"
)
_HIGH_LOAD_RX = re.compile(
    r"\b(?:high|lots of|a lot of|much|heavy|serious|real) (?:traffic|load)\b|"
    r"\bviel(?:e[nr]?)? (?:traffic|last)\b|\bhohe[rn]? (?:traffic|last)\b|\bechte[nmr]? traffic\b|"
    r"\bmany (?:concurrent )?(?:users|requests)\b|\bviele[n]? (?:nutzer|anfragen)\b"
)
# "5 concurrent users", "ca. 5 gleichzeitige Anfragen": a traffic phrase after a number is a
# count at once, which decides the load by itself (`tools.load.traffic_of`), not a traffic word
_COUNTED_RX = re.compile(
    r"\b\d[\d,.]*\s+(?:concurrent users|gleichzeitige[n]? (?:nutzer|anfragen|user))\b"
)
#: workloads that settle the load: a count at once adds no traffic / low-concurrency guess to them
LOAD_DECIDED = frozenset(
    {"traffic", "low_concurrency", "diffusion", "rendering", "training", "fine_tuning"}
)
_QLORA_RX = re.compile(r"\bqlora\b")
_BOTH_ADAPTERS_RX = re.compile(
    # "mit lora und wie viel mit qlora, jeweils?": up to four words before the second
    r"\b(q?lora)\b\s*(?:oder|or|vs\.?|versus|und|and|/|,)\s*(?:[a-zäöü]+\s+){0,4}?"
    r"(?:mit\s+|with\s+)?(?!\1\b)q?lora\b|"
    # "Geht LoRA auf einer L40S? Falls nicht, reicht QLoRA?": the second as the fallback
    r"\b(q?lora)\b[^?]{0,80}\?\s*(?:falls nicht|wenn nicht|if not|otherwise|sonst|ansonsten|"
    r"and if not|und wenn nicht)\b[^?]{0,60}\b(?!\2\b)q?lora\b|"
    # "mit QLoRA … – und zum Vergleich normales LoRA, wie viel jeweils?": the other one compared
    r"\b(q?lora)\b.{0,200}?\b(?:zum vergleich|im vergleich|vergleichsweise|for comparison|"
    r"compared (?:to|with)|as a comparison)\b\s*(?:\w+\s+){0,2}?(?!\3\b)q?lora\b|"
    # "… to qlora finetune it? and plain lora for comparison pls"
    r"\b(q?lora)\b.{0,200}?\b(?!\4\b)q?lora\s+(?:\w+\s+){0,2}?(?:for compar\w*|to compare|"
    r"zum vergleich|als vergleich|im vergleich)\b"
)
_LORA_RX = re.compile(r"\blora\b|\bpeft\b|\badapter")


# LoRA rank and targets, as said ("rank 64", "r=16", "Rang 8"; "attention only")
# ("DeepSeek-R1" names no rank: a bare "r" needs "=", ":" or a space before its number)
_RANK = re.compile(r"(?<![\w-])(?:(?:rank|rang)\s*[=:]?\s*|r\s*[=:]\s*|r\s+)(\d{1,4})\b")
_ATTENTION_ONLY = re.compile(
    r"attention[\s-]*only|only\s+(?:the\s+)?attention|nur\s+(?:die\s+|auf\s+)?attention|"
    r"nur\s+(?:auf\s+)?(?:den\s+)?attention|q_proj"
)


# "only inference, no training", "nur Inferenz, kein Training": the model is served, not trained
_INFERENCE_ONLY_RX = re.compile(
    r"\b(?:no|not|without|kein\w*|ohne|nicht)\s+(?:more\s+|mehr\s+|any\s+)?(?:training|"
    r"trainieren|fine[\s-]*tun\w*|finetun\w*)\b|"
    # "(we don't do tensor parallel training)", "wir machen kein verteiltes Training"
    r"\b(?:don'?t|do not|doesn'?t|does not|never|machen kein\w*|betreiben kein\w*)\s+"
    r"(?:do\s+|run\s+)?(?:\w+\s+){0,2}?(?:training|fine[\s-]*tun\w*)\b|\b(?:only|just|nur|reine?s?)\s+(?:\w+\s+)?"
    r"(?:inference|inferenz|serving|serve|ausliefern|betreiben|hosten|deployen)\b|"
    r"\binference[\s-]*only\b|"
    # "actually forget the training, we'd just serve it", "vergiss das Training"
    r"\b(?:forget|skip|drop|scrap|vergiss|streich\w*)\s+(?:about\s+)?(?:the\s+|das\s+|den\s+)?"
    r"(?:training|fine[\s-]*tun\w*|finetun\w*|feintun\w*|q?lora)\b"
)
# "they fine-tuned Qwen3 14B on their tickets and want to serve it": a tuned model, served
_TUNED_RX = re.compile(
    r"\b(?:fine[\s-]*tuned|finetuned|feingetunt\w*|fine[\s-]*getunt\w*|nachtrainiert\w*|"
    r"feinjustiert\w*)\b|"
    # "adapter schon gemerged", "LoRA already merged", "fertig trainiert"
    r"\b(?:adapter|lora|qlora)\s+(?:\w+\s+){0,2}?(?:gemerged|merged|eingemerged)\b|"
    r"\b(?:fertig|already|schon|bereits)\s+(?:trainiert|trained|feinjustiert|getunt)\b|"
    # "our own finetune", "unser eigenes Finetune": a tuned model, named as a thing
    r"\b(?:our|my|their|own|unser\w*|mein\w*|eigene[snm]?)\s+(?:own\s+|eigene[snm]?\s+)?"
    r"(?:fine[\s-]*tune|finetune)\b"
)
# a format only inference runs in: a model already quantised that way is served
_INFERENCE_FORMAT_RX = re.compile(r"\b(?:awq|gptq|gguf|q4_k_m|q5_k_m|q8_0|exl2)\b|4[\s-]?bit")
_SERVE_RX = re.compile(
    r"\b(?:serve|serving|deploy\w*|host\w*|inference|inferenz|betreiben|bereitstellen|"
    r"production|produktiv\w*|hitting it|users?|agents?|nutzer\w*|chat\w*|requests|anfragen|"
    r"ausliefer\w*|ausgeliefert|ausrollen|mitarbeiter\w*|employees|staff|people|leute|"
    # "we have a finetuned pythia 12b, would it fit on one L4?": a model that exists, fitted
    r"fit|fits|passt|passen|läuft|laufen|run|runs)\b"
)
_WILL_TUNE_RX = re.compile(
    r"\b(?:to|want|plan|will|going to|wollen|möchten|planen|vorhaben)\s+(?:\w+\s+){0,4}?"
    r"(?:fine[\s-]*tune|finetune|train|trainieren|feintunen|fine[\s-]*tunen|nachtrainieren)\b"
)


_TUNE_WORD_RX = re.compile(
    r"fine[\s-]*tun|finetun|feintun|feinjustier|nachtrainier|\btrain|\btrainier|\bq?lora\b"
)
# "we might fine-tune it later", "vielleicht später feintunen": a plan, not today's job
_LATER_RX = re.compile(
    r"\b(?:later|in the future|eventually|down the road|next (?:year|quarter|month)|might|"
    r"maybe|perhaps|possibly|später|künftig|zukünftig|irgendwann|demnächst|eventuell|"
    r"vielleicht|möglicherweise|evtl\.?|ggf\.?)\b"
)
# ("… will später evtl trainieren. Llama 70B, was ist das Günstigste mit NVLink?"): a node for
# the model asked now
# ("it has to be nvlink tho, we might do some training on it later": the link is for now)
_ASKED_NOW_RX = re.compile(
    r"\brun\b|betreiben|laufen|günstigst\w*|cheapest|kost\w*|\bprice|\bnvlink\b|\bsxm\d?\b"
)


def _tuning_only_later(folded: str) -> bool:
    """Every sentence that names a fine-tune or training puts it off ("We might fine-tune it
    later"), and another says what is served ("we want to run X for inference")."""
    unabbreviated = without_abbreviation_dots(folded)  # "später evtl. noch finetunen"
    said = [s for s in re.split(r"[.!?;,\n]+", unabbreviated) if s.strip()]
    tune = [s for s in said if _TUNE_WORD_RX.search(s)]
    rest = [s for s in said if not _TUNE_WORD_RX.search(s)]
    return (
        bool(tune)
        and all(_LATER_RX.search(s) for s in tune)
        and any(_SERVE_RX.search(s) or _ASKED_NOW_RX.search(s) for s in rest)
    )


#: "mit normalem LoRA statt QLoRA", "LoRA instead of QLoRA": the first one, the other refused
INSTEAD_ADAPTER_RX = re.compile(
    r"\b(q?lora)\b[^.?!]{0,20}?\b(?:statt|anstatt|anstelle von|instead of|rather than|"
    # "mit LoRA finetunen (kein QLoRA)", "LoRA, not QLoRA": the other adapter refused
    r"not|no|kein\w*|nicht)\s+(?:\w+\s+)?(?!\1\b)q?lora\b"
)


#: "kein QLoRA", "no QLoRA", "not LoRA", "ohne QLoRA": an adapter refused
_REFUSED_ADAPTER_RX = re.compile(r"\b(?:kein\w*|no|not|ohne|without|nicht)\s+(q?lora)\b")


def _find_adapter(folded: str, u: Any) -> None:
    """LoRA or QLoRA named; "LoRA oder QLoRA?", "LoRA vs. QLoRA": both, the first named leads;
    "LoRA statt QLoRA": the first."""
    instead = INSTEAD_ADAPTER_RX.search(folded)
    refused = _REFUSED_ADAPTER_RX.search(folded)
    if refused and not instead:
        # "LoRA-Finetuning von X (bf16-Basis, kein QLoRA)": the other one, when it is named
        other = "lora" if refused.group(1) == "qlora" else "qlora"
        if re.search(rf"\b{other}\b", folded):
            u.adapter = other
            return
    if instead:
        u.adapter = instead.group(1)
    elif _QLORA_RX.search(folded):
        u.adapter = "qlora"
    elif _LORA_RX.search(folded):
        u.adapter = "lora"
    both = None if instead else _BOTH_ADAPTERS_RX.search(folded)
    if both:
        u.adapters_compared = True
        first = both.group(1) or both.group(2) or both.group(3) or both.group(4)
        u.adapter = "qlora" if first == "qlora" else "lora"


#: "bisher nur Inferenz auf einer 4090", "so far we only run inference": today's setup, not the
#: plan ("jetzt wollen wir voll finetunen")
_SO_FAR_RX = re.compile(
    r"\b(?:bisher|bis jetzt|bislang|so far|until now|up to now|currently|today|heute|aktuell|"
    r"momentan|derzeit|right now|at the moment)\b"
)


def _inference_only(folded: str) -> bool:
    """ "only inference, no training" said of the job asked about (not of today's setup)."""
    for m in _INFERENCE_ONLY_RX.finditer(folded):
        around = folded[max(0, m.start() - 50) : m.end() + 30]
        if not _SO_FAR_RX.search(around):
            return True
    return False


def serving_only(folded: str) -> bool:
    """The question serves a model and trains none: "only inference, no training", a model
    already fine-tuned that is now to be served, or a fine-tune only planned for later."""
    if _inference_only(folded) or _tuning_only_later(folded):
        return True
    tuned = _TUNED_RX.search(folded) and (
        _SERVE_RX.search(folded) or _INFERENCE_FORMAT_RX.search(folded)
    )
    return bool(tuned) and not _WILL_TUNE_RX.search(folded)


class WorkloadMixin:
    """`Understander._find_workloads`."""

    def _find_workloads(self, folded: str, u: Query) -> None:
        uncounted = _COUNTED_RX.sub(" ", folded)
        for name, rx in _WORKLOAD_RX:
            if rx.search(uncounted if name == "traffic" else folded) and name not in u.workloads:
                u.workloads.append(name)
        said_low = _LOW_LOAD_RX.search(folded) and not _HIGH_LOAD_RX.search(folded)
        if _FEW_AT_ONCE_RX.search(folded) or _NOT_MUCH_RX.search(folded) or said_low:
            u.workloads = [w for w in u.workloads if w != "traffic"]
            if "low_concurrency" not in u.workloads:
                u.workloads.append("low_concurrency")
        if "fine_tuning" in u.workloads or "training" in u.workloads:
            _find_adapter(folded, u)
        q = u.question.lower()
        rank = _RANK.search(spelled_counts(q) if _RANK_WORD_RX.search(q) else q)  # "sixty-four"
        if rank and not re.match(r"ran[kg]", rank.group(0)) and u.adapter is None:
            rank = None  # "we r 4 designers": "r 4" is a rank only beside LoRA / QLoRA
        if rank and int(rank.group(1)) > 0:
            u.lora_rank = int(rank.group(1))
        u.lora_attention_only = bool(_ATTENTION_ONLY.search(q))
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
        if serving_only(folded):
            u.workloads = [w for w in u.workloads if w not in ("training", "fine_tuning")]
            u.adapter = None
        if u.count is not None and u.count > 8 and "multi_node" not in u.workloads:
            u.workloads.append("multi_node")
