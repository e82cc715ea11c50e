"""`remedy-async probe` and `--config`: report a service's contract, pin it, and use the pin.

The published contract is answered in a MockTransport; a service that drifts from it is a
simulator's (its other paging, naming and error bodies are the simulator's own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from remedy_async import MockRequest, MockResponse, MockTransport
from remedy_async.simulator import Simulator, SimulatorConfig
from tests.loopback import CANARY

from .conftest import UNPUBLISHED, Published, clean_env, cli, cli_here


@pytest.fixture
async def drifting() -> AsyncIterator[Simulator]:
    """A simulator that differs from the contract in paging, naming and error bodies."""
    config = SimulatorConfig(
        seed=4, size=10, paging="cursor", naming="camel", error_format="json-api", token=CANARY
    )
    async with Simulator(config) as running:
        yield running


async def test_probe_says_a_service_follows_the_published_contract() -> None:
    """Against the published contract (and the simulator's health check and agent
    configuration download, which the reference leaves unpublished), the report names the
    offset paging, snake_case naming and the `{"error": "..."}` bodies, the first two as the
    contract's; no drift is warned of; the unknown id is a well-formed UUID, so a 404."""
    service = Published(token=CANARY, beside=UNPUBLISHED)
    outcome = await service.run(
        "probe", "--base-url", service.url, env={"REMEDY_API_TOKEN": CANARY}
    )
    assert outcome.code == 0, outcome.stderr
    text = outcome.stdout.decode()
    row = next(line for line in text.splitlines() if line.strip().startswith("endpoints"))
    assert " ".join(row.split()[1:]) == (
        "offset (the contract's) $.data snake (the contract's) ok 404 error-string"
    )
    assert "error bodies: error-string" in text
    assert "warnings:" not in text


async def test_probe_prints_what_it_found(drifting: Simulator) -> None:
    """The text report names the paging, naming and error shape per collection; exit 0."""
    outcome = await cli_here("probe", "--base-url", drifting.url, env={"REMEDY_API_TOKEN": CANARY})
    assert outcome.code == 0, outcome.stderr
    text = outcome.stdout.decode()
    assert "auth (Authorization: Bearer ***): accepted" in text
    assert "error bodies: json-api" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("endpoints"))
    assert row.split()[1:] == ["cursor", "$.data", "camel", "ok", "404", "json-api"]
    assert "ContractDriftWarning" in text
    assert CANARY not in text + outcome.stderr


async def test_probe_json_and_emitted_config_drive_list(
    drifting: Simulator, tmp_path: Path
) -> None:
    """--format json is one document; --emit-config writes a file that list --config uses."""
    config = tmp_path / "remedy.toml"
    env = {"REMEDY_API_TOKEN": CANARY}
    probed = await cli_here(
        "probe", "--base-url", drifting.url, "--format", "json",
        "--emit-config", str(config), env=env,
    )  # fmt: skip
    assert probed.code == 0, probed.stderr
    document = orjson.loads(probed.stdout)
    assert {found["convention"] for found in document["resources"]} == {"cursor"}
    assert {found["naming"] for found in document["resources"]} == {"camel"}
    assert f"--config {config}" in probed.stderr
    assert CANARY not in config.read_text()

    listed = await cli(
        "list", "endpoints", "--config", str(config), env=clean_env(REMEDY_API_TOKEN=CANARY)
    )
    assert listed.code == 0, listed.stderr
    assert listed.stderr == ""  # pinned: no drift warning
    assert [record["id"] for record in listed.jsonl()] == list(drifting.dataset.ids("endpoints"))


async def test_flags_override_the_config_file(drifting: Simulator, tmp_path: Path) -> None:
    """--base-url beats the file's; a missing profile is a usage error that names it."""
    config = tmp_path / "remedy.toml"
    config.write_text('[default]\nbase_url = "http://127.0.0.1:9"\nnaming = "camel"\n')
    env = clean_env(REMEDY_API_TOKEN=CANARY)
    good = await cli("list", "scopes", "--config", str(config), "--base-url", drifting.url,
                     "--max-items", "3", env=env)  # fmt: skip
    assert good.code == 0, good.stderr
    assert len(good.jsonl()) == 3
    missing = await cli("list", "scopes", "--config", str(config), "--profile", "prod", env=env)
    assert missing.code == 2
    assert "has no profile [prod]" in missing.stderr


