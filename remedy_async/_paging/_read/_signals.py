"""Refuses a page whose paging signals its convention does not account for.

Every signal of the page (found by `_scan`, anywhere in the envelope and in the headers) that
says the list goes on must be read by the convention, or named in its `ignore`: a continuation
(a link, a token, an integer), a name that speaks of a next page in unknown words, a flag that
more follow (`has_more: true`, `last: false`). A flag saying the end while the convention goes
on is refused too: the two contradict. Backward cursors are never a way forward; a token found
inside the URL being followed is that URL's own. Values are never shown: they may hold secrets.
"""

from __future__ import annotations

from urllib.parse import unquote

from remedy_async._http import JSONResponse
from remedy_async._paging._protocol import Convention, PageRequest, PagingFault, Path
from remedy_async._paging._read._items import Signal, body_signals, header_signals

from ._links import carries
from ._vocabulary import UNKNOWN


class UnreadSignal(PagingFault):
    """A page carries a signal that the list goes on, which its convention does not read."""

    def __init__(self, signal: Signal, reader: str) -> None:
        self.signal = signal
        self.reader = reader
        super().__init__(
            f"the response signals a next page with {signal.where}, which {reader} does not "
            "read, so the list cannot be followed safely"
        )


def refuse_unread_signals(
    convention: Convention,
    response: JSONResponse,
    items_path: Path,
    following: PageRequest | None,
    reader: str | None = None,
) -> None:
    """Raise UnreadSignal for the first signal of the page the convention does not account for."""
    read_paths = {*convention.signal_paths, *convention.ignore}
    read_headers = {name.lower() for name in (*convention.read_headers, *convention.ignore_headers)}
    followed = "" if following is None or following.url is None else str(following.url)
    signals = [*body_signals(response.body, items_path), *header_signals(response.headers)]
    for signal in signals:
        if signal.role == "backward" or not _says_more(signal, following is not None):
            continue
        if signal.header is not None:
            if signal.header.lower() in read_headers:
                continue
        elif signal.path in read_paths:
            continue
        if followed and _within(signal, followed):
            continue
        raise UnreadSignal(signal, reader or f"the {convention.name!r} convention")


def _says_more(signal: Signal, going_on: bool) -> bool:
    """Whether a signal says something the convention must account for."""
    value = signal.value
    if signal.role in ("forward", UNKNOWN):
        if signal.kind == "flag":
            return value is True
        return value not in (None, "", 0)
    if signal.role == "more" and signal.kind == "flag":
        return value is True or (value is False and going_on)
    if signal.role == "last" and signal.kind == "flag":
        return value is False or (value is True and going_on)
    return False


def _within(signal: Signal, followed: str) -> bool:
    """Whether a continuation is the followed URL itself, or a token it carries."""
    text = str(signal.value)
    if not text:
        return False
    if signal.kind == "url":
        shown = unquote(followed)
        return unquote(text) == shown or shown.endswith(unquote(text))
    return carries(followed, text)
