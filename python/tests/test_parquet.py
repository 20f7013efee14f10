"""crumbs' parquet tables (spec.md §9.13) as KernMLOps-style readers load them: the CLI writes
one file per clause around an io-benchmark run, polars reads it back; columns, types and row
counts exact."""

import os
import subprocess

import polars as pl

from conftest import REPO

CRUMBS = os.environ.get("CRUMBS_BIN") or str(REPO / "target/x86_64-unknown-linux-gnu/debug/crumbs")

# Only io-benchmark's reads between its two raw clock_gettime calls count (the L41 bracket).
PROGRAM = """
syscall::clock_gettime:return /pid == $target && !in_b/ { in_b = 1; }
syscall::clock_gettime:entry /pid == $target && in_b/ { in_b = 0; }
syscall::read:entry /pid == $target && in_b/ { this->bytes = arg2; trace(this->bytes); printf("%s", execname); }
"""


def test_polars_reads_a_table_per_clause(iobench, datafile, tmp_path):
    out = tmp_path / "reads.parquet"
    cmd = f"{iobench} -r -n 3 -b 16K {datafile}"
    r = subprocess.run([CRUMBS, "-q", "-o", str(out), "-e", PROGRAM, "-c", cmd], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reads.3.parquet"]
    df = pl.read_parquet(tmp_path / "reads.3.parquet")
    assert df.schema == pl.Schema(
        {
            "ts": pl.UInt64,
            "cpu": pl.UInt32,
            "pid": pl.UInt32,
            "tid": pl.UInt32,
            "comm": pl.String,
            "probe": pl.String,
            "bytes": pl.Int64,
            "execname": pl.String,
        }
    )
    # 64 KiB in 16 KiB reads, three passes.
    assert df.height == 12
    assert df["bytes"].to_list() == [16384] * 12
    assert set(df["comm"]) == {"io-benchmark"} and set(df["execname"]) == {"io-benchmark"}
    assert set(df["probe"]) == {"syscall:vmlinux:read:entry"}
    assert df["ts"].is_sorted() and df["pid"].n_unique() == 1
