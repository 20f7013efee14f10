"""crumbs.run(): aggregations, records, frames, how a trace ends."""

import time

import crumbs
from crumbs import Bucket, Row

# io-benchmark -r -b 4096 on a 64 KiB file: 16 reads of 4096 bytes per pass, and no other
# read(2) in the whole process.
READS = "syscall::read:entry /pid == $target/ "


def bench(iobench, datafile, n=3):
    return f"{iobench} -r -b 4096 -n {n} {datafile}"


def test_count_aggregation_is_exact(iobench, datafile):
    r = crumbs.run(READS + "{ @reads = count(); @bytes = sum(arg2); }", cmd=bench(iobench, datafile))
    assert r.aggregations == {"@reads": [Row((), 48)], "@bytes": [Row((), 48 * 4096)]}
    assert r.stopped == "process-exited"
    assert r.status == 0
    assert r.records == []


def test_keyed_rows_come_in_the_text_outputs_order(iobench, datafile):
    # cmd as a list of words, as subprocess takes it.
    cmd = [iobench, "-r", "-b", "4096", "-n", "3", datafile]
    r = crumbs.run("syscall::read:entry,syscall::lseek:entry /pid == $target/ { @[probefunc] = count(); }", cmd=cmd)
    # Sorted by value, as dtrace prints them: 2 lseeks between 3 passes, then 48 reads.
    assert r.aggregations["@"] == [Row(("lseek",), 2), Row(("read",), 48)]
    agg = r.aggregations_by_id[0]
    assert (agg.name, agg.function, agg.id) == ("@", "count", 1)


def test_distributions_are_bucket_lists(iobench, datafile):
    r = crumbs.run(READS + "{ @q = quantize(arg2); @l = lquantize(arg2, 0, 10000, 1000); }", cmd=bench(iobench, datafile))
    assert r.aggregations["@q"] == [Row((), [Bucket(4096, 8191, 48)])]
    assert r.aggregations["@l"] == [Row((), [Bucket(4000, 4999, 48)])]
    # Every bucket of quantize()'s 127 is kept for python-dtrace's walk, in order.
    every = r.aggregations_by_id[0].all_buckets[0]
    assert len(every) == 127
    assert every[0][0] == -(2**63) and every[-1][1] == 2**63 - 1
    assert every[63] == (0, 0, 0) and every[64] == (1, 1, 0) and every[65] == (2, 3, 0)
    assert sum(c for _, _, c in every) == 48


def test_records_carry_probe_cpu_values_and_text(iobench, datafile):
    r = crumbs.run(READS + '{ printf("%s read %d", execname, arg2); trace(arg2); }', cmd=bench(iobench, datafile, n=2))
    assert len(r.records) == 32
    rec = r.records[0]
    assert rec.probe == "syscall:vmlinux:read:entry"
    assert (rec.function, rec.name) == ("read", "entry")
    assert rec.values == ["io-benchmark", 4096, 4096]
    assert rec.text.startswith("io-benchmark read 4096") and rec.text.rstrip().endswith("4096")
    assert isinstance(rec.cpu, int) and rec.cpu >= 0
    assert all(x.values == rec.values for x in r.records)
    # Each firing's time and thread: io-benchmark's one thread, times in order.
    assert {(x.pid, x.tid, x.comm) for x in r.records} == {(r.records[0].pid, r.records[0].pid, "io-benchmark")}
    assert rec.pid > 0
    stamps = [x.ts for x in r.records]
    assert stamps == sorted(stamps) and len(set(stamps)) == 32 and stamps[0] > 0


def test_to_pandas(iobench, datafile):
    r = crumbs.run("syscall::read:entry,syscall::lseek:entry /pid == $target/ { @[probefunc] = count(); }", cmd=bench(iobench, datafile))
    df = r.to_pandas()
    assert list(df.columns) == ["aggregation", "function", "key0", "value"]
    assert df.values.tolist() == [["@", "count", "lseek", 2], ["@", "count", "read", 48]]
    assert dict(zip(df["key0"], df["value"])) == {"lseek": 2, "read": 48}


def test_to_pandas_of_records_and_of_one_distribution(iobench, datafile):
    r = crumbs.run(READS + '{ @q = quantize(arg2); printf("%d", arg2); }', cmd=bench(iobench, datafile, n=1))
    records = r.to_pandas("records")
    assert list(records.columns) == ["probe", "function", "name", "cpu", "ts", "pid", "tid", "comm", "text", "value0"]
    assert len(records) == 16
    assert set(records["comm"]) == {"io-benchmark"} and records["ts"].is_monotonic_increasing
    assert (records["pid"] == records["tid"]).all() and records["pid"].iloc[0] > 0
    assert set(records["value0"]) == {4096} and set(records["text"]) == {"4096"}
    q = r.to_pandas("@q")
    assert list(q.columns) == ["aggregation", "function", "low", "high", "count"]
    assert q.values.tolist() == [["@q", "quantize", 4096, 8191, 16]]


