//! The machine's CPUs, as aya reads them from /sys/devices/system/cpu.

/// The online CPUs; CPU 0 if they cannot be read.
pub fn online() -> Vec<u32> {
    aya::util::online_cpus().ok().filter(|c| !c.is_empty()).unwrap_or_else(|| vec![0])
}

/// Number of possible CPUs (the per-CPU value count of per-CPU maps), at least 1.
pub fn possible() -> usize {
    aya::util::nr_cpus().unwrap_or(1).max(1)
}
