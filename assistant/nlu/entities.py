"""Entity extraction: models (catalog aliases, unknown families, parameter counts),
precision, cards and counts, configurations, context length and concurrency."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from assistant.nlu.language import _DE_WORDS, _EN_WORDS
from assistant.nlu.lexicon import (
    _CARD_WORD,
    _CONCURRENCY_RX,
    _CONTEXT_RX,
    _FAMILY_RX,
    _NUM,
    _PARAMS_RX,
    _PRECISION_RX,
    VARIANT_PHRASE_RX,
    _find_cards,
    _fold,
    _norm_alias,
    _number,
    _to_int,
    attached_variant,
)
from assistant.nlu.query import CARD_FAMILIES, Query
from assistant.nlu.typos import DOMAIN_WORDS
from assistant.spelled import spelled_counts

#: "SXM4", "das SXM5-Modell" outside a card's name: a variant by its generation
_VARIANT_GEN_RX = re.compile(r"(?<![\w-])sxm([45])\b")


def _other_variant_named(folded: str, spans: list[tuple[int, int, str]], u: Query) -> None:
    """ "Reicht euer 4x A100 PCIe oder brauchen wir das SXM4-Modell?": the other variant of the
    card named, by its generation alone (a bare "SXM" asks about the link, not a node); "a
    single A100 80GB (the PCIe one)": the family's variant said after it."""
    for _start, end, fam in spans:
        said = attached_variant(folded, end) if fam in CARD_FAMILIES else None
        variant = [c for c in CARD_FAMILIES.get(fam, ()) if said and said.group(1)[:3] in c]
        by_link = said is not None and said.group(0) == "sxm one"
        if len(variant) == 1 and (fam in u.card_families or by_link):
            # ("vier A100 mit NVLink und vier A100 PCIe": the SXM one beside the PCIe one)
            _add_new(u.cards, variant)
            if fam in u.card_families:
                u.card_families.remove(fam)
    # the twin asked beside a card named: "the 4x A100 PCIe, or the SXM one?" (by the phrase),
    # "… oder das SXM4-Modell?" (by the generation, outside a card's own name)
    other = VARIANT_PHRASE_RX.search(folded)
    kinds = [other.group(1)[:3]] if other and not u.card_families else []
    kinds += [
        f"sxm{m.group(1)}"
        for m in _VARIANT_GEN_RX.finditer(folded)
        if not any(s <= m.start() < e for s, e, _ in spans)
    ]
    for kind in kinds:
        for card in list(u.cards):
            family = next((f for f in CARD_FAMILIES.values() if card in f), ())
            _add_new(u.cards, [c for c in family if kind in c and c != card])
    _variants_of_family(folded, u)


def _variants_of_family(folded: str, u: Query) -> None:
    """ "one of your 4-GPU A100 nodes … on the PCIe version vs. the SXM4 version?": the family
    named once and its variants by phrase are those variants' cards, in the order said."""
    if len(u.card_families) != 1:
        return
    fam = u.card_families[0]
    said = [m.group(1)[:3] for m in VARIANT_PHRASE_RX.finditer(folded)]
    variants = [c for kind in dict.fromkeys(said) for c in CARD_FAMILIES.get(fam, ()) if kind in c]
    if len(variants) >= 2:
        _add_new(u.cards, variants)
        u.card_families.remove(fam)


#: "… oh wait sorry, i meant 70B not 8B", "korrektur: ich meinte …": the message corrects itself
_IN_MESSAGE_CORRECTION_RX = re.compile(
    r"\b(?:i meant|i mean|we meant|ich meinte|ich mein(?:e)?|wir meinten|gemeint war|"
    r"correction|korrektur)\b(?:\s+(?:natürlich|eigentlich|of course|actually))?\s*:?"
)

#: "the big one", "das größte", "the full one": the family's largest model
_BIGGEST_RX = re.compile(
    r"\b(?:the|die|das|den)\s+(?:big|biggest|largest|huge|full|große|größte|dicke)\s*(?:one|model|"
    r"modell|variant\w*|version)?\b|\b(?:biggest|largest|größte\w*)\b"
)
#: the quantisation suffix of a repository name ("-AWQ", "-GPTQ-Int4", "-FP8", "-GGUF")
_QUANT_SUFFIX_RX = re.compile(
    r"(?<=[a-z0-9])[-_](awq|gptq|gguf|fp8|int4|int8|bnb[-_]?4bit|[48]bit|q4_k_m|q8_0)(?![a-z0-9])"
)
#: a mixture-of-experts size as people shorten it: "235b a22b", "235B-A22B", "30b/a3b"
_MOE_SIGNATURE_RX = re.compile(
    r"\b(\d{1,4}(?:\.\d)?)\s*b\s*[-/ ]?\s*a(\d{1,3}(?:\.\d)?)\s*b\b"
    # "the 30b one with 3b active", "30b mit 3b aktiv": the total, then the active size said
    r"|\b(\d{1,4}(?:\.\d)?)\s*b\b[^.?!\d]{0,25}?\b(\d{1,3}(?:\.\d)?)\s*b\s+"
    r"(?:active|aktiv\w*)\b"
)


def _version(name: str, family: str) -> float:
    """The generation in a model name after its family word ('Qwen2.5 72B' -> 2.5), 0 if none."""
    m = re.match(re.escape(family) + r"[\s-]*(\d+(?:\.\d+)?)(?![\d.]*\s*b\b)", name.lower())
    return float(m.group(1)) if m else 0.0


#: words that make a model a variant of its family's plain model of that size
_VARIANT_RX = re.compile(r"coder|-vl\b|\bvl\b|vision|distill|math|moe")


#: tier words of a family the catalog does not hold under the bare family name ("Mistral
#: Medium 3", "Gemini Flash"): a family word followed by one is another model
_TIER_WORDS = frozenset(
    {"medium", "large", "mini", "nano", "tiny", "ultra", "turbo", "lightning", "flash",
     "haiku", "sonnet", "opus"}
)  # fmt: skip


def _other_variant(tokens: list[str], start: int, end: int) -> bool:
    """True when a bare family alias ('mistral', no size or version) is followed by a tier word
    it does not name ('Mistral Medium 3' is no Mistral 7B); a catalog alias that includes the
    tier ('Mistral Large 2') is matched first, being longer."""
    if any(ch.isdigit() for t in tokens[start:end] for ch in t):
        return False
    return end < len(tokens) and tokens[end].strip("?.,!;:()\"'").lower() in _TIER_WORDS


_TIERED_RX = re.compile(
    r"\b(mistral|gemini|claude|gpt|llama|qwen|phi|gemma|grok|deepseek|command|jamba|falcon|dbrx|"
    r"granite|nemotron|olmo|ernie|aya|glm|kimi|minimax|hunyuan|internlm|baichuan|exaone|yi)[\s-]+("
    + "|".join(sorted(_TIER_WORDS))
    + r")(?:[\s-]+v?\d+(?:\.\d+)?)?\b",
    re.IGNORECASE,
)


def _tiered_name(original: str) -> str | None:
    """'Mistral Medium 3', 'Gemini Flash': a family and a tier the catalog does not hold."""
    m = _TIERED_RX.search(original)
    return m.group(0).strip() if m else None


