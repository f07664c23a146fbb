"""What a question asks for: every ask, in the order it makes them (`Query.asks`), and whether it
is a yes/no question.

A question may carry two asks in one: a forwarded e-mail naming a model, a node and "what does it
cost?" asks whether the model fits that node *and* the node's price; "does the full 128K context
of X fit on Y?" asks for the fit at that context *and* how long a context Y holds; "tokens/s of X
on Y, BF16 vs FP8?" asks for the speed once per precision. The planner answers the first ask with
its flow and each other ask the flow left open with that ask's own answer
(assistant/compose/asks.py). A single ask changes nothing.
"""

from __future__ import annotations

import re

from assistant.nlu.batch import HOW_LONG_RX
from assistant.nlu.constraints import ALTERNATIVE_RX
from assistant.nlu.intents import _CHOICE_RX, _INTENT_RX, _MONEY_RX
from assistant.nlu.lexicon import ABBREVIATIONS, topo_prose
from assistant.nlu.mail import RELAY_RX
from assistant.nlu.query import Ask, AskKind, Query

# ---------------------------------------------------------------- yes/no questions

_YES_NO_RX = re.compile(
    r"^\W*(?:[@\w .-]{1,40}:\s*)?(?:(?:hi|hey|hallo|moin|servus|quick question|kurze frage|frage|"
    r"and|und|also|so|aber|but|ok|okay|then|dann)\W+)?"
    r"(?:does|do|is|are|can|could|will|would|should|has|have|did|"
    r"passt|passen|reicht|reichen|kann|können|ist|sind|läuft|laufen|geht|gehen|klappt|"
    r"funktioniert|schafft|schaffen|bekomme|bekommen|krieg\w*|hat|haben|wird|würde|stimmt|"
    r"stimmen|wäre|wären|brauch|brauche|brauchen|braucht|bräuchte|bräuchten|muss|müssen|müsste|"
    r"müssten|sollte|sollten|need|needs|must|kostet|liegt|liegen|ginge|gingen|lohnt|rentiert|"
    # "– bleiben wir damit drunter?", "kommen wir damit hin?"
    r"bleibt|bleiben|kommt|kommen|komme|"
    # "…, reichts dann?", "passts?": the verb with its "es" run on
    r"reichts|passts|gehts|läufts|klappts)\b",
    re.IGNORECASE,
)

# "could you send me …?", "können Sie mir … schicken?": a request in a question's words
_POLITE_REQUEST_RX = re.compile(
    r"^\W*(?:(?:hi|hello|hallo|thanks|danke)\W+)?(?:could|can|would|will)\s+you\s+(?:please\s+)?"
    r"(?:send|tell|give|share|show|list|quote|let\s+me\s+know|explain|provide|check)\b|"
    r"^\W*(?:könnt|können|könnten|würden)\s+(?:sie|ihr|du)\s+(?:mir|uns)\s+(?:bitte\s+)?"
    r"(?:\w+\s+){0,6}?(?:schicken|senden|sagen|nennen|geben|zeigen|mitteilen|erklären)\b",
    re.IGNORECASE,
)

_TAG_END_RX = re.compile(
    # (typed without its comma too: "da ist kein nvlink nötig oder?")
    r"(?:,\s*|\s+)(?:oder|or not|ne|right|richtig|correct|stimmt'?s?|isn'?t it|oder nicht)"
    r"\s*\?\s*$",
    re.IGNORECASE,
)

# "need a gpu box for …" with no question mark is a request ("Need a 4090 for this?" asks)
_NEED_RX = re.compile(
    r"^\W*(?:[@\w .-]{1,40}:\s*)?(?:\w+\W+)?(?:need|needs|brauche|brauchen|braucht)\s+"
    r"(?:a|an|some|ein|eine|einen|nen|ne)\b",
    re.IGNORECASE,
)

