"""What the tests share: the `logicars` command to compare against, and a scratch folder."""

import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> str:
    """The `logicars` command: $LOGICARS_BIN, else the workspace's release build, else
    the one on PATH. The tests that compare with it fail without it."""
    for candidate in (
        os.environ.get("LOGICARS_BIN"),
        str(REPO / "target" / "release" / "logicars"),
        shutil.which("logicars"),
    ):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(
        "the logicars command is needed to compare with: `cargo build --release -p "
        "logicars-cli`, or set LOGICARS_BIN"
    )


def run_cli(cli: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True)