class EntityMixin:
    """The entity finders of `Understander` (it sets these attributes in `__init__`)."""

    catalog: Any
    _aliases: dict[str, str]
    _max_alias_tokens: int
    _configs: set[str]

    def _find_model(self, original: str, folded: str, u: Query) -> None:
        # "qwen2.5-32b-instruct-awq": the quantisation a repo name ends in is not the model's
        unquantised = _QUANT_SUFFIX_RX.sub(r" \1", _fold(original))
        best, found, spans = self._alias_matches(re.findall(r"\S+", unquantised))
        if best is not None:
            found = self._one_per_size(found, best, spans)
        if best is not None and len(found) > 1:
            u.models = found  # in question order
        if best is not None:
            u.model, u.model_mention = best[1], best[2]
            return
        moe = self._moe_signature(folded)
        if moe is not None:  # "q3 235b a22b": the one catalog model of 235B with 22B active
            u.model, u.model_mention = moe
            return
        family = next(
            (f for f in _FAMILY_RX.finditer(folded) if re.search(r"\d", f.group(2) or "")),
            None,
        )
        params = [m for m in _PARAMS_RX.finditer(folded) if not _inside_card(folded, m.start())]
        if family and family.group(2) and re.search(r"\d", family.group(2)):
            mention = (family.group(1) + family.group(2)).strip(" -.:?")
            mention = _with_proper_names(original, _original_case(original, mention))
            size = _number(params[0].group(1)) if params else None
            only = self._only_of_size(family.group(1), family.group(2), size)
            if only is not None:  # "Qwen 72B": the family's one 72B model
                u.model, u.model_mention = only, mention
                return
            u.unknown_model = mention
            u.unknown_model_closest = self._closest(mention)
            if size is not None:
                u.params_b = size
            return
        if params:
            self._sized_only(original, params[0], u)
            return
        self._unsized_name(original, folded, u)

    def _corrected_model(self, folded: str, u: Query) -> None:
        """ "does llama 3.1 8b run on one h100?? oh wait sorry, i meant 70B not 8B": the model
        the message corrects itself to, named after the correction or said by its size in the
        first model's family."""
        m = _IN_MESSAGE_CORRECTION_RX.search(folded)
        if m is None or u.model is None:
            return
        after = folded[m.end() :]
        best, _found, _spans = self._alias_matches(re.findall(r"\S+", after))
        if best is not None and best[1] != u.model:
            u.model, u.model_mention, u.models = best[1], best[2], []
            return
        size = _PARAMS_RX.search(after)
        models = getattr(self.catalog, "models", {}) or {}
        spec = models.get(u.model)
        if size is None or spec is None:
            return
        family = str(spec.name).rsplit(" ", 1)[0]
        want = _number(size.group(1))
        same = [
            k
            for k, v in models.items()
            if str(v.name).rsplit(" ", 1)[0] == family and abs(v.params_b - want) <= 0.1 * want
        ]
        if len(same) == 1 and same[0] != u.model:
            u.model, u.model_mention, u.models = same[0], str(models[same[0]].name), []

    def _one_per_size(
        self, found: list[str], best: tuple[int, str, str], spans: dict[str, int]
    ) -> list[str]:
        """ "Betreff: QLoRA Llama 70B … wir wollen Llama 3.1 70B …": a shorter name of the same
        family and size as the model named in full is that model, not a second one ("Llama 3.1
        70B vs Llama 3.3 70B", both named in full, are two)."""
        models = getattr(self.catalog, "models", {}) or {}
        spec = models.get(best[1])
        if spec is None or len(found) < 2:
            return found
        family = str(spec.name).split()[0].lower()

        def shorter_same(mid: str) -> bool:
            other = models.get(mid)
            return (
                other is not None
                and mid != best[1]
                and spans.get(mid, 0) < best[0]
                and str(other.name).split()[0].lower() == family
                and abs(other.params_b - spec.params_b) <= 0.03 * spec.params_b
            )

        return [m for m in found if not shorter_same(m)]

    def _alias_matches(
        self, tokens: list[str]
    ) -> tuple[tuple[int, str, str] | None, list[str], dict[str, int]]:
        """The longest catalog alias said (token span length, model id, mention), every model
        named, in question order, and the longest span each was named with."""
        best: tuple[int, str, str] | None = None
        found: list[str] = []
        spans: dict[str, int] = {}
        if not self._aliases:
            return None, found, spans
        skip_to = 0
        # _norm_alias keeps only [a-z0-9]: a span's key is its tokens' keys joined
        keys = [_norm_alias(t) for t in tokens]
        for i in range(len(tokens)):
            for n in range(min(self._max_alias_tokens, len(tokens) - i), 0, -1):
                key = "".join(keys[i : i + n])
                if (
                    key in self._aliases
                    and not self._other_size(self._aliases[key], tokens, i + n)
                    and not _other_variant(tokens, i, i + n)
                ):
                    span = tokens[i : i + n]
                    cand = (n, self._aliases[key], " ".join(span).strip("?.,!;:()\"'"))
                    if best is None or cand[0] > best[0]:
                        best = cand
                    if i >= skip_to and cand[1] not in found:
                        found.append(cand[1])
                    if i >= skip_to:
                        spans[cand[1]] = max(spans.get(cand[1], 0), n)
                    skip_to = max(skip_to, i + n)
                    break
        return best, found, spans

    def _unsized_name(self, original: str, folded: str, u: Query) -> None:
        """A model named without a size: a name the catalog lacks ("Does Command R+ fit on 2x
        A100?"), or a family ("Can I run Falcon on an A100?") with the catalog's models of it."""
        named = _named_model(original) or _tiered_name(original)
        if named is not None:
            u.unknown_model = named
            u.unknown_model_closest = self._closest(named)  # "Mistral Medium": the family's
            return
        bare = next(  # "llama.cpp" is the runtime, not the family
            (
                m
                for m in _FAMILY_RX.finditer(folded)
                if not re.match(r"[.\-_ ]?cpp", folded[m.end() :])
            ),
            None,
        )
        if bare is not None and not (bare.group(2) or "").strip():
            name = _with_proper_names(original, _original_case(original, bare.group(1)))
            closest = self._closest(name)
            biggest = self._biggest_of(bare.group(1)) if _BIGGEST_RX.search(folded) else None
            if biggest is not None:  # "deepseek? the big one": the family's largest model
                u.model, u.model_mention = biggest, bare.group(0).strip()
            elif closest:
                u.unknown_model, u.unknown_model_closest = name, closest

    def _biggest_of(self, family: str) -> str | None:
        """The family's catalog model of the largest size (the first listed on a tie: two
        models of one size need the same memory)."""
        models = getattr(self.catalog, "models", {}) or {}
        key = re.sub(r"[^a-z0-9]", "", family.lower())
        specs = [
            (mid, spec)
            for mid, spec in models.items()
            if re.sub(r"[^a-z0-9]", "", spec.name.lower()).startswith(key)
        ]
        if not specs:
            return None
        return max(specs, key=lambda kv: kv[1].params_b)[0]

    def _moe_signature(self, folded: str) -> tuple[str, str] | None:
        """(model id, mention) for a mixture-of-experts size signature ('235b a22b', '30b-a3b')
        that exactly one catalog model has (total within 5 %, active within 15 %: '3b' for 3.3B),
        a base model before its variants."""
        m = _MOE_SIGNATURE_RX.search(folded)
        if m is None:
            return None
        total, active = float(m.group(1) or m.group(3)), float(m.group(2) or m.group(4))
        models = getattr(self.catalog, "models", {}) or {}
        hits = [
            mid
            for mid, spec in models.items()
            if spec.active_params_b
            and abs(spec.params_b - total) <= 0.05 * total
            and abs(spec.active_params_b - active) <= 0.15 * active
        ]
        if len(hits) > 1:  # "30b-a3b" is Qwen3 30B-A3B, not its Coder variant
            hits = [h for h in hits if not _VARIANT_RX.search(models[h].name.lower())]
        return (hits[0], m.group(0)) if len(hits) == 1 else None

    def _sized_only(self, original: str, size: re.Match[str], u: Query) -> None:
        """A size and no catalog model: the size, and the name said before it ("Pythia 12B",
        "Falcon Mamba 7B") as a model the catalog lacks, with its family's models."""
        u.params_b = _number(size.group(1))
        u.model_mention = size.group(0).strip()
        named = _sized_name(original, u.model_mention)
        if named is not None:
            u.unknown_model = named
            u.unknown_model_closest = self._closest(named)

    def _other_size(self, mid: str, tokens: list[str], end: int) -> bool:
        """True when a size right after an alias contradicts the model ('Llama 3.3 90B' is no
        Llama 3.3 70B, 'Gemma2 70B' no Gemma 2 9B): more than 25 % off its parameter count."""
        m = _PARAMS_RX.match(" ".join(tokens[end : end + 2]))
        model = (getattr(self.catalog, "models", {}) or {}).get(mid)
        if m is None or model is None:
            return False
        size = _number(m.group(1))
        if size is None:
            return False
        known = [model.params_b, *([model.active_params_b] if model.active_params_b else [])]
        return all(abs(size - k) > 0.25 * k for k in known)

    def _only_of_size(self, family: str, rest: str, size: float | None) -> str | None:
        """The catalog's one model of `family` with `size` billion parameters (within 3 %), when
        the name says no version ("Qwen 72B", "Gemma 27B"); None when it does ("Qwen 4 72B"),
        or when none or several models match."""
        if size is None or re.search(r"\d", _PARAMS_RX.sub(" ", rest)):
            return None
        models = getattr(self.catalog, "models", {}) or {}
        fam = re.sub(r"[\s-]", "", family.lower())
        hits = [
            m.id
            for m in models.values()
            if _norm_alias(m.name).startswith(fam)
            and not getattr(m, "generic", False)
            and abs(m.params_b - size) <= 0.03 * size
        ]
        if len(hits) > 1:  # "Qwen 72B" is Qwen2.5 72B, not a Coder or VL variant of that size
            hits = [h for h in hits if not _VARIANT_RX.search(models[h].name.lower())]
        if len(hits) > 1:  # "Gemma 27B": the newest generation (Gemma 3 27B, not Gemma 2 27B)
            versions = {h: _version(models[h].name, fam) for h in hits}
            newest = max(versions.values())
            hits = [h for h in hits if versions[h] == newest]
        return hits[0] if len(hits) == 1 else None

    def _closest(self, mention: str) -> list[str]:
        """Known models of the same family (a 'Claude 3' has no close relative here)."""
        finder = getattr(self.catalog, "find_model", None)
        if finder is None:
            return []
        family = re.match(r"[a-z]+", mention.lower())
        try:
            finder(mention)
        except Exception as exc:  # UnknownModel carries closest
            names = [str(c) for c in getattr(exc, "closest", [])]
            if family:
                names = [n for n in names if n.lower().startswith(family.group(0))]
            return names[:3]
        return []

    def _find_precision(self, folded: str, u: Query) -> None:
        hits: list[tuple[int, int, str]] = []
        for name, rx in _PRECISION_RX:
            for m in rx.finditer(folded):
                hits.append((m.start(), m.end(), name))
        if hits:
            # "AWQ 4-bit" -> awq: a named format beats a bare bit width
            hits.sort()
            # the KV cache's precision ("FP8 KV cache", "KV cache in 8 bit") is not the weights'
            kv = [n for at, end, n in hits if _names_kv_cache(folded, at, end)]
            names = [
                n
                for at, end, n in hits
                if not _names_kv_cache(folded, at, end) and not _ruled_out(folded, at, end)
            ]
            if kv and kv[0] in _KV_PRECISION:
                u.kv_precision = _KV_PRECISION[kv[0]]  # type: ignore[assignment]
                _kv_compared(folded, hits, u)
                if not names and _ALSO_RX.search(folded):
                    names = [kv[0]]  # "and if I also put the KV cache in FP8?": FP8 throughout
            # every precision named, in order ("BF16 vs FP8")
            u.precisions = list(dict.fromkeys(names))
            if not names:
                return
            for specific in ("gptq", "gguf-q4_k_m", "gguf-q5_k_m", "gguf-q8_0", "awq"):
                if specific in names:
                    u.precision = specific
                    return
            u.precision = names[0]

    def _find_cards_and_counts(self, folded: str, u: Query) -> None:
        spans = _find_cards(folded)
        u.gen4 = bool(
            re.search(
                r"gen\s*4|pcie\s*4(?:\.0)?\b|ältere[nmr]? (?:gehäuse|plattform)|"
                r"older (?:chassis|platform)",
                folded,
            )
        )
        own_count, again = _cards_in_order(folded, spans, u)
        # "Anfrage 8x H100 … euren Server mit 8x H100 SXM5": the family named again as one of
        # its variants is that variant
        u.card_families = [
            f for f in u.card_families if not any(c in u.cards for c in CARD_FAMILIES[f])
        ]
        _other_variant_named(folded, spans, u)
        u.subject_cards = _subject_cards(folded, spans)
        if u.count is None:
            _count_and_memory(folded, u)
        for find in _COUNT_FINDERS:
            if u.count is None:
                u.count = find(folded, spans, u)
        if u.memory_gb is None:
            m = re.search(r"(?<!\d)(\d{1,7})\s*-?\s*gb\s*-?\s*" + _CARD_WORD, folded)
            m = m or _MEMORY_ASKED_RX.search(folded)
            if m:
                u.memory_gb = float(next(g for g in m.groups() if g))
        if not (spans or u.memory_gb):
            _count_times_memory(folded, u)
        if u.count is not None and u.count <= 0:
            u.count = None
        u.one_node = bool(
            re.search(
                r"(?<![a-z])(?:one|a|single|the same|einen|einem|einer|ein|einzelnen|"
                r"denselben|demselben)\s+(?:single\s+|einzigen\s+|einzelnen\s+)?"
                r"(?:node|server|machine|box|host|knoten|maschine|rechner)(?![a-z])",
                folded,
            )
        )
        self._find_configurations(folded, u, own_count)
        if u.configurations:
            for n, cid in again:
                _add_new(u.configurations, self._config_ids(n, cid, u.gen4))

    def _find_configurations(self, folded: str, u: Query, own_count: dict[str, int]) -> None:
        """Configuration ids named outright ("4x-a100-sxm4") or resolvable from card + count."""
        for cid in re.findall(r"\b\d+x-[a-z0-9-]+\b", folded):
            if cid in self._configs and cid not in u.configurations:
                u.configurations.append(cid)
        if u.count is not None:
            single = _named_before_a_count(folded, u.cards, own_count)
            for card in u.cards:
                ids = self._config_ids(1, card, u.gen4) if card in single else []
                ids = ids or self._config_ids(own_count.get(card, u.count), card, u.gen4)
                _add_new(u.configurations, ids)
                if not ids and self._configs and card in own_count:
                    u.absent_nodes.append((own_count[card], card))  # "2x H200": no such node
        if not u.configurations:
            return
        # "2x L40S vs 1x A100": a card family with its own count next to a named node resolves
        # to the variants that exist at that count (1x A100: the PCIe card)
        for fam in u.card_families:
            if fam in own_count:
                for card in CARD_FAMILIES[fam]:
                    _add_new(u.configurations, self._config_ids(own_count[fam], card, u.gen4))

    def _config_ids(self, count: int, card: str, gen4: bool) -> list[str]:
        cands = [f"{count}x-{card}-gen4", f"{count}x-{card}"] if gen4 else [f"{count}x-{card}"]
        if not self._configs:
            return cands[:1]
        return [c for c in cands if c in self._configs][:1]

    def _find_context_and_concurrency(self, folded: str, u: Query) -> None:
        m = _CONTEXT_RX.search(folded)
        if m is None and _CONTEXT_WORD_RX.search(folded):
            # "sechzehntausend Tokens Kontext": the length written in words
            spelled = spelled_counts(folded)
            m = _CONTEXT_RX.search(spelled) if spelled != folded else None
        if m:
            value, k = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if value and not k and _THOUSANDS_RX.fullmatch(value):
                u.context_tokens = int(re.sub(r"[.,]", "", value))  # "128.000 Token", "32,768"
            elif value:
                num = _number(value) if "," not in value or k else float(value.replace(",", ""))
                if k or num >= _LEAST_CONTEXT:  # "context … 40 users": no context of 40 tokens
                    u.context_tokens = int(num * 1024) if k else int(num)
        if u.context_tokens is None:
            k = _CONTEXT_K_RX.search(folded)
            if k:
                u.context_tokens = int(next(g for g in k.groups() if g)) * 1024
        if u.context_tokens is None:
            u.context_tokens = _tokens_each(folded)
        tp = _TP_RX.search(folded)
        if tp and 1 <= int(tp.group(1)) <= 8:
            u.tensor_parallel = int(tp.group(1))
        if u.tensor_parallel is None and _SPLIT_ALL_RX.search(folded):
            u.tensor_parallel = _all_of_them(folded, [], u)  # "split it across all 4 of them"
        m = _CONCURRENCY_RX.search(folded)
        if m:
            raw = next(g for g in m.groups() if g)
            u.concurrency = _to_int(raw)


