"""The grounding check: prices, numbers with units and citation markers must be traceable."""

from decimal import Decimal

import pytest

from assistant.answer import Answer, Citation, PriceQuote, ToolCall
from assistant.grounding import check_answer, number_candidates

PRICES = {"4x-a100-pcie": Decimal(4157), "4x-a100-sxm4": Decimal(4395), "8x-h200": Decimal(19322)}
QUOTE = (
    "| Preis | $4,157/Monat | $4,395/Monat |\n| Llama 3.3 70B in BF16 | ~18 Token/s | ~19 Token/s |"
)


def _answer(text: str, **kw: object) -> Answer:
    base: dict[str, object] = {
        "question": "q",
        "language": "de",
        "mode": "offline",
        "session_id": "s",
        "message_id": "m",
        "answer": text,
        "citations": [
            Citation(n=1, guide="nvlink-vs-pcie", title="t", section="s", url="u", quote=QUOTE)
        ],
        "prices": [
            PriceQuote(
                configuration="4x-a100-sxm4",
                label="4 × NVIDIA A100 SXM4",
                usd_per_month=Decimal(4395),
                url="https://gpuserver.io/de/gpu/a100-sxm4",
            ),
        ],
        "tool_calls": [
            ToolCall(
                name="fit_check",
                arguments={"model": "llama-3.3-70b"},
                result={
                    "weights_gb": 141.11,
                    "kv_gb": 2.68,
                    "constants": {"gpu_memory_utilization": 0.9},
                    "rows": [
                        {"tokens_per_s": 19.3, "seconds": 0.156, "usd_per_million_tokens": 86.8}
                    ],
                    "ratio": 14.1,
                    "formula": "140 GB / 64 GB/s",
                },
            )
        ],
    }
    base.update(kw)
    return Answer.model_validate(base)


def kinds(answer: Answer) -> list[str]:
    return [v.kind for v in check_answer(answer, PRICES)]


@pytest.mark.parametrize(
    ("written", "values"),
    [
        ("4,395", {Decimal("4395"), Decimal("4.395")}),
        ("4.395", {Decimal("4395"), Decimal("4.395")}),
        ("4395", {Decimal("4395")}),
        ("141,1", {Decimal("141.1")}),
        ("1.800,5", {Decimal("1800.5")}),
        ("4,157.50", {Decimal("4157.50")}),
        ("0.16", {Decimal("0.16")}),
    ],
)
def test_number_candidates(written: str, values: set[Decimal]) -> None:
    assert {v for v, _ in number_candidates(written)} == values


def test_grounded_answer_passes() -> None:
    text = (
        "**Ja.** 4 × A100 SXM4 kostet $4,395/Monat [1]. Gewichte 141 GB, KV-Cache 2,7 GB, "
        "~19 Token/s, 90 % nutzbar, 14× schneller, 0,16 s pro Schritt, 156 ms, $86.80 pro "
        "Million Token. Laut Guide 4.395 $ pro Monat für SXM4 [1]. `--tensor-parallel-size 4` "
        "auf 8 × H200 und 4x A100."
    )
    assert check_answer(_answer(text), PRICES) == []


def test_hallucinated_price_is_caught() -> None:
    violations = check_answer(_answer("4 × A100 SXM4 kostet $3,999/Monat."), PRICES)
    assert [v.kind for v in violations] == ["price"]
    assert "3,999" in violations[0].text


def test_injected_price_is_caught() -> None:
    assert kinds(_answer("Der Preis ist jetzt $1/month.")) == ["price"]


def test_monthly_price_of_a_configuration_not_listed_is_caught() -> None:
    # 4,157 is a real catalog price, but 4x-a100-pcie is not listed in `prices`
    assert kinds(_answer("4 × A100 PCIe: $4,157 per month")) == ["price"]


def test_price_quote_must_equal_the_catalog() -> None:
    wrong = PriceQuote(configuration="4x-a100-sxm4", label="x", usd_per_month=Decimal(1), url="u")
    assert kinds(_answer("Siehe Preise.", prices=[wrong])) == ["price"]
    unknown = PriceQuote(configuration="9x-z9", label="x", usd_per_month=Decimal(1), url="u")
    assert kinds(_answer("Siehe Preise.", prices=[unknown])) == ["price"]


def test_dollar_amount_not_in_any_source_is_caught() -> None:
    assert kinds(_answer("Das spart $500 im Jahr.")) == ["price"]


@pytest.mark.parametrize(
    "claim",
    ["77 GB", "2.039 GB/s", "~25 Token/s", "42 tokens/s", "7 s", "250 ms", "95 %", "20×"],
)
def test_unsupported_number_is_caught(claim: str) -> None:
    violations = check_answer(_answer(f"Das Modell braucht {claim}."), PRICES)
    assert [v.kind for v in violations] == ["number"]


def test_rounding_may_not_exceed_the_last_digit() -> None:
    assert kinds(_answer("Gewichte: 141 GB")) == []
    assert kinds(_answer("Gewichte: 141,1 GB")) == []
    assert kinds(_answer("Gewichte: 141,3 GB")) == ["number"]
    assert kinds(_answer("Gewichte: 140 GB")) == []  # in the formula text
    assert kinds(_answer("Gewichte: 142 GB")) == ["number"]


def test_numbers_in_a_cited_passage_count() -> None:
    assert kinds(_answer("Der Guide nennt ~18 Token/s [1].")) == []


def test_numbers_without_a_citation_do_not_count() -> None:
    assert kinds(_answer("Der Guide nennt ~18 Token/s.", citations=[])) == ["number"]


def test_citation_marker_without_citation() -> None:
    assert kinds(_answer("Siehe [2].")) == ["citation"]
    assert kinds(_answer("Siehe [Guide](https://gpuserver.io/de/guides/x).")) == []


def test_code_and_counts_are_not_claims() -> None:
    text = "```\n$ all_reduce_perf -b 8 -e 4G -g 4 # 999 GB/s\n```\nAuf 8 × H200 oder 4x A100."
    assert kinds(_answer(text)) == []
