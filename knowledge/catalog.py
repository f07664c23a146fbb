"""Load the operator-editable catalog (gpus, links, configurations, models); look things up.

`load_catalog(folder)` reads the four YAML files, validates every entry with the pydantic types
from `tools.specs`, checks cross references (a configuration's card and link, a card's NVLink),
and either returns a complete `Catalog` or raises one `CatalogError` whose message names the
file, the entry and the field. There is no half-loaded state.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import ValidationError

from tools.specs import Configuration, Gpu, Link, ModelSpec

FILES = {
    "gpus": "gpus.yaml",
    "links": "links.yaml",
    "configurations": "configurations.yaml",
    "models": "models.yaml",
}

# the four record types (constrained, so `record.id` type-checks for each)
T = TypeVar("T", Gpu, Link, Configuration, ModelSpec)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available


class CatalogError(ValueError):
    """The catalog could not be loaded. The message is one line naming file, entry and field."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        entry: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.file = file
        self.entry = entry
        self.field = field


class UnknownName(LookupError):
    """A model or configuration name matched nothing; `closest` lists the nearest known names."""

    kind = "name"

    def __init__(self, text: str, closest: list[str]) -> None:
        self.text = text
        self.closest = closest
        hint = f" Closest matches: {', '.join(closest)}." if closest else ""
        super().__init__(f"Unknown {self.kind} {text!r}.{hint}")


class UnknownModel(UnknownName):
    kind = "model"


class UnknownConfiguration(UnknownName):
    kind = "configuration"


class UnknownGpu(UnknownName):
    kind = "card"


class AmbiguousConfiguration(LookupError):
    """A configuration name that fits several nodes ('4x A100': PCIe and SXM4; 'H100': every H100
    node). `candidates` lists their ids, catalog order: the caller asks, it never picks one."""

    def __init__(self, text: str, candidates: list[str]) -> None:
        self.text = text
        self.candidates = candidates
        super().__init__(
            f"{text!r} fits {len(candidates)} configurations: {', '.join(candidates)}."
        )


def normalize(text: str) -> str:
    """Lower case, '×' as 'x', a '+' stuck to a name as 'plus' ('Command R+'), only letters and
    digits: 'Llama-3.3 70B' -> 'llama3370b'."""
    text = re.sub(r"(?<=[a-z0-9])\+(?![a-z0-9])", "plus", text.lower().replace("×", "x"))
    return re.sub(r"[^a-z0-9]", "", text)


_NOISE_WORDS = re.compile(
    r"\b(instruct|chat|it|hf|base|awq|gptq|gguf|fp8|fp16|bf16|int8|int4|q4_k_m|q5_k_m|q8_0|"
    r"dynamic|latest|model|modell|the|das|der|die)\b"
)
_CONFIG_NOISE = re.compile(
    r"\b(nvidia|geforce|tesla|hgx|node|server|knoten|gpus?|cards?|karten?)\b"
)
_PARAMS_RE = re.compile(
    r"^(?:(?:an?|ein(?:e|en)?)\s+)?(\d+(?:[.,]\d+)?)\s*-?\s*(b|billion|mrd\.?|milliarden)"
    r"(?:\s*-?\s*(?:param(?:eter)?s?))?(?:\s*-?\s*(?:model|modell|llm|dense))?$",
    re.IGNORECASE,
)


#: A size in a model name: "27B", "8x22B" (experts x size), "1.5 billion".
_SIZE_IN_NAME = re.compile(
    r"(?<![\w.])(?:(\d+)\s*x\s*)?(\d+(?:[.,]\d+)?)\s*-?\s*(?:b|billion|mrd\.?|milliarden)\b",
    re.IGNORECASE,
)
_MOE_IN_NAME = re.compile(
    r"\bmoe\b|mixture|experts?\b|experten|\d\s*x\s*\d+(?:[.,]\d+)?\s*b\b|-a\d+(?:\.\d+)?b\b",
    re.IGNORECASE,
)
_LEADING_WORDS = re.compile(r"^(?:(?:an?|some|the|my|our|ein(?:e|en)?|das|die|der)\s+)+", re.I)
#: Unknown models borrow the attention layout of a catalog model with the common head size.
REFERENCE_HEAD_DIM = 128
#: Two family words this similar are one family ("lama" ~ "llama"), so a near name is offered.
FAMILY_SIMILARITY = 0.8