_CONTEXT_WORD_RX = re.compile(r"\b(?:context|kontext|ctx|tokens?)\b")

#: the least a context said without "k" can be (a smaller number near "context" counts something
#: else)
_LEAST_CONTEXT = 256

# "8k-Sessions", "chats with 8k", "mit 8k drauf": a context said as a bare "8k" next to the
# sequences it belongs to (not a budget: "8k/month", "$8k")
# "tp=4", "tp 4", "TP4", "--tensor-parallel-size 4", "tensor parallel 4"
_TP_RX = re.compile(
    r"\b(?:tp|tensor[\s-]?parallel(?:ism)?(?:[\s-]?size)?|--tensor-parallel-size)\s*[=:]?\s*"
    r"(\d)\b(?!\s*(?:gb|k\b|tokens?|x\b|%))"
)


_CONTEXT_K_RX = re.compile(
    r"(?<![\w$€.,])(\d{1,3})\s*k[\s-]*(?:tokens?[\s-]+)?(?:sessions?|chats?|anfragen|requests?|"
    r"conversations?|convos?|seqs?|dialog(?:ue)?s?|dialoge|unterhaltungen|"
    r"gespräche|prompts?|streams?|sequen\w*)\b|"
    # "8 requests at once, 16k tokens each", "mit je 16k Token"
    r"(?<![\w$€.,])(\d{1,3})\s*k\s*tokens?\s+(?:each|apiece|je|per\s+\w+|pro\s+\w+)\b|"
    r"\bje\s+(\d{1,3})\s*k\s*tokens?\b|"
    # "if prompt+answer is ~4k tokens", "Anfrage und Antwort zusammen ca. 6k Token"
    r"\b(?:prompts?|requests?|inputs?|anfragen?|eingaben?|conversations?|gespräche?|chats?|"
    r"sessions?|dialog(?:ue)?s?|unterhaltung(?:en)?|sequences?|sequenzen)\s*"
    r"(?:(?:\+|&|/|and|und|plus)\s*(?:answers?|antwort(?:en)?|outputs?|responses?|ausgaben?)\s*)?"
    r"(?:(?:together|zusammen|combined)\s+)?(?:(?:is|are|ist|sind|of|von|with|mit)\s+)?"
    # ("our prompts are 4k max": the tokens unsaid, the figure is the prompts' length)
    r"(?:(?:around|about|roughly|ca\.?|circa|etwa|ungefähr|so|~|up to|max\.?|bis)\s*)*"
    r"(\d{1,3})\s*k\b(?:\s*tokens?\b)?(?!\s*(?:/|\$|€|usd|eur|dollar|per\b|pro\b|a month|"
    r"im monat|monat|month|budget|users?|nutzer|requests|anfragen))|"
    r"\b(?:chats?|anfragen|requests?|sessions?|nutzer\w*|users?|streams?)\s+(?:\w+\s+){0,2}?"
    r"(?:mit|with|at|bei|je|à|a)\s+(?:je\s+)?(\d{1,3})\s*k\b(?!\s*(?:/|\$|€|usd|eur|dollar|per\b|"
    r"pro\b|a month|im monat|monat|month|budget))"
)


