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


# ----------------------------------------------- a paste inside prose that names GPUs (issue 26)
def test_the_topology_matrix_is_found_inside_prose_that_names_gpus() -> None:
    from tests.pastes import topo_8x_h100
    from tools.diagnostics import TopoParseError, parse_topo_matrix

    matrix = topo_8x_h100()
    before = "The customer says GPU0 and GPU5 are slow.\n```\n" + matrix + "\n```"
    after = "Is this OK?\n```\n" + matrix + "\n```\nGPU2 to GPU5 is slow, GPU0 too."
    for text in (before, after):
        gpus, cells = parse_topo_matrix(text)
        assert gpus == [f"GPU{i}" for i in range(8)]
        assert cells[("GPU2", "GPU5")] == "NV12" and cells[("GPU0", "GPU1")] == "NV18"
    # a broken matrix is reported by its own rows, not by the prose's "GPU0 and GPU5"
    broken = before.replace("GPU7\t", "GPU7\tNV18\t", 1).replace("\nGPU7", "\nGPU7 oops", 1)
    with pytest.raises(TopoParseError, match="row GPU7: expected 8 labels"):
        parse_topo_matrix(broken)


def test_a_topology_paste_after_prose_naming_gpu0_is_judged(assistant) -> None:  # type: ignore[no-untyped-def]
    from tests.pastes import topo_8x_h100

    text = (
        "Unser Kunde hat 8x H100 SXM5 gemietet und sagt, GPU0 und GPU5 seien langsam. Passt das?"
        "\n```\n" + topo_8x_h100() + "\n```"
    )
    a = assistant.ask(text)
    assert a.language == "de"
    (call,) = [c for c in a.tool_calls if c.name == "check_topology_output"]
    assert call.result["status"] == "defect"  # GPU2-GPU5 shows NV12 where the board has NV18
    bad = [p for p in call.result["pairs"] if p["status"] != "ok"]
    assert [(p["a"], p["b"], p["label"]) for p in bad] == [("GPU2", "GPU5", "NV12")]


def test_a_5000_character_all_reduce_perf_paste_is_judged_in_the_prose_s_language(  # type: ignore[no-untyped-def]
    assistant,
) -> None:
    from tests.pastes import allreduce_perf_8x_h100

    paste = allreduce_perf_8x_h100(peak_busbw=360.0)
    assert len(paste) >= 5000
    for prose, lang in (
        ("Ist das normal für unseren 8x H100 SXM5 Server?", "de"),
        ("Is this normal for our 8x H100 SXM5 server?", "en"),
    ):
        a = assistant.ask(prose + "\n" + paste)
        assert a.language == lang
        (call,) = [c for c in a.tool_calls if c.name == "check_allreduce_output"]
        assert call.result["status"] == "ok"
        assert round(call.result["peak_busbw_gb_s"]) == 360  # the largest sizes' busbw
        shown = f"{call.result['peak_busbw_gb_s']:.1f}"  # as pasted: one decimal
        assert f"{shown.replace('.', ',') if lang == 'de' else shown} GB/s" in a.summary


def test_a_defect_in_a_pasted_all_reduce_run_is_addressed_to_staff_in_slack(  # type: ignore[no-untyped-def]
    assistant,
) -> None:
    """Issue 26: the topology reply told a support person to "please report it to support".
    In Slack (`for_staff`) a defect says what to check and what to tell the customer; the widget
    (a visitor) keeps "report it to support". The German topology case: test_slack_staff."""
    from assistant.offer import for_staff
    from tests.pastes import allreduce_perf_8x_h100

    a = assistant.ask("Is this normal for our 8x H100 SXM5?\n" + allreduce_perf_8x_h100(60.0))
    (call,) = [c for c in a.tool_calls if c.name == "check_allreduce_output"]
    assert call.result["status"] == "defect"
    assert "report it to support" in a.answer  # the visitor's next step
    staff = for_staff(a).answer
    assert "report it to support" not in staff
    assert "*What to check:*" in staff and "*What to tell the customer:*" in staff


def test_a_paste_quoted_in_a_forwarded_mail_is_read() -> None:
    """A matrix or all_reduce_perf output inside a quoted mail keeps its '> ' markers; `sizing
    topo` stopped with "matrix incomplete: no row for GPU0 …" (a blind writer's finding)."""
    from tests.pastes import topo_8x_h100
    from tools.diagnostics import parse_all_reduce, parse_topo_matrix

    plain = topo_8x_h100()
    quoted = "Am Montag schrieb Kunde:\n" + "\n".join("> " + line for line in plain.splitlines())
    assert parse_topo_matrix(quoted) == parse_topo_matrix(plain)
    twice = "\n".join(">> " + line for line in plain.splitlines())
    assert parse_topo_matrix(twice) == parse_topo_matrix(plain)
    perf = (
        "#  Rank  0 Group  0 Pid 1 on host device  0 [0x18] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid 1 on host device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
        "   134217728      33554432     float     sum      -1   1200.0  111.85  111.85      0"
        "   1190.0  112.79  112.79      0\n"
        "# Avg bus bandwidth    : 111.9\n"
    )
    rows, ranks, avg = parse_all_reduce("\n".join("> " + line for line in perf.splitlines()))
    assert (len(rows), ranks, avg) == (1, 2, 111.9)
    assert rows[0].busbw_gb_s == pytest.approx(111.85)
