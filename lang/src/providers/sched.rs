//! `sched`: DTrace's scheduler provider — threads going on and off CPUs, sleeping, being
//! preempted and woken (the Dynamic Tracing Guide's sched chapter), on the scheduler's raw
//! tracepoints, and on the entry to its functions where no tracepoint fits (dtrace-utils'
//! choices). `on-cpu` fires in the thread that now runs: at the end of the scheduler's
//! switch (sched_exit_tp, Linux 6.16), where the switched-in thread resumes, or, before
//! 6.16, at the entry to finish_task_switch (which a new thread's first run passes too).

use super::stable::{entry, lwpsinfo, psinfo, raw, Stable, StableArg, StableProbe};

/// sched_switch's `next`, sched_waking's `p`, the current thread.
const NEXT: &str = "(struct task_struct *)__tp_arg2";
const WOKEN: &str = "(struct task_struct *)__tp_arg0";
const CURRENT: &str = "curthread";
/// The enqueue_task_CLASS and dequeue_task_CLASS functions' `struct rq *rq, struct
/// task_struct *p, int flags`.
const QUEUED: &str = "(struct task_struct *)__tp_arg1";

const fn cpuinfo(expr: &'static str) -> StableArg {
    StableArg { native: "struct rq *", expr, xlate: Some("cpuinfo_t *") }
}

pub const SCHED: Stable = Stable {
    name: "sched",
    doc: "DTrace's scheduler provider: on-cpu, off-cpu, sleep, preempt, wakeup, surrender, enqueue, dequeue, tick, with lwpsinfo_t/psinfo_t/cpuinfo_t arguments",
    examples: &["sched:::on-cpu", "sched:::off-cpu"],
    probes: &[
        StableProbe {
            name: "on-cpu",
            hooks: &[raw("sched_exit_tp", Some("__tp_arg0 != 0")), entry("finish_task_switch*", None)],
            args: &[],
            doc: "a thread begins to run on a CPU, in it",
            needs: "the sched_exit_tp tracepoint (Linux 6.16 and later) and finish_task_switch",
        },
        StableProbe {
            name: "off-cpu",
            hooks: &[raw("sched_switch", None)],
            args: &[lwpsinfo(NEXT), psinfo(NEXT)],
            doc: "a thread is about to stop running on a CPU, in it; args[0] and args[1] are the thread that runs next",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "sleep",
            hooks: &[raw("sched_switch", Some("(__tp_arg3 & 3) != 0"))],
            args: &[],
            doc: "a thread goes to sleep (off the CPU, waiting), in it",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "preempt",
            hooks: &[raw("sched_switch", Some("__tp_arg3 == 0"))],
            args: &[],
            doc: "a thread is taken off the CPU still able to run (preempted, or yielding), in it",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "wakeup",
            hooks: &[raw("sched_waking", None)],
            args: &[lwpsinfo(WOKEN), psinfo(WOKEN)],
            doc: "a thread wakes another, in the waker; args[0] and args[1] are the woken thread",
            needs: "the sched_waking tracepoint",
        },
        StableProbe {
            name: "surrender",
            hooks: &[raw("sys_enter", Some("__tp_arg1 == 24"))],
            args: &[lwpsinfo(CURRENT), psinfo(CURRENT)],
            doc: "a thread gives up its CPU (sched_yield), in it; args[0] and args[1] are that thread",
            needs: "the sys_enter tracepoint",
        },
        StableProbe {
            name: "enqueue",
            hooks: &[entry("enqueue_task_*", None)],
            args: &[lwpsinfo(QUEUED), psinfo(QUEUED), cpuinfo("(struct rq *)__tp_arg0"), StableArg { native: "int", expr: "(__tp_arg2 & 0x10) != 0", xlate: None }],
            doc: "a thread is put on a CPU's run queue; args[0] and args[1] are the thread, args[2] the CPU, args[3] whether at the queue's head",
            needs: "enqueue_task_* functions",
        },
        StableProbe {
            name: "dequeue",
            hooks: &[entry("dequeue_task_*", None)],
            args: &[lwpsinfo(QUEUED), psinfo(QUEUED), cpuinfo("(struct rq *)__tp_arg0")],
            doc: "a thread is taken off a CPU's run queue; args[0] and args[1] are the thread, args[2] the CPU",
            needs: "dequeue_task_* functions",
        },
        StableProbe {
            name: "tick",
            hooks: &[entry("sched_tick", None), entry("scheduler_tick", None)],
            args: &[lwpsinfo(CURRENT), psinfo(CURRENT)],
            doc: "a CPU's scheduler clock ticks, in the thread it runs; args[0] and args[1] are that thread",
            needs: "sched_tick (scheduler_tick before Linux 6.10)",
        },
    ],
};
