//! Probes as bpftrace names them, for its `probe` builtin: `tracepoint:syscalls:sys_enter_read`,
//! `kprobe:vfs_read`, `BEGIN`, `interval:s:1`. crumbs' own names (DTrace's four fields) are
//! [`Program::probe_description`].

use super::Program;

impl Program {
    /// The probe with DTrace id `id` as bpftrace names it.
    pub fn bpftrace_probe_name(&self, id: u32) -> String {
        if let Some(p) = self.profile_probes.iter().find(|p| p.id == id) {
            if let crate::providers::AttachPoint::Watchpoint { .. } = p.attach {
                return format!("watchpoint:{}", p.name);
            }
            if let crate::providers::AttachPoint::Perf { event, count } = p.attach {
                let e = &crate::providers::perf::PERF_EVENTS[event as usize];
                return format!("{}:{}:{count}", if e.hardware { "hardware" } else { "software" }, e.alias);
            }
            return timed(&p.name);
        }
        if let Some(t) = id.checked_sub(crate::providers::TRACEPOINT_ID_BASE).and_then(|i| self.tracepoints.get(i as usize)) {
            return format!("tracepoint:{}:{}", t.category, t.event);
        }
        if let Some((f, name)) = self.fbt_probe(id) {
            let (provider, module, function, name) = f.shown(name == "return");
            // As current bpftrace names a probe at an address: by the address, in decimal.
            if let (Some(address), "fbt") = (f.address, provider) {
                let kind = if name == "return" { "kretprobe" } else { "kprobe" };
                return format!("{kind}:{address}");
            }
            return match (provider, name) {
                ("fbt", "entry") => format!("kprobe:{function}"),
                ("fbt", "return") => format!("kretprobe:{function}"),
                ("fbt", _) => format!("kprobe:{function}+{}", f.offset),
                _ => format!("{provider}:{module}:{function}:{name}"),
            };
        }
        if let Some(u) = self.user_probe(id) {
            return match (u.semaphore, u.usdt_args.is_empty(), u.name.as_str()) {
                (0, true, "entry") => format!("uprobe:{}:{}", u.path, u.function),
                (0, true, "return") => format!("uretprobe:{}:{}", u.path, u.function),
                // The name is the offset in hex (DTrace's); bpftrace writes it in decimal.
                (0, true, offset) => format!("uprobe:{}:{}+{}", u.path, u.function, u64::from_str_radix(offset, 16).unwrap_or_default()),
                _ => format!("usdt:{}:{}:{}", u.path, u.provider.trim_end_matches(|c: char| c.is_ascii_digit()), u.name),
            };
        }
        if let Some(t) = self.raw_tracepoint(id) {
            return match t.shown() {
                ("rawtracepoint", _, name) => format!("rawtracepoint:{name}"),
                (provider, module, name) => format!("{provider}:{module}::{name}"),
            };
        }
        let Some(p) = crate::providers::probe_by_id(id) else { return format!("probe {id}") };
        match (p.provider, p.name) {
            ("dtrace", name) => name.to_string(),
            ("self", name) => format!("self:{}:{name}", p.module),
            ("iter", name) => format!("iter:{name}"),
            ("syscall", "entry") => format!("tracepoint:syscalls:sys_enter_{}", p.function),
            ("syscall", "return") => format!("tracepoint:syscalls:sys_exit_{}", p.function),
            _ => format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name),
        }
    }
}

/// `profile-99` as `profile:hz:99`, `tick-1s` as `interval:s:1`; other units as bpftrace
/// writes them (`profile-10ms` is `profile:ms:10`).
fn timed(name: &str) -> String {
    let (kind, rate) = match name.split_once('-') {
        Some(("profile", r)) => ("profile", r),
        Some(("tick", r)) => ("interval", r),
        _ => return name.to_string(),
    };
    let digits = rate.find(|c: char| !c.is_ascii_digit()).unwrap_or(rate.len());
    let (n, unit) = rate.split_at(digits);
    let unit = match unit {
        "" | "hz" => "hz",
        "sec" => "s",
        "msec" => "ms",
        "usec" => "us",
        "nsec" => "ns",
        u => u,
    };
    format!("{kind}:{unit}:{n}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn timed_probes_as_bpftrace_writes_them() {
        assert_eq!(super::timed("profile-99"), "profile:hz:99");
        assert_eq!(super::timed("tick-1s"), "interval:s:1");
        assert_eq!(super::timed("tick-100ms"), "interval:ms:100");
        assert_eq!(super::timed("profile-10msec"), "profile:ms:10");
    }
}
