"""What a pasted e-mail says beyond its question: the sender's signature block and a legal
disclaimer are not part of what is asked ("IT Operations | Lumen Legal LLP", "This e-mail … may
be legally privileged" would otherwise be read as a legal question)."""

from __future__ import annotations

import re

# a sign-off alone on its line: "Kind regards,", "Mit freundlichen Grüßen", "Thanks,"
_SIGN_OFF_RX = re.compile(
    r"^\s*(?:(?:best|kind|warm|many)\s+(?:regards|wishes)|regards|best|cheers|sincerely|"
    r"thanks(?: again| in advance)?|thank you|mit freundlichen gr(?:ü|ue)(?:ß|ss)en|"
    r"(?:viele|beste|liebe|freundliche|schöne)\s+gr(?:ü|ue)(?:ß|ss)e|gruß|mfg|vg|lg)\s*[,.!]?\s*$",
    re.I,
)
# where the signature ends: a quoted line, a forward marker, an "On … wrote:" line
_SIGNATURE_END_RX = re.compile(
    r"^\s*(?:>|&gt;|-{2,}\s*(?:forwarded|weitergeleitet|original|urspr)|"
    r"(?:on|am)\s.{4,80}(?:wrote|schrieb)(?:\s.{1,80}:|\s*:?)\s*$|(?:from|von)\s*:)",
    re.I,
)
_DISCLAIMER_RX = re.compile(
    r"\b(?:confidential\w*|vertraulich\w*|privileged|disclaimer|haftungsausschluss)\b.{0,300}"
    r"\b(?:intended "
    r"recipient|privileged|addressee|empfänger\w*|adressat\w*|löschen|delete|notify)",
    re.I | re.S,
)


# "On Tue, Dec 1, 2026 at 9:03 AM Sales <sales@…> wrote:": an earlier message of the thread follows
_ATTRIBUTION_RX = re.compile(
    r"^[ \t]*(?:(?:>|&gt;)[ \t]*)*(?:on|am)\s[^\n]{4,120}(?:wrote|schrieb)(?:\s[^\n]{1,80}:|\s*:?)"
    r"[ \t]*$",  # "Am 02.12.2026 schrieb Vertrieb gpuserver.io:": the name after the verb
    re.I | re.M,
)
_QUOTED_RX = re.compile(r"^[ \t]*(?:>|&gt;)")


# a relaying request about the answer itself ("can you help me answer?", "draft the facts for my
# reply", "was sage ich dem Kunden?", "kann mir jemand bei der Antwort helfen?"): it asks for the
# answer, not for something else (assistant/nlu/asks.py, reading/rules.py; above a quoted
# thread it leaves the thread's questions as the ask)
RELAY_RX = re.compile(
    r"\b(?:help me (?:answer|reply)|draft|reply|respond|answer (?:him|her|them|this)|facts|"
    r"tell (?:him|her|them|the customer)|antwort\w*|fakten|formulier\w*|sage ich|schreibe ich|"
    # "can someone help with this request?", "kann jemand bei dieser Anfrage helfen?"
    r"(?:can|could) (?:someone|somebody|anyone|you) help|help (?:me )?with (?:this|the) "
    r"(?:request|inquiry|one|mail|e-mail|email|ticket)|"
    r"(?:kann|könnte) (?:mir )?(?:jemand|einer|wer|ihr) (?:\w+ ){0,4}helfen|"
    # "… was die SXM4-Variante kostet. weiß das jemand?": asks the team, not a yes/no
    r"wei(?:ß|ss) (?:das|es) (?:jemand|wer|einer|einer von euch)|"
    r"(?:does|do) (?:anyone|anybody|someone|somebody|you guys) know|anyone know|"
    r"(?:kann|könnte) (?:mir )?(?:jemand|wer|einer) sagen|"
    r"(?:can|could) (?:someone|anyone|somebody) tell)\b",
    re.I,
)


