"""The rule reader in the phrasings blind-22 and blind-23 found (each reproduced here in other
words): a sentence that only places the model on hardware asks the fit beside a price or a
speed asked after it; shorthand names ("l3.3 70b", "qwen 2.5 72"); people at once with words
between ("around 12 of them use it at the same time"); a speed asked in words; a reported
yes/no ("cust asks if …"); a memory floor written "mind."; a refused link beside a cheapest
ask is a filter, not an NVLink question; a budget as "nichts über 400 €"; a model already
fine-tuned that is now served; "unquantized"; a size after a name the catalog lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.deps import Deps
from assistant.nlu import Understander
from assistant.service import Assistant
from knowledge.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nlu() -> Understander:
    return Understander(load_catalog(ROOT / "knowledge" / "catalog"))


def _kinds(nlu: Understander, q: str) -> list[str]:
    return [a.kind for a in nlu.understand(q).asks]


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("qwen3 32b fp8 on one card?? and what would that cost a month", ["fit", "price"]),
        ("gemma 3 27b on a single l40s? how many tokens per second", ["fit", "speed"]),
        ("phi-4 auf einer l4? wie schnell ist das", ["fit", "speed"]),
        # a budget's currency asks no price; "auf welchem Server?" asks which, not whether
        ("höchstens 900 € im monat. qwen3 14b – geht das und auf welchem server?", []),
        ("Llama 3.1 8B on an L4: how fast is it?", ["speed"]),  # one sentence: its own rules
    ],
)
def test_a_sentence_that_places_the_model_asks_the_fit(
    nlu: Understander, question: str, kinds: list[str]
) -> None:
    assert _kinds(nlu, question) == kinds


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("l3.1 8b on an rtx 4090?", "llama-3.1-8b"),
        ("q2.5 72b awq on 2x l40s?", "qwen2.5-72b"),
        ("qwen 2.5 72 in fp8 for 40 people, what fits?", "qwen2.5-72b"),
        ("llama 3.1 8 auf einer l4?", "llama-3.1-8b"),
    ],
)
def test_shorthand_model_names(nlu: Understander, question: str, model: str) -> None:
    assert nlu.understand(question).model == model


@pytest.mark.parametrize(
    ("question", "users", "at_once"),
    [
        ("Llama 3.1 8B for our ~150 staff, typically around 12 of them use it at the same time",
         150, 12),
        ("qwen3 32b for 80 people, usually 10 of them are on it at once", 80, 10),
    ],
)  # fmt: skip
def test_people_at_once_with_words_between(
    nlu: Understander, question: str, users: int, at_once: int
) -> None:
    u = nlu.understand(question)
    assert (u.users, u.concurrency) == (users, at_once)


def test_a_speed_asked_in_words_is_a_yes_no(nlu: Understander) -> None:
    u = nlu.understand(
        "llama 3.3 70b on the 4x h100 box - will we see more than thirty tokens a second?"
    )
    assert u.min_tokens_per_s == 30 and u.claim == "faster" and u.yes_no


def test_a_reported_yes_no(nlu: Understander) -> None:
    u = nlu.understand("customer asks if qwen3 32b fits on a single l40s, and how fast it would be")
    assert u.yes_no and [a.kind for a in u.asks] == ["fit", "speed"]


@pytest.mark.parametrize(
    "question",
    [
        "Kunde braucht mind. 200 GB VRAM insgesamt, kein NVLink, was ist am günstigsten?",
        "need at least 160 GB of VRAM in total, no nvlink, cheapest?",
    ],
)
def test_a_refused_link_beside_a_cheapest_ask_is_a_filter(nlu: Understander, question: str) -> None:
    u = nlu.understand(question)
    assert u.constraints.exclude_link == "nvlink"
    assert u.constraints.min_total_memory_gb in (160.0, 200.0)
    assert "nvlink" not in u.intents and u.claim is None
    assert u.intents[0] == "cheapest"


def test_without_a_cheapest_ask_the_link_stays_the_question(nlu: Understander) -> None:
    u = nlu.understand("Llama 3.3 70B on 2x A100 PCIe - is it ok without nvlink?")
    assert "nvlink" in u.intents and u.claim == "pcie_enough"


@pytest.mark.parametrize(
    ("question", "budget"),
    [
        ("nichts über 400 € im monat, günstigste karte für llama 3.1 8b?", 400.0),
        ("cheapest for qwen3 8b, nothing above $500 a month", 500.0),
    ],
)
def test_a_budget_as_nothing_above(nlu: Understander, question: str, budget: float) -> None:
    assert nlu.understand(question).constraints.budget_usd_month == budget


@pytest.mark.parametrize(
    "question",
    [
        "Unser feinjustiertes Qwen3 8B (LoRA, fertig trainiert) soll jetzt nur noch ausgeliefert "
        "werden, 2 gleichzeitig. Was ist am günstigsten?",
        "we fine-tuned mistral 7b with qlora already (merged), now we just want to serve it to "
        "20 people. cheapest?",
    ],
)
def test_a_model_already_fine_tuned_is_served(nlu: Understander, question: str) -> None:
    u = nlu.understand(question)
    assert not {"fine_tuning", "training"} & set(u.workloads) and u.adapter is None


def test_a_fine_tune_to_come_stays_a_fine_tune(nlu: Understander) -> None:
    u = nlu.understand("wir wollen llama 3.1 8b mit lora feinjustieren, reicht eine l4?")
    assert "fine_tuning" in u.workloads and u.adapter == "lora"


@pytest.mark.parametrize(
    "question", ["can i run qwen2.5 72b unquantized on one gpu?", "llama 3.1 8b ungequantisiert?"]
)
def test_unquantized_is_bf16(nlu: Understander, question: str) -> None:
    assert nlu.understand(question).precision == "bf16"


@pytest.mark.parametrize(
    ("question", "name", "closest"),
    [
        ("does Pythia 12B fit on one L4?", "Pythia 12B", None),
        ("does falcon mamba 7b fit on an L4?", "falcon mamba 7b", "Falcon3 7B"),
    ],
)
def test_a_size_after_a_name_the_catalog_lacks(
    nlu: Understander, question: str, name: str, closest: str | None
) -> None:
    u = nlu.understand(question)
    assert u.model is None and u.unknown_model == name and u.params_b
    if closest:
        assert closest in u.unknown_model_closest


@pytest.mark.parametrize(
    "question", ["a 70b model on 2 h100?", "Can we run our 13B model on an L4?"]
)
def test_a_bare_size_names_no_model(nlu: Understander, question: str) -> None:
    u = nlu.understand(question)
    assert u.unknown_model is None and u.params_b


def test_the_memory_cue_inside_an_active_parameter_claim(nlu: Understander) -> None:
    u = nlu.understand(
        "deepseek v3 is moe, so we only need memory for the 37b active parameters, correct?"
    )
    assert u.claim == "active_sets_memory"


@pytest.mark.parametrize(
    ("question", "budget"),
    [
        ("mehr als 3 € pro stunde wollen wir nicht ausgeben. qwen3 14b – geht das?", 3 * 730),
        ("our budget is $2/h, cheapest for llama 3.1 8b?", 2 * 730),
        ("the l4 is $0.40 an hour?", None),  # a price said, no budget
    ],
)
def test_an_hourly_budget_is_a_month_of_hours(
    nlu: Understander, question: str, budget: float | None
) -> None:
    """The catalog's monthly prices cover 730 hours (tools.throughput.HOURS_PER_MONTH)."""
    assert nlu.understand(question).constraints.budget_usd_month == budget


