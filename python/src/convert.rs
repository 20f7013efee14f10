//! The tracing thread's reports as Python objects: tuples for events, dicts for records and
//! aggregations, Python's own types for values.

use crumbs_runtime::output::buckets::every_bucket;
use crate::tracing::{Aggregation, Msg, Record, Stop};
use crumbs_lang::ir::agg::Summary;
use crumbs_runtime::output::{AggRow, Value};
use crumbs_runtime::value_maps::ValueMap;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use pyo3::IntoPyObjectExt;

pub fn event(py: Python<'_>, msg: Msg) -> PyResult<Py<PyAny>> {
    match msg {
        Msg::Compiled { probes } => ("compiled", probes).into_py_any(py),
        Msg::CompileFailed { rendered, message, line, col } => ("compile_error", rendered, message, line, col).into_py_any(py),
        Msg::Attached => ("attached",).into_py_any(py),
        Msg::Record(r) => ("record", record(py, r)?).into_py_any(py),
        Msg::Message(m) => ("message", m).into_py_any(py),
        Msg::Stopped(Stop::Exit(s)) => ("stopped", "exit", s).into_py_any(py),
        Msg::Stopped(Stop::Interrupted) => ("stopped", "interrupted", 0).into_py_any(py),
        Msg::Stopped(Stop::ProcessExited(pid)) => ("stopped", "process-exited", pid).into_py_any(py),
        Msg::Finished { aggregations, maps, drops } => {
            let mut aggs = aggregations.into_iter().enumerate().map(|(i, a)| aggregation(py, i, a)).collect::<PyResult<Vec<_>>>()?;
            for m in maps {
                aggs.push(value_map(py, m)?);
            }
            ("finished", aggs, drops).into_py_any(py)
        }
        Msg::Failed(m) => ("failed", m).into_py_any(py),
        Msg::Done(status) => ("done", status).into_py_any(py),
    }
}

pub fn end(py: Python<'_>) -> PyResult<Py<PyAny>> {
    ("end",).into_py_any(py)
}

fn record(py: Python<'_>, r: Record) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item("probe", r.probe)?;
    d.set_item("function", r.function)?;
    d.set_item("name", r.name)?;
    d.set_item("cpu", r.cpu)?;
    d.set_item("ts", r.ts)?;
    d.set_item("pid", r.pid)?;
    d.set_item("tid", r.tid)?;
    d.set_item("comm", r.comm)?;
    d.set_item("values", r.values.iter().map(|v| value(py, v)).collect::<PyResult<Vec<_>>>()?)?;
    d.set_item("text", r.actions.iter().map(|(_, t)| t.as_str()).collect::<String>())?;
    d.set_item("actions", r.actions)?;
    d.into_py_any(py)
}

/// An aggregation: its name, function, DTrace's identifier (1 for the first the program
/// names) and rows of (keys tuple, value).
fn aggregation(py: Python<'_>, index: usize, a: Aggregation) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    d.set_item("name", a.name)?;
    d.set_item("function", a.function)?;
    d.set_item("id", index + 1)?;
    let rows = a.rows.iter().map(|r| row(py, r)).collect::<PyResult<Vec<_>>>()?;
    d.set_item("rows", rows)?;
    d.into_py_any(py)
}

/// A bpftrace map of values as an aggregation without a function or id, its values as they
/// are.
fn value_map(py: Python<'_>, m: ValueMap) -> PyResult<Py<PyAny>> {
    let d = PyDict::new(py);
    let name = if m.name.starts_with('@') { m.name } else { format!("@{}", m.name) };
    d.set_item("name", name)?;
    d.set_item("function", py.None())?;
    d.set_item("id", py.None())?;
    let rows = m.rows.iter().map(|(keys, v)| {
        let keys = PyTuple::new(py, keys.iter().map(|k| value(py, k)).collect::<PyResult<Vec<_>>>()?)?;
        (keys, value(py, v)?).into_py_any(py)
    });
    d.set_item("rows", rows.collect::<PyResult<Vec<_>>>()?)?;
    d.into_py_any(py)
}

/// (keys, value): a number, or every bucket as (low, high, count), bounds inclusive.
fn row(py: Python<'_>, r: &AggRow) -> PyResult<Py<PyAny>> {
    let keys = PyTuple::new(py, r.keys.iter().map(|k| value(py, k)).collect::<PyResult<Vec<_>>>()?)?;
    let summary = r.data.summary();
    let v = match summary {
        Summary::Scalar(n) => n.into_py_any(py)?,
        // A time series: each interval holding a value as (epoch, value).
        Summary::Series { params, words } => crumbs_lang::ir::agg::tseries::points(params, words).into_py_any(py)?,
        _ => match every_bucket(&summary) {
            Some(b) => b.iter().map(|b| (b.min.unwrap_or(i64::MIN), b.max.unwrap_or(i64::MAX), b.count)).collect::<Vec<_>>().into_py_any(py)?,
            None => py.None(),
        },
    };
    (keys, v).into_py_any(py)
}

/// A value in Python's terms: int (unsigned types read as unsigned), str, bytes, a stack as
/// a list of frame strings, a symbol as its text, tuples, records as dicts, arrays as lists.
pub fn value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Int(n, r) if r.signed => n.into_py_any(py),
        Value::Int(n, r) => r.unsigned(*n).into_py_any(py),
        Value::Str(s) => s.into_py_any(py),
        Value::Stack(frames, _) => frames.into_py_any(py),
        Value::Bytes(b) | Value::Buf(b) => PyBytes::new(py, b).into_py_any(py),
        Value::Sym(_, text) => text.trim().into_py_any(py),
        Value::Tuple(elems) => PyTuple::new(py, elems.iter().map(|e| value(py, e)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py),
        Value::Array(elems) => PyList::new(py, elems.iter().map(|e| value(py, e)).collect::<PyResult<Vec<_>>>()?)?.into_py_any(py),
        Value::Record(fields) => {
            let d = PyDict::new(py);
            for (name, v) in fields {
                d.set_item(name, value(py, v)?)?;
            }
            d.into_py_any(py)
        }
        // A struct kept in a bpftrace map: its members as a dict, as its JSON has them.
        Value::Object(bytes, layout) => {
            let text = crumbs_runtime::output::bpftrace::structs::object_json(layout, bytes);
            py.import("json")?.call_method1("loads", (text,))?.into_py_any(py)
        }
    }
}