def drop_earlier_messages(text: str) -> str:
    """The text without the quoted earlier messages of a thread ("On … wrote:" and the "> "
    lines after it) when the text above already asks something: the reply asks, the history
    only explains it."""
    m = _ATTRIBUTION_RX.search(text)
    asked = re.findall(r"[^.?!\n]*\?", text[: m.start()]) if m else []
    if m is None or all(RELAY_RX.search(q) for q in asked):
        return text  # "kann mir jemand bei der antwort helfen? unten der verlauf": the ask is below
    tail = text[m.end() :].split("\n")
    rest = [line for line in tail if line.strip() and not _QUOTED_RX.match(line)]
    return text[: m.start()].rstrip() + ("\n\n" + "\n".join(rest) if rest else "")


_QUOTE_PREFIX_RX = re.compile(r"^[ \t]*(?:(?:>|&gt;)[ \t]?)+")
_DISCLAIMER_MAX = 600  # characters: a notice, not the message it is attached to


def _unquoted(line: str) -> str:
    return _QUOTE_PREFIX_RX.sub("", line)


def drop_signatures(text: str) -> str:
    """The text without e-mail signature blocks (a sign-off line and the short lines after
    it, up to a quoted or forwarded part) and without legal disclaimer paragraphs; a quoted
    e-mail ("> Thanks, …") is read the same way."""
    lines = text.split("\n")
    if len(lines) < 4:
        return text
    kept: list[str] = []
    skipping = False
    for line in lines:
        plain = _unquoted(line)
        quoted = plain != line
        if skipping and ((_SIGNATURE_END_RX.match(line) and not quoted) or len(plain) > 80):
            skipping = False
        if not skipping and _SIGN_OFF_RX.match(plain):
            skipping = True
        if not skipping:
            kept.append(line)
    paragraphs = re.split(r"\n(?:[ \t]*(?:>|&gt;)?[ \t]*\n)+", "\n".join(kept))
    notices = [p for p in paragraphs if len(p) <= _DISCLAIMER_MAX and _DISCLAIMER_RX.search(p)]
    if len(kept) == len(lines) and not notices:
        return text  # nothing to drop: the text as it came (a paste stays byte for byte)
    return "\n\n".join(
        _before_notice(p) if p in notices else p
        for p in paragraphs
        if p not in notices or _before_notice(p)
    )


def _before_notice(paragraph: str) -> str:
    """A paragraph that ends in a notice with no blank line before it ("> Passt das auf eine
    H100?\n> Viele Grüße\n> Diese E-Mail kann vertrauliche Informationen enthalten …"): the
    lines before the notice's first line ("" when the notice is the whole paragraph)."""
    lines = paragraph.split("\n")
    first = next((i for i, line in enumerate(lines) if _DISCLAIMER_RX.search(line)), 0)
    return "\n".join(lines[:first]).strip()


def what_is_asked(text: str) -> str:
    """The message without its thread history, signatures and disclaimers, and without a
    reaction said before the question ("hm ok thats more than we thought. only inference then -
    is one 4090 enough?")."""
    text = drop_signatures(drop_earlier_messages(text))
    rest = _REACTION_RX.sub("", text, count=1)
    return rest if "?" in rest and rest.strip() else text


# a first sentence that only reacts to the previous answer, made of nothing but such words: "hm
# ok thats more than we thought.", "ah, verstehe.", "oh wow, das ist mehr als gedacht!" (not "hm
# they dont want A6000.", "ok qlora then.")
_FILLER = (
    r"hm+|hmm+|ok(?:ay)?|ah+|oh+|wow|alright|thanks|thank you|thx|ty|danke|gut|na gut|verstehe|"
    r"i see|got it|understood|alles klar|that'?s|thats|that|this|is|das|ist|more|mehr|less|"
    r"weniger|than|als|we|i|wir|ich|thought|expected|gedacht|erwartet|a lot|quite|viel|ganz "
    r"schön|interesting|interessant|good|great|super|cool|damn|schade|to know|zu wissen|so|also|"
    r"then|dann|hmm|well|na"
)
_REACTION_RX = re.compile(
    rf"^\s*(?:hm+|ok(?:ay)?|ah+|oh+|wow|alright|thanks|thx|ty|danke|gut|na gut|verstehe|i see|"
    rf"got it|understood|alles klar)\b(?:[\s,]+(?:{_FILLER})\b)*\s*[.!]+\s+",
    re.IGNORECASE,
)
