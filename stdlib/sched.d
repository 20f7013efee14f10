/*
 * crumbs' standard D library: thread time (spec §5.9) and CPUs (curcpu, and the CPUs of
 * run queues, §6.11). Read by programs that name vtimestamp, curcpu, cpuinfo or the sched
 * provider.
 *
 * vtimestamp: nanoseconds the current thread has run on a CPU. The scheduler adds each
 * stretch on a CPU to se.sum_exec_runtime when it accounts for it (at a tick or a switch)
 * and notes in se.exec_start when the stretch being accounted began, so the time since then
 * is added. exec_start is read on the scheduler's clock and timestamp on the monotonic
 * clock: both count nanoseconds at the same rate, so differences of vtimestamp are exact
 * to the tick of those clocks; the sum is never less than what was accounted.
 */
inline uint64_t vtimestamp = curthread->se.sum_exec_runtime +
    (timestamp > curthread->se.exec_start ? timestamp - curthread->se.exec_start : 0);

/*
 * The CPU of a run queue, for sched:::enqueue and sched:::dequeue (the Dynamic Tracing
 * Guide's cpuinfo_t): processor sets, chips and locality groups are Solaris', so cpu_pset
 * is -1 (PS_NONE) and cpu_chip and cpu_lgrp 0.
 */
typedef id_t processorid_t;
typedef id_t psetid_t;
typedef id_t chipid_t;
typedef id_t lgrp_id_t;

struct cpuinfo {
	processorid_t cpu_id;
	psetid_t cpu_pset;
	chipid_t cpu_chip;
	lgrp_id_t cpu_lgrp;
};
typedef struct cpuinfo cpuinfo_t;

translator cpuinfo_t < struct rq *R > {
	cpu_id = R->cpu;
	cpu_pset = -1;
	cpu_chip = 0;
	cpu_lgrp = 0;
};

/* The CPU the probe fires on, by its number. */
translator cpuinfo_t < processorid_t C > {
	cpu_id = C;
	cpu_pset = -1;
	cpu_chip = 0;
	cpu_lgrp = 0;
};

inline cpuinfo_t *curcpu = xlate <cpuinfo_t *> ((processorid_t)cpu);
inline psetid_t pset = curcpu->cpu_pset;
inline chipid_t chip = curcpu->cpu_chip;
inline lgrp_id_t lgrp = curcpu->cpu_lgrp;