# "Does it fit on a 4090, or do I need something bigger?": the alternative is the "no"
_CONVERSE_OR_RX = re.compile(
    r"\b(?:or|oder)\s+(?:(?:do|would|will|should|must)\s+(?:i|we)\s+(?:really\s+|actually\s+|"
    r"definitely\s+|absolutely\s+)?(?:need|have to)|"
    r"(?:brauche|brauchen|benötige|benötigen)\s+(?:ich|wir)|(?:muss|müssen)\s+(?:ich|wir)|"
    r"(?:is|ist)\s+(?:it|that|das|es|die|der|sie|er)\s+(?:too|zu)\b|not\b|nicht\b|"
    # "Brauchen wir dafür NVLink oder geht das so?", "… or does it work as is?": the converse
    r"geht(?:'s|s)?\s+(?:das|es)?\s*(?:auch\s+)?(?:so|ohne)\b|"
    r"(?:does|will|would)\s+(?:it|that)\s+work\s+(?:as\s+is|without)\b|"
    r"(?:is|would)\s+(?:it|that)\s+(?:be\s+)?fine\s+(?:as\s+is|without)\b|"
    # "do they need nvlink or is that overkill?", "lohnt sich NVLink, oder ist das
    # rausgeschmissenes Geld?": the converse said as a judgement, one yes/no
    r"(?:is|ist)\s+(?:it|that|this|das|es)\s+(?:\w+\s+)?(?:overkill|a waste|waste|"
    r"rausgeschmissen\w*|geldverschwendung|übertrieben|unnötig|unnecessary|überflüssig))",
    re.IGNORECASE,
)

# (", can it …?", " - will we …?", and after a colon: "quick check: can they QLoRA … ?")
_CLAUSE_RX = re.compile(r",\s+|\s+[-–—]+\s+|:\s+")
# "cust asks if it fits …", "der Kunde fragt, ob …": a yes/no question reported
#: a statement put up for confirmation: "I assume …?", "Ich nehme an, …?" (also read by
#: compose/polarity.py, which agrees with a negative said so)
ASSUMED_EN = r"(?:i|we)\s+(?:assume|guess|suppose|take it|gather|understand|figure)"
ASSUMED_DE = r"(?:ich|wir)\s+(?:nehme|nehmen)\s+an|(?:ich|wir)\s+(?:gehe|gehen)\s+davon\s+aus"
_INDIRECT_RX = re.compile(
    r"\b(?:asks?|asking|asked|wants? to know|wanted to know|wondering|fragt|fragen|wissen)\s*,?\s+"
    r"(?:if|whether|ob)\b|"
    # "I assume 2x A100 PCIe is not enough for …?", "ich nehme an, eine L4 reicht nicht?": a
    # statement put up for confirmation
    rf"^\W*(?:(?:so|ok|also|hi|hey)\W+)?{ASSUMED_EN}\b[^?]*\?|"
    rf"^\W*(?:(?:also|ok|hallo)\W+)?(?:{ASSUMED_DE})\b[^?]*\?",
    re.IGNORECASE,
)

# "how much VRAM does it need …", "wie viel Speicher braucht …": the memory need asked
_MEMORY_WH_RX = re.compile(
    r"^\W*(?:(?:kurze frage|quick question|quick one|frage|question|hi|hey|hallo)\W+)?"
    r"(?:how much (?:gpu |video )?(?:vram|memory|ram)|"
    r"wie ?viel (?:gpu-?|grafik)?(?:vram|speicher|ram))\b",
    re.IGNORECASE,
)
# "… and is one A100 enough?", "… und reicht dafür eine A100?": a fit yes/no after "and"
_AND_FIT_RX = re.compile(
    r"\b(?:and|und)\s+(?:(?:does|will|would|can|could|is)\s+(?:it|that|this|one|a|an|the)\b|"
    r"(?:reicht|reichen|genügt|langt|passt|passen)\b)",
    re.IGNORECASE,
)

_WH_RX = re.compile(
    r"^\W*(?:what|whats|which|how|hows|why|when|where|wheres|who|whose|was|welche\w*|wie|"
    r"warum|wieso|weshalb|wann|wo|wer|wieviel\w*)\b",
    re.IGNORECASE,
)