@pytest.mark.parametrize(
    "question",
    [
        "we want to run Qwen2.5 72B for inference, about 40 users. We might fine-tune it later. "
        "What should we offer?",
        "wir wollen qwen3 8b für 20 leute betreiben, vielleicht später mit lora feintunen. was "
        "ist am günstigsten?",
    ],
)
def test_a_fine_tune_planned_for_later_is_not_todays_job(nlu: Understander, question: str) -> None:
    """Every surface reads it as Slack's staff prompt does ("noted for later, not sized")."""
    u = nlu.understand(question)
    assert not {"fine_tuning", "training"} & set(u.workloads) and u.adapter is None


def test_a_fine_tune_with_a_maybe_is_still_the_job(nlu: Understander) -> None:
    u = nlu.understand("we want to fine-tune llama 3.1 8b, maybe with lora. which gpu?")
    assert "fine_tuning" in u.workloads


def test_a_statements_claim_is_not_a_wh_questions_claim(nlu: Understander) -> None:
    """'FP8 is fine for us. What should we offer?' claims nothing the answer says yes to; a
    yes/no question after the statement ('... insists we need NVLink. Do we?') does."""
    u = nlu.understand("Qwen2.5 72B for 40 users, FP8 is fine for us. What should we offer them?")
    assert u.claim is None
    u = nlu.understand(
        "Llama 3.3 70B for 25 lawyers. Which server? Our consultant insists we need NVLink. Do we?"
    )
    assert u.claim == "nvlink_needed"


@pytest.mark.parametrize("question", ["[7] few users 34B", "0 cards [7] 34B"])
def test_no_name_from_words_that_are_not_one(nlu: Understander, question: str) -> None:
    assert nlu.understand(question).unknown_model is None


