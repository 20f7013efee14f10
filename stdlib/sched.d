/*
 * crumbs' standard D library: thread time (spec §5.9). Read by programs that name
 * vtimestamp.
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