# "und 8x?", "what about FP8?", "price of 8x-h100-sxm5?": a follow-up or a figure asked, not a
# yes/no question
_NOT_ELLIPTICAL_RX = re.compile(
    # ("same w/ fp8 kv cache?", "dasselbe mit 32k?": the previous question with a slot changed)
    r"^\W*(?:and|und|what about|how about|also|oder|or|same|the same|dasselbe|das gleiche|"
    r"gleiche\w*)\b|"
    # "ok and if it has to be nvlink?", "und falls es 32k sein sollen?": a condition, not a claim
    r"^\W*(?:(?:ok(?:ay)?|so|hm+|gut|na|and|und)\W+)*(?:if|wenn|falls)\b|"
    r"\b(?:cost|costs|price|prices|preis\w*|"
    r"kost\w*|much|many|viel\w*|fast|schnell|speed|tempo|tokens?/s|token/s|cheapest|best|most|"
    r"günstigst\w*|billigst\w*|beste\w*|meiste\w*|what|which|how|welche\w*|wie|was|"
    # "max concurrent seqs?", "longest context?": a figure asked in shorthand
    r"max(?:imum|imal\w*)?|longest|längste\w*)\b",
    re.IGNORECASE,
)


#: "auf ner L40S oder ner A6000, passt das auf beide?": the yes/no asked of all the
#: alternatives named, not a choice between them
_OF_ALL_RX = re.compile(
    r"[,;:–-]\s*(?:and\s+|und\s+)?(?:passt|passen|läuft|laufen|reicht|reichen|geht|does|do|"
    r"will|would|can|is|are)\b[^,?]{0,30}\b(?:beide[n]?|both|each|jede[rnm]?|alle[n]?|all)\b[^,]*\?"
)


#: a condition said first, before the question it conditions ("what if we go fp8, …")
_WHAT_IF_RX = re.compile(
    r"^\W*(?:(?:and|und|so|ok|okay)\W+)?(?:what if|what about if|was wäre,? wenn|was wenn|"
    r"wenn|if|falls)\b"
    r"[^,?]{0,80},\s*(?=(?:would|will|does|do|is|are|can|could|should|würde\w*|wird|werden|"
    r"reicht|reichen|passt|passen|geht|läuft|brauch\w*|ist|sind|hat|haben|kann|können|genügt|"
    r"schafft|ginge|what|which|how|was|wie|welche\w*)\b[^?]*\?)",
    re.IGNORECASE,
)


# "zwei Karten sollten da doch dicke reichen … oder brauchen wir was Größeres?", "that should be
# plenty, right?": an expectation put up for confirmation is a yes/no
_SHOULD_SUFFICE_RX = re.compile(
    r"\b(?:sollte|sollten|müsste|müssten|should|ought to)\b[^?]{0,60}?\b(?:reichen|passen|gehen|"
    r"klappen|laufen|be enough|suffice|fit|work|be plenty|be fine)\b[^?]{0,60}\?",
    re.IGNORECASE,
)


_YES_OR_NO_RX = re.compile(r"\b(?:yes or no|ja oder nein|yes/no|ja/nein)\b", re.IGNORECASE)


