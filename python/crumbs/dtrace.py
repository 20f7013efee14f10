"""python-dtrace's consumer API on crumbs, so that a notebook changes one import:

    from crumbs.dtrace import DTraceConsumer, DTraceConsumerThread

The callbacks are called as python-dtrace calls them:
    chew(cpu)                          once per firing that output something
    chewrec(action)                    once per action of it (DTrace's DTRACEACT_* code)
    out(value)                         each action's printed text, as bytes, stripped
    walk(action, identifier, keys, value)
                                       once per aggregation row: action is the function's
                                       DTRACEAGG_* code, identifier the aggregation's id (1
                                       for the first the program names), keys a list (strings
                                       as bytes, as python-dtrace gives them; a stack as a
                                       list of symbolized frame strings), value a number or,
                                       for quantize()/lquantize()/llquantize(), a list of
                                       ((low, high), count) for every bucket.
Differences: walk is called once per row when tracing ends, with the totals (python-dtrace
called it every `sleep` seconds with what had come since the last call, and lost the last
interval at stop(); a walk that adds values up gets the same sums, exactly). start() returns
once every probe is attached, so a workload started after it is traced from its first event,
and a program that does not compile raises CompileError there. Values are not cut to 32
bits, and stacks arrive symbolized.
"""

import sys
import threading

from ._session import Live

# DTrace's action codes (sys/dtrace.h), as python-dtrace passes them on.
DTRACEACT_AGGREGATION = 0x0700
DTRACEAGG_COUNT = DTRACEACT_AGGREGATION + 1
DTRACEAGG_MIN = DTRACEACT_AGGREGATION + 2
DTRACEAGG_MAX = DTRACEACT_AGGREGATION + 3
DTRACEAGG_AVG = DTRACEACT_AGGREGATION + 4
DTRACEAGG_SUM = DTRACEACT_AGGREGATION + 5
DTRACEAGG_STDDEV = DTRACEACT_AGGREGATION + 6
DTRACEAGG_QUANTIZE = DTRACEACT_AGGREGATION + 7
DTRACEAGG_LQUANTIZE = DTRACEACT_AGGREGATION + 8
DTRACEAGG_LLQUANTIZE = DTRACEACT_AGGREGATION + 9

# python-dtrace's status codes of a consumer's work.
DTRACE_WORKSTATUS_ERROR = -1
DTRACE_WORKSTATUS_OKAY = 0
DTRACE_WORKSTATUS_DONE = 1

_AGG_ACTIONS = {
    "count": DTRACEAGG_COUNT,
    "min": DTRACEAGG_MIN,
    "max": DTRACEAGG_MAX,
    "avg": DTRACEAGG_AVG,
    "sum": DTRACEAGG_SUM,
    "stddev": DTRACEAGG_STDDEV,
    "quantize": DTRACEAGG_QUANTIZE,
    "lquantize": DTRACEAGG_LQUANTIZE,
    "llquantize": DTRACEAGG_LLQUANTIZE,
    # bpftrace's: hist() is quantize()'s shape, lhist() lquantize()'s.
    "hist": DTRACEAGG_QUANTIZE,
    "lhist": DTRACEAGG_LQUANTIZE,
}


def simple_chew(cpu):
    """python-dtrace's default chew: says the CPU."""
    print("Running on CPU:", cpu)


def noop_chew(_cpu):
    pass


def simple_chewrec(action):
    """python-dtrace's default chewrec: says the action's code."""
    print("Called action was:", action)


def noop_chewrec(_action):
    pass


def simple_out(value):
    """python-dtrace's default out: says the text."""
    print("Value is:", value)


def noop_out(_value):
    pass


def simple_walk(action, identifier, keys, value):
    """python-dtrace's default walk: prints the row."""
    print(action, identifier, keys, value)


def noop_walk(_action, _identifier, _keys, _value):
    pass


def _or_noop(func, noop):
    return noop if func is None else func


