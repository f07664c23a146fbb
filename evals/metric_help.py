"""What each metric of an eval run means and what a low value says (issue 16, item 9).

Shown beside the numbers in the terminal summary (`sizing eval`) and in report.html, so a 100 %
pass rate next to "citation precision 50 %" explains itself.
"""

from __future__ import annotations

from typing import NamedTuple


class MetricHelp(NamedTuple):
    means: str  # what is measured
    low: str  # what a low (or, for counts and latency, a high) value means


METRIC_HELP: dict[str, MetricHelp] = {
    "pass_rate": MetricHelp(
        "cases whose every check holds, of the scored cases (expected failures not scored)",
        "answers are wrong somewhere: read the failing cases; the gate needs 100 %",
    ),
    "verdict_accuracy": MetricHelp(
        "verdict and purchase-rule checks that hold (fits / split / does not fit, SXM or PCIe, "
        "rule 1-5), read from the tool results and the text",
        "the assistant gives the wrong yes/no or buying advice: the most serious failure",
    ),
    "number_accuracy": MetricHelp(
        "expected figures (GB, tokens/s, ...) stated in the answer within their tolerance",
        "a figure is missing or off: a tool, a formula or the composer changed",
    ),
    "price_exactness": MetricHelp(
        "expected prices quoted exactly as the catalog under test has them, in the quote and in "
        "the text (and no unexpected quotes where a case forbids them)",
        "a visitor would read a wrong or missing price",
    ),
    "citation_precision": MetricHelp(
        "of the passages cited in turns that expect citations, the share a case asked for; "
        "extra, still relevant passages count against it",
        "answers cite more than the cases name; usually harmless (cases list the must-cite "
        "sections, not every useful one) - read it beside recall, which must be 100 %",
    ),
    "citation_recall": MetricHelp(
        "expected guide sections the answers cite",
        "answers miss the guide section that backs them: retrieval or the composer regressed",
    ),
    "grounding_violations": MetricHelp(
        "figures, prices or markers in answers that no tool result or cited passage backs "
        "(a count; must be 0)",
        "any value above 0 is a made-up figure shown to visitors: the run exits 1",
    ),
    "language_match": MetricHelp(
        "answers in the language of the question (the field and the text)",
        "visitors get an answer in the other language, or a mixed one",
    ),
    "tool_call_correctness": MetricHelp(
        "turns whose expected tools were called (and forbidden ones not)",
        "the assistant answers without the tool that computes the figure",
    ),
    "phrase_accuracy": MetricHelp(
        "contains / pattern / forbidden phrase checks that hold",
        "wording a case relies on changed; check whether the meaning changed too",
    ),
    "first_sentence_answers": MetricHelp(
        "yes/no questions whose answer starts with yes or no (ja/nein), or asks back, and whose "
        "first sentence does not contradict that word",
        "visitors must read on to learn the verdict, or the first word says the opposite of "
        "the sentence after it",
    ),
    "summary_words_max": MetricHelp(
        "the longest `summary` (the short answer shown first), in words; at most 60",
        "high: above 60 a visitor scrolls again: the summary builder lets a part through",
    ),
    "summary_words_p50": MetricHelp("the median `summary` length in words", "high: summaries grew"),
    "summaries_over_limit": MetricHelp(
        "answers whose `summary` has more than 60 words, or none although the answer was shown "
        "(a count; must be 0)",
        "any value above 0: a visitor gets no short answer first: the run exits 1",
    ),
    "first_sentence_disagrees": MetricHelp(
        "offline answers whose first sentence's yes/no disagrees with their own tool results for "
        "what the user named, or says yes to 'one card' without that node's price, after the "
        "repair (a count; must be 0)",
        "any value above 0 is a first sentence that misleads: the run exits 1",
    ),
    "first_sentence_repaired": MetricHelp(
        "offline answers whose first sentence the check repaired before they were shown (a count)",
        "high: the composer writes leads its tools contradict; the repair hides it from visitors",
    ),
    "reader_accuracy": MetricHelp(
        "gold reading fields (cases with `reading:`) the answer's reading holds, of all gold "
        "fields; per field in the report's `layers.reader.fields`",
        "the question is misread: the model, the load, a budget or an ask is not what was said",
    ),
    "planner_accuracy": MetricHelp(
        "planner cases (`given_reading:`, no parse) whose every check holds",
        "the planner or the writer answers a correct reading wrongly: the reader is not to blame",
    ),
    "latency_ms_p50": MetricHelp(
        "median answer time per turn", "high: answers got slower (a bench tells by how much)"
    ),
    "latency_ms_p95": MetricHelp(
        "95th-percentile answer time per turn", "high: some questions are slow (often the first)"
    ),
    "latency_ms_mean": MetricHelp("mean answer time per turn", "high: answers got slower"),
}


#: metrics that are counts (shown as numbers, lower is better), not ratios
COUNT_METRICS = frozenset(
    {
        "grounding_violations",
        "summary_words_max",
        "summary_words_p50",
        "summaries_over_limit",
        "first_sentence_disagrees",
        "first_sentence_repaired",
    }
)
#: counts that must be 0: any other value fails the run (`sizing eval` exits 1)
ZERO_METRICS = ("grounding_violations", "summaries_over_limit", "first_sentence_disagrees")


def explain(key: str) -> MetricHelp | None:
    return METRIC_HELP.get(key)
