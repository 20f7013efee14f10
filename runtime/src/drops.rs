//! What the programs could not keep (see `crumbs_ebpf::abi::drops`), read from the per-CPU drop
//! counters when tracing ends and reported on standard error in DTrace's words.

use crate::sys;
use crumbs_ebpf::abi::drops::{DropKind, DROPS_SIZE};
use crumbs_ebpf::abi::table::DEFAULT_AGGSIZE;
use crumbs_ebpf::abi::{DEFAULT_BUFSIZE, DEFAULT_DYNVARSIZE};
use crumbs_lang::ir::{Options, MAX_NSPEC};
use std::io;
use std::os::fd::RawFd;

/// The counters, by CPU then kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    pub per_cpu: Vec<[u64; DropKind::ALL.len()]>,
    /// Speculative records user space dropped (their speculation held specsize bytes).
    pub speculative: u64,
}

impl Drops {
    /// Reads the drop counters of every possible CPU from the drops map.
    pub fn read(fd: RawFd, cpus: usize) -> io::Result<Drops> {
        let mut value = vec![0u8; DROPS_SIZE * cpus];
        if !sys::lookup(fd, &0u32.to_le_bytes(), &mut value)? {
            return Ok(Drops::default());
        }
        let per_cpu = value
            .chunks(DROPS_SIZE)
            .map(|c| DropKind::ALL.map(|k| u64::from_le_bytes(c[k.offset()..k.offset() + 8].try_into().unwrap())))
            .collect();
        Ok(Drops { per_cpu, speculative: 0 })
    }

    pub fn total(&self, kind: DropKind) -> u64 {
        self.per_cpu.iter().map(|c| c[kind as usize]).sum()
    }

    /// One line per CPU and kind with drops (dynamic variable drops: one line in all), as
    /// DTrace words them, with the option that makes room.
    pub fn messages(&self, o: &Options) -> Vec<String> {
        let mut out = Vec::new();
        let per_cpu = |kind: DropKind, what: &str, why: &str, out: &mut Vec<String>| {
            for (cpu, c) in self.per_cpu.iter().enumerate().filter(|(_, c)| c[kind as usize] > 0) {
                let n = c[kind as usize];
                out.push(format!("{n} {what}{} on CPU {cpu} ({why})", plural(n)));
            }
        };
        per_cpu(DropKind::Record, "drop", &raise("event buffer full", "bufsize", o.bufsize.unwrap_or(DEFAULT_BUFSIZE)), &mut out);
        per_cpu(DropKind::Aggregation, "aggregation drop", &raise("aggregation full", "aggsize", o.aggsize.unwrap_or(DEFAULT_AGGSIZE)), &mut out);
        let n = self.total(DropKind::DynamicVariable);
        if n > 0 {
            let why = raise("dynamic variables full", "dynvarsize", o.dynvarsize.unwrap_or(DEFAULT_DYNVARSIZE));
            out.push(format!("{n} dynamic variable drop{} ({why})", plural(n)));
        }
        let n = self.total(DropKind::DeclaredMap);
        if n > 0 {
            out.push(format!("{n} map update drop{} (a map declared with its size was full; raise the size in its declaration, e.g. `let @a = hash(5000)`)", plural(n)));
        }
        per_cpu(DropKind::Stack, "stack drop", "the stack map was full or another stack held the slot", &mut out);
        let n = self.total(DropKind::Speculation);
        if n > 0 {
            let now = o.nspec();
            let why = if now >= MAX_NSPEC { format!("at the largest -x nspec={MAX_NSPEC}") } else { format!("; raise it with -x nspec={}", (now * 4).min(MAX_NSPEC)) };
            out.push(format!("{n} failed speculation{} (no speculative buffer available{}{why})", plural(n), if now >= MAX_NSPEC { " " } else { "" }));
        }
        if self.speculative > 0 {
            let n = self.speculative;
            out.push(format!("{n} speculative drop{} ({})", plural(n), raise("speculation full", "specsize", o.specsize())));
        }
        out
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// "WHY; raise it with -x OPTION=SIZE", SIZE four times the size in use (up to the 1g limit).
fn raise(why: &str, option: &str, now: u64) -> String {
    const MAX: u64 = 1 << 30;
    if now >= MAX {
        return format!("{why} at the largest -x {option}={}", size_text(MAX));
    }
    format!("{why}; raise it with -x {option}={}", size_text((now.saturating_mul(4)).min(MAX)))
}

/// A size as an option value: `4m`, `16k`, `1g`, or bytes.
fn size_text(bytes: u64) -> String {
    for (unit, shift) in [("g", 30), ("m", 20), ("k", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtrace_wording_with_the_option_to_raise() {
        let d = Drops { per_cpu: vec![[0, 34464, 3, 0, 2, 1], [1, 1, 2, 7, 1, 2]], speculative: 9 };
        let o = Options { aggsize: Some(16 << 10), ..Options::default() };
        assert_eq!(
            d.messages(&o),
            [
                "1 drop on CPU 1 (event buffer full; raise it with -x bufsize=4m)",
                "34464 aggregation drops on CPU 0 (aggregation full; raise it with -x aggsize=64k)",
                "1 aggregation drop on CPU 1 (aggregation full; raise it with -x aggsize=64k)",
                "5 dynamic variable drops (dynamic variables full; raise it with -x dynvarsize=4m)",
                "3 map update drops (a map declared with its size was full; raise the size in its declaration, e.g. `let @a = hash(5000)`)",
                "7 stack drops on CPU 1 (the stack map was full or another stack held the slot)",
                "3 failed speculations (no speculative buffer available; raise it with -x nspec=4)",
                "9 speculative drops (speculation full; raise it with -x specsize=16m)",
            ]
        );
        assert!(Drops::default().messages(&o).is_empty());
        let d = Drops { per_cpu: vec![[0, 0, 0, 0, 1, 0]], speculative: 0 };
        let o = Options { nspec: Some(16), ..Options::default() };
        assert_eq!(d.messages(&o), ["1 failed speculation (no speculative buffer available at the largest -x nspec=16)"]);
    }

    #[test]
    fn suggested_sizes() {
        assert_eq!(raise("x", "bufsize", 1 << 30), "x at the largest -x bufsize=1g");
        assert_eq!(raise("x", "aggsize", 300 << 20), "x; raise it with -x aggsize=1g");
        assert_eq!(raise("x", "dynvarsize", 100), "x; raise it with -x dynvarsize=400");
        assert_eq!(size_text(3 << 10), "3k");
    }
}
