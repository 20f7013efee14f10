//! `io`: DTrace's I/O provider — block I/O requests issued to a device and completed (the
//! Dynamic Tracing Guide's io chapter), on the block layer's raw tracepoints; the
//! arguments are translated from the kernel's `struct request` by stdlib/io.d.

use super::stable::{raw, Stable, StableArg, StableProbe};

const REQUEST: &str = "(struct request *)__tp_arg0";

const fn request(xlate: &'static str) -> StableArg {
    StableArg { native: "struct request *", expr: REQUEST, xlate: Some(xlate) }
}

const ARGS: &[StableArg] = &[request("bufinfo_t *"), request("devinfo_t *"), request("fileinfo_t *")];

pub const IO: Stable = Stable {
    name: "io",
    doc: "DTrace's I/O provider: start and done of block I/O requests, with bufinfo_t, devinfo_t and fileinfo_t arguments",
    examples: &["io:::start", "io:::done"],
    probes: &[
        StableProbe {
            name: "start",
            hooks: &[raw("block_rq_issue", None)],
            args: ARGS,
            doc: "a block I/O request is issued to a device; args[0] is the buffer, args[1] the device, args[2] the file (unknown at this layer)",
            needs: "the block_rq_issue tracepoint",
        },
        StableProbe {
            name: "done",
            hooks: &[raw("block_rq_complete", None)],
            args: ARGS,
            doc: "a block I/O request completes, usually in an interrupt; arguments as start",
            needs: "the block_rq_complete tracepoint",
        },
    ],
};
