"""The three reports of a run: report.json (stable), junit.xml (CI) and report.html (people).

    write_reports(report, Path("out/eval")) -> {"json": ..., "junit": ..., "html": ...}

The HTML page is self-contained: inline CSS, an inline SVG chart of the pass rate by tag, no
scripts, no external assets; every piece of text from answers and datasets is escaped.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from evals.chart_svg import chart_html
from evals.metric_help import COUNT_METRICS


def write_reports(report: dict[str, Any], folder: Path) -> dict[str, Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": folder / "report.json",
        "junit": folder / "junit.xml",
        "html": folder / "report.html",
    }
    paths["json"].write_text(to_json(report), encoding="utf-8")
    paths["junit"].write_text(to_junit(report), encoding="utf-8")
    paths["html"].write_text(to_html(report), encoding="utf-8")
    return paths


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n"


# --------------------------------------------------------------------------- JUnit


def to_junit(report: dict[str, Any]) -> str:
    suites = ET.Element("testsuites", name="sizing-eval")
    by_ds: dict[str, list[dict[str, Any]]] = {}
    for c in report["cases"]:
        by_ds.setdefault(c["dataset"], []).append(c)
    tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for ds, cases in by_ds.items():
        n_fail = sum(c["status"] == "fail" for c in cases)
        n_err = sum(c["status"] == "error" for c in cases)
        n_skip = sum(c["status"] == "xfail" for c in cases)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"eval.{ds}",
            tests=str(len(cases)),
            failures=str(n_fail),
            errors=str(n_err),
            skipped=str(n_skip),
            time=f"{sum(c['latency_ms'] for c in cases) / 1000:.3f}",
        )
        tot["tests"] += len(cases)
        tot["failures"] += n_fail
        tot["errors"] += n_err
        tot["skipped"] += n_skip
        for c in cases:
            tc = ET.SubElement(
                suite,
                "testcase",
                classname=f"eval.{ds}",
                name=c["id"],
                time=f"{c['latency_ms'] / 1000:.3f}",
            )
            message = "; ".join(c["failures"])[:500]
            body = _failure_text(c)
            if c["status"] == "fail":
                el = ET.SubElement(tc, "failure", message=message, type="EvalFailure")
                el.text = body
            elif c["status"] == "error":
                el = ET.SubElement(tc, "error", message=message, type="EvalError")
                el.text = body
            elif c["status"] == "xfail":
                ET.SubElement(tc, "skipped", message=f"expected failure: {c['xfail']}")
            props = ET.SubElement(tc, "properties")
            ET.SubElement(props, "property", name="tags", value=",".join(c["tags"]))
            ET.SubElement(props, "property", name="language", value=c["language"])
    for k, v in tot.items():
        suites.set(k, str(v))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def _failure_text(c: dict[str, Any]) -> str:
    lines = list(c["failures"])
    for i, t in enumerate(c["turns"], 1):
        lines.append(f"--- turn {i}: {t['question']}")
        if "answer" in t:
            lines.append(t["answer"])
        if t.get("tool_calls"):
            lines.append("tools: " + ", ".join(tc["name"] for tc in t["tool_calls"]))
    return "\n".join(lines)


# --------------------------------------------------------------------------- HTML

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;
color:#1d2430;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d8dde6}
table{border-collapse:collapse;margin:.5rem 0}
td,th{padding:.25rem .6rem;border-bottom:1px solid #eceff4;
text-align:left;vertical-align:top}th{background:#f5f7fa}
.ok{color:#11703a;font-weight:600}.bad{color:#b3261e;font-weight:600}.muted{color:#667085}
.kpi{display:inline-block;margin:.3rem 1.2rem .3rem 0}.kpi b{display:block;font-size:1.4rem}
details{border:1px solid #d8dde6;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}
summary{cursor:pointer;font-weight:600}del{background:#fde2e1;color:#8a1c16}
ins{background:#dcf5e3;color:#0b5a2a;text-decoration:none}mark{background:#fff3bf}
table.side{width:100%;table-layout:fixed}table.side td{width:50%}
.k{font-size:11px;border:1px solid #d8dde6;border-radius:3px;padding:0 .3rem;margin-left:.2rem}
.k-worse{color:#b3261e;border-color:#b3261e}pre{white-space:pre-wrap;background:#f7f8fa;padding:.6rem;
border-radius:4px;overflow-x:auto;font-size:12.5px}li.fail{color:#b3261e}
"""


def _pct(v: Any) -> str:
    return "–" if v is None else f"{v * 100:.1f} %"


