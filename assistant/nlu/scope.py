"""What a question asks for that is outside the sizing domain (`Query.outside`).

A question may name the site's hardware and still ask for something the assistant cannot and
should not answer: what crypto mining on a rented node earns, frame rates in games, an electricity
bill, whether to buy a stock, whether the site buys used cards, whether a rent is tax-deductible.
The card or node named would otherwise start the price or fit flows and answer with a price list.
So the *goal* of the question is read apart from its *entities*:

1. the entities (cards, configuration ids, the model named) are blanked out of the folded text,
   so a goal is never read from a name;
2. the text is cut into clauses (sentences, and "…, and what …" / "… und lohnt …" joined clauses);
3. each clause is matched against the lexicon of out-of-scope goals below (`GOALS`, German and
   English), minus the in-domain readings of the same words (`Goal.unless`: "data mining",
   "game studio", "in stock", "predict stock prices"); words that only name a goal's subject
   (`Goal.topic`: "legal", "stocks", a game's title) count only when the question sizes no model
   ("a RAG bot over legal documents with Llama 3.3 70B" is a sizing question);
4. the clauses without such a goal are what the question asks *within* the domain (`rest`): the
   intents and asks are read from them only ("What does 8x H100 cost, and what would mining on it
   earn?" asks for the price; "How much can I earn mining on 8x H100 per month?" asks nothing the
   assistant answers, its "per month" belongs to the earnings).

The planner's `out_of_scope` flow (assistant/compose/table.py) wins over every entity-triggered
flow: its first sentence says the goal is outside what the assistant answers, then it answers
the in-domain rest, if any. A new goal is one `Goal` here and one phrase in assistant/texts.py
(`outside.<name>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

OutsideGoal = Literal[
    "mining",
    "gaming",
    "electricity",
    "investment",
    "hardware_trade",
    "legal",
    "web_hosting",
    "logistics",
    "other_it",
]


#: the words that make a language model the job ("a support bot", "ein Sprachmodell", "our own
#: chat"): a goal's topic word in the same clause is that job's setting ("einen Kundenservice-Bot
#: für unseren Onlineshop"), not the goal (`goals_in`); the reader's topic llm_job
LLM_JOB_RX = re.compile(
    r"\b(?:llm|language model|sprachmodell\w*|chat\w*|tokens?|\w*bots?|"
    r"(?:ai|ki|coding|support|internal|interne[nmr]?)[\s-]assist\w*|copilot)\b"
)


@dataclass(frozen=True)
class Goal:
    """One out-of-scope goal: the words that ask for it (`asks`), the words that only name its
    subject (`topic`: "legal", "stocks", a game's title — they may be what a model is sized to
    work on, "a chatbot over legal documents with Llama 3.3 70B", so they count only when the
    question sizes no model), and the in-domain readings of those words (`unless`, blanked
    before matching)."""

    name: OutsideGoal
    asks: re.Pattern[str]
    topic: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None


_COINS = (
    r"bitcoins?|btc|ethereum|ether|eth|monero|xmr|kaspa|kas|ravencoin|rvn|litecoin|ltc|"
    r"dogecoin|doge|altcoins?|crypto\w*|krypto\w*|coins?|münzen"
)
_EARN = (
    r"earn\w*|profit\w*|revenue|income|yield|payout|return on|roi\b|pays? off|pay for itself|"
    r"verdien\w*|gewinn\w*|rentab\w*|ertr[aä]g\w*|einnahm\w*|rendite|amorti\w*|lohnt|rechnet sich"
)
_GAMES = (
    r"cyberpunk|fortnite|call of duty|warzone|counter[\s-]?strike|cs2|valorant|minecraft|"
    r"elden ring|starfield|gta\s*(?:v|5|6)?|red dead|baldur'?s gate|league of legends|"
    r"apex legends|battlefield|flight simulator|assassin'?s creed|hogwarts legacy|"
    r"alan wake|black myth|overwatch|dota|pubg|rocket league"
)

# a company or asset as an investment; "NVIDIA H100 cards" (a card blanked after it) is hardware
_COMPANY = (
    r"(?:nvidia|amd|intel|aktien|shares|stocks?|" + _COINS + r")\b"
    r"(?!\s{2,}|\s+(?:gpus?|cards?|karten?|grafikkarten?|hardware|server\w*)\b)"
)

GOALS: tuple[Goal, ...] = (
    Goal(
        "mining",
        re.compile(
            r"\b(?:mining|miners?|minen|mine[nd]?\s+(?:"
            + _COINS
            + r")|schürf\w*|hash[\s-]?rate\w*|"
            r"hashes|mining[\s-]?rigs?|proof[\s-]of[\s-]work|nicehash)\b|"
            r"\b(?:" + _COINS + r")\b.{0,80}\b(?:" + _EARN + r")|"
            # "how much eth or whatever coin could i mine per day": the verb after the coin
            r"\b(?:" + _COINS + r")\b.{0,30}\bmine\b|"
            r"\b(?:" + _EARN + r")\b.{0,60}\b(?:" + _COINS + r")\b"
        ),
        # data / text / process mining, and the mining industry's own data
        unless=re.compile(
            r"\b(?:data|text|process|opinion|web|log|graph|pattern|daten|text|prozess|"
            r"argument|knowledge|wissens)[\s-]*mining\b|"
            r"\bmining[\s-]*(?:data|daten|sensor\w*|industry|industrie|compan\w*|firm\w*|"
            r"unternehmen|reports?|berichte?n?|documents?|dokumente?n?|safety|sicherheit|logs?)\b"
        ),
    ),
    Goal(
        "gaming",
        re.compile(
            r"\bzock\w*|\bcloud[\s-]?gaming\b|"
            r"\b(?:for|zum|fürs|für|beim)\s+(?:gaming|spielen|zocken)\b|"
            r"\bgaming[\s-]?(?:performance|leistung|benchmarks?|setup|pc|rig)\b|"
            r"\b(?:play|playing)\s+(?:games|video\s*games|computer\s*games|pc\s*games)\b|"
            r"\b(?:spiele|games|videospiele|computerspiele)\s+(?:spielen|laufen|zocken)|"
            r"\b(?:fps|frames? per second|bilder pro sekunde|frame\s?rates?|bildrate\w*)\b"
            r".{0,60}\b(?:game\w*|spiel\w*|gaming|ray[\s-]?tracing|dlss|1440p|ultra|"
            + _GAMES
            + r")|"
            r"\b(?:game\w*|spiel\w*|gaming|ray[\s-]?tracing|dlss|1440p|" + _GAMES + r")\b.{0,60}"
            r"\b(?:fps|frames? per second|bilder pro sekunde|frame\s?rates?|bildrate\w*)\b"
        ),
        topic=re.compile(r"\b(?:" + _GAMES + r")\b"),
        unless=re.compile(r"\bgame[\s-]?(?:dev\w*|engine|assets?|studio)\b|\bspielentwickl\w*"),
    ),
    Goal(
        "electricity",
        re.compile(
            r"\b(?:electricity|electric bill|power bill|energy bill|power costs?|energy costs?|"
            r"energy use|energy usage|power consumption|power draw|power usage|kwh|kilowatt\w*|"
            r"watts?|wattage|tdp|strom|stromrechnung|stromkosten|stromverbrauch|strompreis\w*|"
            r"energiekosten|energieverbrauch|leistungsaufnahme|stromzähler|netzteil)\b"
        ),
    ),
    Goal(
        "investment",
        re.compile(
            r"\b(?:buy|sell|own|hold|kauf\w*|verkauf\w*|halten|nachkaufen)\b.{0,40}"
            r"\b(?:shares|stocks?|aktie\w*|nvda|etfs?)\b|"
            r"\b(?:shares|stocks?|aktie\w*|nvda)\b.{0,40}\b(?:a buy|a sell|go up|rise|fall|"
            r"steig\w*|fall\w*|kaufen|verkaufen|halten|buy|sell|hold)\b|"
            r"\b(?:nvda|kursziel|price target|investment advice|anlageberatung|geldanlage)\b|"
            r"\b(?:invest\w*|anlegen)\b.{0,30}\b(?:" + _COMPANY + r")|"
            r"\bin\s+(?:" + _COMPANY + r")\s+(?:zu\s+)?(?:invest\w*|anlegen)\b"
        ),
        topic=re.compile(
            r"\b(?:aktie\w*|stocks?|share price|aktienkurs\w*|börse\w*|stock market|"
            r"aktienmarkt|portfolio|dividend\w*|etfs?)\b"
        ),
        unless=re.compile(
            r"\b(?:in|out of|on|im)\s+stock\b|\bauf lager\b|\bstock\s+(?:availab\w*)|"
            r"\b(?:predict\w*|forecast\w*|vorhers\w*|prognos\w*)\s+(?:\w+\s+)?"
            r"(?:stock|aktie|share)\w*"
        ),
    ),
    Goal(
        "hardware_trade",
        re.compile(
            r"\b(?:buy|purchase|buy back|take over)\s+(?:back\s+)?(?:my|our)\b(?!\s+own\b)|"
            r"\bsell\s+(?:you\s+|to you\s+|it to you\s+)?(?:my|our)\b|"
            r"\bverkauf\w*\s+(?:ich\s+|wir\s+)?(?:euch\s+|ihnen\s+|dir\s+)?(?:meine|unsere)\w*|"
            r"\b(?:euch|ihnen|dir)\s+(?:meine|unsere)\w*\b.{0,40}\bverkauf\w*|"
            r"\b(?:kauft|kaufen)\s+(?:ihr|sie)\b.{0,60}\ban\b|\bankauf\w*|\btrade[\s-]?ins?\b|"
            r"\bin zahlung\b|\bresell\w*|\bweiterverkauf\w*|\bwiederverkauf\w*|"
            r"\b(?:buy|sell|kaufen|verkaufen)\w*\s+(?:used|second[\s-]hand|gebraucht\w*)|"
            # "would we sell them 4 of the used rtx a6000 cards outright … instead of renting"
            r"\b(?:sell|buy|kaufen|verkaufen)\w*\b.{0,60}\b(?:outright|instead of renting|"
            r"statt (?:zu )?mieten|statt miete|zum kauf|to own)\b"
        ),
    ),
    Goal(
        "legal",
        re.compile(
            r"\b(?:is it|is this|is that|ist es|ist das|is)\s+(?:\w+\s+)?(?:legal|illegal|lawful|"
            r"allowed|erlaubt|zulässig|rechtlich\w*)\b|\b(?:legally|illegal|unlawful|"
            r"deductible|deduct\w*|absetzbar|abschreib\w*|vat|mwst|mehrwertsteuer|"
            r"umsatzsteuer|steuererklärung|write[\s-]?offs?|business expenses?|"
            r"betriebsausgabe\w*|terms of service|agb)\b|"
            r"\brechtlich\w*\s+(?:okay|ok|erlaubt|zulässig|sauber|problematisch|erlaubt)\b|"
            r"\b(?:licen[cs]e|lizenz)\w*\b.{0,30}\b(?:allow|permit|erlaub|gestatt)\w*|"
            # "darf ich llama rechtlich gesehen kommerziell nutzen?", "am I allowed to use it
            # commercially?", "lizenz und so"
            r"\brechtlich gesehen\b|\b(?:licen[cs]e|lizenz)\w*\s+(?:und so|terms|bedingung\w*)\b|"
            r"\b(?:darf|dürfen)\s+(?:ich|wir|man)\b[^?.]{0,80}\bkommerziell\w*|"
            r"\b(?:am i|are we|is one)\s+allowed\s+to\b[^?.]{0,60}\bcommercial\w*|"
            r"\bwrite\s+(?:it\s+|\w+\s+)?off\b|\bvon der steuer\b"
        ),
        # ("a 25-lawyer firm" sizing a model is a customer, not a legal question)
        topic=re.compile(
            r"\b(?:legal|lawyer|anwalt|rechtlich\w*|gesetz\w*|licen[cs]e|lizenz\w*|dsgvo|gdpr|"
            r"tax|taxes|"
            r"taxed|steuer|steuerlich\w*|steuerberat\w*)\b"
        ),
    ),
    Goal(
        "web_hosting",
        # topic words only: "a RAG bot for our WordPress site with Llama 3.1 8B" sizes a model
        re.compile(r"(?!x)x"),
        topic=re.compile(
            r"\b(?:web[\s-]?hosting|webspace|wordpress|shared hosting|managed hosting|"
            r"domain\w*\s+(?:registr\w*|kaufen|buy)|e-?mail[\s-]?(?:hosting|postf\w*)|"
            r"homepage[\s-]?(?:paket\w*|hosting)|website hosting|hosting[\s-]?paket\w*|"
            # "Domainregistrierung und Exchange-Postfächer für unsere 12 Mitarbeiter"
            r"domain[\s-]?registr\w*|exchange[\s-]?(?:postf\w*|mailbox\w*|server|online)|"
            r"postfächer|mailboxes|"
            # "Hostet ihr auch normale Webseiten? … für unseren WooCommerce-Shop"
            r"(?:normal\w*|einfach\w*|klassisch\w*|ordinary|regular|simple|plain)\s+"
            r"(?:webseiten|websites?|web sites?|homepages?)|woocommerce|shopify|magento|joomla|"
            r"typo3|web[\s-]?shop\w*|online[\s-]?shop\w*)\b"
        ),
    ),
    Goal(
        "other_it",
        # "do you guys also size normal servers? cpu cores and ram for a postgres db", "write us
        # a grafana dashboard json": IT work other than sizing GPU servers for models
        re.compile(
            r"\b(?:normal\w*|regular|plain|ordinary|cpu[\s-]?only|non[\s-]?gpu|klassisch\w*|"
            r"gewöhnlich\w*)\s+(?:servers?|vms?|maschinen|rechner)\b|"
            r"\b(?:cpu[\s-]?cores?|vcpus?|cpu[\s-]?kerne|prozessorkerne)\b[^.?!]{0,60}"
            r"\b(?:postgres\w*|mysql|mariadb|mongo\w*|database|datenbank\w*|db|webserver|"
            r"web server)\b|"
            r"\b(?:postgres\w*|mysql|mariadb|mongo\w*|database|datenbank\w*)\b[^.?!]{0,60}"
            r"\b(?:cpu[\s-]?cores?|vcpus?|cpu[\s-]?kerne|prozessorkerne)\b|"
            r"\bgrafana\b|\bdashboards?\b[^.?!]{0,30}\bjson\b|"
            r"\b(?:write|build|schreib\w*|bau\w*)\s+(?:us|me|uns|mir)\s+(?:a|an|ein\w*)\s+"
            r"(?:(?:python|bash|shell|node|js|javascript|go|rust|php)\s+)?"
            r"(?:dashboard|script|skript|terraform|ansible|helm|scraper|crawler|bot|programm?|"
            r"code)|"
            # "a python script that scrapes amazon prices every hour": code of another purpose
            r"\b(?:scrapes?|scraping|crawl\w*)\b[^.?!]{0,40}\b(?:prices?|preise?|websites?|"
            r"webseiten?|pages?|seiten|amazon|ebay)\b"
        ),
        topic=re.compile(
            r"\b(?:postgres\w*|mysql|mariadb|mongodb|datenbankserver|database server)\b"
        ),
    ),
    Goal(
        "logistics",
        # "can you ship one of the servers to our office?", "20 TB NVMe dazu?": delivery and
        # attached storage, which the catalog does not describe (card memory is said in GB)
        re.compile(
            r"\b(?:ship|shipp\w*|deliver\w*|send|versend\w*|versand|liefer\w*|anliefer\w*|"
            r"zustell\w*)\b[^.?!]{0,60}\b(?:to|an|nach|in|zu|into)\s+(?:our|my|the|your|unser\w*|"
            r"mein\w*|ihr\w*|euer\w*)\s+(?:office|site|premises|building|data ?cent(?:er|re)|"
            r"büro|standort|firma|rechenzentrum|gebäude|lager)\b|"
            r"\bon[\s-]?prem(?:ise)?s?\b|"
            r"\b\d+\s*(?:tb|terabytes?)\b[^.?!]{0,40}\b(?:storage|nvme|ssd|speicher\w*|"
            r"festplatt\w*|disks?|drives?)\b|"
            r"\b(?:storage|nvme|ssd|speicher\w*|festplatt\w*)\b[^.?!]{0,20}\b\d+\s*(?:tb|terabytes?)\b"
        ),
    ),
)

# where one clause ends and the next begins: a sentence end, or a comma / conjunction before a
# word that starts a new ask ("…, and what does it cost", "… und lohnt sich …")
_STARTER = (
    r"(?:what|what's|how|which|does|do|is|are|can|could|will|would|should|tell|give|i|we|it|"
    r"was|wie|welche\w*|wieviel\w*|passt|kann|können|ist|sind|lohnt|reicht|läuft|brauche\w*|"
    r"ich|wir|es|man|sag\w*|nenn\w*|gib|gibt)\b"
)
_CLAUSE_END_RX = re.compile(
    r"[?!;\n]+|\.(?=\s|$)|,\s*(?:(?:and|und|but|aber|also|plus)\s+)?(?=" + _STARTER + r")|"
    r"\s(?:and|und|but|aber|also|plus|außerdem|sowie)\s+(?=" + _STARTER + r")"
)


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with each span replaced by spaces (positions kept)."""
    out = text
    for start, end in spans:
        out = out[:start] + " " * (end - start) + out[end:]
    return out