@pytest.mark.parametrize(
    ("question", "negated"),
    [
        ("stimmt es dass qwen3 14b NICHT auf eine einzelne 4090 passt? hab das gelesen", True),
        ("ist es richtig, dass llama 3.1 8b nicht auf eine einzelne l4 passt?", True),
        ("so qwen3 14b does not fit on one 4090, right?", True),
        ("does qwen3 8b fit on one l4?", False),
    ],
)
def test_a_fit_asked_in_its_negative(nlu: Understander, question: str, negated: bool) -> None:
    """blind-24: "is it true that X does NOT fit?" is the fit claim negated, not 'healthy'."""
    from assistant.reading.rules import read_rules

    r = read_rules(nlu.understand(question))
    assert r.claim == "fits" and r.claim_negated is negated


def test_a_measurement_said_to_be_too_low_is_the_defect_claim(nlu: Understander) -> None:
    u = nlu.understand(
        "Kunde auf 4x H100 SXM5 sagt, das all_reduce ist viel zu langsam. Stimmt das?"
    )
    assert u.claim == "defect"


@pytest.mark.parametrize(
    ("question", "configs"),
    [
        ("70b awq on 8x4090?", ["8x-rtx-4090"]),
        ("llama 70b, 8x4090 vs 2xa100 pcie?", ["8x-rtx-4090", "2x-a100-pcie"]),
    ],
)
def test_a_count_written_onto_the_card(
    nlu: Understander, question: str, configs: list[str]
) -> None:
    assert nlu.understand(question).configurations == configs


def test_both_adapters_asked(nlu: Understander) -> None:
    """blind-25: "lora oder qlora …, wie viel Speicher jeweils?" asks both; the first leads."""
    u = nlu.understand("lora oder qlora für qwen2.5 72b – wie viel speicher jeweils? rank 16")
    assert u.adapters_compared and u.adapter == "lora" and u.lora_rank == 16
    assert not nlu.understand("qlora for llama 3.1 8b on an l4?").adapters_compared


def test_r_and_a_number_is_a_rank_only_beside_an_adapter(nlu: Understander) -> None:
    u = nlu.understand("we r 6 artists and want to run sdxl all at the same time, what do we need?")
    assert u.lora_rank is None and u.concurrency == 6
    assert nlu.understand("qlora llama 3.1 8b with r 16 on an l4?").lora_rank == 16


@pytest.mark.parametrize(
    "question",
    [
        "we'd run 4 separate qwen3 8b instances, one per GPU, on 4x L40S. do we need NVLink?",
        "wir wollen eine Instanz pro Karte von qwen3 8b auf 4x L40S laufen lassen, NVLink nötig?",
    ],
)
def test_instances_one_per_card_are_independent(nlu: Understander, question: str) -> None:
    assert "independent" in nlu.understand(question).workloads


@pytest.mark.parametrize(
    ("question", "count"),
    [("does qwen3 14b run on ne 4090??", 1), ("läuft phi-4 auf ne l40s?", 1)],
)
def test_ne_is_one_card(nlu: Understander, question: str, count: int) -> None:
    """blind-26: colloquial "ne" (eine) before a card counts one, as "ner" already did."""
    assert nlu.understand(question).count == count


def test_the_longest_context_asked_in_mixed_words(nlu: Understander) -> None:
    u = nlu.understand("wie viel k context krieg ich mit qwen3 8b auf ner l40s maximal raus?")
    assert "capacity" in u.intents and [a.kind for a in u.asks] == ["context"]


def test_a_request_that_starts_with_need_is_no_yes_no(nlu: Understander) -> None:
    from assistant.nlu.asks import is_yes_no

    assert not is_yes_no("need a gpu box for gemma 3 12b, budget under $800. what do u recommend")
    assert is_yes_no("need a 4090 for this?") and is_yes_no("need nvlink for llama 70b")


def test_two_of_those_keeps_the_chassis(deps: Deps) -> None:
    """ "a box with 2 of those cards" after 1x RTX A6000 (PCIe Gen4 chassis): its 2-card twin."""
    a = Assistant(deps)
    first = a.ask("need a gpu box for qwen3 14b, budget is under $900/month. what do u recommend")
    assert first.reading.configurations == [] and not first.reading.yes_no
    second = a.ask("how fast is it on that one?", session_id=first.session_id)
    third = a.ask(
        "and a box with 2 of those cards, what does that cost?", session_id=second.session_id
    )
    assert second.reading.configurations == ["1x-rtx-a6000-gen4"]
    assert third.reading.configurations == ["2x-rtx-a6000-gen4"]


def test_llama_cpp_is_no_model_family(nlu: Understander) -> None:
    u = nlu.understand(
        "Welches GGUF-Format nehme ich für llama.cpp, wenn nur ich das Modell nutze?"
    )
    assert u.unknown_model is None and u.runtime == "llama.cpp"
    assert nlu.understand("can I run Falcon on an A100?").unknown_model == "Falcon"


