"""Parser for the site's guide export format, and the chunker that turns a guide into passages.

The export format (see ``../shared/seeds/`` and ``knowledge/guides/{de,en}/<slug>.txt``)::

    Dimensionierung-Guide · 7 Min. Lesezeit        <- title line with reading time
    # NVLink oder PCIe: Was Ihr Job braucht.       <- guide title
    ...intro paragraphs, lists...
    ## Die Kurzfassung {#tldr}                     <- section; explicit anchor optional
    ### Tensor-Parallelismus {#tensor-parallelism} <- subsection
    | pipe | tables |, ```fenced code```, [links](https://...)
    ---
    Quelle: https://gpuserver.io/de/guides/nvlink-vs-pcie/. ...   <- canonical URL (en: Source:)

Sections get the explicit ``{#anchor}`` when the heading has one (stripped from the title), else a
slugified anchor. Bold pseudo-headings ("**Pipeline-Parallelismus.** Das Modell ...", a short
caption line before a list, table or code block) start their own passage inside the section and
appear in its heading path; their URL is the section's. Tables are split by rows when long, and
every piece repeats the header row; code blocks are never split.

Problems that make a guide unusable (no title, no source line, unclosed code fence, broken
table, empty heading) raise :class:`GuideError` with file and line; :func:`load_corpus` collects
them and carries on with the other files.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

MAX_CHUNK_CHARS = 1100
"""Soft limit for one passage (multilingual-e5-small reads 512 tokens, ~1,500 chars of German)."""

CHUNKER_VERSION = "1"
"""Bumped when chunking changes so stale passages are re-embedded."""

_TITLE_LINE = re.compile(r"(?P<minutes>\d+)\s*(?:Min\.?|min)", re.IGNORECASE)
_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
_ANCHOR = re.compile(r"\s*\{#(?P<anchor>[A-Za-z0-9][A-Za-z0-9_\-]*)\}\s*$")
_BAD_ANCHOR = re.compile(r"\{#[^}]*\}\s*$")
_SOURCE = re.compile(r"^(?P<label>Quelle|Source)\s*:\s*(?P<rest>.*)$")
_URL = re.compile(r"https?://[^\s<>()\"']+")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_TABLE_SEP_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_BOLD_ONLY = re.compile(r"^\*\*(?P<text>[^*].*?)\*\*\s*$")
_BOLD_LEAD = re.compile(r"^\*\*(?P<lead>[^*]+?)\*\*\s*(?P<rest>\S.*)$", re.DOTALL)
_MD_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<url>[^)\s]*)\)")
_GUIDE_URL = re.compile(r"/(?P<lang>de|en)/guides/(?P<slug>[a-z0-9][a-z0-9\-]*)/?")

PSEUDO_HEADING_MAX_CHARS = 60


class GuideError(ValueError):
    """A guide file that cannot be used; carries the file and the 1-based line."""

    def __init__(self, path: str | Path, line: int, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(f"{self.path}:{line}: {message}")

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.path,
            "line": self.line,
            "message": self.message,
            "where": f"{self.path}:{self.line}",
        }


@dataclass(frozen=True)
class Chunk:
    """One passage: what is embedded, indexed and cited."""

    id: str
    guide: str
    language: str
    title: str  # guide title
    section: str  # section title (the guide title for the intro)
    anchor: str  # "" for the intro (URL without fragment)
    heading_path: tuple[str, ...]
    url: str  # canonical URL + #anchor
    text: str  # Markdown as in the guide
    path: str
    line: int
    order: int  # position in the guide

    @property
    def search_text(self) -> str:
        return search_text(self.title, self.heading_path, self.text)

    @property
    def content_hash(self) -> str:
        """Decides re-embedding: changes when the embedded text or the stored Markdown changes."""
        data = f"{CHUNKER_VERSION}\x00{self.search_text}\x00{self.text}".encode()
        return hashlib.sha256(data).hexdigest()[:32]

    def metadata(self) -> dict[str, str | int]:
        return {
            "guide": self.guide,
            "language": self.language,
            "title": self.title,
            "section": self.section,
            "anchor": self.anchor,
            "heading_path": " › ".join(self.heading_path),
            "url": self.url,
            "path": self.path,
            "line": self.line,
            "order": self.order,
            "hash": self.content_hash,
        }


@dataclass
class Section:
    title: str
    anchor: str
    level: int
    line: int
    heading_path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Block:
    kind: str  # paragraph | list | table | code
    lines: list[str]
    line: int

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Guide:
    slug: str
    language: str
    title: str
    url: str
    path: str
    reading_minutes: int | None
    category: str | None
    sections: list[Section]
    chunks: list[Chunk]
    warnings: list[str] = field(default_factory=list)


@dataclass
class Corpus:
    guides: list[Guide]
    errors: list[GuideError]
    files: list[Path]

    @property
    def chunks(self) -> list[Chunk]:
        return [c for g in self.guides for c in g.chunks]

    @property
    def warnings(self) -> list[str]:
        return [w for g in self.guides for w in g.warnings]


def search_text(title: str, heading_path: tuple[str, ...] | list[str], text: str) -> str:
    """The text that is embedded and BM25-indexed: guide title, heading path, plain body."""
    path = " › ".join(heading_path)
    head = f"{title} › {path}" if path else title
    return f"{head}\n{plain_text(text)}"


SOURCE_LIST_TITLES = frozenset(
    {"sources", "quellen", "references", "referenzen", "literatur", "bibliography"}
)
"""Headings (or anchors) of a guide's bibliography: a list of links, indexed but not searched."""


