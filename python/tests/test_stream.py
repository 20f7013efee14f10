"""crumbs.trace(): records as they arrive; stopping early; Ctrl-C."""

import os
import signal
import subprocess
import sys
import textwrap
import time

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


CTRL_C = textwrap.dedent(r"""
    import os, sys
    import crumbs
    t = crumbs.trace('dtrace:::BEGIN { printf("ready"); } profile:::tick-100hz { @ticks = count(); }')
    for rec in t:
        print(rec.text, flush=True)
    r = t.result
    def bpf_fds():
        n = 0
        for fd in os.listdir("/proc/self/fd"):
            try:
                n += "bpf" in os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                pass
        return n
    print(r.stopped, r.aggregations["@ticks"][0].value > 0, bpf_fds(), flush=True)
""")


def test_ctrl_c_stops_cleanly_and_keeps_the_aggregations():
    p = subprocess.Popen([sys.executable, "-c", CTRL_C], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    # Stopped by the interrupt, the aggregation read, and no BPF program, map or link left.
    assert out.split() == ["interrupted", "True", "0"], (out, err)