def is_yes_no(question: str) -> bool:
    """'Does it fit?', 'Passt das?', and the elliptical 'qwen3 32b fp8 auf l40s?', '70B BF16 on a
    single H200?' — not 'Should I use A or B?' (that asks which) nor a wh-question."""
    q = _first_question(question.strip())
    q = _after_bare_follow_up(question.strip(), q)
    # "what if we go fp8, would 2 of them be enough then?": a condition, then the yes/no
    q = _WHAT_IF_RX.sub("", q, count=1) or q
    tag = _TAG_END_RX.search(q)  # "passt nicht auf eine L4, oder?": a tag, not an alternative
    if tag or _SHOULD_SUFFICE_RX.search(q) or _YES_OR_NO_RX.search(question):
        return True  # ("… yes or no?", "ja oder nein?": the yes/no said outright)
    if ALTERNATIVE_RX.search(q) and not _CONVERSE_OR_RX.search(q) and not _OF_ALL_RX.search(q):
        return False
    elliptical = (
        q.endswith("?")
        and len(q) <= 80
        and "\n" not in q
        and not _WH_RX.search(q)
        and not _NOT_ELLIPTICAL_RX.search(q)
    )
    # "and in FP8 on a single L40S, does it fit then?": a yes/no clause after a comma
    # (not after a wh-question: "What does 1x L40S cost, and can it hold 8B?" asks what first)
    # ("X on the 4x A100 node - will we get more than 20 tokens/s?": after a dash too)
    clauses = _CLAUSE_RX.split(q)[1:]
    clause = not _WH_RX.search(q) and any(_YES_NO_RX.match(c) for c in clauses)
    # "wie viel VRAM braucht das und reicht dafür eine A100?": the need is the fit's own figure,
    # so the fit's yes/no leads (and its lead states the need)
    clause = clause or bool(_MEMORY_WH_RX.match(q) and _AND_FIT_RX.search(q))
    # "how much vram do I need …? would a single A100 do it?": the same, in two sentences
    # (after a lead-in to a colon: "Servus, hätte da mal ne Frage vorab: wieviel VRAM …?")
    memory_wh = _MEMORY_WH_RX.match(q) or _MEMORY_WH_RX.match(q.rsplit(": ", 1)[-1])
    clause = clause or bool(memory_wh and _fit_asked_next(question, q))
    verb = _YES_NO_RX.search(q)
    if verb and _POLITE_REQUEST_RX.match(q):
        verb = None  # "Could you send me the monthly price …?": a request, answered with it
    if verb and "?" not in question and _NEED_RX.match(q):
        verb = None  # "need a gpu box for gemma 3 12b … what do u recommend": a request
    return bool(verb) or elliptical or clause or bool(_INDIRECT_RX.search(q))


#: a period that ends no sentence (`lexicon.ABBREVIATIONS`)
_ABBREVIATION = "".join(rf"(?<!\b{re.escape(a)}\.)" for a in ABBREVIATIONS)


def _fit_asked_next(question: str, first: str) -> bool:
    """The question after `first` asks yes or no whether it fits ("would a single A100 do
    it?", "reicht dafür eine L40S?")."""
    rest = question[question.find(first) + len(first) :] if first in question else ""
    nxt = next((s for s in sentences(rest) if s.rstrip().endswith("?")), "")
    fit = _FIT_ASK_RX.search(nxt.lower()) or _DO_IT_RX.search(nxt.lower())
    return bool(nxt and _YES_NO_RX.match(nxt) and fit)


#: "would a single A100 do it?": "do" as "be enough", at the end of the question
_DO_IT_RX = re.compile(r"\bdo (?:it|that|this|the job)\s*\?")


_SENTENCE_RX = re.compile(
    r"(?<=[.!?])" + _ABBREVIATION + r"\s+|(?<=[.!?][\"'“”»«])\s+|\n+", re.IGNORECASE
)
_CLOSING_QUOTES = "\"'“”»«"
# a line break inside a sentence (an e-mail wrapped at 72 characters; "> " quote markers)
_WRAPPED_RX = re.compile(r"(?<=[^\s.!?:;])[ \t]*\n(?:[ \t]*>)?[ \t]*(?=[^\s>\-*•\d])")
_QUOTE_RX = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)


def sentences(text: str) -> list[str]:
    """The text's sentences: split at ., ! or ? and at line breaks, except a line break inside
    a wrapped sentence ("Reicht\ndafür eine RTX 5090?" is one sentence)."""
    unwrapped = _WRAPPED_RX.sub(" ", _QUOTE_RX.sub("", text))
    return [s.strip() for s in _SENTENCE_RX.split(unwrapped) if s.strip()]


#: a follow-up that only names what it is about ("und 8x H200?", "what about the L40S?")
_BARE_FOLLOW_UP_RX = re.compile(
    r"^\W*(?:and|und|what about|how about|und was ist mit|und bei|und mit)\b[^?]{0,25}\?$", re.I
)