def to_html(report: dict[str, Any]) -> str:
    m = report.get("metrics", {})
    counts = report.get("counts", {})
    ok = report.get("pass_rate", 0) or 0
    parts: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Sizing assistant evaluation – {_pct(ok)}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Sizing assistant evaluation</h1>",
        f'<p class="muted">{escape(str(report.get("created", "")))} · mode '
        f"{escape(str(report.get('mode', '')))} · datasets "
        f"{escape(', '.join(report.get('datasets', [])))}</p>",
        "<h2>Summary</h2><div>",
    ]
    kpis = [
        ("pass rate", _pct(ok)),
        ("cases", str(counts.get("cases", 0))),
        ("passed", str(counts.get("passed", 0))),
        ("failed", str(counts.get("fail", 0) + counts.get("error", 0))),
        ("expected failures", str(counts.get("xfail", 0))),
        ("grounding violations", str(m.get("grounding_violations", 0))),
    ]
    for label, value in kpis:
        parts.append(f'<span class="kpi">{escape(label)}<b>{escape(value)}</b></span>')
    parts.append(
        '</div><table class="metrics"><tr><th>metric</th><th>value</th>'
        "<th>what it measures</th><th>a low value means</th></tr>"
    )
    parts.append(_metric_row("pass_rate", _pct(ok)))
    for key, value in m.items():
        shown = (
            f"{value:.2f} ms"
            if key.startswith("latency") and value is not None
            else (str(value) if key in COUNT_METRICS else _pct(value))
        )
        parts.append(_metric_row(key, shown))
    parts.append("</table>")
    judge = report.get("judge") or {}
    if judge.get("enabled"):
        parts.append(
            f"<p>LLM-judged: faithfulness {_pct(judge.get('faithfulness'))}, answer relevancy "
            f"{_pct(judge.get('answer_relevancy'))} "
            f"({escape(str(judge.get('judged', 0)))} answers, "
            f"model {escape(str(judge.get('model', '')))})</p>"
        )
    else:
        parts.append(
            f'<p class="muted">LLM-judged metrics: {escape(str(judge.get("note", "skipped")))}</p>'
        )
    if report.get("compare"):
        parts.append(_compare_html(report["compare"]))
        if report["compare"].get("answers"):
            parts.append(diff_html(report["compare"]["answers"]))
    parts.append(_layers_html(report.get("layers") or {}))
    parts.append("<h2>Pass rate by tag</h2>")
    parts.append(tag_chart(report.get("by_tag", {})))
    failing = [c for c in report["cases"] if c["status"] in ("fail", "error")]
    xfail = [c for c in report["cases"] if c["status"] == "xfail"]
    parts.append(f"<h2>Failing cases ({len(failing)})</h2>")
    if not failing:
        parts.append('<p class="ok">none</p>')
    for c in failing:
        parts.append(_case_html(c))
    if xfail:
        parts.append(f"<h2>Expected failures ({len(xfail)})</h2>")
        for c in xfail:
            parts.append(_case_html(c))
    parts.append(
        "<h2>All cases</h2><table><tr><th>case</th><th>status</th><th>tags</th><th>ms</th></tr>"
    )
    for c in report["cases"]:
        cls = "ok" if c["passed"] else "bad"
        parts.append(
            f'<tr><td>{escape(c["id"])}</td><td class="{cls}">{escape(c["status"])}</td>'
            f"<td>{escape(', '.join(c['tags']))}</td><td>{c['latency_ms']:.1f}</td></tr>"
        )
    parts.append("</table></body></html>\n")
    return "\n".join(parts)


def _metric_row(key: str, shown: str) -> str:
    from evals.metric_help import explain

    h = explain(key)
    means, low = (h.means, h.low) if h else ("", "")
    return (
        f"<tr><td>{escape(key.replace('_', ' '))}</td><td>{escape(shown)}</td>"
        f'<td class="muted">{escape(means)}</td><td class="muted">{escape(low)}</td></tr>'
    )


def _compare_html(cmp: dict[str, Any]) -> str:
    out = [f"<h2>Compared with the baseline ({escape(str(cmp.get('baseline_created')))})</h2><ul>"]
    for key, label in (
        ("fixed", "now passing"),
        ("broken", "now failing"),
        ("new", "new"),
        ("removed", "removed"),
    ):
        items = cmp.get(key) or []
        out.append(f"<li>{escape(label)}: {escape(', '.join(items) or 'none')}</li>")
    out.append("</ul><table><tr><th>metric</th><th>baseline</th><th>current</th><th>Δ</th></tr>")
    for key, v in cmp.get("metrics", {}).items():
        cls = (
            "ok" if key in cmp.get("better", []) else ("bad" if key in cmp.get("worse", []) else "")
        )
        out.append(
            f"<tr><td>{escape(key)}</td><td>{escape(str(v['baseline']))}</td>"
            f'<td>{escape(str(v["current"]))}</td><td class="{cls}">{v["delta"]:+}</td></tr>'
        )
    out.append("</table>")
    return "".join(out)


