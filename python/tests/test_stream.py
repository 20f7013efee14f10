"""crumbs.trace(): records as they arrive; stopping early; Ctrl-C."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import crumbs


def test_records_stream_then_the_result(iobench, datafile):
    seen = []
    t = crumbs.trace('syscall::read:entry /pid == $target/ { printf("%d", arg2); @n = count(); }', cmd=f"{iobench} -r -b 4096 -n 2 {datafile}")
    for rec in t:
        seen.append(rec.values)
    assert seen == [[4096]] * 32
    assert t.result.aggregations == {"@n": [crumbs.Row((), 32)]}
    assert t.result.stopped == "process-exited"


def test_leaving_the_loop_early_stops_the_trace():
    start = time.monotonic()
    with crumbs.trace('profile:::tick-100hz { trace(1); }') as t:
        for n, rec in enumerate(t):
            if n == 4:
                break
    assert time.monotonic() - start < 10
    # The session is over: nothing more arrives.
    assert list(t) == []


# A child that traces until Ctrl-C: prints "ready" once every probe is attached (BEGIN's
# record), then what run() or trace() gave and how many BPF objects it still holds.
CTRL_C = textwrap.dedent(r"""
    import os, sys, threading
    import crumbs
    PROGRAM = 'dtrace:::BEGIN { printf("ready"); } profile:::tick-100hz { @ticks = count(); }'
    def bpf_fds():
        n = 0
        for fd in os.listdir("/proc/self/fd"):
            try:
                n += "bpf" in os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                pass
        return n
    if sys.argv[1] == "trace":
        t = crumbs.trace(PROGRAM)
        for rec in t:
            print(rec.text, flush=True)
        r = t.result
    else:
        # run() hands records over only at the end: say "ready" once BEGIN's clause has had
        # time to fire (it runs once the probes are attached).
        threading.Timer(1.0, lambda: print("ready", flush=True)).start()
        r = crumbs.run(PROGRAM)
        assert [x.text for x in r.records] == ["ready"]
    print(r.stopped, r.aggregations["@ticks"][0].value > 0, bpf_fds(), flush=True)
""")


@pytest.mark.parametrize("how", ["trace", "run"])
def test_ctrl_c_stops_cleanly_and_keeps_the_aggregations(how):
    p = subprocess.Popen([sys.executable, "-c", CTRL_C, how], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    # Stopped by the interrupt, the aggregation read, and no BPF program, map or link left.
    assert out.split() == ["interrupted", "True", "0"], (out, err)
