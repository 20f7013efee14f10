//! DTrace's flow indentation (`dtrace -F`, option `flowindent`), after libdtrace's
//! `dt_flowindent()` (dt_consume.c) and dtrace.c's `chew()`.
//!
//! * A heading `"%3s %-41s\n"` of `CPU` and `FUNCTION` comes before the first firing, and
//!   each firing starts with `"%3d %-41s "` of its CPU and a label. Both are printed even
//!   when quiet (only the newline that ends a firing follows quiet mode).
//! * A probe named `entry` or `…-entry` enters: its label is the depth in spaces, then
//!   `" -> "` (`" => "` for the `syscall` provider) and the function; the depth of its CPU
//!   then grows by 2. A probe named `return` or `…-return` returns: the depth shrinks by 2
//!   (not below 0) and the label is `" <- "` (`" <= "`) and the function. Any other probe
//!   is `"| "` and `function:name` at the current depth.
//! * A probe that several clauses record is one call, not several: an entry right after a
//!   record of the same probe from another clause (on that CPU) does not indent again, and
//!   a return right before one does not unindent (the last of them does). DTrace looks at
//!   the next record in the buffer for that; here the return waits for the next firing, or
//!   for the buffer to be drained.
//!
//! The depth is kept per CPU: a CPU's firings nest with each other, not with another CPU's.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Entry,
    Return,
    Other,
}

/// `entry` or `…-entry` enters, `return` or `…-return` returns (so `method-entry` counts,
/// and `carpentry` does not).
pub fn kind(name: &str) -> Kind {
    let is = |word: &str| name == word || name.strip_suffix(word).is_some_and(|p| p.ends_with('-'));
    if is("entry") {
        Kind::Entry
    } else if is("return") {
        Kind::Return
    } else {
        Kind::Other
    }
}

/// One firing as the flow sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub cpu: u32,
    pub probe: u32,
    /// The record (clause) that sent it.
    pub record: u32,
    /// Whether the probe is the `syscall` provider's (`=>`/`<=` instead of `->`/`<-`).
    pub syscall: bool,
    pub function: String,
    pub name: String,
    /// What its actions printed, the end of the firing included.
    pub body: String,
}

#[derive(Debug, Default)]
pub struct Flow {
    header_done: bool,
    /// Each CPU's depth.
    depth: HashMap<u32, usize>,
    /// Each CPU's last firing: its probe and record.
    last: HashMap<u32, (u32, u32)>,
    /// A return whose unindenting depends on the firing after it.
    pending: Option<Step>,
}

impl Flow {
    /// The text to print for this firing: it, or nothing yet (a return waits), preceded by
    /// the return that waited for it.
    pub fn step(&mut self, s: Step) -> String {
        let mut out = String::new();
        if let Some(p) = self.pending.take() {
            let another_clause = p.cpu == s.cpu && p.probe == s.probe && p.record != s.record;
            out += &self.emit(p, if another_clause { Kind::Other } else { Kind::Return });
        }
        let mut k = kind(&s.name);
        if k == Kind::Entry && self.last.get(&s.cpu).is_some_and(|&(probe, record)| probe == s.probe && record != s.record) {
            k = Kind::Other;
        }
        self.last.insert(s.cpu, (s.probe, s.record));
        if k == Kind::Return {
            self.pending = Some(s);
        } else {
            out += &self.emit(s, k);
        }
        out
    }

    /// The text of a return still waiting (nothing more is in the buffer).
    pub fn drained(&mut self) -> String {
        match self.pending.take() {
            Some(p) => self.emit(p, Kind::Return),
            None => String::new(),
        }
    }

    fn emit(&mut self, s: Step, k: Kind) -> String {
        let mut out = String::new();
        if !std::mem::replace(&mut self.header_done, true) {
            out += &format!("{:>3} {:<41}\n", "CPU", "FUNCTION");
        }
        let depth = self.depth.entry(s.cpu).or_default();
        if k == Kind::Return {
            *depth = depth.saturating_sub(2);
        }
        let (enter, leave) = if s.syscall { (" => ", " <= ") } else { (" -> ", " <- ") };
        let indent = " ".repeat(*depth);
        let label = match k {
            Kind::Entry => format!("{indent}{enter}{}", s.function),
            Kind::Return => format!("{indent}{leave}{}", s.function),
            Kind::Other => format!("{indent}| {}:{}", s.function, s.name),
        };
        if k == Kind::Entry {
            *depth += 2;
        }
        out += &format!("{:>3} {label:<41} ", s.cpu);
        out += &s.body;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(cpu: u32, probe: u32, record: u32, name: &str) -> Step {
        Step { cpu, probe, record, syscall: true, function: "openat".into(), name: name.into(), body: "\n".into() }
    }

    fn line(cpu: u32, label: &str) -> String {
        format!("{cpu:>3} {label:<41} \n")
    }

    #[test]
    fn kinds_follow_dtrace() {
        assert_eq!(kind("entry"), Kind::Entry);
        assert_eq!(kind("method-entry"), Kind::Entry);
        assert_eq!(kind("carpentry"), Kind::Other);
        assert_eq!(kind("return"), Kind::Return);
        assert_eq!(kind("function-return"), Kind::Return);
        assert_eq!(kind("BEGIN"), Kind::Other);
    }

    #[test]
    fn entries_indent_and_returns_come_back() {
        let mut f = Flow::default();
        let mut out = f.step(step(0, 1, 0, "entry"));
        out += &f.step(step(0, 1, 0, "entry"));
        out += &f.step(step(0, 2, 1, "return"));
        out += &f.step(step(0, 2, 1, "return"));
        out += &f.drained();
        assert_eq!(
            out,
            format!("CPU {:<41}\n{}{}{}{}", "FUNCTION", line(0, " => openat"), line(0, "   => openat"), line(0, "   <= openat"), line(0, " <= openat"))
        );
        // Never below the left margin.
        assert_eq!(f.step(step(0, 2, 1, "return")) + &f.drained(), line(0, " <= openat"));
    }

    #[test]
    fn each_cpu_has_its_own_depth() {
        let mut f = Flow::default();
        f.step(step(0, 1, 0, "entry"));
        assert_eq!(f.step(step(1, 1, 0, "entry")), line(1, " => openat"));
        assert_eq!(f.step(step(0, 1, 0, "entry")), line(0, "   => openat"));
    }

    #[test]
    fn a_probe_two_clauses_record_is_one_call() {
        let mut f = Flow::default();
        f.step(step(0, 1, 0, "entry"));
        assert_eq!(f.step(step(0, 1, 1, "entry")), line(0, "  | openat:entry"));
        // The first of the two returns waits, then shows as `|`; the second unindents.
        assert_eq!(f.step(step(0, 2, 2, "return")), "");
        assert_eq!(f.step(step(0, 2, 3, "return")), line(0, "  | openat:return"));
        assert_eq!(f.drained(), line(0, " <= openat"));
    }

    #[test]
    fn other_probes_and_other_providers() {
        let mut f = Flow::default();
        let begin = Step { cpu: 2, probe: 1, record: 0, syscall: false, function: String::new(), name: "BEGIN".into(), body: "\n".into() };
        assert!(f.step(begin).ends_with(&line(2, "| :BEGIN")));
        let entry = Step { cpu: 2, probe: 9, record: 1, syscall: false, function: "f".into(), name: "entry".into(), body: "x\n".into() };
        assert_eq!(f.step(entry), format!("  2 {:<41} x\n", " -> f"));
    }
}
