"""The first overlap's seven smallest false refusals (issue 33's diagnosis, table of section 1),
each a list's size, its page size and the changes before its n-th request (counted from 0, re-reads
included): `("remove", i)` removes the i-th original record, `("insert", at)` creates one at
position `at` of the list as it stands. Tests of the pure proof and of the client over
loopback both replay them."""

from __future__ import annotations

from typing import Final

Changes = dict[int, list[tuple[str, int]]]

FALSE_REFUSALS: Final[dict[str, tuple[int, int, Changes]]] = {
    "1-removals": (237, 50, {2: [("remove", 10)], 3: [("remove", 20), ("remove", 21)]}),
    "2-created-in-overlap": (5, 3, {1: [("insert", 2)]}),
    "3-created": (237, 50, {1: [("insert", 27), ("insert", 48)], 2: [("remove", 135)]}),
    "4-same-ids-as-page-before": (5, 2, {1: [("insert", 0)]}),
    "5-offset-asked-twice": (
        11,
        2,
        {2: [("remove", 7)], 4: [("remove", 5), ("remove", 2), ("remove", 3)]},
    ),
    "6-start-anchor": (5, 2, {1: [("remove", 1), ("remove", 0)], 2: [("remove", 3)]}),
    "7-creations-near-head": (
        6,
        3,
        {2: [("insert", 2)], 3: [("remove", 1), ("remove", 2)], 4: [("insert", 0)] * 2},
    ),
}