def clauses(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of the text, in order."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _CLAUSE_END_RX.finditer(text):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def goals_in(clause: str, sizing: bool = False) -> list[OutsideGoal]:
    """The out-of-scope goals a clause (entities blanked) asks for, in `GOALS` order; a goal's
    topic words count only when the question sizes no model (`sizing` false) and the clause
    names no language-model job."""
    found: list[OutsideGoal] = []
    sizing = sizing or bool(LLM_JOB_RX.search(clause))
    for goal in GOALS:
        text = goal.unless.sub(" ", clause) if goal.unless is not None else clause
        topic = goal.topic is not None and not sizing and goal.topic.search(text)
        if goal.asks.search(text) or topic:
            found.append(goal.name)
    return found


# a clause that only refers back to the one before ("is that worth it?", "lohnt sich das?")
_BACK_RX = re.compile(r"\b(?:das|dies|es|that|this|it)\b")
_WORTH_RX = re.compile(r"\b(?:" + _EARN + r"|worth)\b")
# … unless it asks something of the domain itself ("and what does it cost?")
_OWN_ASK_RX = re.compile(
    r"\b(?:cost|costs|price|prices|kost\w*|preis\w*|fit|fits|passt|fast|schnell\w*|nvlink|"
    r"memory|speicher|vram|tokens?)\b"
)


def _continues_goal(masked: str, clause: str) -> bool:
    """The clause names nothing of its own (no card, model or node) and refers back."""
    if masked != clause or not _BACK_RX.search(clause):
        return False
    # "und lohnt sich das bei euren Preisen?" weighs the goal; "what does it cost?" asks anew
    return bool(_WORTH_RX.search(clause)) or not _OWN_ASK_RX.search(clause)


def find_outside(
    folded: str, entities: list[tuple[int, int]], sizing: bool = False
) -> tuple[list[OutsideGoal], str]:
    """The out-of-scope goals the question asks for, and the rest of the question (its clauses
    that ask for none; the whole text when there is no such goal). `sizing`: the question names
    a model to size."""
    masked = blank(folded, entities)
    goals: list[OutsideGoal] = []
    rest: list[str] = []
    before: list[OutsideGoal] = []  # the goals of the clause before
    for start, end in clauses(masked):
        found = goals_in(masked[start:end], sizing)
        goals += [g for g in found if g not in goals]
        # a clause that names nothing of its own, in a question that names no card, model or
        # node, is about the goal ("webhosting für wordpress? was kostet das paket?")
        alone = not entities and masked[start:end] == folded[start:end]
        if (
            not found
            and before
            and (alone or _continues_goal(masked[start:end], folded[start:end]))
        ):
            found = before  # "… rund um die Uhr? Lohnt sich das gegenüber eurer Miete?"
        if not found:
            rest.append(folded[start:end].strip())
        before = found
    if not goals:
        return [], folded
    return goals, ". ".join(r for r in rest if r)
