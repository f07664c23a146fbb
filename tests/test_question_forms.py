"""Question forms from the first run of blind-46/47/48 (issue 23): each asserts the reading and the
verdict or figure the tools give, not the wording."""

from __future__ import annotations

from typing import Any

import pytest


def _calls(answer: Any, name: str) -> list[dict[str, Any]]:
    return [c.result for c in answer.tool_calls if c.name == name]


def _first_word(answer: Any) -> str:
    return answer.answer.lstrip("*# _").split()[0].strip(".,—*").lower()


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("ist 4x l40s das günstigste was ihr für mixtral 8x7b habt?", "4x-l40s"),
        ("is 4x rtx a6000 the cheapest you have for mixtral 8x7b?", "4x-rtx-a6000"),
    ],
)
def test_is_the_node_named_the_cheapest(assistant, question: str, named: str) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(question)
    top = _calls(a, "cheapest_fit")[0]["cheapest"][0]["configuration"]
    want = {True: ("ja", "yes"), False: ("nein", "no")}[top == named]
    assert _first_word(a) in want


def test_a_fit_asked_before_the_cheapest_still_leads_with_the_named_card(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "video team wants Wan 2.1 14B. they assumed a 4090 would do. does it? "
        "if not whats the cheapest that works?"
    )
    assert _first_word(a) == "no"
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"]]
    assert any(r["configuration"] == "1x-rtx-4090" and r["verdict"] == "does_not_fit" for r in rows)
    assert "RTX 4090" in a.answer.split("The cheapest")[0]


def test_a_copy_on_each_of_n_cards_is_the_guides_rule_2(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "brauche ich nvlink, wenn auf jeder der 4 karten ein eigenes mistral small 24b läuft?"
    )
    assert "independent" in a.reading.workloads
    assert _first_word(a) == "nein"
    advice = _calls(a, "purchase_advice")
    assert advice and all(x.get("rule") != 1 for x in advice)
    assert any(p.configuration.startswith("4x-") for p in a.prices)