def test_to_polars(iobench, datafile):
    r = crumbs.run(READS + "{ @[probefunc] = count(); @q = quantize(arg2); }", cmd=bench(iobench, datafile))
    df = r.to_polars()
    assert df.columns == ["aggregation", "function", "key0", "value", "low", "high", "count"]
    assert df.rows() == [("@", "count", "read", 48, None, None, None), ("@q", "quantize", None, None, 4096, 8191, 48)]
    assert r.to_polars("@").select("value").to_series().to_list() == [48]
    records = crumbs.run(READS + "{ trace(arg2); }", cmd=bench(iobench, datafile, n=1)).to_polars("records")
    assert records.columns == ["probe", "function", "name", "cpu", "ts", "pid", "tid", "comm", "text", "value0"]
    assert records.height == 16 and records["comm"].unique().to_list() == ["io-benchmark"]
    assert records["ts"].is_sorted() and records["ts"].n_unique() == 16 and (records["pid"] == records["tid"]).all()


def test_stacks_arrive_symbolized(iobench, datafile):
    r = crumbs.run(READS + "{ @[stack()] = count(); }", cmd=bench(iobench, datafile, n=1))
    (row,) = r.aggregations["@"]
    (frames,) = row.keys
    assert row.value == 16
    assert isinstance(frames, list) and frames and all(isinstance(f, str) for f in frames)
    assert any("`" in f and "+0x" in f for f in frames), frames
    assert not any(f.startswith("0x") for f in frames), frames


def test_exit_ends_the_trace_with_its_status():
    r = crumbs.run('dtrace:::BEGIN { trace("hi"); exit(3); }')
    assert (r.stopped, r.status) == ("exit", 3)
    assert [x.values for x in r.records] == [["hi"]]
    assert r.records[0].probe == "dtrace:::BEGIN"


def test_duration_ends_the_trace():
    start = time.monotonic()
    r = crumbs.run("dtrace:::END { trace(7); }", duration=0.5)
    took = time.monotonic() - start
    assert r.stopped == "interrupted"
    assert 0.5 <= took < 10
    assert [x.values for x in r.records] == [[7]]


def test_bpftrace_programs_run_too(iobench, datafile):
    r = crumbs.run('tracepoint:syscalls:sys_enter_read /pid == $target/ { @n = count(); printf("%s %d\\n", comm, args.count); }', cmd=bench(iobench, datafile))
    assert r.aggregations == {"@n": [Row((), 48)]}
    assert [(x.probe, x.values, x.text) for x in r.records] == [("tracepoint:syscalls::sys_enter_read", ["io-benchmark", 4096], "io-benchmark 4096\n")] * 48
    assert repr(r) == "Result(stopped='process-exited', status=0, probes=1, records=48, aggregations=['@n'])"


def test_pid_is_target_and_its_exit_ends_the_trace():
    import subprocess

    p = subprocess.Popen(["sleep", "1"])
    try:
        r = crumbs.run("dtrace:::BEGIN { trace($target); }", pid=p.pid)
    finally:
        p.wait()
    assert [x.values for x in r.records] == [[p.pid]]
    assert (r.stopped, r.pid_exited) == ("process-exited", p.pid)


def test_the_gil_is_released_while_tracing():
    import threading

    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.01)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        r = crumbs.run("dtrace:::END { trace(1); }", duration=1)
    finally:
        done.set()
        counter.join()
    assert r.stopped == "interrupted"
    # About 100 ticks in the second the trace took; none if tracing held the GIL.
    assert len(ticks) > 30


def test_bpftrace_maps_of_values_are_aggregations_without_a_function(iobench, datafile):
    r = crumbs.run("tracepoint:syscalls:sys_enter_read /pid == cpid/ { @size[comm] = args.count; @c = count(); }", cmd=bench(iobench, datafile))
    assert r.aggregations == {"@c": [Row((), 48)], "@size": [Row(("io-benchmark",), 4096)]}
    size = next(a for a in r.aggregations_by_id if a.name == "@size")
    assert (size.function, size.id) == (None, None)
    assert r.to_polars().rows() == [("@c", "count", None, 48), ("@size", None, "io-benchmark", 4096)]


def test_start_then_stop_around_a_workload(iobench, datafile):
    import subprocess

    tracer = crumbs.start('syscall::read:entry /execname == "io-benchmark"/ { @reads = count(); printf("%d", arg2); }')
    subprocess.run([iobench, "-r", "-b", "8192", "-n", "2", datafile], check=True)
    r = tracer.stop()
    assert r.aggregations == {"@reads": [Row((), 16)]}
    assert [x.values for x in r.records] == [[8192]] * 16
    assert r.stopped == "interrupted"


def test_start_and_wait_for_the_end():
    with crumbs.start('dtrace:::BEGIN { trace(1); } profile:::tick-10hz { exit(5); }') as tracer:
        r = tracer.wait(30)
    assert (r.stopped, r.status) == ("exit", 5)
    assert [x.values for x in r.records] == [[1]]


def test_an_aggregation_printa_printed_keeps_the_rows_it_printed(iobench, datafile):
    program = READS + '{ @reads[probefunc] = count(); @bytes = sum(arg2); } dtrace:::END { printa("%s %@d\\n", @reads); }'
    r = crumbs.run(program, cmd=bench(iobench, datafile))
    # DTrace prints @reads only through printa(), @bytes at the end; the Result has both.
    assert r.aggregations == {"@reads": [Row(("read",), 48)], "@bytes": [Row((), 48 * 4096)]}
    assert [x.text for x in r.records] == ["read 48\n"]


def test_wait_gives_none_while_the_trace_goes_on():
    tracer = crumbs.start("profile:::tick-10hz { @ticks = count(); }")
    assert tracer.wait(0.3) is None
    r = tracer.stop()
    assert r.stopped == "interrupted" and r.aggregations["@ticks"][0].value >= 1