def is_source_list(section: str, anchor: str) -> bool:
    """The guide's source list ("## Quellen {#sources}"): citing it answers nothing."""
    return anchor.lower() in SOURCE_LIST_TITLES or section.strip().lower() in SOURCE_LIST_TITLES


def plain_text(markdown: str) -> str:
    """Markdown links reduced to their text; emphasis markers dropped; table rules removed."""
    text = _MD_LINK.sub(lambda m: m.group("text"), markdown)
    text = text.replace("**", "").replace("`", "")
    lines = [ln for ln in text.splitlines() if not re.fullmatch(r"\s*\|?[\s:|\-]+\|?\s*", ln)]
    return "\n".join(lines)


def slugify(text: str) -> str:
    """GitHub-style anchor: lower case, letters/digits kept (umlauts too), spaces to '-'."""
    text = unicodedata.normalize("NFC", _MD_LINK.sub(lambda m: m.group("text"), text)).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    text = re.sub(r"\s+", "-", text.strip())
    return text.strip("-") or "section"


def _split_row(line: str) -> list[str]:
    body = line.strip()
    body = body.removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells: list[str] = []
    cur: list[str] = []
    in_code = False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            cur.append("\\|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def _check_table(block: Block, path: str) -> None:
    if len(block.lines) < 2:
        raise GuideError(path, block.line, "table has no header separator row (|---|)")
    header = _split_row(block.lines[0])
    sep = _split_row(block.lines[1])
    if not all(_TABLE_SEP_CELL.match(c) for c in sep):
        raise GuideError(path, block.line + 1, "table header is not followed by a |---| row")
    if len(sep) != len(header):
        raise GuideError(
            path,
            block.line + 1,
            f"table separator has {len(sep)} cells, the header has {len(header)}",
        )
    for offset, row in enumerate(block.lines[2:], start=2):
        cells = _split_row(row)
        if len(cells) != len(header):
            raise GuideError(
                path,
                block.line + offset,
                f"table row has {len(cells)} cells, the header has {len(header)}",
            )


def _parse_title_line(line: str) -> tuple[str | None, int | None]:
    m = _TITLE_LINE.search(line)
    minutes = int(m.group("minutes")) if m else None
    category = line.split("·")[0].strip() if "·" in line else None
    return category, minutes


def parse_guide(text: str, path: str | Path = "<string>") -> Guide:
    """Parse one guide export into sections and passages. Raises GuideError (file:line)."""
    path = str(path)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    title: str | None = None
    title_line_no = 0
    category: str | None = None
    minutes: int | None = None
    source_url: str | None = None
    warnings: list[str] = []

    sections: list[Section] = []
    current: Section | None = None  # set once the '# ' title has been read
    stack: list[tuple[int, str]] = []  # (level, title) of open headings below the guide title
    used_anchors: dict[str, int] = {}
    para: list[str] = []
    para_line = 0
    i = 0
    n = len(lines)
    last_line = _last_line(lines)

    def flush_para() -> None:
        nonlocal para
        if para and current is not None:
            kind = "list" if _LIST_ITEM.match(para[0]) else "paragraph"
            current.blocks.append(Block(kind, para, para_line))
        para = []

    while i < n:
        raw = lines[i]
        line_no = i + 1
        stripped = raw.strip()

        if source_url is not None:
            break  # everything after the source line is footer

        if title is None:
            # before the '# ' title: the title line (category · reading time) and blank lines
            m = _HEADING.match(stripped)
            if m and len(m.group("hashes")) == 1:
                title = _ANCHOR.sub("", m.group("text")).strip()
                title_line_no = line_no
                if not title:
                    raise GuideError(path, line_no, "the '# ' title is empty")
                current = Section(title, "", 1, line_no, ())
                sections.append(current)
            elif m:
                raise GuideError(path, line_no, "section heading before the '# ' title")
            elif stripped and category is None and minutes is None:
                category, minutes = _parse_title_line(stripped)
                if minutes is None:
                    warnings.append(f"{path}:{line_no}: title line has no reading time")
            elif stripped:
                raise GuideError(path, line_no, "text before the '# ' title")
            i += 1
            continue

        assert current is not None

        fence = _FENCE.match(raw)
        if fence:
            flush_para()
            marker = fence.group(1)
            start = i
            i += 1
            while i < n and not lines[i].strip().startswith(marker[:3]):
                i += 1
            if i >= n:
                raise GuideError(path, start + 1, "code block is never closed (missing ```)")
            current.blocks.append(Block("code", lines[start : i + 1], start + 1))
            i += 1
            continue

        src = _SOURCE.match(stripped)
        if src and not para and (_GUIDE_URL.search(stripped) or line_no == last_line):
            # the closing line: it names a guide URL, or it is the file's last line
            flush_para()
            urls = _URL.findall(src.group("rest"))
            if not urls:
                raise GuideError(path, line_no, f"'{src.group('label')}:' line has no URL")
            source_url = urls[0].rstrip(".,;:")
            i += 1
            continue

        heading = _HEADING.match(stripped)
        if heading:
            flush_para()
            level = len(heading.group("hashes"))
            htext = heading.group("text")
            if level == 1:
                warnings.append(f"{path}:{line_no}: second '# ' title treated as a section")
                level = 2
            am = _ANCHOR.search(htext)
            if am:
                anchor = am.group("anchor")
                htext = htext[: am.start()].strip()
            elif _BAD_ANCHOR.search(htext):
                raise GuideError(path, line_no, f"malformed anchor in heading {htext!r}")
            else:
                anchor = ""
            htext = htext.strip()
            if not htext:
                raise GuideError(path, line_no, "empty section heading")
            anchor = anchor or slugify(htext)
            if anchor in used_anchors:
                used_anchors[anchor] += 1
                if am:
                    raise GuideError(path, line_no, f"anchor #{anchor} is used twice")
                anchor = f"{anchor}-{used_anchors[anchor] - 1}"
            used_anchors.setdefault(anchor, 1)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, htext))
            current = Section(htext, anchor, level, line_no, tuple(t for _, t in stack))
            sections.append(current)
            i += 1
            continue

        if not stripped:
            flush_para()
            i += 1
            continue

        if _RULE.match(stripped) and not para:
            i += 1
            continue

        if stripped.startswith("|"):
            flush_para()
            start = i
            rows = []
            while i < n and lines[i].strip().startswith("|"):
                rows.append(lines[i].strip())
                i += 1
            block = Block("table", rows, start + 1)
            _check_table(block, path)
            current.blocks.append(block)
            continue

        if not para:
            para_line = line_no
        elif _LIST_ITEM.match(raw) and not _LIST_ITEM.match(para[0]):
            # a list directly under a paragraph line: separate blocks
            flush_para()
            para_line = line_no
        para.append(raw.rstrip())
        i += 1

    flush_para()
    if title is None:
        raise GuideError(path, 1, "no '# ' title line")
    if source_url is None:
        raise GuideError(
            path, _last_line(lines), "no closing 'Quelle:'/'Source:' line with the canonical URL"
        )
    m = _GUIDE_URL.search(source_url)
    if not m:
        raise GuideError(
            path,
            _find_line(lines, source_url),
            f"source URL {source_url!r} is not a /<de|en>/guides/<slug>/ URL",
        )
    language, slug = m.group("lang"), m.group("slug")
    url = source_url if source_url.endswith("/") else source_url + "/"
    p = Path(path)
    if p.parent.name in ("de", "en") and p.parent.name != language:
        warnings.append(
            f"{path}: source URL says language {language!r}, folder says {p.parent.name!r}"
        )
    if p.parent.name in ("de", "en") and p.stem != slug:
        warnings.append(f"{path}: source URL says slug {slug!r}, file is named {p.stem!r}")
    del title_line_no

    guide = Guide(slug, language, title, url, path, minutes, category, sections, [], warnings)
    guide.chunks = _chunk(guide)
    return guide