# "sequences of 32,000 tokens each", "mit je 32.000 Tokens", "je zweiunddreißigtausend Tokens": a
# context said in full figures, per sequence
_TOKENS_EACH_RX = re.compile(
    r"\b(?:je|each|à)\s+(?:(?:around|about|ca\.?|etwa|rund|~)\s*)?"
    r"(\d{1,3}(?:[.,]\d{3})+|\d{4,7})\s*tokens?\b|"
    r"(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+|\d{4,7})\s*tokens?\s+(?:each|apiece|je\b|"
    r"per (?:sequence|request|chat|conversation|session)|pro (?:sequenz|anfrage|chat|gespräch))|"
    # "wenn jede sechzehntausend Tokens hat", "if each one has 16,000 tokens"
    r"\b(?:jede[rs]?|each(?: one)?)\s+(?:(?:anfrage|request|sequenz|sequence|chat)\s+)?"
    r"(?:hat|has|had|with|mit|of|von)?\s*(\d{1,3}(?:[.,]\d{3})+|\d{4,7})\s*tokens?\b"
)


def _tokens_each(folded: str) -> int | None:
    """The context of each sequence said in full figures or in words (256 tokens at least)."""
    spelled = spelled_counts(folded) if _CONTEXT_WORD_RX.search(folded) else folded
    for text in dict.fromkeys((folded, spelled)):
        m = _TOKENS_EACH_RX.search(text)
        if m:
            value = int(re.sub(r"[.,]", "", next(g for g in m.groups() if g)))
            return value if value >= _LEAST_CONTEXT else None
    return None


