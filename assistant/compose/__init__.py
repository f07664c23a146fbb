"""The offline composer: from the understood question, tool results and guide passages to an answer.

Order of an answer: the verdict first (bold), then the key numbers with their assumptions, the
guide's purchase rule as the recommendation, prices with links, citations [n]. Every figure in the
text is formatted from a tool result recorded in `tool_calls` (or sits in a quoted passage), so
the grounding check can trace it. Missing information gets a clarifying question plus the general
rule, never a guess.

The package: `draft` (Draft, Composed, shared constants), `base` (ComposerBase, the shared
helpers), `intents` (question regexes and predicates), one mixin per flow family (`fit`,
`nvlink`, `prices`, `speed`, `interconnect`, `diagnostics`, `cards`, `guides`) and `composer`
(Composer and its intent dispatch).
"""

from assistant.compose.base import ComposerBase, generic_name
from assistant.compose.composer import Composer
from assistant.compose.draft import (
    CASE_ANCHORS,
    EXAMPLE_MODEL,
    NVLINK_GUIDE,
    PCIE_TWIN,
    SXM_TWIN,
    Composed,
    Draft,
)

__all__ = [
    "CASE_ANCHORS",
    "EXAMPLE_MODEL",
    "NVLINK_GUIDE",
    "PCIE_TWIN",
    "SXM_TWIN",
    "Composed",
    "Composer",
    "ComposerBase",
    "Draft",
    "generic_name",
]
