"""`Answer.chart` as inline SVG for the HTML eval report's answer view: the same picture the
widget draws (api/static/widget.js `chartNode`): monthly price (x) against tokens/s (y), NVLink
filled, PCIe hollow, the recommended configuration ringed and named, and the same figures as a
table. No script, no external asset; every text escaped."""

from __future__ import annotations

from html import escape
from typing import Any

W, H, LEFT, RIGHT, TOP, BOTTOM = 300, 170, 44, 12, 10, 34
BLUE, RED = "#1f6feb", "#d4380d"


def _usd(value: float) -> str:
    return f"${value:,.0f}" if value == int(value) else f"${value:,.2f}"


def chart_html(chart: dict[str, Any] | None) -> str:
    """The chart of one answer ('' when it has none)."""
    points = (chart or {}).get("points") or []
    if not points:
        return ""
    xs = [float(p["usd_per_month"]) for p in points]
    ys = [float(p["tokens_per_s"]) for p in points]
    x0, x1, y1 = min(xs), max(xs), max(ys)
    if x1 == x0:
        x0, x1 = x0 * 0.9, (x1 * 1.1) or 1.0

    def px(v: float) -> float:
        return LEFT + (v - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def py(v: float) -> float:
        return H - BOTTOM - (v / y1 if y1 else 0) * (H - BOTTOM - TOP)

    name = escape(str((chart or {}).get("model_name", "")))
    out = [
        f'<figure class="chart"><figcaption>Price and speed: {name}</figcaption>'
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W * 1.5:.0f}" '
        f'role="img" aria-label="price and tokens/s of the configurations that hold {name}">',
        f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" '
        'stroke="#9aa3ad"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#9aa3ad"/>',
        f'<text x="{px(x0):.1f}" y="{H - BOTTOM + 13}" font-size="9">{_usd(round(x0))}</text>',
        f'<text x="{px(x1):.1f}" y="{H - BOTTOM + 13}" font-size="9" text-anchor="end">'
        f"{_usd(round(x1))}</text>",
        f'<text x="{W / 2}" y="{H - 4}" font-size="9" text-anchor="middle">$ per month</text>',
        f'<text x="{LEFT - 4}" y="{TOP + 8}" font-size="9" text-anchor="end">{y1:.0f}</text>',
        f'<text x="10" y="{(H - BOTTOM) / 2}" font-size="9" text-anchor="middle" '
        f'transform="rotate(-90 10 {(H - BOTTOM) / 2})">tokens/s (one request)</text>',
    ]
    rows = []
    for p, x_value, y_value in zip(points, xs, ys, strict=True):
        x, y = px(x_value), py(y_value)
        rec, nvlink = bool(p.get("recommended")), p.get("link") == "nvlink"
        colour = RED if rec else BLUE
        fill = colour if nvlink else "#fff"
        label = escape(str(p["label"]))
        link = "NVLink" if nvlink else "PCIe"
        title = f"{label}: {_usd(x_value)}/month, {y_value:g} tokens/s, {link}"
        cls = "pt pt-rec" if rec else "pt"
        out.append(f'<g class="{cls}" data-configuration="{escape(str(p["configuration"]))}">')
        out.append(f"<title>{title}{' (recommended)' if rec else ''}</title>")
        if rec:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="none" stroke="{RED}"/>')
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{5.5 if rec else 4.5}" fill="{fill}" '
            f'stroke="{colour}" stroke-width="1.6"/></g>'
        )
        if rec:
            lx = min(max(x, LEFT + 40), W - RIGHT - 40)
            out.append(
                f'<text x="{lx:.1f}" y="{y - 12:.1f}" font-size="9" font-weight="600" '
                f'fill="{RED}" text-anchor="middle">{label}</text>'
            )
        mark = " (recommended)" if rec else ""
        rows.append(
            f"<tr><th scope=row>{label}{mark}</th><td>{_usd(x_value)}</td>"
            f"<td>{y_value:g}</td><td>{link}</td></tr>"
        )
    out.append("</svg>")
    out.append(
        "<details><summary>as a table</summary><table><tr><th>configuration</th>"
        "<th>$ per month</th><th>tokens/s</th><th>link</th></tr>" + "".join(rows) + "</table>"
        "</details></figure>"
    )
    return "".join(out)
