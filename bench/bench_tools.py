"""Benchmark the sizing tools: one model over all configurations, and all models x all precisions.

Run: .venv/bin/python bench/bench_tools.py  (prints per-call times; the target is under 1 ms for
one model over the whole catalog). Not a test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge.catalog import load_catalog  # noqa: E402
from tools.fit import Requirement, fit_configurations  # noqa: E402
from tools.memory import WeightsInput, precisions_for, weights_memory  # noqa: E402
from tools.throughput import DecodeInput, decode_throughput  # noqa: E402


def timeit(fn: Callable[[], object], repeat: int = 7, number: int = 50) -> tuple[float, float]:
    """Median and best seconds per call over `repeat` rounds of `number` calls."""
    fn()  # warm up
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - start) / number)
    return statistics.median(rounds), min(rounds)


def main() -> None:
    start = time.perf_counter()
    cat = load_catalog(ROOT / "knowledge" / "catalog")
    load_s = time.perf_counter() - start
    configs = list(cat.configurations.values())
    print(
        f"catalog: {len(configs)} configurations, {len(cat.models)} models, "
        f"loaded in {load_s * 1000:.1f} ms"
    )

    m = cat.models["llama-3.3-70b"]
    med, best = timeit(lambda: fit_configurations(Requirement(model=m), configs, cat.gpus))
    flag = "OK" if med < 1e-3 else "ABOVE TARGET"
    print(
        f"fit: Llama 3.3 70B over {len(configs)} configurations: "
        f"{med * 1000:.3f} ms per call (best {best * 1000:.3f} ms; target < 1 ms: {flag})"
    )

    flux = cat.models["flux.1-dev"]
    med, best = timeit(lambda: fit_configurations(Requirement(model=flux), configs, cat.gpus))
    print(f"fit: FLUX.1 [dev] over {len(configs)} configurations: {med * 1000:.3f} ms per call")

    pairs = [(mod, p) for mod in cat.models.values() for p in precisions_for(mod)]

    def all_models_all_precisions() -> None:
        for mod, p in pairs:
            fit_configurations(Requirement(model=mod, precision=p), configs, cat.gpus)  # type: ignore[arg-type]

    med, best = timeit(all_models_all_precisions, repeat=5, number=3)
    print(
        f"fit: all {len(cat.models)} models x their precisions ({len(pairs)} requirements) "
        f"over {len(configs)} configurations: {med * 1000:.1f} ms in all, "
        f"{med / len(pairs) * 1000:.3f} ms per requirement"
    )

    llms = [mod for mod in cat.models.values() if mod.kind == "llm"]
    med, _ = timeit(
        lambda: [
            weights_memory(WeightsInput(model=mod, precision=p))  # type: ignore[arg-type]
            for mod in llms
            for p in precisions_for(mod)
        ],
        number=20,
    )
    n = sum(len(precisions_for(mod)) for mod in llms)
    print(f"weights_memory: {n} calls: {med / n * 1e6:.1f} us per call")

    gpu = cat.gpus["a100-sxm4"]
    med, _ = timeit(lambda: decode_throughput(DecodeInput(model=m, gpu=gpu, cards=4)), number=500)
    print(f"decode_throughput: {med * 1e6:.1f} us per call")


if __name__ == "__main__":
    main()
