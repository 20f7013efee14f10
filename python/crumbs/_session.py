"""Driving one native session: its events in order, Ctrl-C turned into a clean stop."""

import shlex
import signal
import sys
import threading

from . import _native
from ._result import Aggregation, Record, Result

# How long one wait for an event may keep Python from running a signal handler.
_POLL = 0.1


class CompileError(Exception):
    """The program did not compile. `str()` is the rendered diagnostic (as the command line
    prints it); `message` is its first line's text, `line` and `col` where it points
    (1-based; 0 when the error is not about the program's text)."""

    def __init__(self, diagnostic, message, line, col):
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.message = message
        self.line = line
        self.col = col


class TraceError(RuntimeError):
    """Tracing could not start or failed (not permitted, a command that cannot run, ...)."""


class Live:
    """A started session: `events()` yields ("record", Record) as records arrive, and fills
    `result` as the session ends. Ctrl-C in the main thread stops the session (probes
    detached, END run, aggregations read) instead of raising; a second Ctrl-C raises
    KeyboardInterrupt."""

    def __init__(self, program, cmd=None, pid=None, duration=None, options=(), destructive=False, check_only=False, catch_ctrl_c=True):
        if not isinstance(program, str):
            raise TypeError(f"program must be a str, not {type(program).__name__}")
        if isinstance(cmd, (list, tuple)):
            # Words as subprocess takes them; the session splits a command as a shell would.
            cmd = shlex.join(str(w) for w in cmd)
        self.result = Result()
        self.interrupted = False
        self._native = _native.Session(program, cmd, pid, duration, [str(o) for o in options], destructive, check_only)
        self._old_handler = None
        self._ended = False
        # Records that came while waiting for something else (BEGIN's, before "attached").
        self._pending = []
        if catch_ctrl_c:
            self._catch_ctrl_c()
        try:
            self._until("compiled")
        except BaseException:
            self.close()
            raise

    def _catch_ctrl_c(self):
        # Only the main thread may set handlers; a process that ignores SIGINT (started in
        # the background) keeps ignoring it.
        if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return
        try:
            old = signal.signal(signal.SIGINT, self._on_sigint)
        except ValueError:  # not the main interpreter
            return
        # None: a handler not set from Python; Python's own is the closest to it.
        self._old_handler = signal.default_int_handler if old is None else old

    def _restore_ctrl_c(self):
        if self._old_handler is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._old_handler)
            self._old_handler = None

    def _on_sigint(self, signum, frame):
        if self.interrupted:
            self._restore_ctrl_c()
            raise KeyboardInterrupt
        self.interrupted = True
        self._native.stop()

    def stop(self):
        """Asks the session to stop; what is left still arrives through events()."""
        self._native.stop()

    def _next(self):
        while True:
            event = self._native.next_event(_POLL)
            if event is not None:
                return event

    def _until(self, kind):
        """Takes events up to one of `kind` (raising for a failure), keeping them for events()."""
        while not self._ended:
            event = self._next()
            if event[0] == "record":
                self._pending.append(event)
                continue
            self._take(event)
            self._pending.append(event)
            if event[0] == kind:
                return event
        return None

    def _take(self, event):
        """Records what `event` says in the result; raises for a failure."""
        kind = event[0]
        r = self.result
        if kind == "compiled":
            r.probes = event[1]
        elif kind == "compile_error":
            raise CompileError(*event[1:])
        elif kind == "message":
            r.messages.append(event[1])
            print(f"crumbs: {event[1]}", file=sys.stderr)
        elif kind == "stopped":
            r.stopped = event[1]
            if event[1] == "process-exited":
                r.pid_exited = event[2]
        elif kind == "finished":
            r.aggregations_by_id = [Aggregation.from_native(a) for a in event[1]]
            r.drops = list(event[2])
            for line in r.drops:
                print(f"crumbs: {line}", file=sys.stderr)
        elif kind == "failed":
            raise TraceError(event[1])
        elif kind == "done":
            r.status = event[1]
        elif kind == "end":
            self._ended = True
            self._restore_ctrl_c()

    def events(self):
        """Every event to the end of the session; records as ("record", Record)."""
        while self._pending:
            event = self._pending.pop(0)
            yield ("record", Record.from_native(event[1])) if event[0] == "record" else event
        while not self._ended:
            event = self._next()
            if event[0] == "record":
                yield ("record", Record.from_native(event[1]))
                continue
            self._take(event)
            yield event

    def records(self):
        """Records that output something as they arrive, to the end of the session."""
        for event in self.events():
            if event[0] == "record" and event[1].outputs_something():
                yield event[1]

    def close(self):
        """Stops the session and waits until its probes are detached."""
        self._native.stop()
        self._native.join()
        self._restore_ctrl_c()