def test_pcie_within_a_budget_is_whether_a_pcie_node_within_it_holds_the_model(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("geht llama 3.3 70b in bf16 auch ohne nvlink für unter 1.500 € im monat?")
    assert _first_word(a) == "nein"
    over = _calls(a, "cheapest_fit")
    assert over, "the cheapest PCIe node above the budget is named"
    b = assistant.ask("reicht pcie für llama 3.3 70b fp8 unter 3000 dollar im monat?")
    assert _first_word(b) in ("ja", "yes")


def test_a_price_against_a_budget_asked_yes_no(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("kostet 4x a100 sxm4 weniger als 4.500 € im monat?")
    quote = _calls(a, "price_quote")[0]["quotes"][0]
    assert float(quote["usd_per_month"]) < 4500
    assert _first_word(a) == "ja"
    cost = assistant.ask("cost per million output tokens for Llama 3.3 70B BF16 on 4x A100 SXM4?")
    assert not cost.reading.yes_no, "'cost per …' is a noun, not a yes/no verb"


def test_a_speed_floor_is_kept_in_a_follow_up(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("schafft qwen3 8b auf einer l4 mehr als 20 token pro sekunde?")
    b = assistant.ask("und auf einer rtx 5090?", session_id=a.session_id)
    assert b.reading.min_tokens_per_s == 20
    tps = _calls(b, "throughput_estimate")[0]["tokens_per_s"]
    assert _first_word(b) == ("ja" if tps > 20 else "nein")


def test_the_one_with_nvlink_of_the_nodes_listed(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("was kostet 4x h100")
    b = assistant.ask("und die mit nvlink?", session_id=a.session_id)
    assert b.reading.configurations == ["4x-h100-sxm5"]
    assert [p.configuration for p in b.prices] == ["4x-h100-sxm5"]


def test_would_that_work_too_in_a_follow_up_asks_the_fit(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("Kunde fragt, ob Llama 3.1 405B in FP8 auf einen 8x H200 Knoten passt?")
    b = assistant.ask(
        "und mit 8x H100 SXM, ginge das auch? was kostet der?", session_id=a.session_id
    )
    assert [k.kind for k in b.reading.asks][:1] == ["fit"] and b.reading.yes_no
    row = next(r for r in _calls(b, "fit_check")[0]["rows"] if r["configuration"] == "8x-h100-sxm5")
    assert _first_word(b) == ("nein" if row["verdict"] == "does_not_fit" else "ja")
    assert any(p.configuration == "8x-h100-sxm5" for p in b.prices)


def test_how_many_such_requests_after_a_fit(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "Kunde will Llama 3.1 8B mit 128k Kontext auf einer L40S betreiben. Reicht die Karte "
        "dafür, und wie viele solcher Anfragen schafft sie gleichzeitig?"
    )
    assert [k.kind for k in a.reading.asks] == ["fit", "context"]
    assert _calls(a, "capacity_check")


def test_a_repository_name_without_its_organisation_is_the_model(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand("wir möchten Mistral-Small-24B-Instruct-2501 feintunen")
    assert u.model == "mistral-small-24b"


@pytest.mark.parametrize(
    "question",
    [
        "is pcie good enough for qwen2.5 72b on 4x a100 pcie? internal tool, not much traffic",
        "reicht pcie für qwen2.5 72b auf 4x a100 pcie? kein hoher traffic",
    ],
)
def test_traffic_said_negated_is_low_concurrency(nlu, question: str) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand(question)
    assert "traffic" not in u.workloads and "low_concurrency" in u.workloads


def test_not_enough_asks_the_fit_in_its_negative(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("is one l40s not enough for gemma 3 27b in fp8?")
    assert a.reading.claim == "fits" and a.reading.claim_negated
    row = next(r for r in _calls(a, "fit_check")[0]["rows"] if r["configuration"] == "1x-l40s")
    assert row["verdict"] == "fits_one_card"
    assert _first_word(a) == "no"  # no: one is enough


def test_renting_words_beside_a_fit_ask_no_price(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand(
        "reicht eine einzelne rtx 4090 nicht für mistral small 24b? "
        "will nicht mehrere karten mieten"
    )
    assert u.intents[0] == "fit" and "price" not in u.intents


def test_the_sessions_model_named_by_its_family(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("whats the cheapest box for llama 3.3 70b")
    b = assistant.ask("and how fast is llama on that one?", session_id=a.session_id)
    assert b.reading.model == "llama-3.3-70b"
    assert _calls(b, "throughput_estimate")


def test_a_correction_to_another_size_of_the_family(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("will qwen2.5 32b fit on one h100 pcie?")
    b = assistant.ask("sorry i meant the 72b", session_id=a.session_id)
    assert b.reading.model == "qwen2.5-72b"
    assert b.reading.configurations == ["1x-h100-pcie"]


def test_a_nodes_capacity_is_the_whole_node(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "wie lang kann der kontext bei llama 3.3 70b awq auf 2x a100 pcie maximal werden?"
    )
    cap = _calls(a, "capacity_check")[0]
    assert cap["tensor_parallel"] == 2 and cap["replicas"] == 1
    assert f"{cap['max_context_capped']:,}".replace(",", ".") in a.answer.split("\n")[0]


def test_a_memory_asked_beside_the_moe_claim_is_the_whole_need(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("wieviel vram braucht qwen3 30b a3b eigentlich? sind ja nur 3b aktiv")
    mem = _calls(a, "memory_need")[0]
    assert f"{mem['required_gb_total']:.1f}".replace(".", ",") in a.answer


def test_the_kv_cache_grows_with_the_context(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("wird der kv cache größer je länger der kontext ist?")
    assert _first_word(a) == "ja"
    b = assistant.ask("does the kv cache shrink too when i quantize the model to awq?")
    assert _first_word(b) == "no"


def test_chat_shorthand_for_the_ask_words(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("hw much vram do i ned for gema 3 27b w/ 32k contxt??")
    assert [k.kind for k in a.reading.asks] == ["memory"] and a.reading.model == "gemma-3-27b"
    assert _calls(a, "memory_need")


def test_a_defective_all_reduce_names_the_topology_check(assistant) -> None:  # type: ignore[no-untyped-def]
    from tests.test_second_asks import _ROWS

    a = assistant.ask("4x A100 SXM4 customer says training is slow, all_reduce below:\n\n" + _ROWS)
    res = _calls(a, "check_allreduce_output")[0]
    assert res["status"] == "defect"
    assert "nvidia-smi topo -m" in a.answer


def test_what_is_tensor_parallelism_quotes_its_section(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("was ist eigentlich tensor parallel? und wieso ist das mit nvlink schneller?")
    assert a.reading.explain
    assert any(c.url.endswith("#tensor-parallelism") for c in a.citations)


def test_brauch_ich_is_a_yes_no(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("passt gpt-oss-120b auf eine einzelne h100 pcie?")
    b = assistant.ask(
        "und wenn 20 leute gleichzeitig drauf gehen, brauch ich dann nvlink?",
        session_id=a.session_id,
    )
    assert b.reading.yes_no and b.reading.claim == "nvlink_needed"
    assert _first_word(b) in ("ja", "nein")


def test_a_card_and_its_own_family_are_one_card_not_a_comparison(assistant) -> None:  # type: ignore[no-untyped-def]
    from assistant.reading.model import Reading

    r = Reading(
        task="fine_tune",
        model="qwen2.5-72b",
        workloads=["fine_tuning"],
        adapter="qlora",
        cards=["a100-pcie"],
        card_families=["a100"],
        count=1,
        claim="fits",
        yes_no=True,
        topics=["versus"],
        asks=[{"kind": "fit"}],
    )  # type: ignore[list-item]
    a = assistant.answer_reading(r, store=False)
    assert _calls(a, "memory_need") or _calls(a, "training_fit")
    assert _first_word(a) == "yes"


def test_a_subject_line_naming_the_model_short_is_not_a_second_model(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand("Betreff: QLoRA Llama 70B\n\nwir wollen Llama 3.1 70B per QLoRA feintunen")
    assert u.model == "llama-3.1-70b" and u.models in ([], ["llama-3.1-70b"])
    both = nlu.understand("compare llama 3.1 70b and llama 3.3 70b on one h100")
    assert set(both.models) == {"llama-3.1-70b", "llama-3.3-70b"}


def test_the_moe_claim_on_a_node_that_cannot_hold_it_says_so_in_the_lead(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "qwen3 30b a3b hat ja nur 3b aktive parameter, dann passt das doch auf ne 4090?"
    )
    row = next(r for r in _calls(a, "fit_check")[0]["rows"] if r["configuration"] == "1x-rtx-4090")
    assert row["verdict"] == "does_not_fit"
    lead = a.answer.split("\n")[0]
    assert lead.lstrip("*").startswith("Nein") and "passt nicht auf" in lead


# ---- the session's first fixes (blind-53/54 families left open)


def test_much_faster_needs_a_real_difference(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask(
        "how many tokens per second would deepseek r1 distill qwen 32b do on one a100 pcie?"
    )
    a = assistant.ask("and on an h100 pcie? much faster?", session_id=first.session_id)
    assert a.reading.claim == "faster" and a.reading.claim_by_much
    speeds = {c["configuration"]: c["tokens_per_s"] for c in _calls(a, "throughput_estimate")}
    h100, a100 = speeds["1x-h100-pcie"], speeds["1x-a100-pcie"]
    assert h100 < 1.25 * a100  # the tools' figures: 10 against 9.8 tokens/s
    assert _first_word(a) == "no"


def test_faster_without_much_is_any_difference(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("is the h100 sxm5 much faster than the a100 sxm4 for llama 3.1 8b?")
    speeds = [c["tokens_per_s"] for c in _calls(a, "throughput_estimate")]
    assert a.reading.claim_by_much and speeds[0] >= 1.25 * speeds[1]
    assert _first_word(a) == "yes"
    b = assistant.ask("ist die l40s schneller als die rtx 4090 für llama 3.1 8b?")
    assert not b.reading.claim_by_much
    speeds = [c["tokens_per_s"] for c in _calls(b, "throughput_estimate")]
    assert _first_word(b) == ("ja" if speeds[0] > speeds[1] else "nein")


def test_a_follow_up_naming_another_card_keeps_the_fit_asked_before(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("reicht ne rtx 4090 für flux dev?")
    a = assistant.ask("und die 5090, was kostet die?", session_id=first.session_id)
    assert [k.kind for k in a.reading.asks][:2] == ["fit", "price"]
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"]]
    assert any(r["configuration"] == "1x-rtx-5090" and r["verdict"] != "does_not_fit" for r in rows)
    assert [p.configuration for p in a.prices] == ["1x-rtx-5090"]
    assert _first_word(a) == "ja"


@pytest.mark.parametrize(
    ("question", "node"),
    [
        (
            "Wie viel VRAM braucht QLoRA auf Llama 3.1 70B ungefähr und reicht dafür eine "
            "einzelne A100 PCIe oder müssen wir größer mieten?",
            "1x-a100-pcie",
        ),
        (
            "how much vram does qwen2.5 72b need in fp8 and will it fit on one h100 pcie?",
            "1x-h100-pcie",
        ),
    ],
)
def test_memory_and_a_fit_after_and_lead_with_the_verdict(assistant, question, node) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(question)
    assert a.reading.yes_no
    trained = _calls(a, "training_fit")
    served = [r for f in _calls(a, "fit_check") for r in f["rows"] if r["configuration"] == node]
    assert served
    if trained:  # a fine-tune: the training need against the card's usable memory
        holds = trained[0]["total_gb"] <= served[0]["usable_gb_per_card"]
    else:
        holds = served[0]["verdict"] != "does_not_fit"
    assert _first_word(a) in (("ja", "yes") if holds else ("nein", "no"))


# ---- blind-56 … blind-59, first run: reader families


def test_a_link_refused_or_required_in_passing_filters_the_pick(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "they explicitly don't want nvlink nodes (budget thing). whats the cheapest box that "
        "holds mistral small 24b for 30 people at the same time?"
    )
    assert (a.reading.exclude_link, a.reading.require_link) == ("nvlink", None)
    rows = _calls(a, "cheapest_fit")[0]["cheapest"]
    assert rows and all(not r["interconnect"].startswith("nvlink") for r in rows)
    b = assistant.ask("need nvlink for sure. cheapest box that holds llama 3.1 405b in fp8?")
    assert b.reading.require_link == "nvlink"
    linked = _calls(b, "cheapest_fit")[0]["cheapest"]
    assert linked and all(r["interconnect"].startswith("nvlink") for r in linked)


def test_a_hedged_count_after_a_verb_is_the_count_at_once(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand(
        "wir sind ca 40 leute im team, gleichzeitig am tippen vielleicht 8. reicht dafür 2x h100 "
        "pcie mit llama 3.3 70b in fp8?"
    )
    assert (u.users, u.concurrency) == (40, 8)


def test_wieviel_kontext_asks_the_longest_context(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("wieviel kontext packt gemma 3 27b in fp8 auf einer einzelnen l40s maximal?")
    assert a.reading.intents[0] == "capacity"
    (cap,) = _calls(a, "capacity_check")
    assert f"{cap['max_context_capped']:,}".replace(",", ".") in a.answer.split("\n")[0]


def test_a_typo_correction_asks_the_same_yes_no_about_the_model_meant(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("passt llama 3.1 70b auf 4x rtx 4090?")
    a = assistant.ask(
        "sorry, vertippt, ich meinte qwen2.5 32b, nicht llama", session_id=first.session_id
    )
    assert (a.reading.model, a.reading.yes_no, a.reading.claim) == ("qwen2.5-32b", True, "fits")
    assert a.reading.configurations == ["4x-rtx-4090"]
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"]]
    fits = any(r["configuration"] == "4x-rtx-4090" and r["verdict"] != "does_not_fit" for r in rows)
    assert _first_word(a) == ("ja" if fits else "nein")


def test_the_other_variant_named_by_its_generation_is_a_second_node(nlu, assistant) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand("Reicht euer 4x A100 PCIe oder brauchen wir das SXM4-Modell?")
    assert u.configurations == ["4x-a100-pcie", "4x-a100-sxm4"]
    assert nlu.understand("do we need sxm for 70b on 4x a100 pcie?").configurations == [
        "4x-a100-pcie"
    ]  # a bare "SXM" asks about the link
    first = assistant.ask("brauchen wir nvlink für llama 3.3 70b auf 4x a100 pcie? wenig last")
    a = assistant.ask(
        "und was kostet die pcie variante im vergleich zur sxm4?", session_id=first.session_id
    )
    assert sorted(p.configuration for p in a.prices) == ["4x-a100-pcie", "4x-a100-sxm4"]


def test_a_price_waved_aside_is_not_asked(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "they want to full-train llama 3.3 70b and are torn between 8x h100 sxm5 and 8x h100 "
        "pcie. how long does the gradient sync take per step on each? they said they do not "
        "care about price for now"
    )
    assert a.reading.intents[0] == "allreduce"
    assert "price" not in [k.kind for k in a.reading.asks]
    assert _calls(a, "gradient_allreduce_time") and not _calls(a, "price_quote")


def test_eight_at_once_is_a_few_parallel_requests(assistant) -> None:  # type: ignore[no-untyped-def]
    from tools.load import TRAFFIC_AT_ONCE, traffic_of

    assert traffic_of(TRAFFIC_AT_ONCE - 1) == "low_concurrency"
    assert traffic_of(TRAFFIC_AT_ONCE) == "traffic"
    a = assistant.ask(
        "law firm, ~50 staff, realistically 8 at the same time in the chat. they want llama 3.3 "
        "70b in fp8, max €2,500/month. whats the cheapest node, and do they need nvlink for that?"
    )
    assert a.reading.concurrent_sequences == 8
    advice = {x["recommendation"] for x in _calls(a, "purchase_advice")}
    assert advice == {"pcie_size_for_memory"}  # rule 3: PCIe at low concurrency, sized for memory


def test_a_topology_defect_names_the_nvlink_label_the_pairs_show(assistant) -> None:  # type: ignore[no-untyped-def]
    names = [f"GPU{i}" for i in range(8)]
    rows = ["\t" + "\t".join(names)]
    for i, name in enumerate(names):
        cells = [" X " if j == i else ("SYS" if {i, j} == {3, 5} else "NV18") for j in range(8)]
        rows.append(name + "\t" + "\t".join(cells))
    a = assistant.ask(
        "customer on 8x h100 sxm5 pasted this, is the box broken?\n\n" + "\n".join(rows)
    )
    (res,) = _calls(a, "check_topology_output")
    assert res["status"] == "defect"
    nv = {p["label"] for p in res["pairs"] if p["label"].startswith("NV")}
    assert nv == {"NV18"} and "NV18" in a.answer.split("\n\n")[0]


def test_dollars_of_a_goal_outside_the_domain_price_nothing(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("which gaming laptop should i buy for like $1500? mostly for cyberpunk")
    assert a.reading.outside and not a.tool_calls and not a.prices
    assert "configuration" not in a.answer.split("\n")[0].lower()
    b = assistant.ask(
        "kannst du mir ein bewerbungsschreiben schreiben? und was kostet 4x h100 sxm5?"
    )
    assert [p.configuration for p in b.prices] == ["4x-h100-sxm5"]


def test_the_cheapest_with_only_one_card_is_a_pick_on_one_card(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "kunde meint qwen3 30b a3b läuft locker auf ner einzelnen L4, weil ja nur 3B aktiv sind. "
        "stimmt das? bf16. falls nein: was wär das günstigste mit nur einer karte?"
    )
    assert a.reading.one_card and _first_word(a) == "nein"
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"]]
    one = min(
        (r for r in rows if r["verdict"] == "fits_one_card"), key=lambda r: r["usd_per_month"]
    )
    cheaper_split = [
        r for r in rows if r["verdict"] == "split" and r["usd_per_month"] < one["usd_per_month"]
    ]
    assert cheaper_split, "a split node is cheaper: the one-card pick differs from the cheapest"
    assert one["configuration"] in [p.configuration for p in a.prices]
    b = assistant.ask("cheapest box for qwen3 30b a3b in bf16, only one card please")
    (pick,) = _calls(b, "cheapest_fit")
    assert pick["cheapest"][0]["verdict"] == "fits_one_card"


def test_two_of_them_after_a_fit_asks_the_fit_before_the_price(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("can i run gemma 3 27b in fp8 on a single rtx 5090?")
    a = assistant.ask(
        "ok what about two of them, and what would that cost per month?",
        session_id=first.session_id,
    )
    assert a.reading.configurations == ["2x-rtx-5090"]
    assert [k.kind for k in a.reading.asks][:2] == ["fit", "price"]
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"]]
    (row,) = [r for r in rows if r["configuration"] == "2x-rtx-5090"]
    assert _first_word(a) == ("no" if row["verdict"] == "does_not_fit" else "yes")
    assert [p.configuration for p in a.prices] == ["2x-rtx-5090"]


def test_a_constraint_dropped_in_a_follow_up_is_not_kept(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask(
        "whats the cheapest nvlink node that can do a full fine-tune of mistral 7b?"
    )
    assert first.reading.require_link == "nvlink"
    a = assistant.ask(
        "hm, too pricey. forget the training and the nvlink, only inference then - whats the "
        "cheapest box that serves it?",
        session_id=first.session_id,
    )
    assert a.reading.require_link is None and "nvlink" not in a.reading.intents
    (pick,) = _calls(a, "cheapest_fit")
    assert (
        "require_link" not in pick.get("constraints", {}) or not pick["constraints"]["require_link"]
    )
    cheapest = pick["cheapest"][0]
    assert cheapest["configuration"] in [p.configuration for p in a.prices]
    assert not cheapest["interconnect"].startswith("nvlink")


def test_a_healthy_four_card_board_says_why_it_shows_fewer_links(assistant, deps) -> None:  # type: ignore[no-untyped-def]
    cat = deps.catalog
    cfg = next(
        c
        for c in cat.configurations.values()
        if c.count == 4 and c.nvswitch is False and c.topo_label
    )
    links = cat.gpus[cfg.gpu].nvlink_links
    label = cfg.topo_label
    assert label == f"NV{links // 3}"
    names = [f"GPU{i}" for i in range(4)]
    rows = ["\t" + "\t".join(names)]
    rows += [
        n + "\t" + "\t".join(" X " if j == i else label for j in range(4))
        for i, n in enumerate(names)
    ]
    a = assistant.ask(f"our {cfg.id} shows this, ok?\n\n" + "\n".join(rows))
    (res,) = _calls(a, "check_topology_output")
    assert res["status"] == "ok"
    assert f"`NV{links}`" in a.answer and f"`{label}`" in a.answer


# ---- blind-63/64, first run: reader families


def test_und_ohne_nvlink_after_the_cheapest_asks_it_again_without(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("was ist der günstigste server MIT nvlink für llama 3.3 70b?")
    a = assistant.ask("und ohne nvlink?", session_id=first.session_id)
    assert a.reading.intents[0] == "cheapest" and a.reading.exclude_link == "nvlink"
    (pick,) = _calls(a, "cheapest_fit")
    assert not pick["cheapest"][0]["interconnect"].startswith("nvlink")


def test_still_the_same_asks_whether_the_pick_is_unchanged(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("whats the cheapest node that runs mistral small 24b?")
    one = assistant.ask(
        "hm id rather not split it. cheapest with the whole model on one card?",
        session_id=first.session_id,
    )
    before = _calls(one, "cheapest_fit")[-1]["cheapest"][0]["configuration"]
    for q in (
        "still the same if i need 32k context?",
        "still the same if 20 people use it at the same time with 32k context?",
    ):
        a = assistant.ask(q, session_id=one.session_id)
        now = _calls(a, "cheapest_fit")[-1]["cheapest"][0]["configuration"]
        assert _first_word(a) == ("yes" if now == before else "no"), q
        before = now


def test_a_reported_question_names_the_model_and_one_of_our_cards(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand(
        "relaying from a chat: guy asks if Pythia 12B would run on one of our L4s. we dont "
        "have that one in the catalog right?"
    )
    assert (u.unknown_model, u.params_b, u.count) == ("Pythia 12B", 12.0, 1)
    assert nlu.understand("one of your H100 nodes for llama 70b?").count is None


def test_the_variant_said_after_a_card(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand("can we QLoRA Llama 3.3 70B on a single A100 80GB (the PCIe one)?")
    assert (u.cards, u.card_families, u.intents[0]) == (["a100-pcie"], [], "fit")
    both = nlu.understand(
        "We serve Llama 3.3 70B, 30 requests at the same time. Is the 4x A100 PCIe enough for "
        "that, or do we\nreally need the SXM one?"
    )
    assert both.configurations == ["4x-a100-pcie", "4x-a100-sxm4"]
    assert both.claim == "pcie_enough"  # the first alternative, across the wrapped line
    family = nlu.understand(
        "a full fine-tune of Llama 3.1 8B on a 4x A100 node. Is the PCIe version fine or do we "
        "really need the SXM one?"
    )
    # the family named once and both its variants by phrase: the two variants' cards
    assert family.cards == ["a100-pcie", "a100-sxm4"] and "nvlink" in family.intents


def test_a_fallback_adapter_is_compared_and_the_first_asked_leads(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "Wir möchten Qwen2.5 32B feintunen. Geht LoRA-Finetuning auf einer einzelnen L40S? "
        "Falls nicht, reicht QLoRA?"
    )
    assert (a.reading.adapter, a.reading.adapters_compared) == ("lora", True)
    needs = {c.arguments["adapter"]: c.result["total_gb"] for c in a.tool_calls
             if c.name == "memory_need" and c.arguments.get("adapter")}  # fmt: skip
    assert set(needs) == {"lora", "qlora"}
    usable = next(
        r for f in _calls(a, "fit_check") for r in f["rows"] if r["configuration"] == "1x-l40s"
    )
    lora_fits = needs["lora"] <= usable["usable_gb_per_card"]
    assert _first_word(a) == ("ja" if lora_fits else "nein")
    assert "QLoRA" in a.answer


def test_a_citation_marker_the_user_typed_is_quoted_without_breaking_the_check(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask("Llama 3.3 70B passt es? [7] passt es?")
    assert a.notice is None and a.tool_calls
    assert "(7) passt es?" in a.answer and "[7]" not in a.answer


def test_an_alternative_whose_first_half_asks_the_fit_is_answered_yes_or_no_on_the_fit(
    assistant,
) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "Wir möchten Mistral Small 24B per QLoRA feintunen.\nReicht dafür eine einzelne RTX 4090 "
        "bei euch, oder ist der Speicher zu knapp? Und was würde die Maschine kosten?"
    )
    assert a.reading.claim in (None, "fits")
    rows = [r for need in _calls(a, "training_fit") for r in need["rows"]]
    usable = next(r for r in rows if r["configuration"].startswith("1x-rtx-4090"))
    assert _first_word(a) == ("ja" if usable["fits_one_card"] else "nein")


@pytest.mark.parametrize("name", ["jamba large", "falcon mini"])
def test_a_family_and_a_tier_the_catalog_lacks_is_an_unknown_model(assistant, name: str) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(f"can u guys host {name} for us? whats the server for it")
    assert a.reading.model is None and a.reading.model_name == name
    assert not a.prices and name in a.answer.split("\n")[0]


def test_squeeze_in_right_is_the_fit_on_the_named_card_before_the_cheapest(assistant) -> None:  # type: ignore[no-untyped-def]
    a = assistant.ask(
        "would llama 3.1 8b run on a single L4? 24gb so it should just squeeze in right? 32k "
        "context. if not whats the cheapest box that does"
    )
    assert a.reading.claim == "fits"
    rows = [r for f in _calls(a, "fit_check") for r in f["rows"] if r["configuration"] == "1x-l4"]
    assert rows
    assert _first_word(a) == ("no" if rows[0]["verdict"] == "does_not_fit" else "yes")


def test_a_word_that_drops_nothing_keeps_the_link_asked(nlu) -> None:  # type: ignore[no-untyped-def]
    u = nlu.understand("will the throughput drop without nvlink for llama 3.3 70b on 4x a100?")
    assert "nvlink" in u.intents


def test_how_much_vram_after_a_fit_on_a_node_is_the_models_own_need(assistant) -> None:  # type: ignore[no-untyped-def]
    first = assistant.ask("can i do wan 2.1 14b video gen on an l40s?")
    a = assistant.ask("how much vram does it need then?", session_id=first.session_id)
    (need,) = _calls(a, "memory_need")
    assert a.reading.configurations == [] and f"{need['vram_gb']:g} GB" in a.answer.split("\n")[0]
    tuned = assistant.ask("geht llama 3.1 8b mit lora finetunen auf einer rtx 4090?")
    b = assistant.ask(
        "und mit qlora, wie viel speicher braucht das dann?", session_id=tuned.session_id
    )
    assert b.reading.cards == ["rtx-4090"]  # a fine-tune's memory stays on the card talked about
