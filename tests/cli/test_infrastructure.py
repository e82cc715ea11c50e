"""The command line's infrastructure options: conditional downloads (--etag, --etag-file), a
request-rate budget (--rate) and proxies (--proxy, REMEDY_PROXY, the standard variables)."""

from __future__ import annotations

from pathlib import Path

from remedy_async.simulator import Simulator

from .conftest import cli_here


async def test_an_etag_file_downloads_only_a_changed_file(
    simulator: Simulator, tmp_path: Path
) -> None:
    """--etag-file saves the ETag of a download; the next run sends it, is told the file is
    unchanged, writes nothing and says notModified."""
    target, saved = tmp_path / "agent.conf", tmp_path / "agent.etag"
    base = ("agent-config", "download", "--base-url", simulator.url, "--out", str(target))
    first = await cli_here(*base, "--etag-file", str(saved))
    target.write_bytes(b"local edit")
    second = await cli_here(*base, "--etag-file", str(saved))
    (before,), (after,) = first.jsonl(), second.jsonl()
    assert (first.code, second.code) == (0, 0)
    assert saved.read_text().strip() == before["etag"] == after["etag"]
    assert (before["notModified"], after["notModified"]) == (False, True)
    assert target.read_bytes() == b"local edit"


async def test_an_etag_to_stdout_writes_nothing_when_unchanged(
    simulator: Simulator, tmp_path: Path
) -> None:
    """--etag with --out - prints no bytes for an unchanged file and says so on stderr."""
    base = ("agent-config", "download", "--base-url", simulator.url, "--out")
    (summary,) = (await cli_here(*base, str(tmp_path))).jsonl()
    unchanged = await cli_here(*base, "-", "--etag", summary["etag"])
    assert unchanged.code == 0
    assert unchanged.stdout == b""
    assert f"not modified (ETag {summary['etag']}): nothing written" in unchanged.stderr
