"""detect_naming: the naming a record's keys follow, worked out once per shape of record."""

from __future__ import annotations

from remedy_async._models import Endpoint, VulnerabilityFinding
from remedy_async._wire import _naming
from remedy_async._wire._naming import MAX_SHAPES, detect_naming


def test_records_of_one_shape_get_one_answer_whatever_their_values() -> None:
    """A record's values never change the naming found for its keys."""
    first = detect_naming({"id": "a", "agentId": "g", "macAddress": None}, Endpoint)
    again = detect_naming({"id": "b", "agentId": 1, "macAddress": "x"}, Endpoint)
    assert first == again == ("camel", True)


def test_the_same_keys_are_judged_for_each_model_apart() -> None:
    """One shape of keys is answered per model: `agent_id` is a field of endpoints alone."""
    record = {"id": "x", "agent_id": "g", "severity": "high"}
    assert detect_naming(record, Endpoint) == ("snake", True)
    assert detect_naming(record, VulnerabilityFinding) == ("snake", False)


def test_the_order_of_keys_does_not_change_the_answer() -> None:
    """Records whose keys come in another order are answered alike."""
    forward = {"id": "x", "AgentId": "g", "MacAddress": None}
    backward = dict(reversed(forward.items()))
    assert detect_naming(forward, Endpoint) == detect_naming(backward, Endpoint)
    assert detect_naming(backward, Endpoint) == ("pascal", True)


def test_more_shapes_than_remembered_are_still_answered_and_memory_stays_bounded() -> None:
    """Past MAX_SHAPES shapes the memory starts over; every answer stays right."""
    for index in range(MAX_SHAPES * 2 + 3):
        record = {"id": "x", f"unknown-{index}": 1, "agent-id": "g", "mac-address": None}
        assert detect_naming(record, Endpoint) == ("kebab", True)
    assert len(_naming._DETECTED) <= MAX_SHAPES
