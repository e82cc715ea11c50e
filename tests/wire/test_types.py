"""The wire's timestamps are read one way: RFC 3339 as msgspec reads it, the rest of ISO 8601
as `datetime.fromisoformat` does, a time without an offset in UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from remedy_async._wire._types import SEVENTH_FRACTION_DIGIT, read_timestamp


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2026-03-01T12:00:00Z", datetime(2026, 3, 1, 12, tzinfo=UTC)),
        ("2026-03-01t12:00:00z", datetime(2026, 3, 1, 12, tzinfo=UTC)),
        ("2026-03-01T12:00:00", datetime(2026, 3, 1, 12, tzinfo=UTC)),
        (
            "2026-03-01T12:00:00.5+05:30",
            datetime(2026, 3, 1, 12, 0, 0, 500_000, tzinfo=timezone(timedelta(hours=5.5))),
        ),
        ("2026-03-01T12:00:00.1234567Z", datetime(2026, 3, 1, 12, 0, 0, 123_457, tzinfo=UTC)),
        ("2026-03-01T12:00:00.1234564Z", datetime(2026, 3, 1, 12, 0, 0, 123_456, tzinfo=UTC)),
        ("2026-03-01T23:59:59.9999995Z", datetime(2026, 3, 2, tzinfo=UTC)),
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)),
        ("2026-03-01T12:00Z", datetime(2026, 3, 1, 12, tzinfo=UTC)),
    ],
)
def test_a_timestamp_reads_as_its_instant(text: str, instant: datetime) -> None:
    """Either case of `t` and `z`, a fraction finer than a microsecond rounded to the nearest,
    and the ISO 8601 forms RFC 3339 lacks (a date alone, minutes) all read; no offset is UTC."""
    read = read_timestamp(text)
    assert read == instant
    assert read.utcoffset() == instant.utcoffset()


@pytest.mark.parametrize("text", ["yesterday", "", "2026-13-45T00:00:00Z", "2026-03-01T25:00Z"])
def test_text_that_is_no_timestamp_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=r".+"):
        read_timestamp(text)


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-01T12:00:00Z",
        "2026-03-01T12:00:00.123456Z",
        "2026-03-01T12:00:00.123456+05:30",
        "2026-03-01 12:00:00.1",
        "2026-03-01T12:00:00-08:00",
    ],
)
def test_without_a_finer_digit_fromisoformat_reads_what_read_timestamp_reads(text: str) -> None:
    """Where the fast path calls `fromisoformat` directly (no seventh digit of a second at
    SEVENTH_FRACTION_DIGIT), it reads the same instant."""
    assert len(text) <= SEVENTH_FRACTION_DIGIT or not text[SEVENTH_FRACTION_DIGIT].isdigit()
    parsed = datetime.fromisoformat(text)
    assert (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)) == read_timestamp(text)