# "is 24gb of vram enough", "Sind 48 GB zu wenig": a card memory asked about, without a card
_MEMORY_ASKED_RX = re.compile(
    r"(?<![\d.,])(\d{2,3})\s*gb\s+(?:of\s+)?(?:v?ram|gpu memory|grafikspeicher)\b(?!\s+(?:in total|"
    r"insgesamt))|\b(?:is|are|ist|sind|reicht|reichen)\s+(\d{2,3})\s*gb\s+(?:\w+\s+)?(?:enough|"
    r"genug|zu wenig|too little|zu knapp|ausreichend)\b|"
    # "Which GPUs have 48 GB?", "welche Karten haben 96 GB": the card memory asked for
    r"\b(?:which|what|welche)\s+(?:gpus?|cards?|karten|grafikkarten)\s+(?:have|has|haben|hat|"
    r"come with|kommen mit|with|mit)\s+(\d{2,3})\s*gb\b"
)


# "Does Command R+ fit on ...", "Passt Yi Lightning auf ...", "Can I run Grok 2 on ...": a
# capitalised name where the model goes, which the catalog does not know and which carries no size
# ("DBRX instruct": a variant word in lower case belongs to the name)
_NAME = (
    r"(?P<name>[A-Z][\w.+-]*(?:\s+(?:[A-Z0-9][\w.+-]*|\+|"
    r"(?i:instruct|chat|base|preview|mini|turbo)\b))*)"
)
_NAMED_MODEL_RX = (
    re.compile(r"^\W*(?i:does|do|will|would|can|could)\s+" + _NAME + r"\s+(?i:fit|run|work)"),
    re.compile(r"\b(?i:run|serve|host|deploy|load)\s+" + _NAME + r"\s+(?i:on|auf|with|in)\b"),
    re.compile(
        r"^\W*(?i:passt|passen|läuft|laufen)\s+(?i:das\s+|ein\s+)?" + _NAME + r"\s+(?i:auf|in)\b"
    ),
    # "habt ihr auch was für Jamba? wie viel VRAM …", "anything for Reka Flash? how much
    # memory …": a name asked for on its own, when the question goes on to its memory or cards
    # (a German noun is capitalised too: "habt ihr was für Studenten?")
    re.compile(
        r"\b(?i:was|etwas|something|anything)\s+(?i:für|for)\s+" + _NAME + r"\s*[?!.]"
        r"(?=(?s:.*)\b(?i:vram|speicher|memory|gb|gpus?|karten?|cards?)\b)"
    ),
    # "how much VRAM does Jamba need?", "wie viel VRAM braucht Jamba?"
    re.compile(r"\b(?i:does)\s+" + _NAME + r"\s+(?i:need|take|use|require)\b"),
    re.compile(r"\b(?i:braucht|benötigt)\s+" + _NAME + r"\s*[?!.]"),
)
_NOT_A_NAME = {
    "it",
    "this",
    "that",
    "es",
    "das",
    "dies",
    "mein",
    "my",
    "our",
    "unser",
    "i",
    "we",
    "the",
    "a",
    "an",
    "one",
    "ein",
    "eine",
    "you",
    "sie",
    "they",
    "sxm",
    "cuda",
    "nccl",
    "docker",
    "kubernetes",
    "multi",
    "mixture",
}


#: a figure with thousands separators ("128.000", "32,768")
_THOUSANDS_RX = re.compile(r"\d{1,3}(?:[.,]\d{3})+")
_KV_AFTER_RX = re.compile(r"[\s_-]*(?:kv\b|kv_|key[\s-]*value)")
_KV_BEFORE_RX = re.compile(
    r"(?:kv|key[\s-]*value)[\s_-]*cache\w*?[\s_-]*(?:is |are |ist |wäre |be |also |auch |too |"
    r"ebenfalls )?(?:(?:quanti[sz]\w*|set|gesetzt|stored|gespeichert) )?"
    r"(?:in|als|as|=|:|auf|to|mit|with|dtype\s*=?)?\s*$"
)
# "also"/"auch" with the KV cache's precision: the weights are in it too
_ALSO_RX = re.compile(r"\b(?:also|too|as well|auch|ebenfalls|zusätzlich|additionally)\b")
# the KV-cache precisions the tools size (tools.specs.KvPrecision); an 8-bit GGUF cache is int8
_KV_PRECISION = {
    "fp8": "fp8",
    "int8": "int8",
    "gguf-q8_0": "int8",
    "bf16": "bf16",
    "fp16": "fp16",
    "fp32": "fp32",
}


#: "… with an FP8 KV cache instead?", "und mit FP8-KV-Cache?": a KV precision asked beside
#: the KV cache asked before it at the default
_KV_ALTERNATIVE_RX = re.compile(
    r"\b(?:instead|stattdessen|statt dessen|anstelle|rather|and with|und mit|what about|"
    r"und bei|compared|im vergleich|verglichen|switch\w*|wechsel\w*|umstell\w*|if|wenn|falls|"
    # "… Und wie groß mit FP8-KV-Cache?": the size asked again, with the other precision
    r"wie (?:groß|gross|viel)|how (?:big|much|large)|"
    # "how much would an fp8 kv cache save them?", "wie viel spart ein FP8-KV-Cache?"
    r"sav(?:e|es|ing)|spar\w*)\b"
)


def _kv_compared(folded: str, hits: list[tuple[int, int, str]], u: Query) -> None:
    """Two KV-cache precisions asked side by side: both named ("mit FP8-KV …, und mit BF16-KV?"),
    or the KV cache asked first at the default and then "with an FP8 KV cache instead"
    (`kv_precisions`, in the order asked; the first is the reading's `kv_precision`)."""
    named = [(at, _KV_PRECISION[n]) for at, end, n in hits if n in _KV_PRECISION
             and _names_kv_cache(folded, at, end)]  # fmt: skip
    kinds = list(dict.fromkeys(k for _, k in named))
    if len(kinds) >= 2:
        u.kv_precisions = kinds[:2]  # type: ignore[assignment]
        return
    at, kind = named[0]
    lo = max(folded.rfind(c, 0, at) for c in ".?!\n") + 1
    hi = min((i for i in (folded.find(c, at) for c in ".?!\n") if i >= 0), default=len(folded))
    # the KV cache named before this precision's own ("how big does the kv cache get, and what
    # would an fp8 kv cache save?"; not "und wenn ich den kv cache auch auf fp8 stell")
    before = folded[: max(0, at)]
    own = re.search(r"kv[\s-]*(?:cache)?[\w\s-]{0,25}$", before)
    before = before[: own.start()] if own else before
    if kind != "bf16" and "kv" in before and _KV_ALTERNATIVE_RX.search(folded[lo:hi]):
        u.kv_precisions = ["bf16", kind]  # type: ignore[list-item]
        u.kv_precision = None  # the first ask is at the default