async def test_probe_exits_1_when_a_request_failed() -> None:
    """A service whose paging no client can follow: the report says so and the status is 1."""
    config = SimulatorConfig(size=10, disguise_paging=True)
    async with Simulator(config) as simulator:
        outcome = await cli_here("probe", "--base-url", simulator.url)
    assert outcome.code == 1
    assert "PaginationError" in outcome.stdout.decode()


@pytest.mark.parametrize(
    ("target", "message"),
    [("missing-dir/remedy.toml", "is not a directory"), (".", "is a directory")],
)
async def test_an_unwritable_emit_config_is_a_usage_error_before_probing(
    tmp_path: Path, target: str, message: str
) -> None:
    """--emit-config into a missing directory exits 2 without sending anything."""
    outcome = await cli_here(
        "probe", "--base-url", "http://127.0.0.1:9", "--emit-config", str(tmp_path / target)
    )
    assert outcome.code == 2
    assert message in outcome.stderr


async def test_the_environment_names_the_config_file_and_the_auth_header(
    tmp_path: Path,
) -> None:
    """REMEDY_CONFIG stands for --config; REMEDY_AUTH_HEADER for --auth-header."""
    service = Published()

    def keyed(request: MockRequest) -> MockResponse:
        """The service wanting the bare token in X-API-Key, and no Authorization header."""
        if request.headers.get("X-API-Key") != CANARY or "Authorization" in request.headers:
            return MockResponse.json(401, {"error": "Missing or invalid API key."})
        return service.handler(request)

    path = tmp_path / "remedy.toml"
    path.write_text(
        f'[default]\nbase_url = "{service.url}"\nauth_header = "X-API-Key"\nauth_scheme = "none"\n'
    )
    from_file = await cli_here(
        "list", "scopes", env={"REMEDY_CONFIG": str(path), "REMEDY_API_TOKEN": CANARY},
        transport=MockTransport(keyed),
    )  # fmt: skip
    by_header = await cli_here(
        "list", "scopes", "--base-url", service.url, "--auth-scheme", "none",
        env={"REMEDY_AUTH_HEADER": "X-API-Key", "REMEDY_API_TOKEN": CANARY},
        transport=MockTransport(keyed),
    )  # fmt: skip
    assert from_file.code == 0, from_file.stderr
    assert by_header.code == 0, by_header.stderr
    assert from_file.stdout == by_header.stdout != b""


async def test_probe_takes_its_connection_from_config(drifting: Simulator, tmp_path: Path) -> None:
    """probe --config FILE reads the profile's base URL, auth and token variable as every
    client command does, and finds out paging itself whatever the profile pins."""
    config = tmp_path / "remedy.toml"
    config.write_text(
        f'[default]\nbase_url = "{drifting.url}"\ntoken_env = "MY_TOKEN"\npaginator = "offset"\n'
    )
    outcome = await cli_here("probe", "--config", str(config), env={"MY_TOKEN": CANARY})
    assert outcome.code == 0, outcome.stderr
    text = outcome.stdout.decode()
    assert f"Remedy API at {drifting.url}" in text
    assert "auth (Authorization: Bearer ***): accepted" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("endpoints"))
    assert row.split()[1] == "cursor"
    assert "the probe finds out paginator itself, not from --config" in outcome.stderr


async def test_probe_names_collections_as_the_command_line_does(drifting: Simulator) -> None:
    """The text report's rows read `remediation-targets`, as `list` and `export` spell it."""
    outcome = await cli_here("probe", "--base-url", drifting.url, env={"REMEDY_API_TOKEN": CANARY})
    lines = outcome.stdout.decode().splitlines()
    header = next(index for index, line in enumerate(lines) if line.split()[:1] == ["collection"])
    rows = [line.split()[0] for line in lines[header + 1 : header + 5]]
    assert rows == ["endpoints", "remediation-targets", "scopes", "vulnerability-findings"]
