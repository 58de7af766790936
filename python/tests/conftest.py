"""Shared fixtures: the CLI the byte-identity tests compare with and the shared traces
(never copied into the repository: read from ../shared/traces beside the checkout)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACES = pathlib.Path(os.environ.get("GRIDSCOPE_TRACES", ROOT.parent / "shared" / "traces"))
CLI = pathlib.Path(os.environ.get("GRIDSCOPE_CLI", ROOT / "target" / "release" / "gridscope"))

KTH = TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"
SDSC_SP2 = TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"
SDSC_BLUE = TRACES / "SDSC-BLUE-2000-4.2-cln.swf.gz"


@pytest.fixture(scope="session")
def cli():
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: build it with `cargo build --release --bin gridscope`")

    def run(*args, cwd=None):
        out = subprocess.run([str(CLI), *map(str, args)], capture_output=True, cwd=cwd)
        assert out.returncode == 0, out.stderr.decode()
        return out.stdout.decode()

    return run


@pytest.fixture(scope="session")
def kth():
    import gridscope

    return gridscope.read_swf(str(KTH))
