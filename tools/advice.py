"""The guide's purchase advice as a function: which of its five rules applies, and why.

Source: the site's guide "NVLink oder PCIe: Was Ihr Job braucht" (slug nvlink-vs-pcie). Every
result names the rule number, a stable text key, and the guide section it comes from (anchor and
URL), so an answer can cite it. The texts here are short paraphrases, not quotes; quote the guide
passage itself (retrieval) when citing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GUIDE_SLUG = "nvlink-vs-pcie"
GUIDE_URLS = {
    "de": "https://gpuserver.io/de/guides/nvlink-vs-pcie/",
    "en": "https://gpuserver.io/en/guides/nvlink-vs-pcie/",
}
#: Section anchors shared by both languages of the guide.
ANCHORS = (
    "short-answer",
    "tldr",
    "interconnects",
    "when-it-matters",
    "tensor-parallelism",
    "large-batch-training",
    "when-it-does-not-matter",
    "same-job-both-ways",
    "measure-it-yourself",
    "what-to-buy",
)

Workload = Literal["llm_serving", "training", "image_video", "rendering"]
Parallelism = Literal["auto", "tensor", "pipeline", "replicas"]
Traffic = Literal["low", "high"]
Recommendation = Literal["one_card", "pcie", "pcie_size_for_memory", "sxm", "not_offered"]
ItemKind = Literal["rule", "link_does_not_matter", "mistake"]


class GuideItem(BaseModel):
    kind: ItemKind
    number: int | None = Field(description="rule number 1-5 in 'what to buy'; None otherwise")
    key: str = Field(description="stable text key, e.g. rule.fits-one-card")
    text_en: str
    text_de: str
    anchor: str
    guide: str = GUIDE_SLUG

    def url(self, language: str = "de") -> str:
        return f"{GUIDE_URLS.get(language, GUIDE_URLS['de'])}#{self.anchor}"


def _rule(n: int, key: str, en: str, de: str) -> GuideItem:
    return GuideItem(kind="rule", number=n, key=key, text_en=en, text_de=de, anchor="what-to-buy")


RULES: dict[int, GuideItem] = {
    1: _rule(
        1,
        "rule.fits-one-card",
        "The model fits on one card: buy one card. The interconnect premium buys nothing.",
        "Das Modell passt auf eine Karte: eine Karte kaufen. Der Interconnect-Aufpreis "
        "bringt nichts.",
    ),
    2: _rule(
        2,
        "rule.independent-jobs",
        "Several independent models or jobs: buy as many PCIe cards as needed; more VRAM per "
        "dollar and no traffic over the link.",
        "Mehrere unabhängige Modelle oder Jobs: PCIe-Karten nach Bedarf kaufen; mehr VRAM pro "
        "Dollar, kein Verkehr über die Verbindung.",
    ),
    3: _rule(
        3,
        "rule.too-big-low-concurrency",
        "One model too big for one card, served at low concurrency: PCIe works; size the node "
        "for memory, not speed, since sharding costs more than it gains.",
        "Ein Modell zu groß für eine Karte, geringe Nebenläufigkeit: PCIe reicht; den Knoten nach "
        "Speicher dimensionieren, nicht nach Geschwindigkeit.",
    ),
    4: _rule(
        4,
        "rule.too-big-real-traffic-or-training",
        "One model too big for one card, serving real traffic or training: this is what NVLink "
        "is for; buy SXM.",
        "Ein Modell zu groß für eine Karte, echter Traffic oder Training: dafür gibt es NVLink; "
        "SXM kaufen.",
    ),
    5: _rule(
        5,
        "rule.more-than-eight-cards",
        "One job needing more than eight cards needs a fabric between nodes, which the site "
        "does not offer.",
        "Ein Job mit mehr als acht Karten braucht ein Fabric zwischen Knoten; das bietet die "
        "Seite nicht an.",
    ),
}


def _case(key: str, en: str, de: str) -> GuideItem:
    return GuideItem(
        kind="link_does_not_matter",
        number=None,
        key=key,
        text_en=en,
        text_de=de,
        anchor="when-it-does-not-matter",
    )


LINK_DOES_NOT_MATTER: dict[str, GuideItem] = {
    "one-model-per-card": _case(
        "case.one-model-per-card",
        "One model per card: independent copies never touch the link; throughput scales with "
        "the cards and nothing has to synchronise.",
        "Ein Modell pro Karte: unabhängige Kopien berühren die Verbindung nicht; der Durchsatz "
        "wächst mit den Karten.",
    ),
    "pipeline-parallelism": _case(
        "case.pipeline-parallelism",
        "Pipeline parallelism: cards hand over once per micro-batch, not once per layer, so "
        "PCIe keeps up.",
        "Pipeline-Parallelismus: eine Übergabe pro Mikro-Batch statt pro Layer; PCIe hält mit.",
    ),
    "diffusion-rendering": _case(
        "case.diffusion-rendering",
        "Diffusion and rendering: each card works on its own image or frame; there is nothing "
        "to all-reduce.",
        "Diffusion und Rendering: jede Karte arbeitet an ihrem eigenen Bild oder Frame; nichts "
        "muss synchronisiert werden.",
    ),
}

MISTAKE = GuideItem(
    kind="mistake",
    number=None,
    key="mistake.unneeded-tensor-parallelism",
    text_en="The most expensive mistake: tensor parallelism for a model that fits one card. "
    "Split over the node's cards it runs slower than on one card; shard only when it does not fit.",
    text_de="Der teuerste Fehler: Tensor-Parallelismus für ein Modell, das auf eine Karte passt. "
    "Über die Karten verteilt läuft es langsamer als auf einer; nur sharden, wenn es nicht passt.",
    anchor="when-it-does-not-matter",
)


class AdviceInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fits_one_card: bool = Field(description="the model (at its precision) fits on one card")
    cards_needed: int | None = Field(default=None, ge=1, description="cards one job needs")
    independent_jobs: bool = Field(default=False, description="several independent models/jobs")
    workload: Workload = "llm_serving"
    parallelism: Parallelism = "auto"
    traffic: Traffic = Field(default="low", description="serving concurrency: low or real traffic")
    planned_tensor_parallel: int | None = Field(
        default=None, ge=1, description="tensor-parallel size the user plans (mistake check)"
    )


class AdviceResult(BaseModel):
    inputs: AdviceInput
    rule: GuideItem | None = Field(description="the purchase rule that applies")
    recommendation: Recommendation
    needs_nvlink: bool
    also: list[GuideItem] = Field(default=[], description="link-does-not-matter cases, mistake")
    reasons: list[str]


def purchase_advice(inp: AdviceInput) -> AdviceResult:
    """Apply the guide's five purchase rules (plus its three no-link cases and its warning)."""
    also: list[GuideItem] = []
    reasons: list[str] = []

    def decide(rule: int, recommendation: Recommendation, reason: str) -> AdviceResult:
        reasons.append(reason)
        return AdviceResult(
            inputs=inp,
            rule=RULES[rule],
            recommendation=recommendation,
            needs_nvlink=recommendation == "sxm",
            also=also,
            reasons=reasons,
        )

    if inp.cards_needed is not None and inp.cards_needed > 8:
        return decide(
            5, "not_offered", f"one job needs {inp.cards_needed} cards, more than one node holds"
        )
    if inp.workload in ("image_video", "rendering"):
        also.append(LINK_DOES_NOT_MATTER["diffusion-rendering"])
        if inp.fits_one_card and not inp.independent_jobs:
            return decide(1, "one_card", "image, video and rendering jobs run one per card")
        return decide(2, "pcie", "each card renders its own job, so more PCIe cards scale the work")
    if inp.fits_one_card:
        if inp.planned_tensor_parallel is not None and inp.planned_tensor_parallel > 1:
            also.append(MISTAKE)
            reasons.append(
                f"tensor parallel {inp.planned_tensor_parallel} for a model that fits one card"
            )
        if inp.independent_jobs or inp.parallelism == "replicas":
            also.append(LINK_DOES_NOT_MATTER["one-model-per-card"])
            return decide(2, "pcie", "independent copies, one per card, never cross the link")
        return decide(1, "one_card", "the model fits on one card")
    if inp.independent_jobs:
        also.append(LINK_DOES_NOT_MATTER["one-model-per-card"])
        return decide(2, "pcie", "independent jobs do not synchronise over the link")
    if inp.parallelism == "pipeline":
        also.append(LINK_DOES_NOT_MATTER["pipeline-parallelism"])
        return decide(
            3, "pcie_size_for_memory", "pipeline parallelism crosses the link once per micro-batch"
        )
    if inp.workload == "training":
        return decide(4, "sxm", "training all-reduces the gradients every step")
    if inp.traffic == "high":
        return decide(
            4, "sxm", "tensor parallelism syncs every layer for every token of real traffic"
        )
    return decide(3, "pcie_size_for_memory", "too big for one card but served at low concurrency")


def guide_items() -> list[GuideItem]:
    """Every rule, case and warning, in guide order (for listings and tests)."""
    return [*RULES.values(), *LINK_DOES_NOT_MATTER.values(), MISTAKE]