def _after_bare_follow_up(text: str, first: str) -> str:
    """ "und 8x h200? liegt das noch unter 20.000 €?": the question after a bare follow-up."""
    if not _BARE_FOLLOW_UP_RX.match(first):
        return first
    rest = text[text.find(first) + len(first) :] if first in text else ""
    nxt = _first_question(rest) if rest.strip() else ""
    return nxt if nxt.rstrip().endswith("?") else first


def _first_question(text: str) -> str:
    """The first sentence that ends in a question mark and is not a relaying request ("Customer
    has our 4x RTX 4090 box and wants a full fine-tune. Will that work?" -> "Will that work?");
    the text when none does."""
    for sentence in sentences(text):
        if not sentence.rstrip(_CLOSING_QUOTES).endswith("?"):
            continue
        head, colon, asked = sentence.partition(": ")
        if colon and RELAY_RX.search(head) and not RELAY_RX.search(asked):
            sentence = asked  # "quick sanity check before i reply: can they QLoRA it on …?"
        if not RELAY_RX.search(sentence):
            return sentence.rstrip(_CLOSING_QUOTES)
    return text


# ---------------------------------------------------------------- the asks

#: the words that ask whether a model fits or runs on the hardware ("passt", "läuft", "fits",
#: "feasible", "can it hold", "betreiben", "serve")
_FIT_ASK_RX = re.compile(
    r"\bfit|\bpass(?:t|en|e)\b|\breich(?:t|en)\b|\bgenug\b|\benough\b|\bplenty\b|"
    # ("run one after another", "run them in parallel": how a batch is run, not whether it runs)
    r"\bruns?\b(?!\s+(?:them\s+|it\s+|these\s+|those\s+|all\s+)?(?:one after|sequential|"
    r"in sequence|back[\s-]to[\s-]back|in parallel|concurrently|overnight|in a batch))|"
    r"\blaufen\b|"
    r"\bläuft\b|\bschaff(?:t|en)\b|\bhold|\bfass(?:t|en)\b|\bfeasible|\bpossible|\bmöglich|"
    r"\bmachbar|\bwork(?:s|ing)?\b|\bklappt|\bfunktionier|\busable\b|\bnutzbar|\bhandle|"
    r"\bbetreiben|\bserve\b|\bhost\b|\bdeploy|\bbedienen|\bunterbringen|\bload\b|\bladen\b|"
    r"\bginge\b|würde (?:das|es) gehen|\bgehts\b|"
    # ("geht das und auf welchem Server?" asks which)
    r"\bgeht (?:das|es)\b(?!\s+und\s+(?:auf\s+|mit\s+)?welche)|"
    # "they assumed a 4090 would do. does it?": "do" as "be enough"
    r"\b(?:would|will|should|'ll) do\b(?=\s*(?:[.?!,]|$))|\bdo the (?:job|trick)\b"
)
#: the words that ask a fit by themselves (not a verb a speed question also uses)
_FIT_WORD_RX = re.compile(r"\bfits?\b|\bpass(?:t|en|e)\b|\bhold|\bfass(?:t|en)\b")
#: a question about the context itself ("the full 128K context", "context length", "the longest
#: context", "can it do 32k context?"), not a context named as a condition ("with 32k context")
_CONTEXT_ASK_RX = re.compile(
    r"\b(?:full|whole|entire|complete|maximum|max\.?|native|all|volle\w*|ganze\w*|maximale\w*|"
    r"komplette\w*|gesamte\w*|alle)\s+(?:\(?\d[\d.,]*\s*k?\)?[\s-]*)?(?:tokens?\s+(?:of\s+)?)?"
    r"(?:context|kontext)|"
    r"(?:context|kontext)[\s-]*(?:length|window|länge|fenster)|"
    r"\b(?:longest|längste\w*)\s+(?:\w+\s+)?(?:context|kontext)|"
    r"\bhow (?:long|much)\b(?:(?!sequen|user|request|stream).){0,24}\bcontext|"
    r"\bwie ?(?:lang\w*|viel)\b(?:(?!sequenz|nutzer|anfrage|stream).){0,24}\b(?:kontext|context)|"
    # "und wenn nur eine Anfrage läuft, wie lang darf die dann maximal sein?", "how long can it
    # be at most?"
    r"\bwie lang\w*\s+(?:darf|dürfen|kann|können|könnte)\s+(?:die|der|das|sie|er|es)\s+"
    r"(?:\w+\s+){0,2}?(?:maximal|max\.?|höchstens)\b|"
    r"\bhow long (?:can|could|may) (?:it|that|one|each|a request|the prompt) (?:\w+ ){0,2}?"
    r"(?:be|get) (?:at most|max(?:imum)?)\b|"
    # "64k Kontext pro Anfrage … und wenn nicht, wie lang geht maximal?"
    r"\b(?:context|kontext)\b[^?]{0,120}\bwie lang\w*\s+(?:geht|gehts|ginge|kann|darf|könnte)"
    r"\b|"
    # "how long can the prompts get?", "wie lang dürfen die Prompts werden?": the context asked
    r"\bhow long (?:can|could|may|do|would)\s+(?:the\s+|our\s+|my\s+)?(?:prompts?|inputs?|"
    r"documents?|conversations?|chats?|texts?)\b|"
    r"\bwie lang\w*\s+(?:dürfen|können|darf|kann)\s+(?:die\s+|unsere\s+)?(?:prompts?|eingaben?|"
    r"dokumente?|gespräche?|chats?|texte?)\b|"
    # "can i do 32k context", "schafft sie 128k Kontext": the context is the verb's object
    r"\b(?:do|get|handle|support|manage|schaff\w*|krieg\w*|bekomm\w*|unterstütz\w*)\s+"
    r"(?:a\s+|an\s+|einen?\s+)?\d[\d.,]*\s*k\s+(?:tokens?\s+(?:of\s+)?)?(?:context|kontext)"
)
#: a bare "128K" in a question about the context is the context asked ("… and does 128K fit?",
#: "und bei 32k?" in a follow-up), not a budget ("8k/month", "$8k"), a count of people ("10k
#: users") nor a speed
BARE_K_RX = re.compile(
    r"(?<![\w$€.,])(\d{1,4})\s*k\b(?!\s*(?:/|\$|€|usd|eur|dollar|per\b|pro\b|a month|im monat|"
    r"monat|month|budget|users?|nutzer\w*|leute|people|requests|anfragen|mitarbeiter\w*|"
    r"employees|staff|tok\w*/s|tokens? (?:per|pro|/)))"
)
_SPEED_RX = _INTENT_RX["speed"]
_HOW_MANY_RX = _INTENT_RX["capacity"]
#: "how much VRAM does it need", "wie viel Speicher braucht": the memory need itself is asked
MEMORY_ASK_RX = re.compile(
    r"\bhow (?:much|many)\s+(?:gpu\s+|total\s+)?(?:v?ram|vram|memory|gb)\b|"
    r"\bwie\s*viele?\s+(?:gpu-?\s*|grafik)?(?:v?ram|vram|speicher|gb|grafikspeicher)\b|"
    r"\b(?:vram|memory|speicher)[\s-]*(?:requirement|footprint|need|bedarf|verbrauch)|"
    r"\bspeicherbedarf\b"
)


