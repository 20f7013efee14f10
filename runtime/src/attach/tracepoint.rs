//! Tracepoint programs: `tracepoint:CATEGORY:EVENT`. The event is opened here rather than by
//! aya, whose attach looks tracefs up and sizes its read of the event's id with statx(2)
//! for each probe: system calls that a program tracing stat(2) sees from crumbs between one
//! attach and the next (bpftrace's statsnoop printed two of crumbs' own before its
//! header). Here the id is one open and one read, as libbpf reads it.

use super::usdt::{perf_open, run_on};
use super::Link;
use crate::kernel::tracefs::TRACEFS;
use crate::session::RunError;
use aya::programs::TracePoint;
use crumbs_ebpf::abi::ProgramCode;
use crumbs_lang::ir::Program;
use crumbs_lang::providers::AttachPoint;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd};

/// perf_event_attr.type of a tracepoint event.
const PERF_TYPE_TRACEPOINT: u64 = 2;
/// perf_event_attr.sample_type's PERF_SAMPLE_RAW: the record of the event, as aya asks.
const PERF_SAMPLE_RAW: u64 = 1 << 10;

pub(super) fn attach(p: &mut TracePoint, program: &Program, code: &ProgramCode) -> Result<Vec<Link>, RunError> {
    let AttachPoint::Tracepoint(i) = code.attach else {
        return Err(RunError::Other(format!("program {} is a tracepoint program for {:?}", code.name, code.attach)));
    };
    let t = &program.tracepoints[i as usize];
    let fail = |e: io::Error| RunError::Other(format!("cannot attach to tracepoint {}:{}: {e}", t.category, t.event));
    let id = event_id(&t.category, &t.event).map_err(fail)?;
    let mut attr = [0u64; 16];
    attr[0] = PERF_TYPE_TRACEPOINT | ((std::mem::size_of_val(&attr) as u64) << 32);
    attr[1] = id;
    attr[3] = PERF_SAMPLE_RAW;
    // Every process, the event counted on CPU 0: the program runs wherever it fires.
    let event = perf_open(&attr, -1, 0).map_err(fail)?;
    let prog = p.fd().map_err(|e| RunError::Other(e.to_string()))?;
    run_on(&event, prog.as_fd().as_raw_fd()).map_err(fail)?;
    Ok(vec![Box::new(event)])
}

/// The tracepoint's id in tracefs: one open(2) and one read(2).
fn event_id(category: &str, event: &str) -> io::Result<u64> {
    let mut f = std::fs::File::open(format!("{TRACEFS}/events/{category}/{event}/id"))?;
    let mut buf = [0u8; 24];
    let n = f.read(&mut buf)?;
    std::str::from_utf8(&buf[..n]).ok().and_then(|s| s.trim().parse().ok()).ok_or_else(|| io::Error::other("its id file does not hold a number"))
}
