"""What a trace gives Python: records, aggregations, and frames of either."""

from dataclasses import dataclass, field
from typing import Any, List, NamedTuple, Optional, Tuple


class Bucket(NamedTuple):
    """One bucket of a distribution (quantize(), lquantize(), llquantize(), hist(), ...):
    the values from `low` to `high` (both included) were seen `count` times."""

    low: int
    high: int
    count: int


class Row(NamedTuple):
    """One row of an aggregation: its keys (a tuple, empty for `@a = count()`) and its value:
    a number, or for a distribution the buckets that counted something, lowest first."""

    keys: tuple
    value: Any


@dataclass
class Aggregation:
    """One aggregation as tracing ended: its name (`@a`, `@` for the anonymous one), its
    function, DTrace's identifier (1 for the first the program names) and its rows in the
    order the text output prints them. A bpftrace map of values (`@m[k] = v`) is one too,
    without function or id, its values as they are."""

    name: str
    function: Optional[str]
    id: Optional[int]
    rows: List[Row]
    # Every bucket, zeros included, as (low, high, count): python-dtrace's walk gets them.
    all_buckets: List[Optional[list]] = field(repr=False, default_factory=list)

    @classmethod
    def from_native(cls, d):
        rows, every = [], []
        for keys, value in d["rows"]:
            if isinstance(value, list) and d["function"] is not None:
                every.append(value)
                value = [Bucket(*b) for b in value if b[2] != 0]
            else:
                every.append(None)
            rows.append(Row(tuple(keys), value))
        return cls(d["name"], d["function"], d["id"], rows, every)


@dataclass
class Record:
    """One firing of a clause that output something: the probe (`syscall::read:entry`), its
    function and name, the CPU, the values its actions output in order (trace()'s, each of
    printf()'s arguments), its text as the text output prints it (quiet), and when and where
    it fired: ts (CLOCK_MONOTONIC ns, D's timestamp), pid, tid and comm (D's execname)."""

    probe: str
    function: str
    name: str
    cpu: int
    values: list
    text: str
    ts: int = 0
    pid: int = 0
    tid: int = 0
    comm: str = ""
    # (DTrace action code, text) per action, for python-dtrace's chewrec and out callbacks.
    actions: List[Tuple[int, str]] = field(repr=False, default_factory=list)

    def outputs_something(self):
        # A firing whose clause only called exit() (or setopt()) is a record to DTrace, not
        # to a Result.
        return bool(self.actions or self.values)

    @classmethod
    def from_native(cls, d):
        return cls(d["probe"], d["function"], d["name"], d["cpu"], list(d["values"]), d["text"], d["ts"], d["pid"], d["tid"], d["comm"], list(d["actions"]))


@dataclass
class Result:
    """A whole trace: its records, its aggregations by name, and how it ended."""

    records: List[Record] = field(default_factory=list)
    aggregations_by_id: List[Aggregation] = field(default_factory=list, repr=False)
    # Why tracing stopped: "exit" (a clause called exit()), "interrupted" (stop(), Ctrl-C or
    # the duration), "process-exited" (the cmd or pid ended).
    stopped: Optional[str] = None
    # The exit status the program asked for (exit(N)), else 0.
    status: int = 0
    # How many probes the program matched.
    probes: int = 0
    pid_exited: Optional[int] = None
    # What the kernel could not keep (drops), and faults and notices, one line each.
    drops: List[str] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)

    def __repr__(self):
        # Short: a notebook shows a result after every run, and records can be millions.
        names = [a.name for a in self.aggregations_by_id]
        return f"Result(stopped={self.stopped!r}, status={self.status}, probes={self.probes}, records={len(self.records)}, aggregations={names})"

    @property
    def aggregations(self):
        """Aggregation name (`@a`) -> its rows, each a Row(keys, value)."""
        return {a.name: a.rows for a in self.aggregations_by_id}

    def _rows(self, what):
        if what is None:
            what = "aggregations" if self.aggregations_by_id else "records"
        if what == "records":
            return records_table(self.records)
        if what == "aggregations":
            return aggregations_table(self.aggregations_by_id)
        chosen = [a for a in self.aggregations_by_id if a.name == what or a.name == "@" + what]
        if not chosen:
            names = ", ".join(a.name for a in self.aggregations_by_id) or "none"
            raise KeyError(f"{what!r}: no such aggregation (the program has: {names}); or ask for 'records' or 'aggregations'")
        return aggregations_table(chosen)

    def to_pandas(self, what=None):
        """A pandas DataFrame of the aggregations (columns aggregation, function, key0...,
        then value, or low/high/count with a row per bucket for distributions), of one
        aggregation (`what="@a"`), or of the records (`what="records"`: probe, function,
        name, cpu, ts, pid, tid, comm, text, value0...). By default the aggregations, or the records if the
        program has none."""
        import pandas

        columns, rows = self._rows(what)
        frame = pandas.DataFrame(rows, columns=columns)
        # Numbers stay integers where some rows have none (nullable Int64, not float NaN).
        for name in ("value", "low", "high", "count"):
            if name in columns:
                values = [row[columns.index(name)] for row in rows]
                if None in values and all(isinstance(v, int) and -(2**63) <= v < 2**63 for v in values if v is not None):
                    frame[name] = pandas.array(values, dtype="Int64")
        return frame

    def to_polars(self, what=None):
        """to_pandas()'s table as a polars DataFrame."""
        import polars

        columns, rows = self._rows(what)
        return polars.DataFrame(rows, schema=columns, orient="row", infer_schema_length=None)


def aggregations_table(aggs):
    """(columns, rows): a row per aggregation row, or per bucket of a distribution."""

    def buckets(a, r):
        return r.value if a.function is not None and isinstance(r.value, list) else None

    width = max((len(r.keys) for a in aggs for r in a.rows), default=0)
    distribution = any(buckets(a, r) is not None for a in aggs for r in a.rows)
    scalar = any(buckets(a, r) is None for a in aggs for r in a.rows) or not distribution
    columns = ["aggregation", "function"] + [f"key{i}" for i in range(width)]
    columns += ["value"] if scalar else []
    columns += ["low", "high", "count"] if distribution else []
    rows = []
    for a in aggs:
        for r in a.rows:
            head = [a.name, a.function] + list(r.keys) + [None] * (width - len(r.keys))
            if buckets(a, r) is not None:
                for b in r.value:
                    rows.append(head + ([None] if scalar else []) + [b.low, b.high, b.count])
            else:
                rows.append(head + [r.value] + ([None, None, None] if distribution else []))
    return columns, rows


def records_table(records):
    """(columns, rows): a row per record, its values in columns value0, value1, ..."""
    width = max((len(r.values) for r in records), default=0)
    columns = ["probe", "function", "name", "cpu", "ts", "pid", "tid", "comm", "text"] + [f"value{i}" for i in range(width)]
    rows = [[r.probe, r.function, r.name, r.cpu, r.ts, r.pid, r.tid, r.comm, r.text] + r.values + [None] * (width - len(r.values)) for r in records]
    return columns, rows