def _fit_beside_paste(u: Query) -> list[Ask]:
    """ "<topo -m> could they run gemma 3 27b split over those two cards?": a model to fit,
    asked in the question's own sentence beside a paste of the node it would run on."""
    prose = " ".join(topo_prose(u.question.lower()).splitlines())
    # what is asked: its questions ("…? is the NVLink broken?" asks no fit, whatever the setup
    # said before it runs), else the whole prose ("they want to know if X can run split …")
    questions = [s for s in sentences(prose) if s.rstrip().endswith("?")]
    asked = " ".join(questions) or prose
    health = u.claim in ("defect", "healthy")  # "ist der Server kaputt?"
    fit = _FIT_ASK_RX.search(asked) if u.has_subject and not health else None
    return [Ask(kind="fit", at=-1)] if fit else []


def _asks_beside_no_sizing(folded: str, u: Query) -> list[Ask] | None:
    """The asks of a question whose answer sizes nothing itself (a paste's check, a node named
    with no model, a premise corrected), or None for any other question."""
    pasted = bool(u.topo_text or u.nccl_text)
    unsized = not (u.has_subject or u.explain) and u.intents[:1] != ["price"]
    if u.configurations and (pasted or unsized):
        money = (_MONEY_RX if pasted else _PRICE_WORD_RX).search(folded)
        asks = [Ask(kind="price", at=money.start())] if money else []
        return asks + (_fit_beside_paste(u) if pasted else [])
    if u.explain and u.claim == "active_sets_memory" and u.has_subject:
        # "wie viel VRAM brauch ich für X? sind ja nur 39b aktiv": the need asked beside the
        # premise the answer corrects
        memory = MEMORY_ASK_RX.search(folded)
        return [Ask(kind="memory", at=memory.start())] if memory else []
    return None