def _names_kv_cache(folded: str, at: int, end: int) -> bool:
    """The precision at `at`..`end` is the KV cache's ("FP8 KV cache", "KV-Cache in FP8",
    "8-bit KV cache"), not the weights'."""
    return bool(
        _KV_AFTER_RX.match(folded, end) or _KV_BEFORE_RX.search(folded[max(0, at - 40) : at])
    )


#: words before a size that are not part of a model's name ("does a 7B", "run our 12B")
_NOT_NAME_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an the our my your their this that does do did can could will would is are run runs "
        "serve host deploy load fit fits need want with for and or on in of to about some "
        "ein eine einen einem einer das die der den dem unser unsere unseren mein meine läuft "
        "laufen passt passen kann können wir ich mit für und oder auf in von zu ca etwa ~ "
        "model models modell modelle llm few many some users people leute nutzer training "
        "inference cards gpus karten context kontext tokens batch only just nur around roughly "
        "approx approximately rund knapp we i you they us it wir ich sie es man try use "
        "using nutzen betreiben hosten test testen "
        # "guy asks if Pythia 12B would run …", "er fragt, ob Pythia 12B …": a reported question
        "if whether ob asks ask asked fragt fragen fragte wonders wondering wants wanted know "
        "wissen says said meint meinte "
        # "we fine tuned pythia 12b ourselves", "unser selbst trainiertes Pythia 12B": what was
        # done to the model is no part of its name
        "fine tuned finetuned fine-tuned tuned trained custom own selbst eigenes eigene eigenen "
        "trainiertes trainierte feinabgestimmtes feinabgestimmte quantized quantisiertes",
    )
)
#: one word of a model's name: a letter first ("Pythia", "OLMo", "Mamba-2", "R1")
_NAME_WORD_RX = re.compile(r"[A-Za-z][A-Za-z0-9.+-]*")


def _sized_name(original: str, size: str) -> str | None:
    """The name said right before a model's size ("Pythia 12B", "falcon mamba 7b"), when it is
    more than articles and verbs; None for a bare size ("a 70B model")."""
    m = re.search(r"((?:[^\s?!,;:()]+\s+){1,3})" + re.escape(size) + r"\b", original, re.I)
    if m is None:
        return None
    words = m.group(1).split()
    while words and words[0].lower() in _NOT_NAME_WORDS:
        words = words[1:]
    if not words or any(w.lower() in _NOT_NAME_WORDS for w in words):
        return None
    if not all(_NAME_WORD_RX.fullmatch(w) for w in words):
        return None  # "[7] few users 34B": no name
    name = " ".join(words)
    if _find_cards(name.lower()) or any(rx.search(name.lower()) for _, rx in _PRECISION_RX):
        return None
    if not re.search(r"[a-zA-Z]{3,}", name):
        return None
    original_size = original[m.end(1) : m.end()]
    return f"{name} {original_size}"


def _named_model(original: str) -> str | None:
    for rx in _NAMED_MODEL_RX:
        m = rx.search(original)
        if not m:
            continue
        name = m.group("name").strip()
        first = name.split()[0].lower()
        if (
            first in _NOT_A_NAME
            or first in DOMAIN_WORDS
            or _find_cards(name.lower())
            or any(rx.search(name.lower()) for _, rx in _PRECISION_RX)
            or len(name) < 3
        ):
            continue
        return name
    return None


#: a comparison's reference: "… wie auf einer L40S", "… like the H100", "… than an A100"
_REFERENCE_RX = re.compile(
    r"\b(?:wie|like|than|als|compared|verglichen|gegenüber|versus|vs|as \w+ as)\b", re.IGNORECASE
)


def _subject_cards(folded: str, spans: list[tuple[int, int, str]]) -> list[str]:
    """The cards named before a comparison's reference word when cards follow it: the claim is
    about those ('Hat die RTX A6000 FP8 … wie eine L40S?' asks about the RTX A6000)."""
    m = _REFERENCE_RX.search(folded)
    if not m:
        return []
    before = [c for s, e, cid in spans if e <= m.start() for c in CARD_FAMILIES.get(cid, [cid])]
    after = [cid for s, e, cid in spans if s >= m.end()]
    return list(dict.fromkeys(before)) if before and after else []


def _inside_card(folded: str, pos: int) -> bool:
    """True when a '...b' match is part of a card name like 'B200' (not a parameter count)."""
    return bool(re.match(r"b\d", folded[pos:]))


def _original_case(original: str, folded_mention: str) -> str:
    idx = _fold(original).find(folded_mention)
    if idx < 0:
        return folded_mention
    return original[idx : idx + len(folded_mention)]


def _with_proper_names(original: str, mention: str) -> str:
    """'Llama 4 B' -> 'Llama 4 Behemoth', 'Claude 3' -> 'Claude 3 Opus': the capitalised words
    right after the name belong to it (at most two; question words stop it)."""
    idx = original.find(mention)
    if idx < 0:
        return mention
    end = idx + len(mention)
    # a cut-off word ("B" of "Behemoth"): back up to the start of that word
    if end < len(original) and original[end].isalpha() and original[end - 1].isalpha():
        while end > idx and original[end - 1].isalpha():
            end -= 1
    words = re.match(r"((?:\s*[A-Z][\w.-]*)(?:\s+[A-Z][\w.-]*)?)", original[end:])
    extra = ""
    for w in words.group(1).split() if words else []:
        bare = w.strip(".,;:!?").lower()
        if not bare or bare in _EN_WORDS or bare in _DE_WORDS or _find_cards(bare):
            break
        extra += " " + w.strip(".,;:!?")
    return (original[idx:end].rstrip() + extra).strip()


# ---- the count of cards: said before a card, or found by the first of `_COUNT_FINDERS` that
# sees one


_MEMORY_BEFORE_RX = re.compile(r"(?<![\d.,])\d{2,3}\s*-?\s*gb[\s-]+$")


