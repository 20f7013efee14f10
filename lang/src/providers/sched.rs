//! `sched`: DTrace's scheduler provider — threads going on and off CPUs, sleeping, being
//! preempted and woken (the Dynamic Tracing Guide's sched chapter), on the scheduler's raw
//! tracepoints. `on-cpu` fires in the thread that now runs: at the end of the scheduler's
//! switch (sched_exit_tp, Linux 6.16), where the switched-in thread resumes.

use super::stable::{lwpsinfo, psinfo, Stable, StableProbe};

/// sched_switch's `next`, sched_waking's `p`, the current thread.
const NEXT: &str = "(struct task_struct *)__tp_arg2";
const WOKEN: &str = "(struct task_struct *)__tp_arg0";
const CURRENT: &str = "curthread";

pub const SCHED: Stable = Stable {
    name: "sched",
    doc: "DTrace's scheduler provider: on-cpu, off-cpu, sleep, preempt, wakeup, surrender, with lwpsinfo_t/psinfo_t arguments",
    examples: &["sched:::on-cpu", "sched:::off-cpu"],
    probes: &[
        StableProbe {
            name: "on-cpu",
            events: &["sched_exit_tp"],
            guard: Some("__tp_arg0 != 0"),
            args: &[],
            doc: "a thread begins to run on a CPU, in it (not on a new thread's first run)",
            needs: "the sched_exit_tp tracepoint (Linux 6.16 and later)",
        },
        StableProbe {
            name: "off-cpu",
            events: &["sched_switch"],
            guard: None,
            args: &[lwpsinfo(NEXT), psinfo(NEXT)],
            doc: "a thread is about to stop running on a CPU, in it; args[0] and args[1] are the thread that runs next",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "sleep",
            events: &["sched_switch"],
            guard: Some("(__tp_arg3 & 3) != 0"),
            args: &[],
            doc: "a thread goes to sleep (off the CPU, waiting), in it",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "preempt",
            events: &["sched_switch"],
            guard: Some("__tp_arg3 == 0"),
            args: &[],
            doc: "a thread is taken off the CPU still able to run (preempted, or yielding), in it",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "wakeup",
            events: &["sched_waking"],
            guard: None,
            args: &[lwpsinfo(WOKEN), psinfo(WOKEN)],
            doc: "a thread wakes another, in the waker; args[0] and args[1] are the woken thread",
            needs: "the sched_waking tracepoint",
        },
        StableProbe {
            name: "surrender",
            events: &["sys_enter"],
            guard: Some("__tp_arg1 == 24"),
            args: &[lwpsinfo(CURRENT), psinfo(CURRENT)],
            doc: "a thread gives up its CPU (sched_yield), in it; args[0] and args[1] are that thread",
            needs: "the sys_enter tracepoint",
        },
    ],
};
