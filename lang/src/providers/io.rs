//! `io`: DTrace's I/O provider — block I/O requests issued to a device and completed (the
//! Dynamic Tracing Guide's io chapter), on the block layer's raw tracepoints; the
//! arguments are translated from the kernel's `struct request` by stdlib/io.d.

use super::stable::{entry, exit, raw, Stable, StableArg, StableProbe};

const REQUEST: &str = "(struct request *)__tp_arg0";

const fn request(xlate: &'static str) -> StableArg {
    StableArg { native: "struct request *", expr: REQUEST, xlate: Some(xlate) }
}

const ARGS: &[StableArg] = &[request("bufinfo_t *"), request("devinfo_t *"), request("fileinfo_t *")];

/// submit_bio_wait's `struct bio *bio`, at its entry; at its return, as stdlib/io-wait.d's
/// clause kept it at the entry (a return probe has the arguments no more).
const fn bio(expr: &'static str, xlate: &'static str) -> StableArg {
    StableArg { native: "struct bio *", expr, xlate: Some(xlate) }
}
const WAITING: &[StableArg] = &[bio("(struct bio *)__tp_arg0", "bufinfo_t *"), bio("(struct bio *)__tp_arg0", "devinfo_t *"), bio("(struct bio *)__tp_arg0", "fileinfo_t *")];
const WAITED: &[StableArg] = &[bio("(struct bio *)self->__crumbs_io_wait", "bufinfo_t *"), bio("(struct bio *)self->__crumbs_io_wait", "devinfo_t *"), bio("(struct bio *)self->__crumbs_io_wait", "fileinfo_t *")];

pub const IO: Stable = Stable {
    name: "io",
    doc: "DTrace's I/O provider: start and done of block I/O requests, wait-start and wait-done of a thread waiting for one, with bufinfo_t, devinfo_t and fileinfo_t arguments",
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
        StableProbe {
            name: "wait-start",
            hooks: &[entry("submit_bio_wait", None)],
            args: WAITING,
            doc: "a thread is about to wait for a block I/O it submitted (submit_bio_wait: flushes, synchronous metadata reads), in it; args as start, of the bio",
            needs: "submit_bio_wait",
        },
        StableProbe {
            name: "wait-done",
            hooks: &[exit("submit_bio_wait", None)],
            args: WAITED,
            doc: "that thread is done waiting, in it; args as wait-start",
            needs: "submit_bio_wait",
        },
    ],
};
