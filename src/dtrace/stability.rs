//! `-v`: dtrace's stability attributes (Dynamic Tracing Guide, chapter "Stability"). Each
//! provider has attributes for its provider, module, function and name fields and for its
//! arguments; a description's are the least of those of the fields it names (a provider
//! given as a glob or not at all is Unstable), as libdtrace's dtrace_probe_info computes
//! them. A statement is Stable/Stable/Common unless it reads `args[]` or `args->`, which
//! bring in the arguments' attributes (crumbs has none of the Private variables, such as
//! `curthread`, that lower it in DTrace).

use super::probes::Described;
use super::source::Piece;
use crumbs_lang::providers::Probe;
use std::io::Write;

/// The levels crumbs' providers use, lowest first (DTrace's scale also has Internal below
/// Private, and Obsolete and External between Private and Unstable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Private,
    Unstable,
    Evolving,
    Stable,
    Standard,
}

/// Dependency classes, lowest first (DTrace's also has CPU, Platform and Group between
/// Unknown and ISA).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Unknown,
    Isa,
    Common,
}

/// Name stability, data stability and dependency class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr(Level, Level, Class);

impl Attr {
    fn min(self, o: Attr) -> Attr {
        Attr(self.0.min(o.0), self.1.min(o.1), self.2.min(o.2))
    }
}

use Class::{Common, Isa, Unknown as UnknownClass};
use Level::{Evolving, Private, Stable, Standard, Unstable};

const STABLE: Attr = Attr(Stable, Stable, Common);
const EVOLVING: Attr = Attr(Evolving, Evolving, Common);
const PRIVATE: Attr = Attr(Private, Private, UnknownClass);
const UNSTABLE: Attr = Attr(Unstable, Unstable, Common);

/// A provider's attributes: its provider, module, function and name fields, then its
/// arguments (after illumos' providers; kernel tracepoints are the kernel's own, Private).
fn provider(name: &str) -> [Attr; 5] {
    match name {
        "dtrace" => [EVOLVING, PRIVATE, PRIVATE, STABLE, STABLE],
        "syscall" => [EVOLVING, PRIVATE, Attr(Private, Private, Isa), EVOLVING, Attr(Private, Private, Isa)],
        "profile" => [EVOLVING, UNSTABLE, PRIVATE, EVOLVING, EVOLVING],
        "tracepoint" | "tp" => [EVOLVING, PRIVATE, PRIVATE, PRIVATE, PRIVATE],
        _ => [UNSTABLE; 5],
    }
}

/// The attributes of a description given by its four fields, and of its arguments.
fn of(fields: [&str; 4]) -> (Attr, Attr) {
    let glob = |f: &str| f.is_empty() || f.contains(['*', '?', '[']);
    let table = if glob(fields[0]) { [UNSTABLE; 5] } else { provider(fields[0]) };
    let named = fields.iter().zip(table).skip(1).filter(|(f, _)| !glob(f));
    (named.fold(table[0], |attr, (_, a)| attr.min(a)), table[4])
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Private => "Private",
        Level::Unstable => "Unstable",
        Level::Evolving => "Evolving",
        Level::Stable => "Stable",
        Level::Standard => "Standard",
    }
}

fn class(c: Class) -> &'static str {
    match c {
        Class::Unknown => "Unknown",
        Class::Isa => "ISA",
        Class::Common => "Common",
    }
}

fn write_attr(out: &mut dyn Write, title: &str, a: Attr) {
    let _ = write!(out, "\n\t{title}\n\t\tIdentifier Names: {}\n\t\tData Semantics:   {}\n\t\tDependency Class: {}\n", level(a.0), level(a.1), class(a.2));
}

/// dtrace's `-lv` section for a probe: its attributes, its arguments', their types.
pub fn probe_info(out: &mut dyn Write, p: &Probe) {
    let (desc, args) = of([p.provider, p.module, p.function, p.name]);
    write_attr(out, "Probe Description Attributes", desc);
    write_attr(out, "Argument Attributes", args);
    crate::list::argument_types(out, Some(p));
}

/// The same for a description (`-ev`): argument types only where it names one probe.
fn description_info(out: &mut dyn Write, d: &Described) {
    let (desc, args) = of(d.fields.each_ref().map(String::as_str));
    write_attr(out, "Probe Description Attributes", desc);
    write_attr(out, "Argument Attributes", args);
    let one = match d.probes.as_slice() {
        [p] => Some(p),
        _ => None,
    };
    crate::list::argument_types(out, one);
}

/// dtrace's `-v` report for one piece: the least attributes of its descriptions and of its
/// statements; with `-e`, then each description's own.
pub fn report(out: &mut dyn Write, piece: &Piece, descriptions: &[&Described], compile_only: bool) {
    let (mut desc, mut stmt) = (Attr(Standard, Standard, Common), STABLE);
    for d in descriptions {
        let (a, args) = of(d.fields.each_ref().map(String::as_str));
        desc = desc.min(a);
        if d.reads_args {
            stmt = stmt.min(args);
        }
    }
    let _ = writeln!(out, "\nStability attributes for {} {}:", piece.what(), piece.name());
    write_attr(out, "Minimum Probe Description Attributes", desc);
    write_attr(out, "Minimum Statement Attributes", stmt);
    if !compile_only {
        let _ = writeln!(out);
        return;
    }
    for d in descriptions {
        let _ = write!(out, "\n{}\n", d.fields.join(":"));
        description_info(out, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_take_the_least_of_their_fields() {
        // The Dynamic Tracing Guide's example: dtrace:::BEGIN is Evolving/Evolving/Common.
        assert_eq!(of(["dtrace", "", "", "BEGIN"]).0, EVOLVING);
        assert_eq!(of(["syscall", "", "read", "entry"]), (Attr(Private, Private, Isa), Attr(Private, Private, Isa)));
        assert_eq!(of(["syscall", "", "", "entry"]).0, EVOLVING);
        assert_eq!(of(["", "", "", "BEGIN"]).0, UNSTABLE);
        assert_eq!(of(["sys*", "", "", ""]).0, UNSTABLE);
    }

    #[test]
    fn sections_are_dtraces() {
        let mut out = Vec::new();
        write_attr(&mut out, "Argument Attributes", Attr(Private, Private, Isa));
        assert_eq!(String::from_utf8(out).unwrap(), "\n\tArgument Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n");
    }
}