def _count_before_card(folded: str, start: int, end: int, u: Query, cid: str = "") -> int | None:
    """The count directly before the card: "4x A100", "4 × H100", "vier H100", "8 H200"; "on an
    RTX 5090" is one card, "an H100 node" is not."""
    # ("a single 24gb 4090", "2x 80gb h100": the card's memory said between count and card)
    before = _MEMORY_BEFORE_RX.sub("", folded[max(0, start - 30) : start])
    if re.match(
        r"[\s-]*(?:pcie[\s-]+|sxm\d?[\s-]+)?(?:instance|instanz)", folded[end:]
    ) and re.search(
        r"\b(?:a|an|one|your|the|this|that|eine[rnm]?|ihre[rnm]?|eure[rnm]?|deine[rnm]?|die|der|"
        r"diese[rnm]?)\s+"
        r"(?:nvidia\s+)?$",
        before,
    ):
        return 1  # "your L4 instance", "eine L40S-Instanz": one card
    if re.search(
        r"\b(?:one|eine[rnm]?)\s+(?:of|von)\s+(?:your|the|our|these|those|ihren|euren|"
        r"den|diesen)\s+(?:nvidia\s+)?$",
        before,
    ) and not re.match(
        r"s?\s*(?:sxm\d?|pcie)?\s*(?:nodes?|servers?|machines?|box(?:es)?|systems?|knoten)\b",
        folded[end:],
    ):
        return (
            1  # "one of your L4 cards", "one of our L4s": one card (not "one of your H100 nodes")
        )
    eighter = re.search(r"(?<![a-z0-9.,])([1-8])er[\s-]+(?:nvidia\s+)?$", before)
    if eighter:  # "die 8er H200", "den 4er-L40S": the node of that many cards
        return int(eighter.group(1))
    way = re.search(
        r"(?<![a-z0-9.,])" + _NUM + r"[\s-]*(?:way|fach|gpu|card|karten)[\s-]+(?:nvidia\s+)?$",
        before,
    )
    if way and _to_int(way.group(1)):  # "the eight-way H200 box", "die 8-fach A100"
        return _to_int(way.group(1))
    m = re.search(r"(?<![a-z0-9])" + _NUM + r"\s*(?:x|-?mal)?\s*(?:nvidia\s+)?$", before)
    if not (m and _to_int(m.group(1)) and not re.search(r"\d[.,]$", before[: m.start(1)])):
        # "auf rtx4090 möglich?", "70b on 4090?": a card named bare after "on" is one card
        bare = re.search(r"\b(?:on|auf)\s+(?:nvidia\s+|geforce\s+)?$", before)
        # a plural "s" is one the card's own name does not end in ("h100s", not "l40s")
        plural = (folded[end - 1 : end] == "s" and not cid.endswith("s")) or re.match(
            r"(?:ern|er|en|n)\b", folded[end:]
        )
        node = re.match(
            r"\s*(?:sxm\d?|pcie)?\s*(?:node|server|machine|box|system|knoten)", folded[end:]
        )
        return 1 if bare and not plural and not node and not u.follow_up else None
    n = _to_int(m.group(1))
    if n is not None and (m.group(1).isdigit() or m.group(1) not in ("a", "an")):
        return n
    one_card = (
        m.group(1) in ("a", "an")
        and not u.follow_up
        and not re.match(r"\s*(?:sxm\d?|pcie)?\s*(?:node|server|machine|box|system)", folded[end:])
    )
    return 1 if one_card else None


#: "the 4 x 32 GB", "2x48GB": a node said as its card count times the memory per card
_COUNT_X_GB_RX = re.compile(r"(?<![\d.,])([2-8])\s*(?:x|×|\*)\s*(\d{2,3})\s*gb\b")


def _count_times_memory(folded: str, u: Query) -> None:
    """ "Do the 4 x 32 GB add up to 128 GB?": no card named, the node said as its count times
    its memory per card (the planner takes the nodes with that card memory and count)."""
    m = _COUNT_X_GB_RX.search(folded)
    if m:
        u.count = u.count or int(m.group(1))
        u.memory_gb = float(m.group(2))


_OTHER_COUNT_RX = re.compile(
    r"(?<![\d.,])(\d{1,2})\s*x?\s*(?:und|oder|or|and|vs\.?|versus)\s+\d{1,2}\s*(?:x|×)?\s*"
    r"(?:nvidia\s+)?$"
)


def _cards_in_order(
    folded: str, spans: list[tuple[int, int, str]], u: Query
) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """The cards and families named, in order, with each card's own count ("2x H100 PCIe or 4x
    L40S") and the counts of a card named again ("2x A100 PCIe und was 4x A100 PCIe")."""
    own_count: dict[str, int] = {}
    again: list[tuple[int, str]] = []
    for start, end, cid in spans:
        n = _count_before_card(folded, start, end, u, cid)
        if n is not None:
            u.count = u.count or n
            if own_count.setdefault(cid, n) != n:
                again.append((n, cid))
            # "zwischen 2 und 4 L40S", "2 or 4 H100s": the other count of the same card
            other = _OTHER_COUNT_RX.search(folded[max(0, start - 30) : start])
            if other and int(other.group(1)) != n:
                again.append((int(other.group(1)), cid))
        if cid in CARD_FAMILIES:
            if cid not in u.card_families:
                u.card_families.append(cid)
        elif cid not in u.cards:
            u.cards.append(cid)
    return own_count, again


_EACH_RX = re.compile(r"\b(?:each|both|je|jeweils|beide[n]?)\b")


def _named_before_a_count(folded: str, cards: list[str], own_count: dict[str, int]) -> set[str]:
    """ "h100 pcie vs 4x h100 sxm5": a card named with no count before the first card said with
    its own count is one card ("4x A100 PCIe or SXM4" shares the count forward; "A100 or H100,
    4x each" shares it back)."""
    first = next((i for i, c in enumerate(cards) if c in own_count), None)
    if not first or _EACH_RX.search(folded):
        return set()
    return set(cards[:first])


def _count_and_memory(folded: str, u: Query) -> None:
    """ "4 80-GB cards": the count and the memory per card."""
    m = re.search(
        r"(?<![a-z0-9])" + _NUM + r"\s*-?\s*(\d{1,7})\s*-?\s*gb\s*-?\s*" + _CARD_WORD,
        folded,
    )
    if m:
        u.count = _to_int(m.group(1))
        u.memory_gb = float(m.group(2))


#: the articles that count one only as a word: "a gpu server" is a server of any cards
_ARTICLES = frozenset({"a", "an", "ein", "eine", "einen", "einem", "einer"})
_A_GPU_THING_RX = re.compile(
    r"[\s-]*(?:server|box|node|knoten|maschine|machine|rechner|instan[cz]e?|cluster|setup|"
    r"provider|anbieter|cloud|hosting|rental|miete|vermietung|plattform|platform|system)"
)


