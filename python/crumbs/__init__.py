"""crumbs from Python: run a D (or bpftrace) program and get its records and aggregations
as Python data.

    import crumbs
    r = crumbs.run('syscall:::entry /execname == "dd"/ { @[probefunc] = count(); }',
                   cmd="dd if=/dev/zero of=/dev/null count=1000")
    r.aggregations["@"]          # [Row(keys=('read',), value=1003), ...]
    r.to_pandas()                # or r.to_polars()

    for rec in crumbs.trace('syscall::openat:entry { printf("%s", copyinstr(arg1)); }', duration=5):
        print(rec.cpu, rec.values)

    tracer = crumbs.start('syscall::read:entry /execname == "fio"/ { @ = quantize(arg2); }')
    subprocess.run(["fio", ...])      # traced from its first system call
    result = tracer.stop()

`from crumbs.dtrace import DTraceConsumer, DTraceConsumerThread` is python-dtrace's API.
Tracing needs root (CAP_BPF and CAP_PERFMON). Ctrl-C ends a trace as it ends dtrace's:
the probes are detached and what was gathered is returned.
"""

import threading

from ._result import Aggregation, Bucket, Record, Result, Row
from ._session import CompileError, Live, TraceError

__all__ = [
    "Aggregation",
    "Bucket",
    "CompileError",
    "DTraceConsumer",
    "DTraceConsumerThread",
    "Record",
    "Result",
    "Row",
    "Trace",
    "TraceError",
    "Tracer",
    "run",
    "start",
    "trace",
]


def run(program, cmd=None, pid=None, duration=None, *, options=(), destructive=False):
    """Traces with `program` until it ends and returns a Result.

    program: the program's text (D, or bpftrace's language: told apart by its syntax).
    cmd: a command to run (a string split as a shell splits words, or a list of words),
        started once every probe is attached (`$target` is its pid); tracing ends when it
        exits.
    pid: a process to watch (`$target`); tracing ends when it exits.
    duration: seconds after which tracing ends.
    options: `-x` options ("bufsize=8m", "quiet", ...); destructive: allow system(),
        raise(), stop() (`-w`).
    Without cmd, pid or duration it traces until the program calls exit() or Ctrl-C.
    Raises CompileError for a program that does not compile, TraceError if tracing
    cannot start. The GIL is released while tracing."""
    live = Live(program, cmd, pid, duration, options, destructive)
    try:
        for rec in live.records():
            live.result.records.append(rec)
    finally:
        live.close()
    return live.result


class Trace:
    """Records as they arrive: `for rec in crumbs.trace(...)`. After the last one,
    `result` holds the aggregations and how the trace ended (its `records` stay empty:
    they were handed out). Use it in a `with` block, or call close(), to stop a trace
    before it ends; Ctrl-C ends it as it ends run()."""

    def __init__(self, program, cmd=None, pid=None, duration=None, *, options=(), destructive=False):
        self._live = Live(program, cmd, pid, duration, options, destructive)
        self._records = self._live.records()

    @property
    def result(self):
        return self._live.result

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._records)
        except StopIteration:
            self._live.close()
            raise

    def stop(self):
        """Ends tracing; the records already sent still arrive."""
        self._live.stop()

    def close(self):
        """Ends tracing and waits until the probes are detached."""
        self._live.close()

    def __enter__(self):
        return self

    def __del__(self):
        # A trace dropped before its end stops (the Ctrl-C handler holds the session).
        live = getattr(self, "_live", None)
        if live is not None:
            live.close()

    def __exit__(self, *exc):
        self.close()
        return False


def trace(program, cmd=None, pid=None, duration=None, *, options=(), destructive=False):
    """A streaming iterator of Records (see Trace); the arguments are run()'s."""
    return Trace(program, cmd, pid, duration, options=options, destructive=destructive)


class Tracer:
    """A trace running in the background while Python does something else (see start())."""

    def __init__(self, program, cmd=None, pid=None, duration=None, *, options=(), destructive=False):
        # Ctrl-C stays the caller's (KeyboardInterrupt): a `with` block still stops the trace.
        self._live = Live(program, cmd, pid, duration, options, destructive, catch_ctrl_c=False)
        self._live._until("attached")
        self._error = None
        self._thread = threading.Thread(target=self._consume, name="crumbs-tracer", daemon=True)
        self._thread.start()

    def _consume(self):
        try:
            for rec in self._live.records():
                self._live.result.records.append(rec)
        except BaseException as e:  # raised again by stop()
            self._error = e

    def stop(self):
        """Ends tracing (probes detached, END run, aggregations read) and returns the Result."""
        self._live.stop()
        self._thread.join()
        self._live.close()
        if self._error is not None:
            raise self._error
        return self._live.result

    def wait(self, timeout=None):
        """Waits until the trace ends by itself (exit(), cmd, pid, duration); the Result, or
        None if `timeout` seconds passed first."""
        self._thread.join(timeout)
        return None if self._thread.is_alive() else self.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def start(program, cmd=None, pid=None, duration=None, *, options=(), destructive=False):
    """Starts tracing in the background and returns a Tracer once every probe is attached:
    run the workload, then `result = tracer.stop()`. The arguments are run()'s."""
    return Tracer(program, cmd, pid, duration, options=options, destructive=destructive)


from .dtrace import DTraceConsumer, DTraceConsumerThread  # noqa: E402
