"""python-dtrace's API: a notebook changes `from dtrace import` to `from crumbs.dtrace import`."""

import math
import subprocess
from collections import defaultdict

import pytest

import crumbs
from crumbs.dtrace import DTRACEAGG_COUNT, DTRACEAGG_QUANTIZE, DTraceConsumer, DTraceConsumerThread

from conftest import reads_done

# The lab's bracket script (users.md §1): count system calls between the two raw
# clock_gettime calls around io-benchmark's work loop.
L41 = """
syscall::clock_gettime:return
/execname == "io-benchmark" && !in_benchmark/
{
    in_benchmark = 1;
}

syscall::clock_gettime:entry
/execname == "io-benchmark" && in_benchmark/
{
    in_benchmark = 0;
}

syscall:::entry
/execname == "io-benchmark" && in_benchmark && probefunc != "clock_gettime"/
{
    @a[probefunc] = count();
}
"""


@pytest.mark.parametrize("n", [1, 5])
def test_consumer_thread_around_io_benchmark(iobench, datafile, n):
    values = defaultdict(int)
    calls = []

    def walk(action, identifier, keys, value):
        calls.append((action, identifier))
        values[keys[0]] += value

    t = DTraceConsumerThread(L41, walk_func=walk, out_func=lambda v: None, chew_func=lambda v: None, chewrec_func=lambda v: None, sleep=1)
    t.start()
    done = subprocess.run([iobench, "-r", "-j", "-b", "65536", "-n", str(n), datafile], check=True, capture_output=True, text=True)
    t.stop()
    t.join()
    # 64 KiB read 64 KiB at a time: one read per pass, and lseeks between passes. The
    # second clock_gettime's return starts counting again (the script's own doing, as under
    # DTrace): the file's close, the JSON line's write and exit_group.
    assert reads_done(done.stdout) == n
    assert values[b"read"] == n
    expected = {b"read": n, b"close": 1, b"write": 1, b"exit_group": 1}
    if n > 1:
        expected[b"lseek"] = n - 1
    assert dict(values) == expected
    assert set(calls) == {(DTRACEAGG_COUNT, 1)}


def test_out_chew_and_chewrec(iobench, datafile):
    calls = []
    script = 'syscall::read:entry /execname == "io-benchmark"/ { printf("%d bytes", arg2); trace(arg2); }'
    t = DTraceConsumerThread(
        script,
        out_func=lambda v: calls.append(("out", v)),
        chew_func=lambda cpu: calls.append(("chew", isinstance(cpu, int) and cpu >= 0)),
        chewrec_func=lambda a: calls.append(("chewrec", a)),
        walk_func=None,
    )
    t.start()
    subprocess.run([iobench, "-r", "-b", "16384", "-n", "1", datafile], check=True)
    t.stop()
    t.join()
    # Four reads of 16 KiB; per firing libdtrace's order: chew(cpu), then per action its
    # code (DTRACEACT_PRINTF 3, DTRACEACT_DIFEXPR 1) and its text as bytes, stripped.
    one = [("chew", True), ("chewrec", 3), ("out", b"16384 bytes"), ("chewrec", 1), ("out", b"16384")]
    assert calls == one * 4


def test_consumer_run_for_a_runtime():
    rows, out = [], []
    c = DTraceConsumer(walk_func=lambda *row: rows.append(row), out_func=out.append, chew_func=None, chewrec_func=None)
    c.run('dtrace:::BEGIN { trace("Hello World"); @q = quantize(5); @c["k"] = count(); }', runtime=1)
    assert out == [b"Hello World"]
    (q, count) = sorted(rows, key=lambda r: r[1])
    assert count == (DTRACEAGG_COUNT, 2, [b"k"], 1)
    action, identifier, keys, buckets = q
    assert (action, identifier, keys) == (DTRACEAGG_QUANTIZE, 1, [])
    assert len(buckets) == 127
    assert [b for b in buckets if b[1]] == [((4, 7), 1)]


def test_stacks_reach_walk_symbolized(iobench, datafile):
    rows = []
    script = 'syscall::read:entry /execname == "io-benchmark"/ { @[stack()] = count(); }'
    t = DTraceConsumerThread(script, walk_func=lambda *row: rows.append(row), out_func=None, chew_func=None, chewrec_func=None)
    t.start()
    subprocess.run([iobench, "-r", "-b", "16384", "-n", "1", datafile], check=True)
    t.stop()
    t.join()
    ((action, identifier, keys, value),) = rows
    assert (action, identifier, value) == (DTRACEAGG_COUNT, 1, 4)
    (frames,) = keys
    assert frames and all(isinstance(f, str) and "`" in f for f in frames), frames


def test_run_as_another_threads_target():
    # python-dtrace's README of old: `Thread(target=consumer.run)`, start() never called.
    import threading

    rows = []
    consumer = DTraceConsumerThread('dtrace:::BEGIN { @["k"] = count(); exit(0); }', walk_func=lambda *row: rows.append(row), out_func=None, chew_func=None, chewrec_func=None)
    t = threading.Thread(target=consumer.run)
    t.start()
    t.join(30)
    assert rows == [(DTRACEAGG_COUNT, 1, [b"k"], 1)]


def test_compile_errors_raise():
    with pytest.raises(crumbs.CompileError):
        DTraceConsumer().compile("sadf")
    DTraceConsumer().compile('dtrace:::BEGIN { trace("Hello World"); }')
    with pytest.raises(crumbs.CompileError):
        DTraceConsumerThread("syscall:::entry { x = ; }", walk_func=None).start()


def test_top_level_names():
    assert crumbs.DTraceConsumerThread is DTraceConsumerThread
    assert crumbs.DTraceConsumer is DTraceConsumer
