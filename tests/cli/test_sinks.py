"""Tables: columns fitted to the terminal's width, the ids never cut (the one column people
copy), other columns shrunk, ids of other records last."""

from __future__ import annotations

import io

from remedy_async._models import ENDPOINTS
from remedy_async.cli._sinks import MIN_COLUMN, TableSink, fit_widths

from .conftest import Published

UUID = "8f7e64c2-b969-4476-b530-03561a49938c"


def test_the_id_column_keeps_its_width_at_80_columns() -> None:
    """The endpoints table's five columns at 80: the id whole, the others shrunk to fit."""
    columns = ("id", "hostname", "operating_system.name", "agent_version", "updated_at")
    row = [UUID, "chi-appliance-000003", "Windows Server 2019", "7.11.4", "2026-10-31T12:55:21Z"]
    widths = fit_widths(columns, [row], 80)
    assert widths[0] == len(UUID)
    assert sum(widths) + 2 * (len(columns) - 1) <= 80
    assert min(widths[1:]) >= MIN_COLUMN


def test_too_narrow_a_terminal_overflows_rather_than_cutting_the_id() -> None:
    """Where even the narrowest other columns leave no room, the id stays whole and the row is
    longer than the terminal (which wraps it)."""
    widths = fit_widths(("id", "name", "status"), [[UUID, "Critical patches", "active"]], 30)
    assert widths == [len(UUID), MIN_COLUMN, MIN_COLUMN]


def test_other_ids_are_shrunk_after_every_other_column() -> None:
    """A target's `endpoint_id` keeps its width while another column can give some."""
    columns = ("id", "endpoint_id", "name", "vendor")
    row = [UUID, UUID, "Google Chrome Enterprise", "Google LLC"]
    roomy = fit_widths(columns, [row], 36 + 36 + 6 + 6 + 6)
    tight = fit_widths(columns, [row], 36 + 20 + 6 + 6 + 6)
    assert roomy == [36, 36, 6, 6]
    assert tight == [36, 20, 6, 6]


async def test_a_table_at_80_columns_shows_every_id_whole(published: Published) -> None:
    """What `list endpoints` draws on an 80-column terminal: each row starts with its whole id
    and no line is longer than 80."""
    stream = io.BytesIO()
    sink = TableSink(ENDPOINTS, stream, width=80)
    sink.write(published.records["endpoints"])
    sink.close()
    lines = stream.getvalue().decode().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert [line.split()[0] for line in lines[2:-1]] == published.ids("endpoints")
    assert any("…" in line for line in lines[2:-1])
