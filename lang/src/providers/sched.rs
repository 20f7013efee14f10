//! `sched`: DTrace's scheduler provider — threads going on and off CPUs, sleeping, being
//! preempted and woken (the Dynamic Tracing Guide's sched chapter), on the scheduler's raw
//! tracepoints, and on the entry to its functions where no tracepoint fits (dtrace-utils'
//! choices). `on-cpu` fires in the thread that now runs: at the end of the scheduler's
//! switch (sched_exit_tp, Linux 6.16), where the switched-in thread resumes, or, before
//! 6.16, at the entry to finish_task_switch (which a new thread's first run passes too).

use super::stable::{entry, lwpsinfo, psinfo, raw, Stable, StableArg, StableProbe};

/// sched_switch's `next`, sched_waking's `p`, the current thread. sched_switch's raw
/// arguments are `bool preempt, prev, next, unsigned int prev_state`: prev_state is the
/// state the thread had when it called into the scheduler, which a preempted thread may
/// have set already (set_current_state() before its wait, preempted before schedule()):
/// it stays runnable, so `preempt` decides first.
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
            hooks: &[raw("sched_switch", Some("__tp_arg0 == 0 && (__tp_arg3 & 3) != 0"))],
            args: &[],
            doc: "a thread goes to sleep (off the CPU, waiting), in it",
            needs: "the sched_switch tracepoint",
        },
        StableProbe {
            name: "preempt",
            hooks: &[raw("sched_switch", Some("__tp_arg0 != 0 || __tp_arg3 == 0"))],
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

#[cfg(test)]
mod tests {
    use super::SCHED;
    use crate::ast::{BinOp, Expr, ExprKind};
    use crate::parse::parse_expression;

    /// A guard over integer raw arguments, evaluated with `__tp_argN` = `args[N]` (only
    /// the operators sched_switch's guards use).
    fn eval(e: &Expr, args: &[i64]) -> i64 {
        match &e.kind {
            ExprKind::Int(v, _) => *v,
            ExprKind::Ident(n) => args[n.strip_prefix("__tp_arg").and_then(|n| n.parse::<usize>().ok()).unwrap_or_else(|| panic!("{n}"))],
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (eval(a, args), eval(b, args));
                match op {
                    BinOp::LogAnd => i64::from(a != 0 && b != 0),
                    BinOp::LogOr => i64::from(a != 0 || b != 0),
                    BinOp::BitAnd => a & b,
                    BinOp::Eq => i64::from(a == b),
                    BinOp::Ne => i64::from(a != b),
                    _ => panic!("{op:?}"),
                }
            }
            other => panic!("{other:?}"),
        }
    }

    fn fires(name: &str, preempt: i64, prev_state: i64) -> bool {
        let p = SCHED.probes.iter().find(|p| p.name == name).unwrap();
        let guard = parse_expression(p.hooks[0].guard.unwrap(), None).unwrap();
        eval(&guard, &[preempt, 0, 0, prev_state]) != 0
    }

    #[test]
    fn a_preempted_thread_does_not_sleep_whatever_state_it_set() {
        const TASK_INTERRUPTIBLE: i64 = 1;
        const TASK_UNINTERRUPTIBLE: i64 = 2;
        const TASK_DEAD: i64 = 0x80;
        // (preempt, prev_state) -> (sleep, preempt)
        for (preempt, state, want) in [
            (0, TASK_INTERRUPTIBLE, (true, false)),
            (0, TASK_UNINTERRUPTIBLE | 0x400, (true, false)),
            (0, 0, (false, true)),
            // set_current_state(TASK_INTERRUPTIBLE), then preempted before schedule():
            // still on the run queue.
            (1, TASK_INTERRUPTIBLE, (false, true)),
            (1, 0, (false, true)),
            (0, TASK_DEAD, (false, false)),
        ] {
            assert_eq!((fires("sleep", preempt, state), fires("preempt", preempt, state)), want, "preempt {preempt} prev_state {state:#x}");
        }
    }
}
