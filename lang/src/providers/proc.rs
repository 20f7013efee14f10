//! `proc`: DTrace's process provider — processes and threads created, started, exec'd and
//! exiting, and signals sent, discarded, handled and cleared (the Dynamic Tracing Guide's
//! proc chapter; dtrace-utils' choice of kernel hooks where a raw tracepoint has it).
//! x86-64 system call numbers: clone 56, fork 57, vfork 58, execve 59, rt_sigtimedwait
//! 128, execveat 322, clone3 435.

use super::stable::{raw, lwpsinfo, psinfo, Stable, StableArg, StableProbe};

const fn int(expr: &'static str) -> StableArg {
    StableArg { native: "int", expr, xlate: None }
}

/// A fork, vfork, clone or clone3 returning 0 (in the new thread), at sys_exit. Guards on
/// sys_exit run at every system call's return: the return value, in the context, is tested
/// before the number, read from the registers (orig_ax is unsigned: 56 to 58 in one test).
macro_rules! fork_returned {
    () => {
        "__tp_arg1 == 0 && (((struct pt_regs *)__tp_arg0)->orig_ax - 56 < 3 || ((struct pt_regs *)__tp_arg0)->orig_ax == 435)"
    };
}

const CHILD: &str = "(struct task_struct *)__tp_arg1";
const SIGNALLED: &str = "(struct task_struct *)__tp_arg2";

pub const PROC: Stable = Stable {
    name: "proc",
    doc: "DTrace's process provider: create, exec, exec-success, exec-failure, start, exit, lwp-create, lwp-start, lwp-exit, signal-send, signal-discard, signal-handle, signal-clear, with psinfo_t/lwpsinfo_t arguments",
    examples: &["proc:::exec-success", "proc:::exit"],
    probes: &[
        StableProbe {
            name: "create",
            hooks: &[raw("sched_process_fork", Some("((struct task_struct *)__tp_arg1)->pid == ((struct task_struct *)__tp_arg1)->tgid"))],
            args: &[psinfo(CHILD)],
            doc: "a process is created (fork, vfork, clone without CLONE_THREAD), in the parent; args[0] is the child",
            needs: "the sched_process_fork tracepoint",
        },
        StableProbe {
            name: "exec",
            hooks: &[raw("sys_enter", Some("__tp_arg1 == 59 || __tp_arg1 == 322"))],
            args: &[StableArg { native: "string", expr: "copyinstr(__tp_arg1 == 59 ? ((struct pt_regs *)__tp_arg0)->di : ((struct pt_regs *)__tp_arg0)->si)", xlate: None }],
            doc: "a process is about to exec (execve, execveat); args[0] is the path it execs",
            needs: "the sys_enter tracepoint",
        },
        StableProbe {
            name: "exec-success",
            hooks: &[raw("sched_process_exec", None)],
            args: &[],
            doc: "an exec succeeded, in the new program",
            needs: "the sched_process_exec tracepoint",
        },
        StableProbe {
            name: "exec-failure",
            hooks: &[raw("sys_exit", Some("__tp_arg1 != 0 && (((struct pt_regs *)__tp_arg0)->orig_ax == 59 || ((struct pt_regs *)__tp_arg0)->orig_ax == 322)"))],
            args: &[int("(int)-__tp_arg1")],
            doc: "an exec failed; args[0] is the errno value",
            needs: "the sys_exit tracepoint",
        },
        StableProbe {
            name: "start",
            hooks: &[raw("sys_exit", Some(concat!(fork_returned!(), " && pid == tid")))],
            args: &[],
            doc: "a new process starts, in it, before its first user instruction (its fork or clone returning 0)",
            needs: "the sys_exit tracepoint",
        },
        StableProbe {
            name: "exit",
            hooks: &[raw("sched_process_exit", Some("((struct task_struct *)__tp_arg0)->pid == ((struct task_struct *)__tp_arg0)->tgid"))],
            args: &[int("(((struct task_struct *)__tp_arg0)->exit_code & 0x7f) == 0 ? 1 : (((struct task_struct *)__tp_arg0)->exit_code & 0x80) ? 3 : 2")],
            doc: "a process exits (its main thread does), in it; args[0] is CLD_EXITED (1), CLD_KILLED (2) or CLD_DUMPED (3)",
            needs: "the sched_process_exit tracepoint",
        },
        StableProbe {
            name: "lwp-create",
            hooks: &[raw("sched_process_fork", Some("((struct task_struct *)__tp_arg1)->pid != ((struct task_struct *)__tp_arg1)->tgid"))],
            args: &[lwpsinfo(CHILD), psinfo(CHILD)],
            doc: "a thread is created in a process (clone with CLONE_THREAD), in its creator; args[0] and args[1] are the new thread",
            needs: "the sched_process_fork tracepoint",
        },
        StableProbe {
            name: "lwp-start",
            hooks: &[raw("sys_exit", Some(fork_returned!()))],
            args: &[],
            doc: "a new thread starts, in it, before its first user instruction (a new process's first thread too, after start)",
            needs: "the sys_exit tracepoint",
        },
        StableProbe {
            name: "lwp-exit",
            hooks: &[raw("sched_process_exit", None)],
            args: &[],
            doc: "a thread exits, in it",
            needs: "the sched_process_exit tracepoint",
        },
        StableProbe {
            name: "signal-send",
            hooks: &[raw("signal_generate", Some("__tp_arg4 == 0 || __tp_arg4 == 4"))],
            args: &[lwpsinfo(SIGNALLED), psinfo(SIGNALLED), int("(int)__tp_arg0")],
            doc: "a signal is sent, in the sender; args[0] and args[1] are the receiver, args[2] the signal",
            needs: "the signal_generate tracepoint",
        },
        StableProbe {
            name: "signal-discard",
            hooks: &[raw("signal_generate", Some("__tp_arg4 == 1"))],
            args: &[lwpsinfo(SIGNALLED), psinfo(SIGNALLED), int("(int)__tp_arg0")],
            doc: "a signal is discarded (its receiver ignores it); args as signal-send",
            needs: "the signal_generate tracepoint",
        },
        StableProbe {
            name: "signal-handle",
            hooks: &[raw("signal_deliver", None)],
            args: &[
                // A thread killed because its group is dying (another thread's fatal signal)
                // is delivered SIGKILL; the signal that kills the group is its exit code, as
                // dtrace-utils reports it.
                int("__tp_arg0 == 9 && curthread->signal->group_exit_code > 0 ? curthread->signal->group_exit_code : (int)__tp_arg0"),
                StableArg { native: "kernel_siginfo_t *", expr: "(kernel_siginfo_t *)__tp_arg1", xlate: None },
                StableArg { native: "uintptr_t", expr: "(uintptr_t)((struct k_sigaction *)__tp_arg2)->sa.sa_handler", xlate: None },
            ],
            doc: "a thread is about to handle a signal, in it; args[0] is the signal, args[1] its siginfo, args[2] the handler's address",
            needs: "the signal_deliver tracepoint",
        },
        StableProbe {
            name: "signal-clear",
            hooks: &[raw("sys_exit", Some("(long)__tp_arg1 > 0 && ((struct pt_regs *)__tp_arg0)->orig_ax == 128"))],
            args: &[int("(int)__tp_arg1")],
            doc: "a pending signal is taken by sigtimedwait(2) (rt_sigtimedwait), in the taker; args[0] is the signal",
            needs: "the sys_exit tracepoint",
        },
    ],
};
