"""Markdown (as the assistant writes it) to Slack mrkdwn, Slack text back to plain text, and
splitting long mrkdwn within Slack's per-block limits.

Slack mrkdwn differs from Markdown: `*bold*`, `_italic_`, `~strike~`, links as `<url|text>`, no
headings, no tables, and `&`, `<`, `>` must be escaped as HTML entities (otherwise `<...>` is read
as a link or mention). See https://api.slack.com/reference/surfaces/formatting.
"""

import re

_FENCE = re.compile(r"^\s*```")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)(\d{1,3})[.)]\s+(.*)$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*(<[^>]+>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(\s*(<[^>]+>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC_STAR = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")

_PLACEHOLDER = "\x00{}\x00"
_PLACEHOLDER_RE = re.compile("\x00(\\d+)\x00")
_BOLD_MARK = "\x01"

SECTION_TEXT_LIMIT = 3000
"""Slack's limit for the text of a section block."""


def escape(text: str) -> str:
    """Escape the three characters Slack treats as control characters in message text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _link_label(text: str) -> str:
    # a label cannot contain '|' or '>' (they end it); strip Markdown emphasis inside it
    text = _BOLD.sub(r"\2", text)
    text = _ITALIC_STAR.sub(r"\1", text)
    return escape(text.replace("|", "/")).strip()


def _link_url(url: str) -> str:
    url = url.strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    return url.replace("|", "%7C").replace(">", "%3E").replace("<", "%3C").replace(" ", "%20")


def inline(text: str) -> str:
    """Convert inline Markdown (code, links, emphasis) of one line to mrkdwn, escaping the rest."""
    stash: list[str] = []

    def keep(value: str) -> str:
        stash.append(value)
        return _PLACEHOLDER.format(len(stash) - 1)

    text = text.replace("\x00", "").replace(_BOLD_MARK, "")
    text = _CODE_SPAN.sub(lambda m: keep("`" + escape(m.group(2).strip("`")) + "`"), text)
    text = _IMAGE.sub(
        lambda m: keep(f"<{_link_url(m.group(2))}|{_link_label(m.group(1) or 'image')}>"), text
    )
    text = _LINK.sub(
        lambda m: keep(
            f"<{_link_url(m.group(2))}|{_link_label(m.group(1))}>"
            if _link_label(m.group(1))
            else f"<{_link_url(m.group(2))}>"
        ),
        text,
    )
    text = _AUTOLINK.sub(lambda m: keep(f"<{_link_url(m.group(1))}>"), text)
    text = escape(text)
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC_STAR.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = text.replace(_BOLD_MARK, "*")
    while _PLACEHOLDER_RE.search(text):
        text = _PLACEHOLDER_RE.sub(lambda m: stash[int(m.group(1))], text)
    return text


def _plain_cell(cell: str) -> str:
    cell = _LINK.sub(r"\1", cell.strip())
    cell = _BOLD.sub(r"\2", cell)
    cell = _ITALIC_STAR.sub(r"\1", cell)
    return cell.replace("`", "'")


def _table(rows: list[str]) -> list[str]:
    """A Markdown pipe table as an aligned monospace block (Slack has no table markup)."""
    cells = [
        [_plain_cell(c) for c in row.strip().strip("|").split("|")]
        for row in rows
        if not _TABLE_SEPARATOR.match(row)
    ]
    width = max(len(r) for r in cells)
    cells = [r + [""] * (width - len(r)) for r in cells]
    widths = [max(len(r[i]) for r in cells) for i in range(width)]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in cells]
    return ["```", *(escape(line) for line in lines), "```"]


def to_mrkdwn(markdown: str) -> str:
    """Markdown to Slack mrkdwn: **bold** -> *bold*, [t](u) -> <u|t>, headings -> bold lines,
    bullets -> •, tables -> monospace blocks, fenced code kept; &, <, > escaped."""
    out: list[str] = []
    lines = markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            body: list[str] = []
            i += 1
            while i < len(lines) and not _FENCE.match(lines[i]):
                body.append(escape(lines[i]))
                i += 1
            i += 1  # the closing fence (or the end of an unclosed block)
            out.extend(["```", *body, "```"])
            continue
        if _TABLE_ROW.match(line):
            rows = []
            while i < len(lines) and _TABLE_ROW.match(lines[i]):
                rows.append(lines[i])
                i += 1
            out.extend(_table(rows))
            continue
        i += 1
        if m := _HEADING.match(line):
            title = inline(m.group(2)).replace("*", "")
            out.append(f"*{title}*" if title else "")
        elif _RULE.match(line):
            out.append("───")
        elif m := _BULLET.match(line):
            depth = len(m.group(1).expandtabs(4)) // 2
            out.append("    " * depth + ("◦ " if depth else "• ") + inline(m.group(2)))
        elif m := _NUMBERED.match(line):
            depth = len(m.group(1).expandtabs(4)) // 3
            out.append("    " * depth + f"{m.group(2)}. " + inline(m.group(3)))
        elif m := _QUOTE.match(line):
            quoted = inline(m.group(1))
            out.append("> " + quoted if quoted.strip() else "")
        else:
            out.append(inline(line))
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_SLACK_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>]*))?>")
_SLACK_CHANNEL = re.compile(r"<#(C[A-Z0-9]+)(?:\|([^>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!([a-z]+)(?:\^[^>|]*)?(?:\|([^>]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto|tel):[^>|]+)(?:\|([^>]*))?>")


def from_slack(text: str, bot_user_id: str | None = None) -> str:
    """Slack message text to plain text for the assistant: the bot's own mention removed, other
    mentions and links made readable, entities unescaped. Code fences (a pasted
    `nvidia-smi topo -m`) are kept with their line breaks."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>[:,]?\s*", "", text)
    text = _SLACK_MENTION.sub(lambda m: "@" + (m.group(2) or m.group(1)), text)
    text = _SLACK_CHANNEL.sub(lambda m: "#" + (m.group(2) or m.group(1)), text)
    text = _SLACK_SPECIAL.sub(lambda m: "@" + (m.group(2) or m.group(1)), text)
    text = _SLACK_LINK.sub(
        lambda m: m.group(2) if m.group(2) and m.group(2) != m.group(1) else m.group(1), text
    )
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return text.strip()


def split_mrkdwn(text: str, limit: int = SECTION_TEXT_LIMIT) -> list[str]:
    """Split mrkdwn into pieces of at most `limit` characters: at paragraph breaks, then at line
    breaks, then at spaces. A code block cut in two is closed and reopened so both halves render."""
    if len(text) <= limit:
        return [text] if text.strip() else []
    budget = limit - 8  # room for closing/reopening a code fence
    units: list[tuple[str, str]] = []  # (separator before the unit, unit)
    for para in text.split("\n\n"):
        if len(para) <= budget:
            units.append(("\n\n", para))
            continue
        sep = "\n\n"
        for line in para.split("\n"):
            while len(line) > budget:
                cut = line.rfind(" ", 0, budget)
                cut = cut if cut > budget // 2 else budget
                units.append((sep, line[:cut]))
                sep = "\n"
                line = line[cut:].lstrip(" ")
            units.append((sep, line))
            sep = "\n"
    pieces: list[str] = []
    current = ""
    for sep, unit in units:
        candidate = f"{current}{sep}{unit}" if current else unit
        if len(candidate) <= budget:
            current = candidate
        else:
            if current:
                pieces.append(current)
            current = unit
    if current:
        pieces.append(current)
    # balance code fences across pieces
    balanced: list[str] = []
    open_fence = False
    for piece in pieces:
        if open_fence:
            piece = "```\n" + piece
        fences = piece.count("```")
        if fences % 2 == 1:
            piece += "\n```"
            open_fence = True
        else:
            open_fence = False
        balanced.append(piece)
    return [p for p in balanced if p.strip()]