def _last_line(lines: list[str]) -> int:
    """1-based number of the last non-blank line (1 for an empty file)."""
    for no in range(len(lines), 0, -1):
        if lines[no - 1].strip():
            return no
    return 1


def _find_line(lines: list[str], needle: str) -> int:
    for no, ln in enumerate(lines, start=1):
        if needle in ln:
            return no
    return len(lines)


# --- chunking --------------------------------------------------------------------------------


def _is_navigation(block: Block) -> bool:
    """A list whose items are only links (e.g. 'Weitere Guides'): site navigation, not content."""
    if block.kind != "list":
        return False
    items = [ln for ln in block.lines if _LIST_ITEM.match(ln)]
    if not items:
        return False
    for item in items:
        body = _LIST_ITEM.sub("", item).strip()
        if not _MD_LINK.fullmatch(body):
            return False
    return True


def _is_link_line(block: Block) -> bool:
    """A paragraph that only holds links (call-to-action buttons)."""
    if block.kind != "paragraph":
        return False
    rest = _MD_LINK.sub("", block.text).strip()
    return not rest and bool(_MD_LINK.search(block.text))


def _caption_text(block: Block) -> str | None:
    """A one-line paragraph that names what follows: '**Table caption**' or 'Die kurze Antwort'."""
    if block.kind != "paragraph" or len(block.lines) != 1:
        return None
    line = block.lines[0].strip()
    m = _BOLD_ONLY.match(line)
    if m:
        return m.group("text").strip()
    if (
        len(line) <= PSEUDO_HEADING_MAX_CHARS
        and not re.search(r"[.!?:;,]$", line)
        and "**" not in line
    ):
        return line
    return None