def _count_of_cards(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """ "4 cards", "8x GPUs", "an 8-GPU node"."""
    m = re.search(r"(?<![a-z0-9.,])" + _NUM + r"\s*-?\s*(?:x\s*)?" + _CARD_WORD, folded)
    if m and m.group(1) in _ARTICLES and _A_GPU_THING_RX.match(folded, m.end()):
        m = None  # "we need a gpu server", "einen GPU-Server": one server, not one card
    if m and _to_int(m.group(1)):
        return _to_int(m.group(1))
    m2 = re.search(
        r"(?<!\d)(\d{1,7})\s*-?\s*(?:gpu|karten?)[\s-]*(?:node|knoten|server|maschine)",
        folded,
    )
    return int(m2.group(1)) if m2 else None


def _single_card(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """ "on a single card", "auf einer einzelnen Karte"."""
    m = re.search(
        r"single (?:card|gpu)|one (?:card|gpu)|einer? (?:einzigen |einzelnen )?(?:karte|gpu)|"
        r"einzelne[nr]? (?:karte|gpu)|on its own card|"
        # "a gaming card like the 4090", "eine Consumer-Karte wie die 4090": one card, named
        r"\b(?:a|one|eine?)\s+(?:[a-z]+[\s-])?(?:card|gpu|graphics card|grafikkarte|karte)\s+"
        r"(?:like|such as|wie)\b",
        folded,
    )
    return 1 if m else None


def _copies(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """ "8 independent copies", "vier Instanzen"."""
    m = re.search(
        r"(?<![a-z0-9.,])" + _NUM + r"\s+(?:independent\s+|unabhängige[n]?\s+|"
        r"separate[n]?\s+)?(?:copies|kopien|replicas|repliken|instances|"
        r"instanzen)",
        folded,
    )
    if m and _to_int(m.group(1)) and m.group(1) not in ("a", "an"):
        return _to_int(m.group(1))
    return None


def _bare_count(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """A bare count, as in the follow-up "und 8x?" / "and 8 ×?"."""
    m = None if spans else re.search(r"(?<![a-z0-9.,])(\d{1,2})\s*(?:x|-mal)(?![a-z0-9])", folded)
    # "und auf den 8er?", "the 4-gpu one": the node of that many cards
    m = m or (None if spans else _N_CARD_ONE_RX.search(folded))
    return int(m.group(1)) if m else None


_N_CARD_ONE_RX = re.compile(
    r"\b(?:den|dem|der|die|das|einen|einem|ein|the)\s+([1-8])(?:er\b|[\s-]*(?:gpu|card|karten)"
    r"[\s-]*(?:one|node|box|server|knoten)\b)"
)


def _trailing_count(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """A count that ends a short follow-up: "und 4 davon?", "und auf vier?", "and two of them?",
    "and on 8 cards?" ("und bei 50?" means users, not cards; "on that one?" names none)."""
    if spans or not u.follow_up or len(folded) >= 40:
        return None
    m = re.search(
        r"(?<![a-z0-9.,])" + _NUM + r"\s*(?:davon|of them|of those|stück|"
        r"(?:x\s*)?(?:cards?|karten|gpus?))?\s*[?.!]*\s*$",
        folded,
    )
    if not m or m.group(1) in ("a", "an", "single"):
        return None
    if re.search(r"\b(?:that|this|same|which|the|other)(?:\s+[a-z]\w*)?\s*$", folded[: m.start(1)]):
        return None  # "on that one?", "and the pcie one?", "the cheaper one?": no count
    n = _to_int(m.group(1))
    return n if n is not None and 1 <= n <= 8 else None


_TAKE = r"(?:nehmen|nähmen|mieten|kaufen|einsetzen|nutzen|betreiben|take|rent|use|buy|get|run)"
_OF_THOSE = r"(?:davon|of them|of those|of these|solche[rn]?|such cards|dieser karten)"
_THOSE_RX = re.compile(
    r"(?<![a-z0-9.,])" + _NUM + r"\s+" + _OF_THOSE + r"\s+(?:\w+\s+){0,2}?" + _TAKE + r"\b|"
    r"\b" + _TAKE + r"\s+(?:\w+\s+){0,2}?" + _NUM + r"\s+" + _OF_THOSE + r"\b"
)


def _count_of_those(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """A count of the hardware talked about, taken: "wir würden vier davon nehmen", "we'd
    rent four of those" ("60 staff, ten of them at once" counts people, not cards)."""
    m = None if spans else _THOSE_RX.search(folded)
    word = m and (m.group(1) or m.group(2))
    if not word or word in ("a", "an", "single"):
        return None
    n = _to_int(word)
    return n if n is not None and 2 <= n <= 8 else None


#: "split it across all four", "auf alle vier verteilt": every card of the node talked about
_ALL_OF_THEM_RX = re.compile(
    r"\b(?:across|over|on|onto|using|auf|über|mit)\s+(?:all|alle[nm]?)\s+" + _NUM + r"\b"
    r"(?!\s*(?:users?|nutzer\w*|people|leute|requests?|anfragen|k\b|gb|tokens?))"
)


#: the model split over the cards ("split/shard/spread … across all 4", "auf alle vier verteilt")
_SPLIT_ALL_RX = re.compile(
    r"\b(?:split\w*|shard\w*|spread\w*|distribut\w*|tensor[\s-]?parallel\w*|verteil\w*|"
    r"aufteil\w*|aufgeteilt)\b"
)


def _all_of_them(folded: str, spans: list[tuple[int, int, str]], u: Query) -> int | None:
    """The count of "across all four" (no card named): the cards of the node talked about."""
    m = None if spans else _ALL_OF_THEM_RX.search(folded)
    n = _to_int(m.group(1)) if m else None
    return n if n is not None and 2 <= n <= 8 else None


_COUNT_FINDERS: tuple[Callable[[str, list[tuple[int, int, str]], Query], int | None], ...] = (
    _count_of_cards,
    _single_card,
    _copies,
    _bare_count,
    _trailing_count,
    _count_of_those,
    _all_of_them,
)


def _add_new(configurations: list[str], ids: list[str]) -> None:
    """Append the ids not yet in the list, in order."""
    for cid in ids:
        if cid not in configurations:
            configurations.append(cid)


# a precision the asker rules out: "no FP8", "ohne 4-Bit", "FP8 or 4-bit is not an option",
# "FP8 kommt nicht in Frage" (the sentence's other precisions are what they want)
_NOT_BEFORE_RX = re.compile(r"(?:\bno|\bnot|\bkein\w*|\bohne|\bwithout|\bnever|\bnie)\s+$")
_RULED_OUT_AFTER_RX = re.compile(
    r"(?:is|are)\s+(?:not\s+an?\s+option|out of the question|off the table|not acceptable|"
    r"not allowed)|(?:kommt|kommen)\s+nicht\s+in\s+frage|(?:ist|sind)\s+keine\s+option|"
    r"scheide[nt]\s+aus|(?:ist|sind)\s+ausgeschlossen|(?:ist|sind)\s+tabu"
)
# what may stand between a precision and the phrase that rules it out: other precisions joined
# by "or" / "and" ("FP8 or 4-bit is not an option"), not a clause of its own ("BF16: FP8 …")
_JOINED_RX = re.compile(
    r"^(?:\s|,|/|\bor\b|\band\b|\boder\b|\bund\b|\bnor\b|\bnoch\b|\beven\b|\bauch\b|"
    r"\bquantisation\b|\bquantization\b|\bquantisierung\b|\bweights?\b|fp8|int8|int4|awq|"
    r"gptq|\d[\s-]?bit|bf16|fp16|q4\w*|q8\w*)*$"
)


def _ruled_out(folded: str, at: int, end: int) -> bool:
    """The precision at folded[at:end] is one the question rules out."""
    if _NOT_BEFORE_RX.search(folded[max(0, at - 12) : at]):
        return True
    m = _RULED_OUT_AFTER_RX.search(folded, end, end + 80)
    return bool(m and _JOINED_RX.match(folded[end : m.start()]))
