"""How a question is read beyond the NLU's intent: the regexes and predicates `Composer.compose`
and the flows use to route and narrow an answer (card specs asked, most VRAM, VRAM per dollar,
price sources, per-token cost, a topology described in words, links named outright) and the
guide topics and pinned guide sections that steer retrieval.
"""

from __future__ import annotations

import re

from assistant.nlu import Query

_TOPICS = {
    "awq-vs-gptq-vs-fp8": r"\b(?:awq|gptq|gguf|quanti[sz]\w*|fp8|bf16|fp16|int4|int8|4-bit|vllm|"
    r"kv[\s-]*cache|"
    r"w8a16|q4_k_m|q8_0)\b",
    "mixture-of-experts": r"\b(?:moe|mixture|experts?|expert\w*|active param\w*|aktive\w* param\w*|"
    r"deepseek|mixtral|qwen3|mla)\b",
    "gpu-for-flux-sdxl": r"\b(?:flux|sdxl|diffusion|image|images|bild\w*|video\w*|wan|comfyui)\b",
    "nvlink-vs-pcie": r"\b(?:nvlink|pcie|sxm|tensor\w*|nccl|busbw|all-?reduce|topolog\w*|p2p|"
    r"peer-to-peer|nvswitch)\b",
}


_FORMAT = r"(?:awq|gptq|gguf|fp8|int4|int8|bf16|q4_k_m|exl2)"


# questions that name a guide section plainly: (pattern, guide, anchor, narrowing regex)
_PINNED: tuple[tuple[str, str, str, str | None], ...] = (
    (
        rf"(?:difference|unterschied|vs\.?|versus|compare|vergleich).{{0,40}}\b{_FORMAT}\b"
        rf".{{0,20}}\b{_FORMAT}\b|\b{_FORMAT}\b.{{0,20}}\b(?:vs\.?|versus|or|oder)\s+{_FORMAT}\b",
        "awq-vs-gptq-vs-fp8",
        "formats",
        r"GPTQ",  # the table, not its caption
    ),
    (
        r"\bactive param|\baktive\w* param|\ball (?:its |the )?experts|\balle\w* experten|"
        r"experts? .{0,30}(?:activ|per token|pro token)|(?:activ|aktiv)\w* .{0,20}expert",
        "mixture-of-experts",
        "total-vs-active",
        None,
    ),
    (
        r"(?:support|unterstütz)\w*.{0,20}\bfp8\b|\bfp8\b.{0,20}(?:support|unterstütz)|"
        r"(?:which|welche) (?:cards?|karten?|gpus?) .{0,20}\bfp8\b|"
        r"(?:a100|a6000|ampere|l4|l40s?|h100|h200|b200|4090|5090)\b.{0,30}\bfp8\b.{0,20}"
        r"(?:use|run|nutzen|verwenden|laufen|work|funktionier)|"
        r"\bfp8\b.{0,30}(?:on|auf) (?:an? |einer? )?(?:a100|a6000|rtx|ampere|l4|l40s?|h100)",
        "awq-vs-gptq-vs-fp8",
        "speed",
        r"A100.*Ampere|Ampere.*A100",  # "FP8 in the catalog: ... yes. A100 ... no"
    ),
    (
        r"(?=.*\b(?:topo|nvidia-smi)\b)(?=.*\b(?:mean|means|bedeut\w*|stands? for|steht|"
        r"what is|what's|was ist|heißt)\b).*\b(?:sys|pix|pxb|phb|node|nv#|nv\d+)\b",
        "nvlink-vs-pcie",
        "measure-it-yourself",
        r"`SYS`",  # the legend paragraph
    ),
    (
        # "was ist eigentlich tensor parallel?", "what is tensor parallelism?": its own section
        r"\b(?:what(?: even| exactly)? is|what's|was (?:genau |eigentlich )?ist|explain|erklär\w*)"
        r"\b.{0,20}\btensor[\s-]*parallel",
        "nvlink-vs-pcie",
        "tensor-parallelism",
        None,
    ),
    (
        r"gpu_memory_utili[sz]ation|(?:vllm).{0,60}(?:default|standardmäßig|by default)|"
        r"(?:default|standardmäßig).{0,60}vllm",
        "awq-vs-gptq-vs-fp8",
        "why-smallest-is-not-smallest",
        r"gpu_memory_utilization",
    ),
    (
        # "Do MoE models need more VRAM than dense ones?": the short answer's memory line
        r"(?=.*\b(?:moe|mixture[\s-]of[\s-]experts)\b)(?=.*\b(?:dense|dicht\w*)\b)"
        r"(?=.*\b(?:vram|memory|speicher|ram)\b)",
        "mixture-of-experts",
        "short-answer",
        r"VRAM",
    ),
    (
        r"(?:moe|mixture|experts?|experten).{0,60}(?:nvlink|interconnect|verbindung|all-to-all)|"
        r"(?:nvlink|interconnect|verbindung|all-to-all).{0,60}(?:moe|mixture|experts?|experten)",
        "mixture-of-experts",
        "interconnect",
        r"all-to-all",
    ),
    (
        r"(?:\badd up\b|\baddier\w*|\bzusammenzähl\w*|\bsummier\w*|\bcombine[ds]?\b|"
        r"\bpool(?:ed)?\b|\b(?:act|work|behave|count)s? as (?:one|a single|\d+ ?gb)|"
        r"\bas one (?:big )?(?:card|gpu)|wie eine (?:große |einzige )?karte|"
        r"zusammen(?:legen|schalten|gelegt)).{0,60}(?:flux|sdxl|diffusion|image|bild|video|wan)|"
        r"(?:flux|sdxl|diffusion|image|bild|video|wan).{0,60}(?:\badd up\b|\baddier\w*|"
        r"\bzusammenzähl\w*|\bsummier\w*|\bcombine[ds]?\b|\bpool(?:ed)?\b)",
        "gpu-for-flux-sdxl",
        "many-cards",
        None,
    ),
)


def _topic_guide(question: str) -> str | None:
    """The one guide a question is plainly about (its terms name no other), else None."""
    q = question.lower()
    hits = [g for g, rx in _TOPICS.items() if re.search(rx, q)]
    return hits[0] if len(hits) == 1 else None


def _asks_card_facts(u: Query) -> bool:
    """A question about a card's own specs (memory, bandwidth), no model: "How much VRAM does
    the H200 have?", "Which GPUs have 48 GB?"."""
    if u.has_subject or u.configurations or (u.count or 1) > 1:
        return False  # "4x A100 zusammen": the node's facts (price flow)
    if "card_spec" not in u.topics:
        return False
    names_card = bool(u.cards or u.card_families)
    if "most_vram" in u.topics and not names_card:
        return False  # "welche GPU mit dem meisten Speicher bekomm ich dafür?": one pick
    return ("spec_has" if names_card else "which_cards") in u.topics