def _layers_html(layers: dict[str, Any]) -> str:
    """Reader accuracy per gold field, planner accuracy, end-to-end and the failing cases' layers
    (empty when the sets hold no gold readings and no planner cases)."""
    reader, planner = layers.get("reader"), layers.get("planner")
    if not reader or not planner or not (reader["total"] or planner["total"]):
        return ""
    e2e = layers["end_to_end"]
    out = [
        "<h2>Layers: reader, planner, end to end</h2>",
        f"<p>reader {_pct(reader['accuracy'])} ({reader['right']}/{reader['total']} gold fields, "
        f"{reader['cases']} cases) · planner {_pct(planner['accuracy'])} "
        f"({planner['right']}/{planner['total']}) · end to end {_pct(e2e['pass_rate'])} "
        f"({e2e['passed']}/{e2e['total']})</p>",
        "<table><tr><th>reading field</th><th>right</th><th>accuracy</th></tr>",
    ]
    for name, v in sorted(reader["fields"].items(), key=lambda kv: kv[1]["accuracy"] or 0):
        cls = "ok" if v["right"] == v["total"] else "bad"
        out.append(
            f"<tr><td>{escape(name)}</td><td>{v['right']}/{v['total']}</td>"
            f'<td class="{cls}">{_pct(v["accuracy"])}</td></tr>'
        )
    out.append("</table><p>failing cases by layer: ")
    out.append(
        " · ".join(
            f"{escape(k)} {len(ids)}" + (f" ({escape(', '.join(ids))})" if ids else "")
            for k, ids in layers.get("attribution", {}).items()
        )
    )
    out.append("</p>")
    return "".join(out)


def _case_html(c: dict[str, Any]) -> str:
    out = [
        f"<details open><summary>{escape(c['id'])} · {escape(c['status'])} · "
        f"{escape(', '.join(c['tags']))}"
        + (f" · layer: {escape(c['layer'])}" if c.get("layer") else "")
        + "</summary>"
    ]
    for w in (c.get("reader") or {}).get("wrong", []):
        out.append(
            f'<p class="bad">reader, turn {w["turn"]}: {escape(w["field"])} gold '
            f"{escape(json.dumps(w['gold'], ensure_ascii=False))}, read "
            f"{escape(json.dumps(w['actual'], ensure_ascii=False))}</p>"
        )
    if c.get("xfail"):
        out.append(f"<p><b>Known bug:</b> {escape(c['xfail'])}</p>")
    out.append("<ul>")
    for f in c["failures"]:
        out.append(f'<li class="fail">{escape(f)}</li>')
    out.append("</ul>")
    for i, t in enumerate(c["turns"], 1):
        out.append(f"<p><b>Turn {i}:</b> {escape(t['question'])}</p>")
        if t.get("error"):
            out.append(f"<pre>{escape(t['error'])}</pre>")
            continue
        out.append(
            f"<p><b>Answer</b> ({escape(str(t.get('answer_language')))}, "
            f"{t['latency_ms']:.1f} ms)</p>"
        )
        if t.get("summary"):  # the short answer every surface shows first (issue 26)
            words = t.get("summary_words", 0)
            out.append(f"<p><b>Summary</b> ({words} words)</p><pre>{escape(t['summary'])}</pre>")
        if t.get("first_sentence_repaired"):
            out.append(
                f'<p class="muted">first sentence repaired: '
                f"{escape(t['first_sentence_repaired'])}</p>"
            )
        out.append(f"<pre>{escape(t.get('answer', ''))}</pre>")
        out.append(chart_html(t.get("chart")))  # the widget's picture of the choice
        out.append("<p><b>Expectations</b></p>")
        out.append(
            f"<pre>{escape(json.dumps(t.get('expect', {}), indent=2, ensure_ascii=False))}</pre>"
        )
        out.append("<p><b>Checks</b></p><ul>")
        for ch in t["checks"]:
            cls = "" if ch["ok"] else ' class="fail"'
            mark = "✓" if ch["ok"] else "✗"
            out.append(f"<li{cls}>{mark} [{escape(ch['kind'])}] {escape(ch['detail'])}</li>")
        out.append("</ul>")
        cites = t.get("citations") or []
        if cites:
            out.append("<p><b>Citations</b></p><ul>")
            for ct in cites:
                out.append(
                    f"<li>{escape(ct['guide'])} › {escape(ct['section'])} · "
                    f"{escape(ct['url'])}</li>"
                )
            out.append("</ul>")
        out.append("<p><b>Tool calls</b></p>")
        out.append(
            "<pre>"
            + escape(json.dumps(t.get("tool_calls", []), indent=2, ensure_ascii=False))
            + "</pre>"
        )
    out.append("</details>")
    return "\n".join(out)