def _bold_lead(block: Block) -> str | None:
    """'**Pipeline-Parallelismus.** Das Modell ...' -> 'Pipeline-Parallelismus'."""
    if block.kind != "paragraph":
        return None
    m = _BOLD_LEAD.match(block.text.strip())
    if not m:
        return None
    lead = m.group("lead").strip().rstrip(".:!?").strip()
    if not lead or len(lead) > PSEUDO_HEADING_MAX_CHARS:
        return None
    return lead


@dataclass
class _Unit:
    blocks: list[Block]
    pseudo: str | None  # pseudo-heading that starts a new passage
    caption: str | None = None  # caption line to repeat when a table is split
    starts: bool = False  # starts a new passage even without a pseudo-heading (bold lead-in)

    @property
    def text(self) -> str:
        return "\n\n".join(b.text for b in self.blocks)

    @property
    def line(self) -> int:
        return self.blocks[0].line


def _units(section: Section) -> list[_Unit]:
    blocks = [b for b in section.blocks if not _is_navigation(b) and not _is_link_line(b)]
    units: list[_Unit] = []
    i = 0
    while i < len(blocks):
        b = blocks[i]
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        caption = _caption_text(b)
        if caption and nxt is not None and nxt.kind in ("list", "table", "code"):
            units.append(_Unit([b, nxt], caption, b.text))
            i += 2
            continue
        lead = _bold_lead(b)
        emphatic = b.kind == "paragraph" and b.text.lstrip().startswith("**")
        units.append(_Unit([b], lead, starts=emphatic))
        i += 1
    return units


