"""Pastes on every surface (issue 26 "Pastes everywhere", used by issue 23's blind batch): the
prose question keeps its limit, pasted tool output or a quoted e-mail may be up to
`max_pasted_chars` besides it, and the answer is in the language of the prose."""

from __future__ import annotations

import pytest

from assistant.errors import QuestionError
from assistant.situation import length_problem, prose_language


def _topo_8x(pad_lines: int = 0) -> str:
    """An 8-GPU `nvidia-smi topo -m` with NIC columns and its legend, as it is pasted."""
    n = 8
    head = (
        "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity"
    )
    rows = [
        f"GPU{i}\t"
        + "\t".join(" X " if i == j else "NV12" for j in range(n))
        + "\tSYS\tSYS\t0-63\t0"
        for i in range(n)
    ]
    nics = [f"NIC{k}\t" + "\t".join("SYS" for _ in range(n)) + "\t X \tSYS" for k in range(2)]
    legend = [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
    ]
    more_nics = [f"NIC{k}\t" + "\t".join("SYS" for _ in range(n)) for k in range(2, 2 + pad_lines)]
    nic_legend = ["", "NIC Legend:", ""] + [f"  NIC{k}: mlx5_{k}" for k in range(2 + pad_lines)]
    return "\n".join([head, *rows, *nics, *more_nics, *legend, *nic_legend])


def test_a_long_paste_is_accepted_and_a_long_prose_is_not() -> None:
    paste = _topo_8x(pad_lines=16)
    text = "Ist das auf unserem 8x H100 SXM5 Server normal?\n" + paste
    assert len(text) > 2000
    assert length_problem(text, 2000, 20_000) is None
    prose = "Wir haben eine Frage. " * 120
    assert "question is too long" in (length_problem(prose, 2000, 20_000) or "")
    assert "pasted material is too long" in (
        length_problem("Passt das?\n```\n" + "x" * 25_000 + "\n```", 2000, 20_000) or ""
    )


def test_the_language_of_a_paste_is_the_prose_s() -> None:
    assert prose_language("Ist das normal?\n" + _topo_8x()) == "de"
    assert prose_language("Is that normal?") is None  # no paste: the NLU decides as always


def test_the_assistant_answers_a_long_paste_in_the_prose_s_language(assistant) -> None:  # type: ignore[no-untyped-def]
    text = "Ist das auf unserem 8x H100 SXM5 Server normal?\n" + _topo_8x(pad_lines=16)
    a = assistant.ask(text)
    assert a.language == "de"
    assert any(c.name == "check_topology_output" for c in a.tool_calls)
    with pytest.raises(QuestionError, match="question is too long"):
        assistant.ask("Wir haben eine Frage. " * 120)
