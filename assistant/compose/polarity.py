"""The first word answers the question as the user asked it.

A flow's lead answers one claim ("Do I need NVLink?" -> **No** …). When the user asked the
converse ("Reicht PCIe?", "Is NVLink overkill?", "Can I avoid SXM?"), the same verdict is
answered with the opposite word: "**Ja** — kein NVLink nötig", never "**Nein** — kein NVLink
nötig" to "Reicht PCIe?".
"""

from __future__ import annotations

import re

from assistant.compose.draft import Draft
from assistant.nlu import Query
from assistant.nlu.query import Claim

# claims that are each other's negation
CONVERSE: dict[tuple[str, str], bool] = {
    ("nvlink_needed", "pcie_enough"): True,
    ("pcie_enough", "nvlink_needed"): True,
}
_LEAD_RX = re.compile(r"^(\*\*)(Yes|No|Ja|Nein)\b")
_FLIP = {"Yes": "No", "No": "Yes", "Ja": "Nein", "Nein": "Ja"}


def answer_in_polarity(d: Draft, u: Query, flow_claim: Claim | None) -> None:
    """Flip the lead's yes/no when the question asked the converse of the flow's claim."""
    if flow_claim is None or u.claim is None:
        return
    if not CONVERSE.get((flow_claim, u.claim)):
        return
    for i, para in enumerate(d.paras):
        m = _LEAD_RX.match(para)
        if m:
            d.paras[i] = m.group(1) + _FLIP[m.group(2)] + para[m.end() :]
            return
        if not para.startswith("_"):  # the injection notice may come first, nothing else
            return


def lead_polarity(text: str) -> bool | None:
    """True for a lead that starts with yes / ja, False for no / nein, None otherwise."""
    m = _LEAD_RX.match(text.lstrip("_ \n")) or re.match(r"^\W*(Yes|No|Ja|Nein)\b", text)
    if not m:
        return None
    word = m.group(m.lastindex or 1)
    return word in ("Yes", "Ja")
