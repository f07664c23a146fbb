"""Questions nobody has asked yet: an endless, deterministic stream of distinct questions made from
templates over the catalog's models, configurations, user counts, contexts and budgets, in German
and English (issue 23: kept answers serve only repeats, so the server's CPU per answer to an
unseen question is measured with these).

    from distinct_questions import DistinctQuestions
    questions = DistinctQuestions(seed=1)
    question, language = next(questions)

The same seed gives the same questions in the same order; two seeds give two different streams
(the bench's servers and its in-process assistant each draw from their own). No question repeats
within a stream.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PRECISIONS = ["BF16", "FP8", "INT4", "AWQ", "FP16", "Q4_K_M"]
CONTEXTS = ["4k", "8k", "16k", "32k", "8,000 tokens", "32,000 tokens", "128k"]

# {model} {config} {users} {conc} {ctx} {prec} {budget}: filled per question
TEMPLATES: dict[str, list[str]] = {
    "en": [
        "Does {model} fit on {config} in {prec}?",
        "What is the cheapest configuration for {model} for {users} users with {ctx} context?",
        "We have {users} users, about {conc} at the same time, and want to run {model}. "
        "Budget ${budget} a month. What do we need?",
        "What will {config} cost per month for {users} users?",
        "How fast is {model} in {prec} on {config}?",
        "Do I need NVLink for {model} on {config} for {users} users?",
        "How much VRAM does {model} need in {prec} with {ctx} context for {conc} concurrent users?",
        "Can we serve {model} to {users} people with at most ${budget} per month?",
    ],
    "de": [
        "Passt {model} in {prec} auf {config}?",
        "Was ist der günstigste Knoten für {model} mit {users} Nutzern und {ctx} Kontext?",
        "Wir haben {users} Mitarbeiter, davon etwa {conc} gleichzeitig, und wollen {model} "
        "betreiben. Budget {budget} $ im Monat. Was brauchen wir?",
        "Was kostet {config} im Monat für {users} Nutzer?",
        "Wie schnell ist {model} in {prec} auf {config}?",
        "Brauche ich NVLink für {model} auf {config} für {users} Nutzer?",
        "Wie viel VRAM braucht {model} in {prec} mit {ctx} Kontext bei {conc} gleichzeitigen "
        "Nutzern?",
        "Reicht ein Budget von {budget} $ im Monat für {model} mit {users} Nutzern?",
    ],
}


def catalog_names() -> tuple[list[str], list[str]]:
    """(model names, configuration names) as people write them: the catalog's names and aliases,
    the configurations' labels and 'N x card' forms."""
    from knowledge.catalog import load_catalog

    catalog = load_catalog(ROOT / "knowledge" / "catalog")
    models: list[str] = []
    for m in catalog.models.values():
        models += [m.name, *(a for a in m.aliases if "/" not in a and ":" not in a)]
    configs: list[str] = []
    for c in catalog.configurations.values():
        g = catalog.gpus[c.gpu]
        configs += [c.label, f"{c.count}x {g.short_name}", f"{c.count} x {g.short_name}"]
    return sorted(set(models)), sorted(set(configs))


class DistinctQuestions(Iterator[tuple[str, str]]):
    """(question, language) pairs, none repeated, deterministic for a seed."""

    def __init__(self, seed: int = 0) -> None:
        self.random = random.Random(seed)
        self.models, self.configs = catalog_names()
        self.seen: set[str] = set()

    def __next__(self) -> tuple[str, str]:
        while True:
            question, language = self._one()
            if question not in self.seen:
                self.seen.add(question)
                return question, language

    def _one(self) -> tuple[str, str]:
        r = self.random
        language = r.choice(("en", "de"))
        users = r.randint(2, 2000)
        question = r.choice(TEMPLATES[language]).format(
            model=r.choice(self.models),
            config=r.choice(self.configs),
            users=users,
            conc=max(1, users // r.randint(2, 10)),
            ctx=r.choice(CONTEXTS),
            prec=r.choice(PRECISIONS),
            budget=f"{r.randrange(500, 60000, 250):,}",
        )
        return question, language


if __name__ == "__main__":
    stream = DistinctQuestions(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 20):
        print("\t".join(next(stream)))
