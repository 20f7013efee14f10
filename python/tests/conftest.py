"""Shared fixtures: root, tracefs, the io-benchmark workload and a data file for it."""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def pytest_configure(config):
    assert os.geteuid() == 0, "the crumbs Python tests trace for real: run them as root"


@pytest.fixture(scope="session")
def iobench():
    """The io-benchmark binary `cargo build --workspace` builds (CRUMBS_IOBENCH overrides)."""
    path = os.environ.get("CRUMBS_IOBENCH") or str(REPO / "target/x86_64-unknown-linux-gnu/debug/io-benchmark")
    assert os.access(path, os.X_OK), f"io-benchmark not found at {path}: run `cargo build --workspace` first"
    return path


@pytest.fixture(scope="session")
def datafile(iobench, tmp_path_factory):
    """A 64 KiB file for io-benchmark -r."""
    path = tmp_path_factory.mktemp("crumbs") / "iofile"
    subprocess.run([iobench, "-c", "-s", "64K", str(path)], check=True)
    assert path.stat().st_size == 64 * 1024
    return str(path)


def reads_done(stdout):
    """The `reads` field of io-benchmark's -j line."""
    line = next(l for l in stdout.splitlines() if l.startswith("{"))
    return json.loads(line)["reads"]