ResolutionStatus = Literal["found", "estimated", "unknown"]


def family_of(text: str) -> str | None:
    """The family word a model name starts with ('Gemma 3 27B' -> 'gemma'); None if none."""
    name = text.split("/")[-1].strip().lower()
    m = re.match(r"[a-z]+", _LEADING_WORDS.sub("", name))
    return m.group(0) if m else None


def size_in_name(text: str) -> tuple[float, bool] | None:
    """(parameters in billions, looks like MoE) from a name carrying its size, else None.
    '8x22B' counts 8 x 22 = 176B (an upper bound: experts share attention)."""
    m = _SIZE_IN_NAME.search(text)
    if not m:
        return None
    size = float(m.group(2).replace(",", "."))
    if m.group(1):
        size *= int(m.group(1))
    if size <= 0:
        return None
    return size, bool(_MOE_IN_NAME.search(text))


@dataclass(frozen=True)
class ModelResolution:
    """What a model name resolves to: a catalog model, an estimate from the size in the name, or
    nothing (with same-family names only, never an unrelated model)."""

    text: str
    status: ResolutionStatus
    model: ModelSpec | None
    params_b: float | None = None
    closest: tuple[str, ...] = ()


@dataclass
class Catalog:
    """The validated catalog. Dicts keep the files' order."""

    folder: Path
    gpus: dict[str, Gpu]
    links: dict[str, Link]
    configurations: dict[str, Configuration]
    models: dict[str, ModelSpec]
    _model_keys: dict[str, str] = field(default_factory=dict, repr=False)
    _config_keys: dict[str, str] = field(default_factory=dict, repr=False)
    _explicit_config_keys: dict[str, str] = field(default_factory=dict, repr=False)
    _gpu_keys: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for g in self.gpus.values():
            for name in (g.id, g.name, g.short_name, *g.aliases):
                self._gpu_keys.setdefault(normalize(name), g.id)
        for m in self.models.values():
            for name in (m.id, m.name, *m.aliases):
                self._model_keys.setdefault(normalize(name), m.id)
                self._model_keys.setdefault(normalize(_strip_model_noise(name)), m.id)
        for c in self.configurations.values():
            self._config_keys.setdefault(normalize(c.id), c.id)
            self._config_keys.setdefault(normalize(_strip_config_noise(c.label)), c.id)
            for name in (c.id, c.label):
                self._explicit_config_keys.setdefault(normalize(_strip_config_noise(name)), c.id)
        for c in self.configurations.values():  # generated forms after the explicit ones
            g = self.gpus[c.gpu]
            gen4 = c.id.endswith("-gen4")
            for name in (g.id, g.short_name, g.name, *g.aliases):
                card = normalize(_strip_config_noise(name))
                forms = [f"{c.count}x{card}", f"{card}x{c.count}", f"{c.count}{card}"]
                if gen4:
                    forms = [f + "gen4" for f in forms] + [f + "pciegen4" for f in forms]
                for form in forms:
                    self._config_keys.setdefault(form, c.id)

    # ---- lookups
    def find_model(self, text: str) -> ModelSpec:
        """A model by id, name, HF id, ollama tag or plain name; "34B" gives a generic model."""
        key = normalize(text)
        found = self._model_keys.get(key) or self._model_keys.get(
            normalize(_strip_model_noise(text))
        )
        if found:
            return self.models[found]
        match = _PARAMS_RE.match(text.strip())
        if match:
            return self.parameter_model(float(match.group(1).replace(",", ".")))
        raise UnknownModel(text, self.same_family(text))

    def same_family(self, text: str) -> list[str]:
        """Known models near a name, of the same family only ('Gemma 4 27B' never offers a
        Llama); nothing for a name without a family word."""
        family = family_of(text)
        if family is None:
            return []
        names = self._closest(normalize(text), self._model_keys, self._model_name, n=20)
        out = []
        for name in names:
            other = family_of(name)
            if other is not None and (
                other == family
                or difflib.SequenceMatcher(None, other, family).ratio() >= FAMILY_SIMILARITY
            ):
                out.append(name)
        return out[:5]

    def resolve_model(self, text: str) -> ModelResolution:
        """A catalog model; else an estimate when the name carries its size ('Gemma 4 27B',
        'some 120B MoE'); else unknown, with same-family names only."""
        try:
            m = self.find_model(text)
        except UnknownModel as exc:
            size = size_in_name(text)
            if size is None:
                return ModelResolution(text, "unknown", None, closest=tuple(exc.closest))
            params_b, moe = size
            m = self.parameter_model(params_b, name=text.strip(), moe=moe)
            return ModelResolution(text, "estimated", m, params_b, tuple(exc.closest))
        status: ResolutionStatus = "estimated" if m.generic else "found"
        return ModelResolution(text, status, m, m.params_b)

    def find_configuration(self, text: str) -> Configuration:
        """A configuration by id ('4x-a100-sxm4'), label or '4x A100 SXM4'."""
        key = normalize(_strip_config_noise(text))
        found = self._config_keys.get(key) or self._config_keys.get(normalize(text))
        if found:
            return self.configurations[found]
        raise UnknownConfiguration(text, self._closest(key, self._config_keys, lambda i: i))

    def configuration_candidates(self, text: str) -> list[Configuration]:
        """Every configuration `text` may mean: one for an id, a label or a name that names the
        card variant ('4x A100 SXM4', '2x 4090'); several when it names a card that comes in
        variants ('4x A100', '4x H100': PCIe and SXM) or a card without a count ('H100': every
        H100 node). Raises UnknownConfiguration when nothing fits."""
        key = normalize(_strip_config_noise(text))
        if key in self._explicit_config_keys:
            return [self.configurations[self._explicit_config_keys[key]]]
        count, card = _count_and_card(key)
        family = [g for g in self.gpus.values() if _family(g.id) == card]
        gpus = [g.id for g in family] if len(family) > 1 else [self._gpu_keys.get(card, "")]
        found = [
            c
            for c in self.configurations.values()
            if c.gpu in gpus and (count is None or c.count == count)
        ]
        standard = [c for c in found if not c.id.endswith("-gen4")]  # the chassis is named
        if standard and "gen4" not in card:
            found = standard
        if not found:
            return [self.find_configuration(text)]
        return found

    def resolve_configuration(self, text: str) -> Configuration:
        """The one configuration `text` names; AmbiguousConfiguration when it fits several."""
        found = self.configuration_candidates(text)
        if len(found) > 1:
            raise AmbiguousConfiguration(text, [c.id for c in found])
        return found[0]

    def find_gpu(self, text: str) -> Gpu:
        """A card by id, name or alias ('H100', 'A100 80GB', 'rtx-4090')."""
        key = normalize(_strip_config_noise(text))
        found = self._gpu_keys.get(key) or self._gpu_keys.get(normalize(text))
        if found:
            return self.gpus[found]
        raise UnknownGpu(text, self._closest(key, self._gpu_keys, lambda i: i))

    def parameter_model(
        self, params_b: float, name: str | None = None, moe: bool = False
    ) -> ModelSpec:
        """A model known only by its parameter count. Weights = params x bytes; the KV cache is
        estimated with the attention layout (layers, KV heads, head dim) of the catalog's
        grouped-query-attention model nearest in size (MoE for an MoE, dense otherwise), which
        `estimate_basis` names."""
        if not params_b > 0:
            raise ValueError("params_b must be positive")
        label = f"{params_b:g}B"
        ref = self._reference_model(params_b, moe)
        basis = None
        arch: dict[str, Any] = {}
        if ref is not None:
            arch = {
                "layers": ref.layers,
                "kv_heads": ref.kv_heads,
                "head_dim": ref.head_dim,
            }
            kind = "MoE" if ref.is_moe else "dense"
            basis = (
                f"assumed architecture: {ref.layers} layers x {ref.kv_heads} KV heads x head dim "
                f"{ref.head_dim}, as {ref.name} ({ref.params_b:g}B), the catalog's {kind} "
                "grouped-query-attention model nearest in size, every layer global"
            )
            if moe:
                basis += "; active parameters unknown, so speed assumes all are read per token"
        shown = (
            f"{name} (not in the catalog, {label} {'MoE' if moe else 'dense'}, estimated)"
            if name
            else f"{label} model (generic {'MoE' if moe else 'dense'}, parameter count only)"
        )
        return ModelSpec(
            id=f"generic-{label.lower()}",
            name=shown,
            params_b=params_b,
            native_precision="bf16",
            generic=True,
            estimate_basis=basis,
            source="parameter count given by the user; attention layout estimated",
            **arch,
        )

    def _reference_model(self, params_b: float, moe: bool) -> ModelSpec | None:
        """The catalog's GQA language model nearest in size (log scale), MoE or dense, of the
        common shape: every layer global (no sliding windows, as Gemma's) and head dim 128."""
        pool = [
            m
            for m in self.models.values()
            if m.kind == "llm"
            and m.attention == "gqa"
            and m.has_architecture
            and not m.generic
            and m.sliding_window_layers is None
            and m.head_dim == REFERENCE_HEAD_DIM
        ]
        same = [m for m in pool if m.is_moe == moe] or pool
        if not same:
            return None
        return min(same, key=lambda m: (abs(math.log(m.params_b / params_b)), m.params_b))

    # ---- relations
    def gpu_of(self, configuration: Configuration | str) -> Gpu:
        c = self._config(configuration)
        return self.gpus[c.gpu]

    def link_of(self, configuration: Configuration | str) -> Link:
        """The link the node is sold with (links.yaml), before any card-generation limit."""
        c = self._config(configuration)
        return self.links[c.interconnect]

    def effective_link(self, configuration: Configuration | str) -> Link:
        """The link the cards actually run at: a PCIe Gen4 card in a Gen5 node runs at Gen4 rate."""
        c = self._config(configuration)
        link = self.links[c.interconnect]
        gpu = self.gpus[c.gpu]
        if link.kind == "pcie" and gpu.pcie_gen is not None and gpu.pcie_gen < link.generation:
            for other in self.links.values():
                if other.kind == "pcie" and other.generation == gpu.pcie_gen:
                    return other
        return link

    def expected_topo_label(self, configuration: Configuration | str) -> str | None:
        """What `nvidia-smi topo -m` shows between every two cards of an NVLink node (its
        board's label: NV4 on a 4-GPU HGX A100, NV18 on an 8-GPU HGX H100); None for PCIe."""
        c = self._config(configuration)
        if self.links[c.interconnect].kind != "nvlink":
            return None
        if c.topo_label:
            return c.topo_label
        g = self.gpus[c.gpu]
        return f"NV{g.nvlink_links}" if g.nvlink_links else None

    def accepted_topo_labels(self, configuration: Configuration | str) -> list[str]:
        """Labels healthy besides the board's: a node sold as a 4-GPU board without NVSwitch may
        be 4 cards of an 8-GPU NVSwitch board, whose pairs show every link (NV12 A100, NV18
        H100); fewer links than the board's label stay a defect."""
        c = self._config(configuration)
        g = self.gpus[c.gpu]
        if self.links[c.interconnect].kind != "nvlink" or c.nvswitch or not g.nvlink_links:
            return []
        full = f"NV{g.nvlink_links}"
        return [full] if full != self.expected_topo_label(c) else []

    def llm_models(self) -> list[ModelSpec]:
        return [m for m in self.models.values() if m.kind == "llm"]

    # ---- helpers
    def _config(self, configuration: Configuration | str) -> Configuration:
        if isinstance(configuration, Configuration):
            return configuration
        return self.find_configuration(configuration)

    def _model_name(self, model_id: str) -> str:
        return self.models[model_id].name

    @staticmethod
    def _closest(key: str, keys: dict[str, str], name: Any, n: int = 5) -> list[str]:
        hits = difflib.get_close_matches(key, list(keys), n=20, cutoff=0.5)
        if key:
            hits += [k for k in keys if key in k or (len(k) > 2 and k in key)]
        out: list[str] = []
        for hit in hits:
            shown = name(keys[hit])
            if shown not in out:
                out.append(shown)
        return out[:n]


