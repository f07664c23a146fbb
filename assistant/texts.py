"""The offline composer's phrasing in German and English, and number formatting per language.

Phrases hold no figures of their own: every number is a placeholder filled from a tool result.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from assistant.answer import Language

PHRASES: dict[str, tuple[str, str]] = {
    # key: (English, German)
    # --- scope, unknowns, clarifications
    "off_topic": (
        "I can only help with sizing GPU servers at gpuserver.io: which card or node a model fits "
        "on, whether you need NVLink, expected speed and the exact monthly prices.",
        "Ich helfe nur bei der Dimensionierung von GPU-Servern bei gpuserver.io: auf welche Karte "
        "oder welchen Knoten ein Modell passt, ob Sie NVLink brauchen, welches Tempo zu erwarten "
        "ist und was die Konfigurationen im Monat kosten.",
    ),
    "starting_point_lead": (
        "Until you say, here is a starting point:",
        "Bis dahin ein Ausgangspunkt:",
    ),
    "starting_point": (
        "_Assumed, since the question names no model: {assumed}. Pick another model below, or "
        "change any of it above._",
        "_Angenommen, da die Frage kein Modell nennt: {assumed}. Wählen Sie unten ein anderes "
        "Modell, oder ändern Sie oben, was ich verstanden habe._",
    ),
    "assumed_model": ("{model} in {precision}", "{model} in {precision}"),
    "assumed_context": (
        "{tokens} tokens of context per request",
        "{tokens} Token Kontext pro Anfrage",
    ),
    "not_covered": (
        "_Not covered in this answer: {parts}. Ask it on its own and I will answer it, or "
        "correct what I understood above._",
        "_Nicht beantwortet habe ich hier: {parts}. Stellen Sie das bitte als eigene Frage, oder "
        "korrigieren Sie oben, was ich verstanden habe._",
    ),
    "injection": (
        "Instructions inside a question can't change prices or the sizing rules; "
        "prices come only from the catalog.",
        "Anweisungen in einer Frage ändern weder Preise noch die Regeln; "
        "Preise stammen ausschließlich aus dem Katalog.",
    ),
    "which_of_family": (
        "**Which {name}? The catalog has several sizes: {names}.** Each needs a different "
        "amount of memory; tell me which one (or its parameter count) and I'll size it.",
        "**Welches {name}? Im Katalog stehen mehrere Größen: {names}.** Jede braucht anders viel "
        "Speicher; sagen Sie mir, welches (oder seine Parameterzahl), dann rechne ich es durch.",
    ),
    "unknown_model": (
        "**I don't know the model {name}** — it is not in the catalog, so I won't guess its size.",
        "**Das Modell {name} kenne ich nicht** — es steht nicht im Katalog, also rate ich "
        "seine Größe nicht.",
    ),
    "sized_by_name_family": (
        "_The catalog has {names}._",
        "_Im Katalog stehen {names}._",
    ),
    "sized_by_name": (
        "_{name} is not in the catalog: sized from its name as a generic dense {params}B model "
        "(the architecture is unknown, so the KV cache is an estimate or left out as stated)._",
        "_{name} steht nicht im Katalog: nach dem Namen als generisches dichtes {params}B-Modell "
        "gerechnet (die Architektur ist unbekannt, der KV-Cache daher geschätzt oder wie "
        "angegeben weggelassen)._",
    ),
    "unknown_model_closest": (
        "Models I know with similar names: {names}.",
        "Bekannte Modelle mit ähnlichem Namen: {names}.",
    ),
    "unknown_model_offer": (
        "If you tell me its parameter count, I can size it as a generic dense model — for "
        "example ask: “{example}”.",
        "Wenn Sie mir die Parameterzahl nennen, rechne ich es als generisches dichtes Modell "
        "durch — fragen Sie zum Beispiel: „{example}“.",
    ),
    "unknown_model_offer_params": (
        "Its name says {params}B parameters: I can size it by parameter count as a generic dense "
        "{params}B model (weights only, no KV cache, because the architecture is unknown) — ask: "
        "“{example}”.",
        "Der Name nennt {params} Mrd. Parameter: Ich kann es nach der Parameterzahl als "
        "generisches dichtes {params}B-Modell durchrechnen (nur Gewichte, ohne KV-Cache, weil die "
        "Architektur unbekannt ist) — fragen Sie: „{example}“.",
    ),
    "ask_model": (
        "Which model (and precision) do you want to run? With that I can tell you exactly.",
        "Welches Modell (und in welcher Präzision) möchten Sie betreiben? Dann kann ich es "
        "genau sagen.",
    ),
    "ask_workload": (
        "Will it serve real traffic (many concurrent requests) or only low concurrency, or will "
        "you train it? That decides between PCIe and NVLink.",
        "Soll es echten Traffic bedienen (viele parallele Anfragen) oder nur wenige Anfragen, "
        "oder wollen Sie trainieren? Davon hängt ab, ob PCIe reicht oder NVLink nötig ist.",
    ),
    "ask_configuration": (
        "Which configuration do you mean? For example “4x A100 SXM4” or “8x H200”.",
        "Welche Konfiguration meinen Sie? Zum Beispiel „4x A100 SXM4“ oder „8x H200“.",
    ),
    "general_rule_title": ("The general rule:", "Die allgemeine Regel:"),
    # --- verdicts
    "verdict_fits_one": (
        "**{model} fits on one card** in {precision}: it needs {need} per card, and the "
        "cheapest node where it fits on a single card is {label}:",
        "**{model} passt auf eine Karte** in {precision}: Es braucht {need} pro Karte; der "
        "günstigste Knoten, auf dem es auf eine einzelne Karte passt, ist {label}:",
    ),
    "verdict_must_split": (
        "**{model} does not fit on one card in {precision}** — it must be split across cards.",
        "**{model} passt in {precision} auf keine einzelne Karte** — es muss auf mehrere Karten "
        "aufgeteilt werden.",
    ),
    "verdict_runs_split": (
        "**Yes — {model} runs here in {precision}, split across the cards of a node:**",
        "**Ja — {model} läuft bei uns in {precision}, auf die Karten eines Knotens verteilt:**",
    ),
    "verdict_big_card_only": (
        "**Only on the large-memory cards: {model} in {precision} fits on one card of {label}; "
        "everywhere else it must be split across cards.**",
        "**Nur auf Karten mit viel Speicher: {model} passt in {precision} auf eine Karte von "
        "{label}; überall sonst muss es auf mehrere Karten aufgeteilt werden.**",
    ),
    "verdict_no_fit_anywhere": (
        "**{model} in {precision} fits on no configuration in the catalog**, not even split "
        "across a whole node.",
        "**{model} passt in {precision} auf keine Konfiguration im Katalog**, auch nicht auf "
        "einen ganzen Knoten verteilt.",
    ),
    "weights_line": (
        "Weights: {weights} in {precision}; KV cache for {context} tokens × {conc}: {kv}; "
        "usable memory per 80 GB card: {usable}.",
        "Gewichte: {weights} in {precision}; KV-Cache für {context} Token × {conc}: {kv}; "
        "nutzbar pro 80-GB-Karte: {usable}.",
    ),
    "weights_only": ("Weights: {weights} in {precision}.", "Gewichte: {weights} in {precision}."),
    "users_share": (
        "{users} users are sized as {conc} {conc|sequence|sequences} generating at the same moment "
        "(an assumption for an interactive service at its busy hour); if you know the peak number "
        "of simultaneous requests, give it instead.",
        "{users} Nutzer sind als {conc} gleichzeitig generierende {conc|Sequenz|Sequenzen} "
        "angesetzt (eine Annahme für einen interaktiven Dienst zur Hauptlastzeit); wenn Sie die "
        "Spitzenzahl gleichzeitiger Anfragen kennen, nennen Sie sie.",
    ),
    "sized_for_load": (
        "Sized for {conc} concurrent sequences of {context} tokens each: {kv} of KV cache on top "
        "of the weights, per copy of the model.",
        "Ausgelegt für {conc} gleichzeitige Sequenzen mit je {context} Token: {kv} KV-Cache "
        "zusätzlich zu den Gewichten, pro Kopie des Modells.",
    ),
    "assumptions": (
        "Assumptions: {context} tokens of context, {conc} concurrent "
        "{conc|sequence|sequences}, {util} of card memory usable as {runtime} counts it, "
        "{overhead} per card for {runtime} itself.",
        "Annahmen: {context} Token Kontext, {conc} gleichzeitige {conc|Sequenz|Sequenzen}, "
        "{util} des Kartenspeichers nutzbar, wie {runtime} rechnet, {overhead} pro Karte "
        "für {runtime} selbst.",
    ),
    "assumptions_reserve": (
        "Assumptions: {context} tokens of context, {conc} concurrent "
        "{conc|sequence|sequences}, each card's memory usable but {reserve} kept free as "
        "{runtime} counts it, {overhead} per card for its compute buffer.",
        "Annahmen: {context} Token Kontext, {conc} gleichzeitige {conc|Sequenz|Sequenzen}, "
        "Speicher jeder Karte nutzbar bis auf {reserve} Reserve, wie {runtime} rechnet, "
        "{overhead} pro Karte für seinen Rechenpuffer.",
    ),
    "need_of": (", {need} of {usable} per card", ", {need} von {usable} pro Karte"),
    "cfg_fits_one": (
        "{label}: fits on one card ({need} of {usable} per card).",
        "{label}: passt auf eine Karte ({need} von {usable} pro Karte).",
    ),
    "cfg_split": (
        "{label}: must be split across {n} cards ({need} of {usable} per card).",
        "{label}: muss auf {n} Karten aufgeteilt werden ({need} von {usable} pro Karte).",
    ),
    "cfg_no_fit": (
        "{label}: does not fit ({need} needed per card, {usable} usable).",
        "{label}: passt nicht ({need} nötig pro Karte, {usable} nutzbar).",
    ),
    # --- nvlink
    "nvlink_yes_traffic": (
        "**Yes — for real traffic this is the case NVLink is built for: rent an SXM node.** "
        "{model} in {precision} does not fit on one {card} card and must be split{split}.",
        "**Ja — für echten Traffic ist genau das der Fall, für den NVLink gebaut ist: Mieten Sie "
        "einen SXM-Knoten.** {model} passt in {precision} auf keine einzelne {card}-Karte und "
        "muss aufgeteilt werden{split}.",
    ),
    "nvlink_yes_training": (
        "**Yes — training a model split across cards is a case for NVLink: rent an SXM node.**",
        "**Ja — ein über mehrere Karten verteiltes Training ist ein Fall für NVLink: Mieten Sie "
        "einen SXM-Knoten.**",
    ),
    "nvlink_low_concurrency": (
        "**No, PCIe works** for low concurrency: {model} in {precision} must be split{split}, "
        "but with few parallel requests size the node for memory, not speed.",
        "**Nein, PCIe reicht** bei wenigen parallelen Anfragen: {model} muss in {precision} "
        "aufgeteilt werden{split}, aber wählen Sie den Knoten dann nach Speicher, "
        "nicht nach Tempo.",
    ),
    "nvlink_load_assumed": (
        "That is for the load assumed here, one request at a time, since none was said; for "
        "real traffic, many requests at once, the guide's rule is NVLink (SXM). **How many "
        "people will use it at the same time?**",
        "Das gilt für die hier angenommene Last, eine Anfrage nach der anderen, da keine genannt "
        "wurde; für echten Traffic, viele Anfragen gleichzeitig, sagt der Guide NVLink (SXM). "
        "**Wie viele Personen nutzen es gleichzeitig?**",
    ),
    "nvlink_not_needed_fits": (
        "**No — you don't need NVLink.** {model} fits on one card in {precision}, so the "
        "interconnect doesn't matter: rent one card.",
        "**Nein — NVLink brauchen Sie nicht.** {model} passt in {precision} auf eine Karte, die "
        "Verbindung zwischen Karten spielt also keine Rolle: Mieten Sie eine Karte.",
    ),
    "nvlink_not_needed_copies": (
        "**No — you don't need NVLink.** {model} fits on one card in {precision} and each copy "
        "runs on its own card, so nothing crosses the link between the cards.",
        "**Nein — NVLink brauchen Sie nicht.** {model} passt in {precision} auf eine Karte, und "
        "jede Kopie läuft auf ihrer eigenen Karte: Über die Verbindung zwischen den Karten läuft "
        "nichts.",
    ),
    "nvlink_split_unknown_workload": (
        "**It depends on the load.** {model} in {precision} does not fit on one {card} card and "
        "must be split{split}.",
        "**Das hängt von der Last ab.** {model} passt in {precision} auf keine einzelne "
        "{card}-Karte und muss aufgeteilt werden{split}.",
    ),
    "nvlink_independent": (
        "**No — independent models or jobs never cross the link.** Rent PCIe cards, as many as "
        "you need: more VRAM per dollar.",
        "**Nein — unabhängige Modelle oder Jobs nutzen die Verbindung nie.** Mieten Sie so viele "
        "PCIe-Karten wie nötig: mehr VRAM pro Dollar.",
    ),
    "nvlink_pipeline": (
        "**No — pipeline parallelism usually doesn't need it: it hands over once per "
        "micro-batch, not once per layer, so PCIe keeps up.**",
        "**Nein — Pipeline-Parallelismus braucht es meist nicht: Er übergibt einmal pro "
        "Mikro-Batch statt einmal pro Layer, PCIe hält da mit.**",
    ),
    "nvlink_diffusion_pcie": (
        "**PCIe — diffusion and rendering don't need NVLink.** Each card works on its own image "
        "or frame as an independent copy; nothing is synchronised between cards.",
        "**PCIe — Diffusion und Rendering brauchen kein NVLink.** Jede Karte arbeitet als "
        "unabhängige Kopie an ihrem eigenen Bild oder Frame; zwischen den Karten wird nichts "
        "synchronisiert.",
    ),
    "nvlink_diffusion": (
        "**No — diffusion and rendering don't need NVLink.** Each card works on its own image or "
        "frame; nothing is synchronised between cards.",
        "**Nein — Diffusion und Rendering brauchen kein NVLink.** Jede Karte arbeitet an ihrem "
        "eigenen Bild oder Frame; zwischen den Karten wird nichts synchronisiert.",
    ),
    "nvlink_multi_node": (
        "**A single job on more than eight cards needs a fabric between nodes, which "
        "gpuserver.io does not offer** — NVLink joins cards inside one node only.",
        "**Ein einzelner Job auf mehr als acht Karten bräuchte ein Fabric zwischen Knoten, das "
        "gpuserver.io nicht anbietet** — NVLink verbindet nur Karten innerhalb eines Knotens.",
    ),
    "nvlink_general": (
        "**It depends on whether one model must be split across cards.** Tensor parallelism "
        "synchronises after every layer, so NVLink pays off there; one model per card, pipeline "
        "parallelism, diffusion and rendering don't need it.",
        "**Das hängt davon ab, ob ein Modell auf mehrere Karten aufgeteilt werden muss.** "
        "Tensor-Parallelismus synchronisiert nach jedem Layer, dort lohnt sich NVLink; ein "
        "Modell pro Karte, Pipeline-Parallelismus, Diffusion und Rendering brauchen es nicht.",
    ),
    "nvlink_no_pcie_holds": (
        "No PCIe node in the catalog holds {model} in {precision}, though: the nodes that do "
        "({labels}) are NVLink nodes, so the link comes with the memory it needs.",
        "Allerdings fasst kein PCIe-Knoten im Katalog {model} in {precision}: die Knoten, die es "
        "fassen ({labels}), sind NVLink-Knoten, der Link kommt also mit dem nötigen Speicher.",
    ),
    "split_across": (
        " (tensor parallelism across {n} cards on {label}, {need} of {usable} per card)",
        " (Tensor-Parallelismus über {n} Karten auf {label}, {need} von {usable} pro Karte)",
    ),
    "pp_over_pcie": (
        "**Over PCIe: pipeline parallelism.** It hands activations over once per micro-batch, "
        "not once per layer, so PCIe keeps up; tensor parallelism synchronises after every layer "
        "of {model} — that is what NVLink is for.",
        "**Über PCIe: Pipeline-Parallelismus.** Er übergibt einmal pro Mikro-Batch statt einmal "
        "pro Layer, PCIe hält da mit; Tensor-Parallelismus synchronisiert nach jedem Layer von "
        "{model} — dafür gibt es NVLink.",
    ),
    "tp_syncs": (
        "With tensor parallelism every layer ends in an all-reduce across the cards: {layers} "
        "synchronisations per token for {model}.",
        "Beim Tensor-Parallelismus endet jeder Layer mit einem All-Reduce über alle Karten: "
        "{layers} Abgleiche pro Token bei {model}.",
    ),
    "rule": ("Rule from the guide: {rule}", "Regel aus dem Guide: {rule}"),
    "mistake": (
        "Don't shard a model that fits on one card: with tensor parallelism it runs *slower* than "
        "on a single card.",
        "Teilen Sie kein Modell auf, das auf eine Karte passt: Mit Tensor-Parallelismus läuft "
        "es *langsamer* als auf einer einzelnen Karte.",
    ),
    # --- comparison and prices
    "compare_title": ("Same job, both ways:", "Derselbe Job auf beiden Knoten:"),
    "compare_row": ("{label} ({link}): {speed}{price}", "{label} ({link}): {speed}{price}"),
    "speed_floor": (
        "Tokens/s are single-stream decode estimates, bandwidth-bound and conservative: they "
        "ignore the all-reduce, so under tensor parallelism the real gap is larger.",
        "Token/s sind Schätzungen für einen einzelnen Stream, begrenzt durch die "
        "Speicherbandbreite und konservativ: Das All-Reduce ist nicht eingerechnet, bei "
        "Tensor-Parallelismus ist der reale Abstand also größer.",
    ),
    "nvlink_premium": (
        "NVLink costs {diff} more per month here.",
        "NVLink kostet hier {diff} mehr im Monat.",
    ),
    "prices_title": ("Prices:", "Preise:"),
    "price_line": ("{link}: {price}", "{link}: {price}"),
    "per_month": ("/month", "/Monat"),
    "placeholder": (" (placeholder price)", " (Platzhalterpreis)"),
    "price_intro": ("The catalog price:", "Der Katalogpreis:"),
    "compare_cheaper": (
        "**{cheap} is the cheaper one: {diff} less per month than {other}** for {model} in "
        "{precision}:",
        "**{cheap} ist der günstigere: {diff} weniger im Monat als {other}** für {model} in "
        "{precision}:",
    ),
    "compare_faster": (
        "**{fast} is the faster one: about {tps} tokens/s; {slow} about {slow_tps} tokens/s** "
        "for {model} in {precision} (single stream):",
        "**{fast} ist der schnellere: etwa {tps} Token/s; {slow} etwa {slow_tps} Token/s** für "
        "{model} in {precision} (ein Stream):",
    ),
    "compare_only_other": (
        "**Only {other} holds {model} in {precision}**; {cheap} costs {diff} less per month but "
        "does not fit:",
        "**Nur {other} fasst {model} in {precision}**; {cheap} kostet {diff} weniger im Monat, "
        "passt aber nicht:",
    ),
    "compare_best_value": (
        "**{label} is the best value for {model} in {precision}: it holds it at the lowest cost "
        "per million output tokens of the nodes you named ({cost}).**",
        "**{label} ist das beste Preis-Leistungs-Verhältnis für {model} in {precision}: Er hält "
        "es zu den niedrigsten Kosten pro Million Ausgabe-Token der genannten Knoten ({cost}).**",
    ),
    "compare_cheapest_holding": (
        "**{label} is the one to take for {model} in {precision}: the cheapest of the nodes you "
        "named that holds it.**",
        "**{label} ist die Wahl für {model} in {precision}: der günstigste der genannten Knoten, "
        "der es hält.**",
    ),
    "compare_none_holds": (
        "**None of the nodes you named holds {model} in {precision}.**",
        "**Keiner der genannten Knoten hält {model} in {precision}.**",
    ),
    "speed_measured_low": (
        "**{word} — {measured} tokens/s is below what {label} should give: about {tps} tokens/s "
        "is a conservative lower bound** for this job (single stream).",
        "**{word} — {measured} Token/s liegen unter dem, was {label} liefern sollte: etwa {tps} "
        "Token/s sind eine vorsichtige Untergrenze** für diesen Job (ein Stream).",
    ),
    "speed_measured_ok": (
        "**{word} — {measured} tokens/s is what {label} should give: at or above the "
        "conservative lower bound of about {tps} tokens/s** (single stream).",
        "**{word} — {measured} Token/s sind, was {label} liefern sollte: auf oder über der "
        "vorsichtigen Untergrenze von etwa {tps} Token/s** (ein Stream).",
    ),
    "speed_measured_near": (
        "**{word} — {measured} tokens/s is about what {label} should give: the conservative "
        "estimate is about {tps} tokens/s**, within a tenth of it (single stream).",
        "**{word} — {measured} Token/s sind etwa, was {label} liefern sollte: die vorsichtige "
        "Schätzung liegt bei etwa {tps} Token/s**, weniger als ein Zehntel darüber (ein Stream).",
    ),
    "speed_measured_check": (
        "Check the node as the guide does on day one: the topology (`nvidia-smi topo -m`) and "
        "the real all-reduce bandwidth (`all_reduce_perf`); paste either here and I check it.",
        "Prüfen Sie den Knoten wie im Guide am ersten Tag: die Topologie (`nvidia-smi topo -m`) "
        "und die echte All-Reduce-Bandbreite (`all_reduce_perf`); fügen Sie eins davon hier ein, "
        "dann prüfe ich es.",
    ),
    "speed_fastest": (
        "**{label} is the fastest of them: about {tps} tokens/s** (single stream).",
        "**{label} ist der schnellste davon: etwa {tps} Token/s** (einzelner Stream).",
    ),
    "speed_close": (
        "**{label} is only slightly faster than {other}: about {tps} against {other_tps} "
        "tokens/s** (single stream).",
        "**{label} ist nur knapp schneller als {other}: etwa {tps} gegen {other_tps} Token/s** "
        "(einzelner Stream).",
    ),
    "speed_same": (
        "**{label} and {other} are about as fast: about {tps} tokens/s each** (single stream).",
        "**{label} und {other} sind etwa gleich schnell: je etwa {tps} Token/s** "
        "(einzelner Stream).",
    ),
    "capacity_none_at_context": (
        "**{model} in {precision} on {label}: even one sequence of {ctx} tokens does not fit; "
        "the longest context it holds is {max_ctx} tokens.**",
        "**{model} in {precision} auf {label}: schon eine Sequenz mit {ctx} Token passt nicht; "
        "der längste Kontext, den es fasst, sind {max_ctx} Token.**",
    ),
    "capacity_context_lead": (
        "**{model} in {precision} on {label}: up to {max_ctx} tokens of context "
        "({conc} {conc|sequence|sequences} at once).**",
        "**{model} in {precision} auf {label}: bis zu {max_ctx} Token Kontext "
        "({conc} {conc|Sequenz|Sequenzen} gleichzeitig).**",
    ),
    "depends_on_model": (
        "That depends on the model you run on it.",
        "Das hängt vom Modell ab, das darauf laufen soll.",
    ),
    "node_models_lead": (
        "**{label} holds {n} of the catalog's models in their native precision; the largest:**",
        "**{label} fasst {n} Modelle des Katalogs in ihrer nativen Präzision; die größten:**",
    ),
    "node_models_too_big": (
        "Too big for it at that precision: {names}. In FP8 or 4-bit some of them fit.",
        "In dieser Präzision zu groß dafür: {names}. In FP8 oder 4 Bit passen manche davon.",
    ),
    "compare_title_model": (
        "**{model} in {precision} on the nodes you named:**",
        "**{model} in {precision} auf den genannten Knoten:**",
    ),
    "price_no_single": (
        "**The {card} is not rented as a single card here.** The smallest node:",
        "**Die {card} gibt es hier nicht als einzelne Karte.** Der kleinste Knoten:",
    ),
    "price_no_count": (
        "**There is no {count}-card {card} node in the catalog.** The nearest:",
        "**Einen Knoten mit {count} {card}-Karten gibt es im Katalog nicht.** Am nächsten:",
    ),
    "price_intro_many": ("The catalog prices:", "Die Katalogpreise:"),
    "price_family": (
        "“{family}” exists as PCIe and SXM variants; both prices:",
        "„{family}“ gibt es als PCIe- und als SXM-Variante; beide Preise:",
    ),
    "price_family_one": (
        "“{family}” exists in one variant only:",
        "„{family}“ gibt es nur in einer Variante:",
    ),
    "price_card_all": ("All configurations with {card}:", "Alle Konfigurationen mit {card}:"),
    "price_line_hourly": ("**{per} per hour** — {price}", "**{per} pro Stunde** — {price}"),
    # --- cheapest
    "cheapest_one": (
        "**The cheapest configuration for {model} in {precision} is {label}** ({verdict}).",
        "**Die günstigste Konfiguration für {model} in {precision} ist {label}** ({verdict}).",
    ),
    "cheapest_one_nvlink": (
        "**The cheapest NVLink (SXM) node for {model} in {precision} is {label}** ({verdict}).",
        "**Der günstigste NVLink-Knoten (SXM) für {model} in {precision} ist {label}** "
        "({verdict}).",
    ),
    "cheapest_one_pcie": (
        "**The cheapest PCIe node for {model} in {precision} is {label}** ({verdict}).",
        "**Der günstigste PCIe-Knoten für {model} in {precision} ist {label}** ({verdict}).",
    ),
    "cheapest_no_single_card": (
        "**No single card holds {model} in {precision}: it needs {need} on one card.**",
        "**Keine einzelne Karte fasst {model} in {precision}: es braucht {need} auf einer Karte.**",
    ),
    "cheapest_no_single_card_within": (
        "**No single card within your constraints holds {model} in {precision}: it needs "
        "{need} on one card.**",
        "**Keine einzelne Karte innerhalb Ihrer Vorgaben fasst {model} in {precision}: es "
        "braucht {need} auf einer Karte.**",
    ),
    "cheapest_split_instead": (
        "The cheapest node that holds it, split across its cards: {label} ({verdict}).",
        "Der günstigste Knoten, der es fasst, auf seine Karten verteilt: {label} ({verdict}).",
    ),
    "cheapest_none": (
        "**No configuration in the catalog holds {model} in {precision}.**",
        "**Keine Konfiguration im Katalog fasst {model} in {precision}.**",
    ),
    "image_no_card_each": (
        "**No node within your constraints has a card for each of the {n} at once** for {model} "
        "in {precision}: each card renders with its own copy of the model.",
        "**Kein Knoten innerhalb Ihrer Vorgaben hat eine Karte für jeden der {n} gleichzeitig** "
        "für {model} in {precision}: Jede Karte rendert mit ihrer eigenen Kopie des Modells.",
    ),
    "image_one_copy": (
        "The cheapest that holds one copy is {label} ({verdict}); on it the jobs take turns.",
        "Der günstigste, der eine Kopie fasst, ist {label} ({verdict}); darauf kommen die Jobs "
        "nacheinander dran.",
    ),
    "oversized_yes": (
        "**{word} — {named} is more than {model} needs:** {label} holds it ({verdict}) for "
        "{diff} a month less.",
        "**{word} — {named} ist für {model} mehr als nötig:** {label} fasst es ({verdict}) für "
        "{diff} weniger im Monat.",
    ),
    "oversized_no": (
        "**{word} — {named} is the cheapest node that holds {model}** ({verdict}).",
        "**{word} — {named} ist der günstigste Knoten, der {model} fasst** ({verdict}).",
    ),
    "cheapest_more": ("Next cheapest:", "Danach am günstigsten:"),
    "recommend_nvlink": (
        "**Recommended for {model} in {precision}: {label}** ({verdict}): the model must be "
        "split and you {why}, so the guide's rule is NVLink (SXM), and this is the cheapest "
        "NVLink node that holds it.",
        "**Empfohlen für {model} in {precision}: {label}** ({verdict}): das Modell muss "
        "aufgeteilt werden und Sie {why}, also gilt die Regel des Guides: NVLink (SXM), und das "
        "ist der günstigste NVLink-Knoten, der es fasst.",
    ),
    "cheapest_nvlink": (
        "Because the model must be split and you {why}, the cheapest NVLink (SXM) node that "
        "holds it is {label}.",
        "Weil das Modell aufgeteilt werden muss und Sie {why}, ist der günstigste NVLink-Knoten "
        "(SXM), der es fasst, {label}.",
    ),
    "cheapest_nvlink_outside": (
        "Because the model must be split and you {why}, the guide's rule below asks for NVLink "
        "(SXM), but no NVLink node within your constraints holds it; the cheapest that does is "
        "{label}.",
        "Weil das Modell aufgeteilt werden muss und Sie {why}, verlangt die Regel unten NVLink "
        "(SXM), doch kein NVLink-Knoten innerhalb Ihrer Vorgaben fasst es; der günstigste, der "
        "es fasst, ist {label}.",
    ),
    "why_traffic": ("serve real traffic", "echten Traffic bedienen"),
    "why_training": ("train", "trainieren"),
    "v_fits_one": ("fits on one card", "passt auf eine Karte"),
    "v_fits_one_tight": ("fits tightly on one card", "passt knapp auf eine Karte"),
    "v_split": ("split across {n} cards", "auf {n} Karten aufgeteilt"),
    "v_no_fit": ("does not fit", "passt nicht"),
    # --- speed
    "speed_one": (
        "**{model} in {precision} on {label}: about {tps} tokens/s** (single stream{split}).",
        "**{model} in {precision} auf {label}: etwa {tps} Token/s** (einzelner Stream{split}).",
    ),
    "speed_example_title": (
        "Speed depends on the model. For the guide's example model, Llama 3.3 70B in BF16:",
        "Das Tempo hängt vom Modell ab. Für das Beispielmodell des Guides, Llama 3.3 70B in BF16:",
    ),
    "speed_example_row": (
        "{label}: about {tps} tokens/s (single stream{split})",
        "{label}: etwa {tps} Token/s (einzelner Stream{split})",
    ),
    "speed_which_model": (
        "Which model do you want to run? Then I can estimate its speed on this node.",
        "Welches Modell möchten Sie betreiben? Dann schätze ich sein Tempo auf diesem Knoten.",
    ),
    "speed_split": (", split across {n} cards", ", auf {n} Karten aufgeteilt"),
    "speed_batch": (
        "**{model} in {precision} on {label}: {total} tokens take about {duration}** at about "
        "{tps} tokens/s (single stream{split}, one after another).",
        "**{model} in {precision} auf {label}: {total} Token dauern etwa {duration}** bei etwa "
        "{tps} Token/s (einzelner Stream{split}, einer nach dem anderen).",
    ),
    "batch_cost": (
        "That time of the node costs about {cost} at {price}.",
        "Diese Zeit auf dem Knoten kostet bei {price} etwa {cost}.",
    ),
    "batch_parallel": (
        "Several requests at once finish a batch sooner: the time above is one stream.",
        "Mehrere Anfragen gleichzeitig erledigen einen Stapel schneller: Die Zeit oben gilt für "
        "einen Stream.",
    ),
    "image_not_split": (
        "Image and video models are not split across cards: each card holds the whole model and "
        "renders its own images, so the cards' memory does not add up.",
        "Bild- und Videomodelle werden nicht über Karten verteilt: Jede Karte hält das ganze "
        "Modell und rendert ihre eigenen Bilder, der Speicher der Karten addiert sich also nicht.",
    ),
    "dur_seconds": ("{n} seconds", "{n} Sekunden"),
    "dur_minutes": ("{n} minutes", "{n} Minuten"),
    "dur_hours": ("{n} hours", "{n} Stunden"),
    "dur_days": ("{n} days", "{n} Tage"),
    "speed_cost": (
        "At {price} that is {cost} per million output tokens at full load.",
        "Bei {price} sind das {cost} pro Million Ausgabe-Token unter Volllast.",
    ),
    "speed_no_fit": (
        "**{model} in {precision} does not fit on {label}** ({need} needed per card, {usable} "
        "usable), so there is no speed to estimate.",
        "**{model} passt in {precision} nicht auf {label}** ({need} nötig pro Karte, {usable} "
        "nutzbar), daher gibt es kein Tempo zu schätzen.",
    ),
    "speed_in_lower": (
        "**In {precision} it fits on {label} ({verdict}): about {tps} tokens/s** (single stream).",
        "**In {precision} passt es auf {label} ({verdict}): etwa {tps} Token/s** (ein Stream).",
    ),
    "speed_pick": (
        "You didn't name a configuration; here are the cheapest ones that hold it:",
        "Sie haben keine Konfiguration genannt; hier die günstigsten, die es fassen:",
    ),
    # --- all-reduce
    "allreduce_title": (
        "**Gradient all-reduce per training step for {model} in BF16: {size} over the link.**",
        "**Gradient-All-Reduce pro Trainingsschritt für {model} in BF16: {size} über die "
        "Verbindung.**",
    ),
    "allreduce_row": (
        "{link} ({bw}): about {t} per step (ring: {ring})",
        "{link} ({bw}): etwa {t} pro Schritt (Ring: {ring})",
    ),
    "allreduce_row_guide": (
        "{link} ({bw} per direction): about {t} per step (ring: {ring}); the guide's {gt} divides "
        "by {gbw}, both directions added",
        "{link} ({bw} pro Richtung): etwa {t} pro Schritt (Ring: {ring}); die {gt} des Guides "
        "teilen durch {gbw}, beide Richtungen zusammen",
    ),
    "allreduce_note": (
        "That is pure transfer time (size ÷ bandwidth, as the guide counts it), multiplied by "
        "every step of a run; the ring figure is 2(n−1)/n × size ÷ bandwidth as nccl-tests "
        "defines bus bandwidth.",
        "Das ist reine Übertragungszeit (Größe ÷ Bandbreite, wie der Guide rechnet), "
        "multipliziert mit jedem Schritt eines Laufs; der Ring-Wert ist 2(n−1)/n × Größe ÷ "
        "Bandbreite, wie nccl-tests die Busbandbreite definiert.",
    ),
    # --- topology
    "topo_howto": (
        "**Check it on day one: `nvidia-smi topo -m` shows the topology, then measure a real "
        "all-reduce.**",
        "**Prüfen Sie es am ersten Tag: `nvidia-smi topo -m` zeigt die Topologie, danach messen "
        "Sie einen echten All-Reduce.**",
    ),
    "topo_legend": (
        "`NV#` between two cards means NVLink; `PIX`, `PXB`, `PHB`, `NODE` or `SYS` mean the "
        "traffic goes over PCIe (`SYS`: across the CPU sockets, the worst case).",
        "`NV#` zwischen zwei Karten heißt NVLink; `PIX`, `PXB`, `PHB`, `NODE` oder `SYS` "
        "heißen, der Weg führt über PCIe (`SYS`: über die CPU-Sockel hinweg, der schlechteste "
        "Fall).",
    ),
    "described_ok_nvlink": (
        "**No — nothing is wrong: on {cfg} the cards are linked by NVLink, and `{label}` between "
        "every pair is what the node should show.**",
        "**Nein — hier ist nichts kaputt: Auf {cfg} sind die Karten über NVLink verbunden, und "
        "`{label}` zwischen jedem Paar ist genau das, was der Knoten zeigen soll.**",
    ),
    "described_ok": (
        "**No — nothing is wrong: on {cfg} the cards talk over PCIe, so `{label}` between them "
        "is what the node should show.** Only NVLink (SXM) nodes must show `NV#` for every pair.",
        "**Nein — hier ist nichts kaputt: Auf {cfg} sprechen die Karten über PCIe, `{label}` "
        "zwischen ihnen ist also genau das, was der Knoten zeigen soll.** Nur NVLink-Knoten (SXM) "
        "müssen für jedes Paar `NV#` zeigen.",
    ),
    "described_bad": (
        "**Yes — that is a defect: on {cfg} every pair of cards should show `{want}` (NVLink); "
        "`{label}` means the path goes over PCIe.**",
        "**Ja — das ist ein Defekt: Auf {cfg} sollte jedes Kartenpaar `{want}` (NVLink) zeigen; "
        "`{label}` heißt, der Weg führt über PCIe.**",
    ),
    "described_bad_nv": (
        "**Yes — that is a defect: on {cfg} every pair of cards should show `{want}` (NVLink); "
        "`{label}` is not what that board shows, so links are missing or miswired.**",
        "**Ja — das ist ein Defekt: Auf {cfg} sollte jedes Kartenpaar `{want}` (NVLink) zeigen; "
        "`{label}` zeigt dieses Board nicht, also fehlen Links oder sind falsch verbunden.**",
    ),
    "topo_ok": (
        "**The topology looks right{cfg}:** {summary}",
        "**Die Topologie sieht richtig aus{cfg}:** {summary}",
    ),
    "topo_warning": (
        "**Not a defect{cfg}: the cards are wired as this node is built, with a warning:** "
        "{summary}",
        "**Kein Defekt{cfg}: Die Karten sind so verbunden, wie dieser Knoten gebaut ist, mit "
        "einer Warnung:** {summary}",
    ),
    "topo_bad": (
        "**The topology does not look right{cfg}:** {summary}",
        "**Die Topologie sieht nicht richtig aus{cfg}:** {summary}",
    ),
    "topo_all_as_expected": (
        "Every pair shows `{label}`, as this node's NVLink board should.",
        "Jedes Paar zeigt `{label}`, wie es das NVLink-Board dieses Knotens soll.",
    ),
    "topo_board_split": (
        "This board has no NVSwitch: each card splits its {links} NVLink links over its {peers} "
        "peers, {per} per pair (`NV{per}`). `NV{full}` on every pair is what an 8-card NVSwitch "
        "board shows, where every card reaches the others through the switches.",
        "Dieses Board hat keinen NVSwitch: Jede Karte teilt ihre {links} NVLink-Links auf ihre "
        "{peers} Nachbarn auf, {per} pro Paar (`NV{per}`). `NV{full}` auf jedem Paar zeigt ein "
        "8-Karten-Board mit NVSwitch, auf dem jede Karte die anderen über die Switches erreicht.",
    ),
    "topo_uniform": (
        "Every pair shows `{label}` where this node's board shows `{expected}`: the same "
        "shortfall on every pair points to another board or the wrong machine rather than a "
        "link down on each pair. Check which node printed this output first.",
        "Jedes Paar zeigt `{label}`, wo das Board dieses Knotens `{expected}` zeigt: Derselbe "
        "Fehlbetrag auf jedem Paar deutet eher auf ein anderes Board oder die falsche Maschine "
        "als auf eine ausgefallene Verbindung pro Paar. Prüfen Sie zuerst, welcher Knoten diese "
        "Ausgabe erzeugt hat.",
    ),
    "topo_info": (
        "**What your `nvidia-smi topo -m` shows:** {summary}",
        "**Was Ihr `nvidia-smi topo -m` zeigt:** {summary}",
    ),
    "topo_unparsed": (
        "I couldn't read that as `nvidia-smi topo -m` output ({error}). Paste the whole matrix, "
        "from the `GPU0 GPU1 …` header line to the last GPU row.",
        "Das konnte ich nicht als Ausgabe von `nvidia-smi topo -m` lesen ({error}). Fügen Sie "
        "die ganze Matrix ein, von der Kopfzeile `GPU0 GPU1 …` bis zur letzten GPU-Zeile.",
    ),
    # --- general (retrieval)
    "general_intro": ("From the guides:", "Aus den Guides:"),
    "general_none": (
        "I found nothing in the guides about that. I can answer sizing questions: which "
        "configuration a model fits on, NVLink or PCIe, speed and prices.",
        "Dazu habe ich in den Guides nichts gefunden. Ich beantworte Fragen zur "
        "Dimensionierung: auf welche Konfiguration ein Modell passt, NVLink oder PCIe, Tempo "
        "und Preise.",
    ),
    "read_more": ("More in the guide: {links}", "Mehr im Guide: {links}"),
    # --- added: fit details
    "fit_yes_one": (
        "**Yes — {model} in {precision} fits on one card here.**",
        "**Ja — {model} passt in {precision} hier auf eine Karte.**",
    ),
    "fit_no": (
        "**No — {model} in {precision} does not fit here.**",
        "**Nein — {model} passt in {precision} hier nicht.**",
    ),
    "fit_yes_split": (
        "**Yes — {model} in {precision} fits here, split across cards:**",
        "**Ja — {model} passt in {precision} hier, auf mehrere Karten aufgeteilt:**",
    ),
    "fit_depends": (
        "**{model} in {precision} fits on some of these configurations:**",
        "**{model} passt in {precision} auf einige dieser Konfigurationen:**",
    ),
    "fit_lower_precision": (
        "In {precision} it does fit here:",
        "In {precision} passt es hier:",
    ),
    "rule_bridge_one_card": (
        "A single card of {label} holds it.",
        "Eine einzelne Karte von {label} fasst es.",
    ),
    "no_figure_for_precision": (
        "There is no published VRAM figure for {model} in {asked}; the figures here are for "
        "{precision}.",
        "Für {model} in {asked} gibt es keinen veröffentlichten VRAM-Wert; die Zahlen hier "
        "gelten für {precision}.",
    ),
    "nvlink_setup_no_fit": (
        "**{model} in {precision} does not fit on the configuration you named**, so the link "
        "between its cards is not the question there:",
        "**{model} passt in {precision} nicht auf die genannte Konfiguration** — dort stellt "
        "sich die Frage nach der Verbindung zwischen den Karten gar nicht:",
    ),
    "fit_tp_mistake": (
        "**No — don't split it: {model} in {precision} fits on one card, and tensor parallelism "
        "over {n} cards makes it slower, not faster.** Run it on one card (or one independent "
        "copy per card).",
        "**Nein — nicht aufteilen: {model} passt in {precision} auf eine Karte, und "
        "Tensor-Parallelismus über {n} Karten macht es langsamer, nicht schneller.** Betreiben "
        "Sie es auf einer Karte (oder eine unabhängige Kopie pro Karte).",
    ),
    "train_need": (
        "**Full fine-tuning of {model} needs about {total}** ({bpp} bytes per parameter: BF16 "
        "weights, gradients, FP32 master weights and Adam moments; activations come on top) — "
        "far more than serving it.",
        "**Volles Fine-Tuning von {model} braucht etwa {total}** ({bpp} Byte pro Parameter: "
        "BF16-Gewichte, Gradienten, FP32-Master-Gewichte und Adam-Momente; Aktivierungen kommen "
        "hinzu) — weit mehr als das Bedienen.",
    ),
    "train_need_training": (
        "**Training {model} (mixed precision with Adam) needs about {total}** ({bpp} bytes per "
        "parameter: BF16 weights, gradients, FP32 master weights and Adam moments; activations "
        "come on top) — far more than serving it.",
        "**Das Training von {model} (Mixed Precision mit Adam) braucht etwa {total}** ({bpp} "
        "Byte pro Parameter: BF16-Gewichte, Gradienten, FP32-Master-Gewichte und Adam-Momente; "
        "Aktivierungen kommen hinzu) — weit mehr als das Bedienen.",
    ),
    "adapter_need": (
        "**{method} fine-tuning of {model} needs about {total}** before activations.",
        "**{method}-Fine-Tuning von {model} braucht etwa {total}** vor Aktivierungen.",
    ),
    "adapter_yes": (
        "**Yes — {method} fine-tuning of {model} fits on one card here: about {total} before "
        "activations.**",
        "**Ja — {method}-Fine-Tuning von {model} passt hier auf eine Karte: etwa {total} vor "
        "Aktivierungen.**",
    ),
    "adapter_yes_sharded": (
        "**Yes — {method} fine-tuning of {model} fits here across the node's cards: about "
        "{total} before activations, sharded (e.g. FSDP or DeepSpeed ZeRO-3).**",
        "**Ja — {method}-Fine-Tuning von {model} passt hier über die Karten des Knotens: etwa "
        "{total} vor Aktivierungen, verteilt (z. B. FSDP oder DeepSpeed ZeRO-3).**",
    ),
    "adapter_no": (
        "**No — {method} fine-tuning of {model} needs about {total} before activations; one "
        "card here does not hold that.**",
        "**Nein — {method}-Fine-Tuning von {model} braucht etwa {total} vor Aktivierungen; "
        "eine Karte hier fasst das nicht.**",
    ),
    "adapter_depends": (
        "**It depends on the card: {method} fine-tuning of {model} needs about {total} before "
        "activations.**",
        "**Das hängt von der Karte ab: {method}-Fine-Tuning von {model} braucht etwa {total} "
        "vor Aktivierungen.**",
    ),
    "adapter_cfg_fits": (
        "{label}: fits on one card ({need} of {usable} usable per card).",
        "{label}: passt auf eine Karte ({need} von {usable} nutzbar pro Karte).",
    ),
    "adapter_cfg_no": (
        "{label}: does not fit on one card ({need} needed, {usable} usable per card).",
        "{label}: passt nicht auf eine Karte ({need} nötig, {usable} nutzbar pro Karte).",
    ),
    "adapter_instead": (
        "The cheapest one-card node that holds it is {label},",
        "Der günstigste Ein-Karten-Knoten, der es fasst, ist {label},",
    ),
    "adapter_other": (
        "**With {method} instead: about {total}** before activations (frozen base weights {base} "
        "in {base_format} + adapter state {state}).",
        "**Mit {method} stattdessen: etwa {total}** vor Aktivierungen (eingefrorene "
        "Basisgewichte {base} in {base_format} + Adapter-Zustand {state}).",
    ),
    "full_other": (
        "**A full fine-tune instead: about {total}** ({bpp} bytes per parameter: BF16 weights, "
        "gradients, FP32 master weights and Adam moments; before activations).",
        "**Volles Fine-Tuning stattdessen: etwa {total}** ({bpp} Byte pro Parameter: "
        "BF16-Gewichte, Gradienten, FP32-Master-Gewichte und Adam-Momente; vor Aktivierungen).",
    ),
    "base_4bit": ("4-bit NF4", "4-bit NF4"),
    "base_bf16": ("BF16", "BF16"),
    "adapter_breakdown_lora": (
        "Frozen base weights {base} in BF16 + adapter state {state} ({params} million trainable "
        "parameters, {bpp} bytes each: FP32 weights, gradients and Adam moments) = {total}.",
        "Eingefrorene Basisgewichte {base} in BF16 + Adapter-Zustand {state} ({params} Millionen "
        "trainierbare Parameter, je {bpp} Byte: FP32-Gewichte, Gradienten und Adam-Momente) = "
        "{total}.",
    ),
    "adapter_breakdown_qlora": (
        "Frozen base weights {base} in 4-bit NF4 with double quantisation ({bits} bits per "
        "parameter; embeddings and output head stay BF16) + adapter state {state} ({params} "
        "million trainable parameters, {bpp} bytes each: FP32 weights, gradients and Adam "
        "moments) = {total}.",
        "Eingefrorene Basisgewichte {base} in 4-bit NF4 mit doppelter Quantisierung ({bits} Bit "
        "pro Parameter; Embeddings und Ausgabeschicht bleiben BF16) + Adapter-Zustand {state} "
        "({params} Millionen trainierbare Parameter, je {bpp} Byte: FP32-Gewichte, Gradienten "
        "und Adam-Momente) = {total}.",
    ),
    "adapter_assumptions": (
        "Assumptions: rank {rank}, adapters on {targets}, {util} of card memory usable. "
        "Activations are not included: they grow with batch size and sequence length; "
        "gradient checkpointing keeps them small.",
        "Annahmen: Rang {rank}, Adapter auf {targets}, {util} des Kartenspeichers nutzbar. "
        "Aktivierungen sind nicht enthalten: sie wachsen mit Batch-Größe und Sequenzlänge; "
        "Gradient Checkpointing hält sie klein.",
    ),
    "adapter_targets_all": (
        "all linear layers (attention and MLP, as the QLoRA paper recommends)",
        "allen linearen Schichten (Attention und MLP, wie das QLoRA-Paper empfiehlt)",
    ),
    "adapter_targets_all_moe": (
        "all linear layers (attention and the MLP of every expert, as the QLoRA paper recommends)",
        "allen linearen Schichten (Attention und das MLP jedes Experten, wie das QLoRA-Paper "
        "empfiehlt)",
    ),
    "adapter_targets_attention": (
        "the attention projections only (q, k, v, o)",
        "nur den Attention-Projektionen (q, k, v, o)",
    ),
    "adapter_mla": (
        "**I can't size {method} fine-tuning of {model} honestly:** it uses multi-head latent "
        "attention (MLA), whose low-rank projection shapes the sizing tools do not model, so "
        "the adapter size is unknown.",
        "**{method}-Fine-Tuning von {model} kann ich nicht seriös beziffern:** das Modell nutzt "
        "Multi-Head Latent Attention (MLA), deren Projektionsformen die Werkzeuge nicht "
        "modellieren; die Adaptergröße ist daher unbekannt.",
    ),
    "adapter_no_shapes": (
        "**I can't size {method} fine-tuning of {model} honestly:** the adapter size depends "
        "on the layer shapes, and only the parameter count is known. Name the model and I "
        "will compute it.",
        "**{method}-Fine-Tuning von {model} kann ich nicht seriös beziffern:** die "
        "Adaptergröße hängt von den Schichtformen ab, und bekannt ist nur die Parameterzahl. "
        "Nennen Sie das Modell, dann rechne ich es aus.",
    ),
    "no_such_count": (
        "There is no {count}-card {card} node in the catalog; here is the nearest one that holds "
        "it:",
        "Einen Knoten mit {count} {card}-Karten gibt es im Katalog nicht; hier der nächste, der "
        "es fasst:",
    ),
    "serve_after_cheapest": (
        "The cheapest node to serve {model} afterwards, in {precision}: {label} ({verdict}).",
        "Der günstigste Knoten, um {model} danach in {precision} auszuliefern: {label} "
        "({verdict}).",
    ),
    "fit_most_at_once": (
        "{label} holds the model, but at most **{n} sequences of {ctx} tokens at once**, not "
        "{asked}.",
        "{label} hält das Modell, aber höchstens **{n} gleichzeitige Sequenzen mit je {ctx} "
        "Token**, nicht {asked}.",
    ),
    "fit_one_at_once": (
        "{label} holds the model, but only **one sequence of {ctx} tokens at a time**, not "
        "{asked}.",
        "{label} hält das Modell, aber nur **eine Sequenz mit {ctx} Token auf einmal**, nicht "
        "{asked}.",
    ),
    "capacity_count": (
        "At {ctx} tokens each: {n} sequences at once.",
        "Bei je {ctx} Token: {n} Sequenzen gleichzeitig.",
    ),
    "train_none_within": (
        "**No — nothing within your constraints ({what}) holds this training job**; without them:",
        "**Nein — innerhalb Ihrer Vorgaben ({what}) hält keine Konfiguration diesen "
        "Trainingsjob**; ohne sie:",
    ),
    "serve_named_after": (
        "To serve {model} afterwards, in {precision}, on the hardware you named:",
        "Zum Ausliefern von {model} danach, in {precision}, auf der genannten Hardware:",
    ),
    "adapter_then_serve": (
        "Serving {model} afterwards, in {precision}, on the same hardware:",
        "{model} danach in {precision} auf derselben Hardware ausliefern:",
    ),
    "train_named_holds": (
        "{label} holds it: {usable} usable across its cards, sharded over {n} cards (e.g. FSDP "
        "or DeepSpeed ZeRO-3).",
        "{label} fasst es: {usable} nutzbar über seine Karten, auf {n} Karten verteilt (z. B. "
        "FSDP oder DeepSpeed ZeRO-3).",
    ),
    "full_fine_tune_word": ("full fine-tune", "volles Fine-Tuning"),
    "compare_train_pick": (
        "**For this training job ({job}, {total} before activations): {label}.**",
        "**Für diesen Trainingsjob ({job}, {total} vor Aktivierungen): {label}.**",
    ),
    "compare_train_none": (
        "**Neither node holds this training job ({job}, {total} before activations).**",
        "**Keiner der beiden Knoten fasst diesen Trainingsjob ({job}, {total} vor "
        "Aktivierungen).**",
    ),
    "train_count_holds": (
        "Of the {n}-card nodes, these hold the {total} together (sharded):",
        "Von den Knoten mit {n} Karten fassen diese die {total} zusammen (verteilt):",
    ),
    "train_count_holds_nvlink": (
        "Of the {n}-card NVLink (SXM) nodes, these hold the {total}:",
        "Von den NVLink-Knoten (SXM) mit {n} Karten fassen diese die {total}:",
    ),
    "train_count_none_nvlink": (
        "None of the {n}-card NVLink (SXM) nodes holds the {total}, even with its cards together.",
        "Keiner der NVLink-Knoten (SXM) mit {n} Karten fasst die {total}, auch nicht mit allen "
        "Karten zusammen.",
    ),
    "train_holds_on_one": (
        "{label} holds it on one of its cards alone ({usable} usable per card).",
        "{label} fasst es schon auf einer seiner Karten ({usable} nutzbar pro Karte).",
    ),
    "train_count_none": (
        "None of the {n}-card nodes holds the {total}, even with its cards together.",
        "Keiner der Knoten mit {n} Karten fasst die {total}, auch nicht mit allen Karten zusammen.",
    ),
    "train_named_beyond": (
        "On {card} cards one job would need {n} of them, more than one node holds.",
        "Auf {card}-Karten bräuchte ein Job {n} davon, mehr als ein Knoten hat.",
    ),
    "train_named_short": (
        "{label} does not hold it: {usable} usable across all its cards, short of {total}.",
        "{label} fasst es nicht: {usable} nutzbar über alle seine Karten, weniger als {total}.",
    ),
    "train_named_short_one": (
        "{label} does not hold it: {usable} usable on its card, short of {total}.",
        "{label} fasst es nicht: {usable} nutzbar auf seiner Karte, weniger als {total}.",
    ),
    "train_named_holds_one": (
        "{label} holds it on its one card: {usable} usable.",
        "{label} fasst es auf seiner einen Karte: {usable} nutzbar.",
    ),
    "train_one_card": (
        "That fits on a single card: the cheapest one-card node that holds it is {label},",
        "Das passt auf eine einzelne Karte: der günstigste Ein-Karten-Knoten, der es fasst, ist "
        "{label},",
    ),
    "train_big_card_only": (
        "Only {cards} cards hold that alone, and those come in 4- and 8-card nodes; on "
        "smaller cards it must be split across cards.",
        "Allein fasst das nur eine {cards}-Karte, und die gibt es in Knoten mit 4 und 8 Karten; "
        "auf kleineren Karten muss es auf mehrere Karten aufgeteilt werden.",
    ),
    "adapter_split_node": (
        "Split across cards, training wants NVLink: the cheapest SXM node that holds it is "
        "{label}.",
        "Auf mehrere Karten verteilt braucht Training NVLink: der günstigste SXM-Knoten, der es "
        "fasst, ist {label}.",
    ),
    "train_node_one_card": (
        "The cheapest NVLink (SXM) node that holds it is {label}, and one of its cards holds the "
        "job alone ({usable} usable), so it is not split and NVLink adds nothing for it.",
        "Der günstigste NVLink-Knoten (SXM), der es fasst, ist {label}, und eine seiner Karten "
        "fasst den Job allein ({usable} nutzbar): er wird nicht aufgeteilt, NVLink bringt dafür "
        "nichts.",
    ),
    "train_must_split_within": (
        "Within your constraints no single card holds that: it must be split across cards.",
        "Im Rahmen Ihrer Vorgaben fasst das keine einzelne Karte: es muss auf mehrere Karten "
        "aufgeteilt werden.",
    ),
    "train_must_split": (
        "No single card holds that: it must be split across cards.",
        "Keine einzelne Karte fasst das: es muss auf mehrere Karten aufgeteilt werden.",
    ),
    "fit_node_yes": (
        "**Yes — {model} in {precision} fits on one node** (cheapest first):",
        "**Ja — {model} passt in {precision} auf einen Knoten** (das Günstigste zuerst):",
    ),
    "fit_node_split": (
        "On these nodes it is split across the node's cards (tensor parallelism); whether that "
        "needs NVLink depends on the load.",
        "Auf diesen Knoten wird es auf die Karten des Knotens aufgeteilt (Tensor-Parallelismus); "
        "ob das NVLink braucht, hängt von der Last ab.",
    ),
    "fit_mixed": (
        "**{model} in {precision} does not fit on a single card here; it has to be "
        "split across cards where it fits at all:**",
        "**{model} passt in {precision} hier nicht auf eine einzelne Karte; wo es "
        "überhaupt passt, muss es aufgeteilt werden:**",
    ),
    "image_need": (
        "Published need: {need} of VRAM in {precision}, without offloading.",
        "Veröffentlichter Bedarf: {need} VRAM in {precision}, ohne Offloading.",
    ),
    "image_fits": (
        "{model} needs {need} in {precision}; one {label} holds it:",
        "{model} braucht {need} in {precision}; eine Karte in {label} fasst es:",
    ),
    "link_yes_nvlink": (
        "**Yes — these cards are linked by NVLink:**",
        "**Ja — diese Karten sind über NVLink verbunden:**",
    ),
    "link_no_nvlink": (
        "**No — these cards have no NVLink here; they talk over PCIe:**",
        "**Nein — diese Karten haben hier kein NVLink; sie sprechen über PCIe:**",
    ),
    "kv_line": (
        "KV cache: {kv} for the text in progress ({per_token} bytes per token).",
        "KV-Cache: {kv} für den Text in Arbeit ({per_token} Byte pro Token).",
    ),
    "kv_at_context": (
        "KV cache for {ctx} tokens in {kv_precision}: {kv} ({per_token} bytes per token).",
        "KV-Cache für {ctx} Token in {kv_precision}: {kv} ({per_token} Byte pro Token).",
    ),
    "kv_line_at": (
        "KV cache in {kv_precision}: {kv} for the text in progress ({per_token} bytes per token).",
        "KV-Cache in {kv_precision}: {kv} für den Text in Arbeit ({per_token} Byte pro Token).",
    ),
    "kv_generic_high": (
        "Its architecture is unknown, so that KV cache assumes grouped-query attention; without "
        "it the cache would be up to {high} bytes per token ({kv}).",
        "Die Architektur ist unbekannt, daher nimmt der KV-Cache Grouped-Query-Attention an; "
        "ohne sie wären es bis zu {high} Byte pro Token ({kv}).",
    ),
    "kv_unknown": (
        "KV cache not counted: only the parameter count is known.",
        "KV-Cache nicht eingerechnet: Nur die Parameterzahl ist bekannt.",
    ),
    "training_named_short": (
        "**No — training {model} takes about {total} before activations, more than the node you "
        "named holds with all its cards.**",
        "**Nein — das Training von {model} braucht etwa {total} vor Aktivierungen, mehr als der "
        "genannte Knoten mit allen Karten fasst.**",
    ),
    "training_fits_one": (
        "**No — training {model} fits on one card, so the link doesn't matter.**",
        "**Nein — das Training von {model} passt auf eine Karte, "
        "die Verbindung spielt also keine Rolle.**",
    ),
    "training_memory": (
        "Full fine-tuning of {model} with mixed precision and Adam needs about {total} "
        "({bpp} bytes per parameter) before activations — far more than serving it.",
        "Volles Fine-Tuning von {model} mit Mixed Precision und Adam braucht etwa {total} "
        "({bpp} Byte pro Parameter) vor Aktivierungen — weit mehr als das Bedienen.",
    ),
    "cheapest_catalog_nvlink": (
        "The cheapest NVLink (SXM) node in the catalog is {label}:",
        "Der günstigste NVLink-Knoten (SXM) im Katalog ist {label}:",
    ),
    "cheapest_within": (
        "**The cheapest node that meets your constraints is {label}:**",
        "**Der günstigste Knoten, der Ihre Vorgaben erfüllt, ist {label}:**",
    ),
    "excluded_cheaper": (
        "{label} would be cheaper at {price}, but {why}.",
        "{label} wäre mit {price} günstiger, aber {why}.",
    ),
    "why_no_fp8": (
        "its cards have no FP8 tensor cores",
        "seine Karten haben keine FP8-Tensorkerne",
    ),
    "why_link_pcie": (
        "its cards talk over PCIe, not NVLink",
        "seine Karten sind über PCIe verbunden, nicht über NVLink",
    ),
    "why_link_nvlink": ("it is an NVLink node, not PCIe", "er ist ein NVLink-Knoten, kein PCIe"),
    "why_memory": ("it has only {mem} in total", "er hat insgesamt nur {mem}"),
    "why_per_card": ("its cards have only {per} each", "seine Karten haben nur je {per}"),
    "why_arch": ("its cards are {arch}", "seine Karten sind {arch}"),
    "why_card": ("it is a card you ruled out", "es ist eine Karte, die Sie ausgeschlossen haben"),
    "why_budget": ("it is over your budget", "er liegt über Ihrem Budget"),
    "why_constraint": ("it misses a constraint", "er verfehlt eine Vorgabe"),
    "cheapest_catalog": (
        "The cheapest node in the catalog is {label}:",
        "Der günstigste Knoten im Katalog ist {label}:",
    ),
    "speed_image": (
        "Speed estimates (tokens/s) exist for language models only; for image and video models "
        "the tools give the published VRAM need.",
        "Tempo-Schätzungen (Token/s) gibt es nur für Sprachmodelle; für Bild- und Videomodelle "
        "liefern die Tools den veröffentlichten VRAM-Bedarf.",
    ),
    "capacity_guide": (
        "The sum is weights first, then the KV cache per token in what is left; the guide works "
        "it through for Llama 3.3 70B with 8K context.",
        "Gerechnet wird erst mit den Gewichten, dann mit dem KV-Cache pro Token im verbleibenden "
        "Speicher; der Guide rechnet das für Llama 3.3 70B mit 8K Kontext vor.",
    ),
    "capacity_pick": (
        "You didn't name a configuration; the cheapest one that holds it:",
        "Sie haben keine Konfiguration genannt; die günstigste, die es fasst:",
    ),
    "capacity_lead": (
        "**{model} in {precision} on {label}: up to {n} concurrent sequences of {ctx} tokens.**",
        "**{model} in {precision} auf {label}: bis zu {n} gleichzeitige Sequenzen mit je {ctx} "
        "Token.**",
    ),
    "capacity_room": (
        "KV-cache room: {room} per card over {tp} {tp|card|cards}, {tokens} tokens in all.",
        "Platz für den KV-Cache: {room} pro Karte über {tp} {tp|Karte|Karten}, "
        "zusammen {tokens} Token.",
    ),
    "capacity_context": (
        "Longest context for {conc} {conc|sequence|sequences}: {max_ctx} tokens "
        "(the model's own limit: {model_max}).",
        "Längster Kontext für {conc} {conc|Sequenz|Sequenzen}: {max_ctx} Token "
        "(Grenze des Modells: {model_max}).",
    ),
    "capacity_none": (
        "**{model} in {precision} leaves no room for the KV cache on {label}:** the weights take "
        "{weights} per card of the usable {usable}.",
        "**{model} in {precision} lässt auf {label} keinen Platz für den KV-Cache:** Die Gewichte "
        "belegen {weights} pro Karte von nutzbaren {usable}.",
    ),
    "nccl_ask_node": (
        "Which configuration did you rent (e.g. “8x H100 SXM5”)? I compare the measured bus "
        "bandwidth with that node's link.",
        "Welche Konfiguration haben Sie gemietet (z. B. „8x H100 SXM5“)? Ich vergleiche die "
        "gemessene Busbandbreite mit der Verbindung dieses Knotens.",
    ),
    "nccl_unparsed": (
        "I couldn't read that as `all_reduce_perf` output; paste it from the `# nThread` line to "
        "`# Avg bus bandwidth`.",
        "Das konnte ich nicht als Ausgabe von `all_reduce_perf` lesen; fügen Sie sie von der "
        "Zeile `# nThread` bis `# Avg bus bandwidth` ein.",
    ),
    "nccl_ok": (
        "**Healthy: {label} reaches a peak bus bandwidth of {peak}, {pct} of the {link} rate "
        "({rated} per direction).**",
        "**In Ordnung: {label} erreicht eine Spitzen-Busbandbreite von {peak}, {pct} der Rate "
        "von {link} ({rated} je Richtung).**",
    ),
    "nccl_low": (
        "**Lower than expected: {label} peaks at {peak} bus bandwidth, {pct} of the {link} rate "
        "({rated} per direction).**",
        "**Niedriger als erwartet: {label} erreicht höchstens {peak} Busbandbreite, {pct} der "
        "Rate von {link} ({rated} je Richtung).**",
    ),
    "nccl_above": (
        "**More than this link carries: {label} would peak at {peak} bus bandwidth, {pct} of the "
        "{link} rate ({rated} per direction). Was this measured on this node?** Check which node "
        "the output comes from and its `nvidia-smi topo -m`.",
        "**Mehr, als diese Verbindung trägt: {label} käme auf {peak} Busbandbreite, {pct} der "
        "Rate von {link} ({rated} je Richtung). Wurde das auf diesem Knoten gemessen?** Prüfen "
        "Sie, von welchem Knoten die Ausgabe stammt, und dessen `nvidia-smi topo -m`.",
    ),
    "nccl_check_topo": (
        "First check the topology on the node: `nvidia-smi topo -m` shows whether the card pairs "
        "run over the link they should.",
        "Prüfen Sie zuerst die Topologie auf dem Knoten: `nvidia-smi topo -m` zeigt, ob die "
        "Kartenpaare über die Verbindung laufen, über die sie laufen sollten.",
    ),
    "nccl_bad": (
        "**Something is wrong: {label} peaks at {peak} bus bandwidth, only {pct} of the {link} "
        "rate ({rated} per direction).**",
        "**Hier stimmt etwas nicht: {label} erreicht nur {peak} Busbandbreite, {pct} der Rate "
        "von {link} ({rated} je Richtung).**",
    ),
    "nccl_note": (
        "Compare busbw (not algbw) with the link's rated figure, at the large message sizes.",
        "Vergleichen Sie busbw (nicht algbw) mit der Nennrate der Verbindung, bei großen "
        "Nachrichtengrößen.",
    ),
    "link_ratio": (
        "**NVLink 4 moves about {ratio} as much per card as PCIe Gen5** — but what counts is how "
        "often your job crosses the link.",
        "**NVLink 4 überträgt pro Karte etwa {ratio} so viel wie PCIe Gen5** — entscheidend ist "
        "aber, wie oft Ihr Job die Verbindung überquert.",
    ),
    "alt_bigger_card": (
        "On a card with more memory it fits alone — {label} ({need} per card), {price} — and "
        "then the link doesn't matter.",
        "Auf einer Karte mit mehr Speicher passt es allein — {label} ({need} pro Karte), {price} "
        "— dann spielt die Verbindung keine Rolle.",
    ),
    "link_nodes": ("**The link between the cards:**", "**Die Verbindung zwischen den Karten:**"),
    "link_matters": (
        "The link sets the pace only when one model is split across cards (tensor parallelism) "
        "or when training all-reduces gradients every step.",
        "Die Verbindung bestimmt das Tempo nur, wenn ein Modell auf mehrere Karten aufgeteilt "
        "ist (Tensor-Parallelismus) oder ein Training jeden Schritt die Gradienten abgleicht.",
    ),
    "tp_guide_example": (
        "**One all-reduce per layer for every generated token** — the guide's example: a 70B model "
        "with 80 layers needs 80 per token. Name the model and I'll count its layers.",
        "**Ein All-Reduce pro Layer für jedes erzeugte Token** — das Beispiel des Guides: ein "
        "70B-Modell mit 80 Layern braucht 80 pro Token. Nennen Sie das Modell, dann zähle ich "
        "seine Layer.",
    ),
    "if_split": (
        "If one model has to be split across cards:",
        "Wenn ein Modell auf mehrere Karten aufgeteilt werden muss:",
    ),
    "cheapest_card": (
        "The cheapest node where it fits on a single card ({need} per card): {label},",
        "Der günstigste Knoten, auf dem es auf eine einzelne Karte passt ({need} pro Karte): "
        "{label},",
    ),
    "replicas": (
        "For {n} independent copies, one per card: {label} holds {r},",
        "Für {n} unabhängige Kopien, eine pro Karte: {label} fasst {r},",
    ),
    "image_copies": (
        "{n} at once: each card renders its own images with its own copy of the model, so {n} "
        "images run in parallel on {n} cards; on one card they wait their turn.",
        "{n} gleichzeitig: jede Karte rendert ihre eigenen Bilder mit ihrer eigenen Kopie des "
        "Modells, also laufen {n} Bilder parallel auf {n} Karten; auf einer Karte warten sie "
        "nacheinander.",
    ),
    "image_copies_here": (
        "{label} runs {r} at a time.",
        "{label} schafft {r} gleichzeitig.",
    ),
    "image_copies_node": (
        "The cheapest node with a card for each: {label}",
        "Der günstigste Knoten mit einer Karte für jeden: {label}",
    ),
    "room_none": (
        "On {label} it fills the card with no headroom: higher resolutions, several images per "
        "batch, LoRAs or ControlNet push it into offloading or out of memory. The guide's advice: "
        "rent the card that holds your typical job with room to spare.",
        "Auf {label} füllt es die Karte ohne Reserve: höhere Auflösungen, mehrere Bilder pro "
        "Batch, LoRAs oder ControlNet führen zu Offloading oder Speichermangel. Der Rat des "
        "Guides: die Karte mieten, die Ihren typischen Job mit Reserve hält.",
    ),
    "room_little": (
        "On {label} only {spare} is left: higher resolutions, several images per batch, LoRAs or "
        "ControlNet push it into offloading or out of memory. The guide's advice: rent the card "
        "that holds your typical job with room to spare.",
        "Auf {label} bleiben nur {spare} frei: höhere Auflösungen, mehrere Bilder pro Batch, "
        "LoRAs oder ControlNet führen zu Offloading oder Speichermangel. Der Rat des Guides: die "
        "Karte mieten, die Ihren typischen Job mit Reserve hält.",
    ),
    "room_llm": (
        "On {label} it fits, but tightly: only {spare} spare per card. That leaves no room for "
        "a second request of this length, a longer prompt or a bigger batch.",
        "Auf {label} passt es knapp, mit nur {spare} Reserve pro Karte. Für eine zweite Anfrage "
        "dieser Länge, einen längeren Prompt oder einen größeren Batch bleibt zu wenig Platz.",
    ),
    "room_instead": (
        "The cheapest node with room to spare is {label}:",
        "Der günstigste Knoten mit Reserve ist {label}:",
    ),
    "fit_instead": ("Where it does fit, cheapest first:", "Wo es passt, das Günstigste zuerst:"),
    "tps": ("~{tps} tokens/s", "~{tps} Token/s"),
    "alt_one_card": (
        "Alternative without any interconnect: it fits on a single card of {label} ({need} "
        "needed), then rule 1 applies — rent one card:",
        "Alternative ganz ohne Interconnect: Auf eine einzelne Karte von {label} passt es "
        "({need} nötig), dann gilt Regel 1 — eine Karte mieten:",
    ),
    "node_facts": (
        "{count} cards, {mem} in total, linked by {link} ({bw} GB/s).",
        "{count} Karten, zusammen {mem}, verbunden über {link} ({bw} GB/s).",
    ),
    "node_facts_one": (
        "{count} card with {mem}, attached over {link} ({bw} GB/s).",
        "{count} Karte mit {mem}, angebunden über {link} ({bw} GB/s).",
    ),
    "cheapest_one_card": (
        "**The cheapest node where {model} in {precision} fits on a single card is {label}** "
        "({verdict}).",
        "**Der günstigste Knoten, auf dem {model} in {precision} auf eine einzelne Karte passt, "
        "ist {label}** ({verdict}).",
    ),
    "price_pair_more": (
        "**{first}: {price}, {diff} more per month than {other}.**",
        "**{first}: {price}, {diff} mehr im Monat als {other}.**",
    ),
    "price_pair_less": (
        "**{first}: {price}, {diff} less per month than {other}.**",
        "**{first}: {price}, {diff} weniger im Monat als {other}.**",
    ),
    "price_diff": (
        "{more} costs {diff} more per month than {less}.",
        "{more} kostet {diff} mehr im Monat als {less}.",
    ),
    "price_source_guide_one": (
        "The site publishes this price in its guide.",
        "Diesen Preis veröffentlicht die Seite in ihrem Guide.",
    ),
    "price_source_guide": (
        "These two prices are the ones the site publishes in its guide.",
        "Diese beiden Preise veröffentlicht die Seite in ihrem Guide.",
    ),
    "link_same": (
        "**No difference: in these nodes the cards run at {link} ({bw}).** A link runs at the "
        "generation of its slower end, so a Gen4 card stays at Gen4 speed in a Gen5 node.",
        "**Kein Unterschied: In diesen Knoten laufen die Karten mit {link} ({bw}).** Eine "
        "Verbindung läuft mit der Generation ihres langsameren Endes, eine Gen4-Karte bleibt "
        "also auch im Gen5-Knoten bei Gen4.",
    ),
    "tp_layers": ("{model} has {layers} layers.", "{model} hat {layers} Layer."),
    "kv_other": (
        "With the KV cache in {other} instead of {kv_prec}: **{kv} per sequence** ({per_token} "
        "bytes per token).",
        "Mit dem KV-Cache in {other} statt {kv_prec}: **{kv} pro Sequenz** ({per_token} Byte pro "
        "Token).",
    ),
    "capacity_kv_other": (
        "With the KV cache in {other} instead of {kv_prec}: **up to {n} concurrent sequences of "
        "{ctx} tokens**.",
        "Mit dem KV-Cache in {other} statt {kv_prec}: **bis zu {n} gleichzeitige Sequenzen mit je "
        "{ctx} Token**.",
    ),
    "kv_lead_many": (
        "**KV cache{kv_prec} of {model} for {n} sequences of {ctx} tokens: {kv}** ({per_token} "
        "bytes per token).",
        "**KV-Cache{kv_prec} von {model} für {n} Sequenzen mit je {ctx} Token: {kv}** ({per_token} "
        "Byte pro Token).",
    ),
    "kv_other_many": (
        "With the KV cache in {other} instead of {kv_prec}: **{kv}** for the {n} sequences "
        "({per_token} bytes per token).",
        "Mit dem KV-Cache in {other} statt {kv_prec}: **{kv}** für die {n} Sequenzen ({per_token} "
        "Byte pro Token).",
    ),
    "kv_lead": (
        "**KV cache{kv_prec} of {model} at {ctx} tokens: {kv} per sequence** ({per_token} bytes "
        "per token).",
        "**KV-Cache{kv_prec} von {model} bei {ctx} Token: {kv} pro Sequenz** ({per_token} Byte pro "
        "Token).",
    ),
    "card_bandwidth": (
        "**{name}: memory bandwidth {bw}** ({mem} per card).",
        "**{name}: Speicherbandbreite {bw}** ({mem} pro Karte).",
    ),
    "most_vram": (
        "**Most VRAM: {label} with {mem} in all:**",
        "**Am meisten VRAM: {label} mit zusammen {mem}:**",
    ),
    "most_vram_one_card": (
        "One card with {per} ({usable} usable at 90 %, as vLLM).",
        "Eine Karte mit {per} ({usable} nutzbar bei 90 %, wie vLLM).",
    ),
    "most_vram_card": (
        "{count} cards with {per} each ({usable} usable per card at 90 %, as vLLM).",
        "{count} Karten mit je {per} ({usable} nutzbar pro Karte bei 90 %, wie vLLM).",
    ),
    "card_line": (
        "**{name}: {mem} per card** ({usable} usable at {util}, as vLLM), memory bandwidth {bw}; "
        "rented as {nodes}",
        "**{name}: {mem} pro Karte** ({usable} nutzbar bei {util}, wie vLLM), "
        "Speicherbandbreite {bw}; zu mieten als {nodes}",
    ),
    "cards_with": (
        "**Cards with {mem} in the catalog: {names}.**",
        "**Karten mit {mem} im Katalog: {names}.**",
    ),
    "cards_none_with": (
        "**No card in the catalog has {mem}.**",
        "**Keine Karte im Katalog hat {mem}.**",
    ),
    "vram_per_dollar": (
        "**Most VRAM per dollar: {label}** at {per_gb} per GB and month ({mem} in all):",
        "**Am meisten VRAM pro Dollar: {label}** mit {per_gb} pro GB und Monat (zusammen {mem}):",
    ),
    "per_gb_month": ("per GB and month", "pro GB und Monat"),
    "moe_memory": (
        "A mixture of experts: all {total}B parameters must be in memory; only {active}B are "
        "active (read) per token.",
        "Ein Mixture-of-Experts-Modell: alle {total} Mrd. Parameter müssen in den Speicher; pro "
        "Token sind nur {active} Mrd. aktiv (gelesen).",
    ),
    "per_direction": ("({bw} GB/s per direction)", "({bw} GB/s je Richtung)"),
    "price_per_hour": (
        "**{label}: {per} per hour** — {price}, over the 730 hours of a month.",
        "**{label}: {per} pro Stunde** — {price}, auf die 730 Stunden eines Monats.",
    ),
    "price_per_card": (
        "That is {per} per card (each month).",
        "Das sind {per} pro Karte (je Monat).",
    ),
    "price_sources": (
        "**Two prices are published by the site itself; the others in this catalog are "
        "placeholders:**",
        "**Zwei Preise veröffentlicht die Seite selbst; die übrigen in diesem Katalog sind "
        "Platzhalter:**",
    ),
    "flow_failed": (
        "The sizing for this question failed on our side (the error is logged); here is what "
        "the guides say. Rephrasing the question, or changing a field of what I understood, "
        "usually gets the sized answer.",
        "Die Berechnung für diese Frage ist bei uns fehlgeschlagen (der Fehler ist protokolliert);"
        " hier steht, was die Guides sagen. Mit anders formulierter Frage oder einem geänderten "
        "Feld des Verstandenen klappt die Berechnung meist.",
    ),
    "price_within_budget": (
        "Yes — {label} costs {price}, within the budget you named.",
        "Ja — {label} kostet {price} und liegt damit im genannten Budget.",
    ),
    "price_over_budget": (
        "No — {label} costs {price}, over the budget you named.",
        "Nein — {label} kostet {price} und liegt damit über dem genannten Budget.",
    ),
    "placeholder_note": (
        "Prices marked as placeholders are demo values in this catalog, not published prices; "
        "check the configuration page.",
        "Als Platzhalter markierte Preise sind Demo-Werte dieses Katalogs, keine "
        "veröffentlichten Preise; maßgeblich ist die Seite der Konfiguration.",
    ),
    "allreduce_example": (
        "You didn't name a model, so here is the guide's own example, a 70B model:",
        "Sie haben kein Modell genannt, daher das Beispiel des Guides, ein 70B-Modell:",
    ),
    "topo_sxm_expect": (
        "On an NVLink (SXM) node every pair must show NVLink ({labels}); "
        "anything else is a defect to report on day one.",
        "Auf einem NVLink-Knoten (SXM) muss jedes Paar NVLink zeigen ({labels}); "
        "alles andere ist ein Defekt, den Sie am ersten Tag melden sollten.",
    ),
    "topo_node_expect": (
        "**On {node} every pair of cards should show {label} (NVLink)**; a PCIe path (`PIX`, "
        "`PXB`, `PHB`, `NODE`, `SYS`) or fewer links between two of its cards is a defect.",
        "**Auf {node} sollte jedes Kartenpaar {label} zeigen (NVLink)**; ein PCIe-Pfad (`PIX`, "
        "`PXB`, `PHB`, `NODE`, `SYS`) oder weniger Links zwischen zwei Karten ist ein Defekt.",
    ),
    "topo_node_expect_also": (
        "**On {node} every pair of cards should show {label} (NVLink, its board's label); {also} "
        "is healthy too** (its cards on an 8-GPU NVSwitch board). A PCIe path (`PIX`, `PXB`, "
        "`PHB`, `NODE`, `SYS`) or fewer links between two of its cards is a defect.",
        "**Auf {node} sollte jedes Kartenpaar {label} zeigen (NVLink, die Kennung seines Boards); "
        "{also} ist auch in Ordnung** (seine Karten auf einem 8-GPU-Board mit NVSwitch). Ein "
        "PCIe-Pfad (`PIX`, `PXB`, `PHB`, `NODE`, `SYS`) oder weniger Links zwischen zwei Karten "
        "ist ein Defekt.",
    ),
    "topo_node_pcie": (
        "**{node} has no NVLink: its cards show PCIe paths (`PIX`, `PXB`, `PHB`, `NODE` or "
        "`SYS`)**, which is normal for a PCIe node.",
        "**{node} hat kein NVLink: seine Karten zeigen PCIe-Pfade (`PIX`, `PXB`, `PHB`, `NODE` "
        "oder `SYS`)**, was für einen PCIe-Knoten normal ist.",
    ),
    "topo_counts": (
        "{cards} cards, {pairs} pairs: {nv} over NVLink{nv_labels}, {pcie} over PCIe.",
        "{cards} Karten, {pairs} Paare: {nv} über NVLink{nv_labels}, {pcie} über PCIe.",
    ),
    "topo_sys_note": (
        "`SYS` pairs talk across the CPU sockets: the worst case for tensor parallelism, "
        "harmless for one model per card.",
        "`SYS`-Paare sprechen über die CPU-Sockel hinweg: der schlechteste Fall für "
        "Tensor-Parallelismus, harmlos für ein Modell pro Karte.",
    ),
    "topo_ask_node": (
        "Tell me which configuration you rented (e.g. “8x H100 SXM5”) and I'll "
        "check it against what that node should show.",
        "Nennen Sie mir die gemietete Konfiguration (z. B. „8x H100 SXM5“), dann "
        "prüfe ich es gegen das, was dieser Knoten zeigen muss.",
    ),
    "topo_report": (
        "This is a defect: please report it to support with this output.",
        "Das ist ein Defekt: Bitte melden Sie ihn mit dieser Ausgabe dem Support.",
    ),
    # the same finding as support staff read it (Slack): what to check, what to tell the customer
    "topo_report_staff": (
        "This is a defect. *What to check:* that the output comes from the node the customer "
        "rents (its configuration), run on the host with the GPUs idle; then open a hardware "
        "ticket with this output. *What to tell the customer:* the GPU links of their node do "
        "not match its specification; we have opened a hardware ticket and will get back to "
        "them with a fix.",
        "Das ist ein Defekt. *Was prüfen:* dass die Ausgabe vom Knoten stammt, den der Kunde "
        "mietet (seine Konfiguration), auf dem Host mit ruhenden GPUs erzeugt; dann ein "
        "Hardware-Ticket mit dieser Ausgabe eröffnen. *Was dem Kunden sagen:* die GPU-"
        "Verbindungen seines Knotens entsprechen nicht der Spezifikation; wir haben ein "
        "Hardware-Ticket eröffnet und melden uns mit einer Lösung.",
    ),
    "pair_nv_fewer": (
        "fewer NVLinks than expected ({want}): a link is down",
        "weniger NVLinks als erwartet ({want}): ein Link ist ausgefallen",
    ),
    "pair_pcie_on_sxm": (
        "goes over PCIe instead of NVLink: a defect on an SXM node",
        "läuft über PCIe statt NVLink: auf einem SXM-Knoten ein Defekt",
    ),
    "pair_sys": (
        "across the CPU sockets: worst case for tensor parallelism",
        "über die CPU-Sockel: schlechtester Fall für Tensor-Parallelismus",
    ),
}

FOLLOW_UPS: dict[str, tuple[str, str]] = {
    "fp8": ("And in FP8?", "Und in FP8?"),
    "awq": ("And in 4-bit AWQ?", "Und in 4-bit AWQ?"),
    "h200": ("And on 8x H200?", "Und auf 8x H200?"),
    "speed": ("How fast is it on {label}?", "Wie schnell ist es auf {label}?"),
    "speed_model": (
        "How fast is Llama 3.1 8B on {label}?",
        "Wie schnell ist Llama 3.1 8B auf {label}?",
    ),
    "fits_on": ("Does {model} fit on {label}?", "Passt {model} auf {label}?"),
    "fits_where": ("Where does {model} fit?", "Wo passt {model} drauf?"),
    "cheapest": (
        "What is the cheapest node for {model}?",
        "Was ist der günstigste Knoten für {model}?",
    ),
    "nvlink": ("Do I need NVLink for {model}?", "Brauche ich NVLink für {model}?"),
    "qlora": ("And with QLoRA for {model}?", "Und mit QLoRA für {model}?"),
    "lora": (
        "And with LoRA in BF16 for {model}?",
        "Und mit LoRA in BF16 für {model}?",
    ),
    "full_fine_tune": (
        "How much memory does full fine-tuning of {model} need?",
        "Wie viel Speicher braucht volles Fine-Tuning von {model}?",
    ),
    "topology": (
        "How do I check the topology of my node?",
        "Wie prüfe ich die Topologie meines Knotens?",
    ),
    "allreduce": (
        "How long is the gradient all-reduce for {model}?",
        "Wie lange dauert das Gradient-All-Reduce für {model}?",
    ),
    "fit_example": ("Does Llama 3.3 70B fit on one card?", "Passt Llama 3.3 70B auf eine Karte?"),
    "nvlink_example": (
        "Do I need NVLink for Llama 3.3 70B in BF16 for real traffic?",
        "Brauche ich NVLink für Llama 3.3 70B in BF16 für echten Traffic?",
    ),
    "price_example": ("What does 4x A100 SXM4 cost?", "Was kostet 4x A100 SXM4?"),
    "size_params": (
        "A {params}B model in BF16 on 8x H200?",
        "Ein {params}B-Modell in BF16 auf 8x H200?",
    ),
    "traffic": ("And for real traffic?", "Und für echten Traffic?"),
    "image_card": (
        "Which card do I need for FLUX.1 [dev]?",
        "Welche Karte brauche ich für FLUX.1 [dev]?",
    ),
    "low": ("And with only a few users?", "Und mit nur wenigen Nutzern?"),
}

PRECISION_LABEL = {
    "fp32": "FP32",
    "bf16": "BF16",
    "fp16": "FP16",
    "fp8": "FP8",
    "int8": "INT8",
    "mxfp4": "MXFP4",
    "awq": "AWQ 4-bit",
    "gptq": "GPTQ 4-bit",
    "gguf-q4_k_m": "GGUF Q4_K_M",
    "gguf-q5_k_m": "GGUF Q5_K_M",
    "gguf-q8_0": "GGUF Q8_0",
}


#: '{n|Sequenz|Sequenzen}' in a phrase: the singular when the value of n is 1, else the plural
_PLURAL = re.compile(r"\{(\w+)\|([^|{}]*)\|([^|{}]*)\}")


def t(lang: Language, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


def render(phrases: dict[str, tuple[str, str]], lang: str, key: str, **kw: Any) -> str:
    """A phrase of a table of (English, German) phrases, in the answer's language, with its
    '{n|singular|plural}' choices made and its fields filled (each answer module's table)."""
    en, de = phrases[key]
    text = _PLURAL.sub(
        lambda m: m.group(2) if str(kw.get(m.group(1))).strip() == "1" else m.group(3),
        de if lang == "de" else en,
    )
    return text.format(**kw)


def follow_up(lang: Language, key: str, **kw: Any) -> str:
    en, de = FOLLOW_UPS[key]
    return (de if lang == "de" else en).format(**kw)


def num(lang: Language, value: float, places: int = 0) -> str:
    """1935 -> '1,935' (en) / '1.935' (de); 2.19 -> '2.19' / '2,19'."""
    s = f"{value:,.{places}f}"
    if lang == "de":
        s = s.replace(",", "\u0000").replace(".", ",").replace("\u0000", ".")
    return s


def smart(lang: Language, value: float) -> str:
    """A figure with sensible precision: 141.1 -> '141', 2.68 -> '2.7', 0.156 -> '0.16'."""
    a = abs(value)
    if a >= 100:
        return num(lang, value, 0)
    if a >= 10:
        return num(lang, value, 1).rstrip("0").rstrip(",.") if value % 1 else num(lang, value, 0)
    if a >= 1:
        return num(lang, value, 1)
    if 0 < a < 0.1:  # two significant digits: 0.0658 s -> '0.066', not '0.07'; 0.04 stays
        return num(lang, value, 1 - math.floor(math.log10(a))).rstrip("0")
    return num(lang, value, 2)


def tokens(lang: Language, value: float) -> str:
    """Tokens/s as the guide writes them: whole numbers from 10 up (~18), else one decimal."""
    return num(lang, value, 0) if abs(value) >= 10 else num(lang, value, 1)


def gb(lang: Language, value: float) -> str:
    """Memory keeps the tools' one decimal at every size (123.5 GB of 126.9, as `sizing fit`
    prints it), dropping only a trailing .0 (141 GB); under 10 GB `smart` applies (0.16 GB)."""
    return f"{one_decimal(lang, value)} GB"


def one_decimal(lang: Language, value: float) -> str:
    """A figure as a tool prints it: one decimal from 100 up, dropping only a trailing .0 (133.4,
    141); below 100 `smart` applies."""
    if abs(value) >= 100:
        whole = round(value, 1) % 1 == 0
        return num(lang, value, 0 if whole else 1)
    return smart(lang, value)


def usd(value: Any) -> str:
    """Exact catalog money, as the site writes it in both languages: $4,395 or $4,157.50."""
    d = Decimal(str(value))
    if d == d.to_integral_value():
        return f"${int(d):,}"
    return f"${d:,.2f}"


def monthly(lang: Language, value: Any) -> str:
    return usd(value) + t(lang, "per_month")


def precision_label(p: str | None) -> str:
    return PRECISION_LABEL.get(p or "", (p or "").upper())
