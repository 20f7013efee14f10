"""crumbs' Chrome trace events (spec.md §9.12) as the HPC I/O readers load them: a
`-F -o trace.pfw.gz` of io-benchmark's reads read back line by line into pandas as
DFTracer's analyzer and Dask do, with polars' read_ndjson, and whole as Perfetto reads it;
span counts, named args and column types exact."""

import gzip
import json
import os
import subprocess

import pandas as pd
import polars as pl

from conftest import REPO

CRUMBS = os.environ.get("CRUMBS_BIN") or str(REPO / "target/x86_64-unknown-linux-gnu/debug/crumbs")

# Only io-benchmark's reads between its two raw clock_gettime calls count (the L41 bracket);
# the entry names the size and the category, the return traces the result.
PROGRAM = """
syscall::clock_gettime:return /pid == $target && !in_b/ { in_b = 1; }
syscall::clock_gettime:entry /pid == $target && in_b/ { in_b = 0; }
syscall::read:entry /pid == $target && in_b/ { this->cat = "POSIX"; trace(this->cat); this->size = arg2; trace(this->size); }
syscall::read:return /pid == $target && in_b/ { trace(arg0); }
"""

# 64 KiB in 16 KiB reads, three passes.
READS = 12


def trace(iobench, datafile, tmp_path):
    """Runs the program around io-benchmark into a gzip'd .pfw; its path."""
    out = tmp_path / "trace.pfw.gz"
    cmd = f"{iobench} -r -n 3 -b 16K {datafile}"
    r = subprocess.run([CRUMBS, "-F", "-o", str(out), "-e", PROGRAM, "-c", cmd], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return out


def event_lines(path):
    """The event lines, as DFTracer's analyzer takes them: gzip'd text, `[` and `]` skipped."""
    with gzip.open(path, "rt") as f:
        return [line for line in f if line.strip() and line[0] not in "[]"]


def test_dftracer_and_dask_style_lines_into_pandas(iobench, datafile, tmp_path):
    path = trace(iobench, datafile, tmp_path)
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    assert (lines[0], lines[-1]) == ("[", "]")
    df = pd.DataFrame([json.loads(line) for line in event_lines(path)])
    spans = df[df["ph"] == "X"]
    assert len(spans) == READS
    assert set(spans["name"]) == {"read"} and set(spans["cat"]) == {"POSIX"}
    assert spans["ts"].dtype == "float64" and spans["dur"].dtype == "float64"
    assert spans["pid"].dtype == "int64" and spans["tid"].dtype == "int64"
    assert (spans["dur"] > 0).all() and spans["ts"].is_monotonic_increasing
    # The args by name: the entry's size, the return's result.
    args = pd.json_normalize(spans["args"].tolist())
    assert list(args.columns) == ["size", "arg0"]
    assert args["size"].tolist() == [16384] * READS and args["arg0"].tolist() == [16384] * READS
    # The metadata events name the process and its thread.
    meta = df[df["ph"] == "M"]
    assert sorted(meta["name"]) == ["process_name", "thread_name"]
    assert {a["name"] for a in meta["args"]} == {"io-benchmark"}
    assert len(df) == READS + 2
    # A Dask-style summary: calls and time per function and category.
    summary = spans.groupby(["cat", "name"])["dur"].agg(["count", "sum"])
    assert summary.loc[("POSIX", "read"), "count"] == READS
    assert round(summary.loc[("POSIX", "read"), "sum"] * 1000) == sum(round(d * 1000) for d in spans["dur"])


def test_polars_reads_the_event_lines(iobench, datafile, tmp_path):
    path = trace(iobench, datafile, tmp_path)
    df = pl.read_ndjson("".join(event_lines(path)).encode())
    assert df.schema["name"] == pl.String and df.schema["cat"] == pl.String and df.schema["ph"] == pl.String
    assert df.schema["ts"] == pl.Float64 and df.schema["dur"] == pl.Float64
    assert df.schema["pid"] == pl.Int64 and df.schema["tid"] == pl.Int64
    spans = df.filter(pl.col("ph") == "X")
    assert spans.height == READS
    assert spans["name"].unique().to_list() == ["read"]
    assert spans["args"].struct.field("size").to_list() == [16384] * READS
    assert spans["args"].struct.field("arg0").to_list() == [16384] * READS
    # Metadata events have no cat, ts or dur: null there.
    meta = df.filter(pl.col("ph") == "M")
    assert meta.height == 2 and meta["ts"].null_count() == 2
    assert meta["args"].struct.field("name").to_list() == ["io-benchmark", "io-benchmark"]


def test_perfetto_style_whole_file_read(iobench, datafile, tmp_path):
    """Perfetto's JSON reader takes the file whole: `[`, then events with whitespace (or
    commas) between them, then `]`. json.load cannot, as the events have no commas between
    them (DFTracer's line format); a reader that skips the separators reads every event."""
    path = trace(iobench, datafile, tmp_path)
    with gzip.open(path, "rt") as f:
        text = f.read()
    decoder = json.JSONDecoder()
    assert text.startswith("[\n") and text.endswith("\n]\n")
    at, events = 1, []
    while True:
        while text[at] in " \n\t,":
            at += 1
        if text[at] == "]":
            break
        event, at = decoder.raw_decode(text, at)
        events.append(event)
    assert at == len(text) - 2
    assert sum(1 for e in events if e["ph"] == "X" and e["name"] == "read") == READS
    assert len(events) == READS + 2


def test_json_lines_records_by_name_into_pandas(iobench, datafile, tmp_path):
    """JSON lines (§9.11): each record's `names` name its `values`, so a record by name is
    dict(zip(names, values)), and a frame of them has a column per traced expression."""
    out = tmp_path / "reads.ndjson"
    program = PROGRAM.replace("syscall::read:return /pid == $target && in_b/ { trace(arg0); }", "")
    cmd = f"{iobench} -r -n 3 -b 16K {datafile}"
    r = subprocess.run([CRUMBS, "-q", "-o", str(out), "-e", program, "-c", cmd], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    records = [r for r in records if r["type"] == "record"]
    assert len(records) == READS
    df = pd.DataFrame([dict(zip(r["names"], r["values"])) for r in records])
    assert list(df.columns) == ["cat", "size"]
    assert df["size"].tolist() == [16384] * READS and set(df["cat"]) == {"POSIX"}
    assert df["size"].dtype == "int64"