def _strip_model_noise(text: str) -> str:
    text = text.split("/")[-1] if "/" in text else text
    return _NOISE_WORDS.sub(
        " ",
        text.lower()
        .replace("-", " ")
        .replace("_", " ")
        .replace("q4 k m", "")
        .replace("q5 k m", "")
        .replace("q8 0", ""),
    )


_COUNT_CARD = re.compile(r"^(?:(\d{1,2})x)?(.+?)(?:x(\d{1,2}))?$")


def _count_and_card(key: str) -> tuple[int | None, str]:
    """'4xa100' -> (4, 'a100'); 'h100x8' -> (8, 'h100'); 'h100' -> (None, 'h100')."""
    match = _COUNT_CARD.match(key)
    if not match:
        return None, key
    count = match.group(1) or match.group(3)
    return (int(count) if count else None), match.group(2)


def _family(gpu_id: str) -> str:
    """The card without its form factor: 'a100-sxm4' -> 'a100', 'h100-pcie' -> 'h100'."""
    return normalize(re.sub(r"-(pcie|sxm\d?)$", "", gpu_id))


def _strip_config_noise(text: str) -> str:
    return _CONFIG_NOISE.sub(" ", text.lower())


# ---------------------------------------------------------------- loading


def load_catalog(folder: Path | str) -> Catalog:
    """Read and validate the four catalog files in `folder`. Raises CatalogError on any problem."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CatalogError(f"catalog folder {folder} does not exist (set SIZING_CATALOG)")
    gpus = _load_section(folder, "gpus", Gpu)
    links = _load_section(folder, "links", Link)
    configurations = _load_section(folder, "configurations", Configuration)
    models = _load_section(folder, "models", ModelSpec)

    gpu_file = FILES["gpus"]
    for i, g in enumerate(gpus.values(), 1):
        if g.nvlink_link is not None and g.nvlink_link not in links:
            _ref_error(folder, gpu_file, g.id, i, "nvlink_link", "link", g.nvlink_link, links)
    config_file = FILES["configurations"]
    for i, c in enumerate(configurations.values(), 1):
        if c.gpu not in gpus:
            _ref_error(folder, config_file, c.id, i, "gpu", "card", c.gpu, gpus)
        if c.interconnect not in links:
            _ref_error(folder, config_file, c.id, i, "interconnect", "link", c.interconnect, links)
        _check_board(folder / config_file, i, c, gpus[c.gpu], links[c.interconnect])
    seen: dict[str, str] = {}
    for i, m in enumerate(models.values(), 1):
        for alias in (m.id, m.name, *m.aliases):
            key = normalize(alias)
            if seen.get(key, m.id) != m.id:
                raise CatalogError(
                    f"{folder / FILES['models']}: entry '{m.id}' (#{i}): field 'aliases': "
                    f"{alias!r} is already a name of '{seen[key]}'",
                    file=str(folder / FILES["models"]),
                    entry=m.id,
                    field="aliases",
                )
            seen[key] = m.id
    return Catalog(
        folder=folder, gpus=gpus, links=links, configurations=configurations, models=models
    )


def _check_board(path: Path, index: int, c: Configuration, gpu: Gpu, link: Link) -> None:
    """An NVLink node states its board, and its topo label is what that board shows: the card's
    links on an NVSwitch board, split evenly over the other cards without one."""
    if link.kind != "nvlink" or gpu.nvlink_links is None:
        return
    if c.board is None or c.nvswitch is None or c.topo_label is None:
        missing = [f for f in ("board", "nvswitch", "topo_label") if getattr(c, f) is None]
        fld, problem = missing[0], f"an NVLink node needs {', '.join(missing)}"
    else:
        per_pair = gpu.nvlink_links if c.nvswitch else gpu.nvlink_links // max(c.count - 1, 1)
        if c.topo_label == f"NV{per_pair}":
            return
        fld = "topo_label"
        problem = (
            f"{c.topo_label} does not match the board: {gpu.nvlink_links} links per card "
            + ("through NVSwitch" if c.nvswitch else f"over {c.count - 1} peers")
            + f" show NV{per_pair}"
        )
    raise CatalogError(
        f"{path}: entry '{c.id}' (#{index}): field '{fld}': {problem}",
        file=str(path),
        entry=c.id,
        field=fld,
    )


def _ref_error(
    folder: Path,
    file: str,
    entry: str,
    index: int,
    fld: str,
    what: str,
    value: str,
    known: Iterable[str],
) -> None:
    close = difflib.get_close_matches(value, list(known), n=3, cutoff=0.4)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise CatalogError(
        f"{folder / file}: entry '{entry}' (#{index}): field '{fld}': "
        f"unknown {what} {value!r}{hint}",
        file=str(folder / file),
        entry=entry,
        field=fld,
    )


def _load_section(folder: Path, section: str, cls: type[T]) -> dict[str, T]:
    path = folder / FILES[section]
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"{where}: file missing", file=where) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{where}: cannot read: {exc}", file=where) from None
    try:
        data = yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if mark is not None:
            near = _entry_before_line(text, mark.line)
            entry = f" near entry '{near}'" if near else ""
            raise CatalogError(
                f"{where}: invalid YAML at line {mark.line + 1}, column {mark.column + 1}{entry}: "
                f"{problem}",
                file=where,
                entry=near,
            ) from None
        raise CatalogError(f"{where}: invalid YAML: {problem}", file=where) from None
    if not isinstance(data, dict) or section not in data:
        raise CatalogError(f"{where}: expected a top-level '{section}:' list", file=where)
    items = data[section]
    if not isinstance(items, list) or not items:
        raise CatalogError(f"{where}: '{section}' must be a non-empty list", file=where)
    out: dict[str, T] = {}
    for i, raw in enumerate(items, 1):
        ident = raw.get("id") if isinstance(raw, dict) else None
        entry = f"'{ident}' (#{i})" if ident else f"#{i}"
        if not isinstance(raw, dict):
            raise CatalogError(
                f"{where}: entry {entry}: expected a mapping of fields", file=where, entry=str(i)
            )
        try:
            record = cls.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "(entry)"
            msg = err["msg"]
            count = exc.error_count()
            extra = f" ({count} problems in this entry)" if count > 1 else ""
            raise CatalogError(
                f"{where}: entry {entry}: field '{loc}': {msg}{extra}",
                file=where,
                entry=str(ident or i),
                field=loc,
            ) from None
        _check_numbers(record.model_dump(), where, entry, str(ident or i))
        if record.id in out:
            first = list(out).index(record.id) + 1
            raise CatalogError(
                f"{where}: entry {entry}: field 'id': duplicate id (first used by entry #{first})",
                file=where,
                entry=str(ident),
                field="id",
            )
        out[record.id] = record
    return out


MAX_PRICE_USD = 1_000_000  # a month of the largest node is a few ten thousand dollars
MAX_CATALOG_NUMBER = 1e15  # parameter counts are the largest numbers (1e12 for the biggest)


def _check_numbers(values: Any, where: str, entry: str, ident: str, path: str = "") -> None:
    """Every number must be finite and plausible: `1e400` (infinity), `.nan` or a price of a
    billion would load and then break (or mislead) every answer that touches the entry."""
    if isinstance(values, dict):
        for key, value in values.items():
            _check_numbers(value, where, entry, ident, f"{path}.{key}" if path else str(key))
        return
    if isinstance(values, list | tuple):
        for n, value in enumerate(values):
            _check_numbers(value, where, entry, ident, f"{path}.{n}")
        return
    if isinstance(values, bool) or not isinstance(values, int | float | Decimal):
        return
    problem = None
    magnitude = abs(float(values))
    if not math.isfinite(values):
        problem = f"{values} is not a finite number"
    elif "usd" in path.lower() and magnitude > MAX_PRICE_USD:
        problem = f"{values} is not a plausible price (more than {MAX_PRICE_USD:,} USD)"
    elif magnitude > MAX_CATALOG_NUMBER:
        problem = f"{values} is implausibly large (more than {MAX_CATALOG_NUMBER:g})"
    if problem:
        raise CatalogError(
            f"{where}: entry {entry}: field '{path}': {problem}",
            file=where,
            entry=ident,
            field=path,
        )


def _entry_before_line(text: str, line: int) -> str | None:
    found = None
    for row in text.splitlines()[: line + 1]:
        m = re.match(r"\s*-\s*id:\s*['\"]?([^'\"\s#]+)", row)
        if m:
            found = m.group(1)
    return found