class _Callbacks:
    def __init__(self, chew_func, chewrec_func, out_func, walk_func):
        self.chew = _or_noop(chew_func, noop_chew)
        self.chewrec = _or_noop(chewrec_func, noop_chewrec)
        self.out = _or_noop(out_func, noop_out)
        self.walk = _or_noop(walk_func, noop_walk)

    def record(self, rec):
        # libdtrace's order: the probe, then per action its record, then what it printed.
        self.chew(rec.cpu)
        for action, text in rec.actions:
            self.chewrec(action)
            text = text.strip()
            if text:
                self.out(text.encode())

    def walk_all(self, result):
        for agg in result.aggregations_by_id:
            if agg.function is None:  # a bpftrace map of values: nothing python-dtrace knew
                continue
            action = _AGG_ACTIONS.get(agg.function, DTRACEACT_AGGREGATION)
            for row, buckets in zip(agg.rows, agg.all_buckets):
                value = row.value if buckets is None else [((low, high), count) for low, high, count in buckets]
                self.walk(action, agg.id, [_key(k) for k in row.keys], value)

    def consume(self, live):
        """Calls the callbacks for every event of `live` to its end, then walks."""
        for event in live.events():
            if event[0] == "record":
                self.record(event[1])
        self.walk_all(live.result)


def _key(k):
    # python-dtrace hands string keys over as bytes (C strings).
    return k.encode() if isinstance(k, str) else k


class DTraceConsumer:
    """python-dtrace's consumer: run(script, runtime) traces for `runtime` seconds (or until
    the script exits), calling chew, chewrec and out as records arrive, then walk per
    aggregation row."""

    def __init__(self, chew_func=simple_chew, chewrec_func=simple_chewrec, out_func=simple_out, walk_func=simple_walk):
        self._callbacks = _Callbacks(chew_func, chewrec_func, out_func, walk_func)

    def compile(self, script):
        """Compiles `script` without running it: raises CompileError if it does not compile."""
        Live(script, check_only=True).close()

    def run(self, script, runtime=1):
        live = Live(script, duration=runtime)
        try:
            self._callbacks.consume(live)
        finally:
            live.close()
        return live.result


class DTraceContinuousConsumer:
    """python-dtrace's continuous consumer: go() starts tracing (returning once every probe
    is attached); snapshot() calls the callbacks for what arrived and, once tracing has
    ended, walks the aggregations; stop() ends tracing."""

    def __init__(self, script, chew_func=simple_chew, chewrec_func=simple_chewrec, out_func=simple_out, walk_func=simple_walk):
        self.script = script
        self._callbacks = _Callbacks(chew_func, chewrec_func, out_func, walk_func)
        self._live = None

    def go(self):
        # Ctrl-C stays the caller's: python-dtrace's users catch KeyboardInterrupt and stop().
        self._live = Live(self.script, catch_ctrl_c=False)
        self._live._until("attached")

    def consume(self):
        """Calls the callbacks until tracing has ended (after stop() or exit())."""
        self._callbacks.consume(self._live)
        return DTRACE_WORKSTATUS_DONE

    def stop(self):
        if self._live is not None:
            self._live.stop()

    def close(self):
        if self._live is not None:
            self._live.close()


class DTraceConsumerThread(threading.Thread):
    """python-dtrace's consumer thread: start() starts tracing and returns once every probe
    is attached; stop() ends tracing; the thread then delivers what is left and walks the
    aggregations, so after join() every callback has been called. `consume` and `sleep` are
    accepted for python-dtrace's sake: records are handed over as they arrive, and the
    aggregations once, at the end."""

    def __init__(self, script, consume=True, chew_func=simple_chew, chewrec_func=simple_chewrec, out_func=simple_out, walk_func=simple_walk, sleep=0):
        super().__init__(daemon=True)
        self.consume = consume
        self.sleep_time = sleep
        self.consumer = DTraceContinuousConsumer(script, chew_func, chewrec_func, out_func, walk_func)
        self._should_stop = threading.Event()
        self.error = None

    def start(self):
        self.consumer.go()
        super().start()

    def run(self):
        try:
            # Older notebooks run it as another thread's target, never calling start().
            if self.consumer._live is None:
                self.consumer.go()
            self.consumer.consume()
        except BaseException as e:  # a callback's exception ends the thread; kept for the caller
            self.error = e
            self.consumer.stop()
            print(f"crumbs.dtrace: the consumer thread ended: {e!r}", file=sys.stderr)
        finally:
            self.consumer.close()

    def stop(self):
        self._should_stop.set()
        self.consumer.stop()

    def stopped(self):
        return self._should_stop.is_set()

    def __del__(self):
        consumer = getattr(self, "consumer", None)
        if consumer is not None:
            consumer.close()