def test_a_firm_nvlink_requirement_said_as_a_fact(nlu: Understander) -> None:
    """blind-27: "kunde braucht zwingend nvlink. günstigster knoten …?" requires NVLink; asked
    as a question ("brauchen wir unbedingt NVLink?") it is the question, not a filter."""
    u = nlu.understand("kunde braucht zwingend nvlink. günstigster knoten für qwen3 32b bf16? thx")
    assert u.constraints.require_link == "nvlink" and u.intents[0] == "cheapest"
    asked = nlu.understand("brauchen wir unbedingt nvlink für llama 3.3 70b?")
    assert asked.constraints.require_link is None and asked.claim == "nvlink_needed"


@pytest.mark.parametrize(
    ("question", "negated"),
    [
        ("pretty sure qwen3 14b wont fit on a single 4090 right?", True),
        ("llama 3.1 8b passt nicht auf eine l4, oder?", True),
        ("qwen3 32b passt auf eine l40s, oder?", False),
    ],
)
def test_a_fit_with_a_tag_is_the_fit_claim(nlu: Understander, question: str, negated: bool) -> None:
    from assistant.reading.rules import read_rules

    r = read_rules(nlu.understand(question))
    assert r.yes_no and r.claim == "fits" and r.claim_negated is negated


def test_a_precision_accepted_claims_nothing(nlu: Understander) -> None:
    u = nlu.understand("could we run Pythia 12B on one of your L40S cards? fp8 is fine for us")
    assert u.claim is None and u.count == 1 and u.unknown_model == "Pythia 12B"


def test_the_cheapest_one_that_does_after_a_fit_is_a_new_cheapest(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("does qwen3 32b fit on one l4?")
    second = a.ask(
        "ok whats the cheapest one that does then, budget is 900 usd a month",
        session_id=first.session_id,
    )
    assert second.reading.intents[0] == "cheapest" and not second.reading.configurations
    assert any(c.name == "cheapest_fit" for c in second.tool_calls)


def test_something_unrelated_in_a_conversation_is_declined(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("qwen2.5 72b fp8 on 2x a100 pcie ok?")
    off = a.ask(
        "cool thx. unrelated but can you write me a cover letter for a data engineer job?",
        session_id=first.session_id,
    )
    assert off.reading.intents == ["off_topic"] and not off.tool_calls
    fast = a.ask("how fast?", session_id=first.session_id)
    assert fast.reading.intents == ["speed"]


def test_moving_to_sxm_is_the_nvlink_question(nlu: Understander) -> None:
    """b9-107's family: "should we move to the SXM5 version, and how much more would that cost?"
    asks whether NVLink is needed (and the price gap), not the fit."""
    u = nlu.understand(
        "we serve Llama 3.1 70B on our 4x H100 PCIe to lots of users. should we move to the "
        "SXM5 version, and how much more would that cost?"
    )
    assert u.claim == "nvlink_needed"


def test_each_card_its_own_model_is_independent(nlu: Understander) -> None:
    u = nlu.understand("Lohnt sich NVLink, wenn auf jeder Karte ein eigenes Qwen3 8B läuft?")
    assert "independent" in u.workloads


def test_the_sxm5_version_of_the_node_talked_about(deps: Deps) -> None:
    a = Assistant(deps)
    first = a.ask("is 49 GB/s busbw on our 4x H100 PCIe healthy?")
    second = a.ask(
        "ok. we serve Llama 3.3 70B in BF16 with tensor parallel over all 4 to lots of users. "
        "should we move to the SXM5 version, and how much more would that cost?",
        session_id=first.session_id,
    )
    assert second.reading.configurations == ["4x-h100-pcie", "4x-h100-sxm5"]
    assert second.answer.startswith("**Yes")
    quotes = {p.configuration: p.usd_per_month for p in second.prices}
    diff = quotes["4x-h100-sxm5"] - quotes["4x-h100-pcie"]
    assert f"${diff:,.0f} more per month" in second.answer


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("Could you send me the monthly price for the 4x A100 SXM4 node?", False),
        ("Könnten Sie mir den Preis für 4x L40S schicken?", False),
        ("can llama 3.1 8b run on an l4?", True),
        ("Könnt ihr mir sagen, ob Llama 3.3 70B auf 2x H100 passt?", True),
    ],
)
def test_a_polite_request_is_no_yes_no(question: str, yes_no: bool) -> None:
    """blind-31: "Could you send me the monthly price …?" asks for the price, not yes or no."""
    from assistant.nlu.asks import is_yes_no

    assert is_yes_no(question) is yes_no