def tag_chart(by_tag: dict[str, dict[str, Any]]) -> str:
    """A horizontal bar chart (inline SVG) of the pass rate per tag."""
    rows = sorted(by_tag.items())
    if not rows:
        return '<p class="muted">no tags</p>'
    bar_h, gap, label_w, bar_w = 18, 6, 190, 560
    height = len(rows) * (bar_h + gap) + 30
    width = label_w + bar_w + 120
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="pass rate by tag">',
        "<title>Pass rate by tag</title>",
    ]
    for pct in (0, 50, 100):
        x = label_w + bar_w * pct / 100
        out.append(
            f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 20}" stroke="#d8dde6"/>'
            f'<text x="{x:.1f}" y="{height - 5}" font-size="11" text-anchor="middle" '
            f'fill="#667085">{pct} %</text>'
        )
    for i, (tag, v) in enumerate(rows):
        y = i * (bar_h + gap) + 4
        rate = v.get("pass_rate") or 0.0
        colour = "#2e9e5b" if rate >= 0.9 else ("#e0a100" if rate >= 0.6 else "#c23b32")
        w = bar_w * rate
        out.append(
            f'<text x="{label_w - 8}" y="{y + 13}" font-size="12" text-anchor="end">'
            f"{escape(tag)}</text>"
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}">'
            f"<title>{escape(tag)}: {v['passed']}/{v['total']}</title></rect>"
            f'<text x="{label_w + w + 6:.1f}" y="{y + 13}" font-size="11" fill="#1d2430">'
            f"{rate * 100:.0f} % ({v['passed']}/{v['total']})</text>"
        )
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------- answer diff (HTML)


def diff_html(diff: dict[str, Any], limit: int = 200) -> str:
    """What visitors will read differently: the summary line and, per changed case, the old and
    new answer side by side with changed words, prices, verdicts, citations highlighted."""
    from evals.diff import change_lines, word_diff

    out = [
        "<h2>What changes for visitors</h2>",
        f'<p class="summary"><b>{escape(diff["summary_line"])}</b></p>',
    ]
    for c in diff["cases"][:limit]:
        kinds = " ".join(f'<span class="k k-{escape(k)}">{escape(k)}</span>' for k in c["kinds"])
        out.append(
            f"<details{' open' if 'worse' in c['kinds'] else ''}><summary>{escape(c['id'])} "
            f'{kinds} <span class="muted">{escape(str(c["status_before"]))} → '
            f"{escape(str(c['status_after']))}</span></summary>"
        )
        for f in c.get("failures", [])[:4]:
            out.append(f'<p class="bad">{escape(f)}</p>')
        for t in c["turns"]:
            out.append(f"<p><b>Q:</b> {escape(str(t['question']))}</p>")
            lines = change_lines(t)
            if lines:
                out.append(
                    '<ul class="changes">'
                    + "".join(f"<li><mark>{escape(x)}</mark></li>" for x in lines)
                    + "</ul>"
                )
            old, new = [], []
            for op, text in word_diff(t["before"], t["after"]):
                if op == "equal":
                    old.append(escape(text))
                    new.append(escape(text))
                elif op == "delete":
                    old.append(f"<del>{escape(text)}</del>")
                else:
                    new.append(f"<ins>{escape(text)}</ins>")
            out.append(
                '<table class="side"><tr><th>before</th><th>after</th></tr><tr>'
                f"<td><pre>{''.join(old)}</pre></td><td><pre>{''.join(new)}</pre></td></tr></table>"
            )
        out.append("</details>")
    if len(diff["cases"]) > limit:
        out.append(f'<p class="muted">… and {len(diff["cases"]) - limit} more (report.json)</p>')
    return "\n".join(out)


def diff_page(diff: dict[str, Any]) -> str:
    """A self-contained page for `sizing eval diff A.json B.json --report DIR`."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Sizing assistant: answers that changed</title><style>{_CSS}</style></head><body>"
        "<h1>Answers that changed</h1>"
        f'<p class="muted">baseline {escape(str(diff.get("baseline_created")))} → '
        f"{escape(str(diff.get('current_created')))}</p>" + diff_html(diff) + "</body></html>\n"
    )