def find_asks(folded: str, u: Query) -> None:
    """Every ask of the question about a model (fit, price, speed, context), in the order the
    question makes them. In a yes/no question the fit is what the question's verb asks: it
    leads."""
    # the price of a node named beside an answer that sizes nothing is its one ask: beside a
    # paste's check ("ist das so ok? und was zahlt er im Monat für die Kiste?"), or with no
    # model beside another ask ("überlegt auf die SXM4-Variante zu wechseln: was kostet die?")
    early = _asks_beside_no_sizing(folded, u)
    if early is not None:
        u.asks = early
        return
    if not u.has_subject or u.explain or u.topo_text or u.nccl_text:
        return
    folded = _CHOICE_RX.sub(" ", folded)  # "nehmen wir den, der passt" picks, it asks nothing
    hardware = bool(u.configurations or u.cards or u.card_families)
    asks: list[Ask] = []
    money = _MONEY_RX.search(folded)
    if money and hardware:
        asks.append(Ask(kind="price", at=money.start()))
    speed = _SPEED_RX.search(folded)
    if speed is None and u.output_tokens:
        speed = HOW_LONG_RX.search(folded)  # a batch's "how long would that take?" asks the speed
    compared: list[str | None] = list(u.precisions) if len(u.precisions) >= 2 else []
    if speed:
        asks += [Ask(kind="speed", at=speed.start(), precision=p) for p in compared or [None]]
    context = _CONTEXT_ASK_RX.search(folded) if hardware else None
    if context:
        asks.append(Ask(kind="context", at=context.start()))
        bare = BARE_K_RX.search(folded) if u.context_tokens is None else None
        if bare:
            u.context_tokens = int(bare.group(1)) * 1024
    memory = MEMORY_ASK_RX.search(folded)
    many = _HOW_MANY_RX.search(folded) if hardware and not context else None
    if many and is_yes_no(u.question) and "capacity" in u.intents:
        # "Reicht die Karte, und wie viele solcher Anfragen schafft sie gleichzeitig?": the fit
        # leads, how many at once is asked after it
        asks.append(Ask(kind="context", at=many.start()))
    if memory:  # "wie viel speicher … in bf16, in fp8 und in awq?": once per precision
        asks += [Ask(kind="memory", at=memory.start(), precision=p) for p in compared or [None]]
    # ("und wenn nur eine Anfrage läuft, wie lang …?": a condition's verb asks no fit)
    fit = _FIT_ASK_RX.search(_CONDITION_RX.sub(lambda m: " " * len(m.group(0)), folded))
    if u.min_tokens_per_s is not None and not _FIT_WORD_RX.search(folded):
        fit = None  # "Schafft eine L4 mehr als 20 Token/s?": its verb asks the speed
    yes_no = is_yes_no(u.question)
    if u.intent == "capacity" and not yes_no and not context:
        # "Wie viele gleichzeitige Sessions schafft X auf einer L40S – und was kostet sie?": its
        # "schafft" asks how many (the capacity flow), not whether it fits
        u.asks = _in_order(asks)
        return
    named = _model_at(folded, u)  # a model named with a node and a price: does it fit there?
    first = _first_question(u.question.strip())
    placed = not fit and _placed_model(first, u)  # "mixtral 8x7 on a single a100? how fast?"
    priced = _PRICE_WORD_RX.search(folded)  # "what does that cost", not a budget's "2 €"
    if placed and priced and not hardware:  # "… on one card?? and what does that cost"
        asks.append(Ask(kind="price", at=priced.start()))
    priced_node = money and hardware and named >= 0 and not u.output_tokens  # a batch: its time
    if fit or placed or priced_node or (context and yes_no):
        # the yes/no asks the fit when it is the whole question or itself asks it ("Will that
        # work?"), not when it asks about something else said before ("… $1,890. Stimmt das?")
        fit_first = placed or (
            yes_no and (first == u.question.strip() or _FIT_ASK_RX.search(first.lower()))
        )
        fit_first = fit_first and u.min_tokens_per_s is None  # "schafft sie 20 Token/s?": speed
        at = -1 if fit_first else fit.start() if fit else named
        precisions: list[str | None] = compared if not speed else []
        asks += [Ask(kind="fit", at=at, precision=p) for p in precisions or [None]]
    if speed and u.measured.tokens_per_s is not None:
        # "they run X on 1x L40S and get about 9 tok/s — is it broken?": the setup places the
        # model, the measured speed is what is asked about
        asks = [a for a in asks if a.kind != "fit"]
    u.asks = _in_order(asks)