def _split_table_unit(unit: _Unit) -> list[_Unit]:
    """Split a long table into row groups; every group repeats the caption and header rows."""
    table = unit.blocks[-1]
    if table.kind != "table" or len(unit.text) <= MAX_CHUNK_CHARS or len(table.lines) <= 3:
        return [unit]
    head = table.lines[:2]
    prefix = [b for b in unit.blocks[:-1]]
    fixed = sum(len(b.text) + 2 for b in prefix) + sum(len(h) + 1 for h in head)
    groups: list[list[str]] = []
    cur: list[str] = []
    size = fixed
    for row in table.lines[2:]:
        if cur and size + len(row) + 1 > MAX_CHUNK_CHARS:
            groups.append(cur)
            cur, size = [], fixed
        cur.append(row)
        size += len(row) + 1
    if cur:
        groups.append(cur)
    out = []
    for g in groups:
        first_row = table.line + table.lines.index(g[0])
        blocks = [*prefix, Block("table", head + g, first_row)]
        out.append(_Unit(blocks, unit.pseudo, unit.caption, unit.starts))
    return out


def _chunk(guide: Guide) -> list[Chunk]:
    chunks: list[Chunk] = []
    order = 0
    for section in guide.sections:
        units: list[_Unit] = []
        for u in _units(section):
            units.extend(_split_table_unit(u))
        groups: list[tuple[str | None, list[_Unit]]] = []
        for u in units:
            if not groups or u.pseudo is not None or u.starts:
                groups.append((u.pseudo, [u]))
                continue
            pseudo, cur = groups[-1]
            size = sum(len(x.text) + 2 for x in cur)
            if size + len(u.text) > MAX_CHUNK_CHARS:
                groups.append((pseudo, [u]))
            else:
                cur.append(u)
        if not groups:
            continue
        base = section.heading_path
        for n, (pseudo, group) in enumerate(groups):
            heading_path = (*base, pseudo) if pseudo and pseudo != section.title else base
            text = "\n\n".join(u.text for u in group).strip()
            if not text:
                continue
            anchor = section.anchor
            url = f"{guide.url}#{anchor}" if anchor else guide.url
            chunk_id = f"{guide.language}/{guide.slug}#{anchor or '_intro'}/{n}"
            chunks.append(
                Chunk(
                    id=chunk_id,
                    guide=guide.slug,
                    language=guide.language,
                    title=guide.title,
                    section=section.title,
                    anchor=anchor,
                    heading_path=heading_path,
                    url=url,
                    text=text,
                    path=guide.path,
                    line=group[0].line,
                    order=order,
                )
            )
            order += 1
    return chunks


def load_guide(path: Path) -> Guide:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise GuideError(path, 1, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise GuideError(path, 1, f"cannot read: {exc.strerror}") from None
    return parse_guide(text, path)


def guide_files(folder: Path) -> list[Path]:
    """All guide files under folder (``<lang>/<slug>.txt``, or any .txt), sorted."""
    if folder.is_file():
        return [folder]
    return sorted(p for p in folder.rglob("*.txt") if p.is_file())


def load_corpus(folder: Path | list[Path]) -> Corpus:
    """Parse every guide; a broken file is reported (GuideError) and the others still load."""
    files = folder if isinstance(folder, list) else guide_files(folder)
    guides: list[Guide] = []
    errors: list[GuideError] = []
    seen: dict[tuple[str, str], str] = {}
    for path in files:
        try:
            guide = load_guide(path)
        except GuideError as exc:
            errors.append(exc)
            continue
        key = (guide.language, guide.slug)
        if key in seen:
            errors.append(
                GuideError(path, 1, f"guide {guide.language}/{guide.slug} is also in {seen[key]}")
            )
            continue
        seen[key] = str(path)
        guides.append(guide)
    return Corpus(guides, errors, list(files))