#: a condition's clause up to its comma ("wenn nur eine Anfrage läuft, …", "if only one request
#: runs, …"), when a question follows it
_CONDITION_RX = re.compile(r"\b(?:wenn|falls|sofern|if|when)\b[^,?.!;]{0,60},(?=[^?]*\?)")


#: "on one card", "on a single A100", "auf einer L40S", "auf 2x 4090": where the model would run
_PLACED_RX = re.compile(
    r"\b(?:on|onto|auf)\s+(?:(?:a|an|one|1|a single|one single|ONE|einer|eine|einem|ner|"
    r"einer einzigen|einer einzelnen|\d+\s*x?|the|my|our|unserer?|unserem|der|dem)\s+)?"
    r"(?:\w+\s+){0,2}?(?:cards?|gpus?|karten?|grafikkarten?|[a-z]\d{1,4}\w*|\d{2,4}\w*|node|box|"
    r"server|"
    r"knoten)\b",
    re.IGNORECASE,
)


_WHICH_RX = re.compile(r"\b(?:which|what|welche\w*|wo|where)\b")
_PRICE_WORD_RX = re.compile(r"\bcosts?\b|\bprice|\bkostet|\bkosten\b|\bpreis")


def _placed_model(first: str, u: Query) -> bool:
    """A question's first sentence that only places the model on hardware and asks nothing else
    ("l3.3 70b awq on one card??", "mixtral 8x7 on a single a100?"): it asks whether it fits,
    whatever the sentences after it ask."""
    if first == u.question.strip() or not (u.model_mention or u.params_b or u.unknown_model):
        return False  # one sentence: the other asks' own rules apply
    low = first.lower()
    if not (is_yes_no(first) and _PLACED_RX.search(low)) or _WHICH_RX.search(low):
        return False  # "geht das und auf welchem Server?" asks which, not whether
    other = (_SPEED_RX, _MONEY_RX, MEMORY_ASK_RX, _CONTEXT_ASK_RX)
    return not any(rx.search(low) for rx in other)


def _model_at(folded: str, u: Query) -> int:
    """Where the question names its model; -1 when it names none (a follow-up's model comes
    from the session)."""
    if not (u.model_mention or u.unknown_model or u.params_b):
        return -1
    at = folded.find(u.model_mention.lower()) if u.model_mention else -1
    return max(at, 0)


def _in_order(asks: list[Ask]) -> list[Ask]:
    """The asks in the order the question makes them, each (kind, precision) once."""
    seen: set[tuple[AskKind, str | None]] = set()
    out: list[Ask] = []
    for ask in sorted(asks, key=lambda a: a.at):  # stable: precisions keep their order
        if (ask.kind, ask.precision) not in seen:
            seen.add((ask.kind, ask.precision))
            out.append(ask)
    return out
