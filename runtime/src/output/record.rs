//! The per-firing output of `dtrace(1M)` when not quiet, and how `trace()` prints.
//!
//! Sources (illumos `usr/src/cmd/dtrace/dtrace.c` and libdtrace `dt_consume.c`):
//!
//! * `chew()` (the probe callback) prints, before the first firing only and only when not
//!   quiet, the heading `"%3s %6s %32s\n"` of `"CPU"`, `"ID"`, `"FUNCTION:NAME"`; then, for
//!   every firing when not quiet, `"%3d %6d %32s "` of the CPU, the probe ID and
//!   `func:name` joined by a colon (the joined string is padded, never truncated).
//! * The records of the firing follow. `dt_consume_cpu()` prints a `trace()`d 8-byte
//!   integer with `" %16lld"` (`"%lld"` when quiet) and a string through
//!   `dt_print_bytes(..., -33, quiet)`: `"  %-33s"` (`"%s"` when quiet).
//! * `chewrec()`, called with a NULL record once a firing's records are done, prints
//!   `"\n"` unless quiet. That is the only newline of a non-quiet firing: a firing with
//!   no actions still prints its prefix and the newline (`  0      1   :BEGIN \n`), and in
//!   quiet mode nothing ends the firing (the script's own `printf("\n")` does).
//! * `main()`: when tracing ends (after the last `dtrace_work()`), `oprintf("\n")` prints
//!   one newline, even when quiet, and then `dtrace_aggregate_print()` prints every
//!   non-empty aggregation. On the first SIGINT, `intr()` sets `g_newline`, and the work
//!   loop prints a further `"\n"` (also when quiet) to end the `^C` line of the terminal.

use super::printf::{pad, push_n};
use super::Value;

/// The heading printed once, before the first non-quiet firing, newline included:
/// `"CPU     ID                    FUNCTION:NAME\n"` (`"%3s %6s %32s\n"`).
pub fn header() -> String {
    let mut out = String::new();
    pad(&mut out, "CPU", 3, 3, false);
    out.push(' ');
    pad(&mut out, "ID", 2, 6, false);
    out.push(' ');
    pad(&mut out, "FUNCTION:NAME", 13, 32, false);
    out.push('\n');
    out
}

/// The start of a non-quiet firing: `"%3d %6d %32s "` of cpu, probe id and `func:name`,
/// ending in a space and no newline (see [`end_of_firing`]).
pub fn prefix(cpu: u32, id: u32, func: &str, name: &str) -> String {
    let mut out = String::new();
    let cpu = cpu.to_string();
    pad(&mut out, &cpu, cpu.len(), 3, false);
    out.push(' ');
    let id = id.to_string();
    pad(&mut out, &id, id.len(), 6, false);
    out.push(' ');
    let probe = format!("{func}:{name}");
    pad(&mut out, &probe, probe.len(), 32, false);
    out.push(' ');
    out
}

/// How `trace(v)` prints: an integer as `" %16lld"` (`"%lld"` when quiet), a string as
/// `"  %-33s"` (`"%s"` when quiet).
///
/// DTrace prints a string that is empty or contains unprintable bytes as a hex dump
/// (`dt_print_bytes()` falls back to its raw-bytes table); crumbs prints the string as
/// text in every case.
pub fn trace(v: &Value, quiet: bool) -> String {
    let mut out = String::new();
    push_trace(&mut out, v, quiet);
    out
}

/// [`trace`], appended to `out`.
pub fn push_trace(out: &mut String, v: &Value, quiet: bool) {
    if let Value::Stack(frames, _) = v {
        return out.push_str(&Value::stack_text(frames));
    }
    match (v, quiet) {
        (Value::Int(n, r), true) => super::json_value::int(out, *n, *r),
        (Value::Int(n, r), false) => super::aggregation::int_column(out, *n, *r),
        (Value::Str(s), true) => out.push_str(s),
        (Value::Str(s), false) => {
            push_n(out, ' ', 2);
            pad(out, s, s.len(), 33, true);
        }
        (Value::Stack(..), _) => unreachable!("returned above"),
        (Value::Bytes(b) | Value::Object(b, _), _) => out.push_str(&Value::bytes_text(b)),
        (Value::Tuple(t), _) => out.push_str(&Value::tuple_text(t)),
        (Value::Record(r), _) => out.push_str(&Value::record_text(r)),
        (Value::Array(a), _) => out.push_str(&Value::array_text(a)),
        (Value::Buf(b), _) => out.push_str(&super::buffer::text(b, None)),
        // dt_print_sym()'s and dt_print_mod()'s column, quiet or not.
        (Value::Sym(_, text), _) => Value::sym_column(out, text),
    }
}

/// tracemem()'s hex dump, DTrace's dt_print_rawbytes(): a newline and a header of the 16
/// columns, then 16 bytes a line: the offset in hex, the bytes in hex, and the bytes as
/// characters (`.` for those outside ` `..`~`). Nothing for no bytes.
pub fn raw_bytes(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if bytes.is_empty() {
        return out;
    }
    out.push_str(&format!("\n{:5}      ", ""));
    for d in "0123456789abcdef".chars() {
        let _ = write!(out, "  {d}");
    }
    out.push_str("  0123456789abcdef\n");
    for (i, row) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:5}{:5x}:", "", i * 16);
        for b in row {
            let _ = write!(out, " {b:02x}");
        }
        push_n(&mut out, ' ', 3 * (16 - row.len()));
        out.push_str("  ");
        out.extend(row.iter().map(|&b| if (b' '..=b'~').contains(&b) { b as char } else { '.' }));
        out.push('\n');
    }
    out
}

/// What ends one firing's output: `"\n"` when not quiet (DTrace's `chewrec()` with a
/// NULL record), nothing when quiet.
pub fn end_of_firing(quiet: bool) -> &'static str {
    if quiet {
        ""
    } else {
        "\n"
    }
}

/// Printed once when tracing stops, quiet or not, before the final aggregations are
/// printed (DTrace's `main()`: `oprintf("\n")` after the work loop). Printed even if there
/// are no aggregations.
pub fn end_of_tracing() -> &'static str {
    "\n"
}

/// Printed (quiet or not) when the first SIGINT/SIGTERM arrives, to end the terminal's
/// `^C` line; DTrace's `g_newline`. It comes before the records still in the buffers and
/// before [`end_of_tracing`].
pub fn on_interrupt() -> &'static str {
    "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading() {
        assert_eq!(header(), "CPU     ID                    FUNCTION:NAME\n");
    }

    #[test]
    fn firing_prefix() {
        assert_eq!(
            prefix(0, 1, "", "BEGIN"),
            "  0      1                           :BEGIN "
        );
        assert_eq!(
            prefix(3, 12345, "do_sys_openat2", "entry"),
            "  3  12345             do_sys_openat2:entry "
        );
        // Long names push the line right; nothing is truncated.
        assert_eq!(
            prefix(1234, 1234567, "a_rather_long_kernel_function", "return"),
            "1234 1234567 a_rather_long_kernel_function:return "
        );
    }

    #[test]
    fn trace_integers() {
        assert_eq!(trace(&Value::long(42), false), "               42");
        assert_eq!(trace(&Value::long(-1), false), "               -1");
        assert_eq!(trace(&Value::long(i64::MIN), false), " -9223372036854775808");
        assert_eq!(trace(&Value::long(42), true), "42");
        assert_eq!(trace(&Value::long(-7), true), "-7");
    }

    #[test]
    fn trace_strings() {
        assert_eq!(
            trace(&Value::Str("bash".into()), false),
            "  bash                             "
        );
        assert_eq!(trace(&Value::Str("bash".into()), false).len(), 2 + 33);
        let long = "x".repeat(40);
        assert_eq!(trace(&Value::Str(long.clone()), false), format!("  {long}"));
        assert_eq!(trace(&Value::Str("bash".into()), true), "bash");
        assert_eq!(trace(&Value::Str("".into()), true), "");
    }

    #[test]
    fn whole_firing() {
        // dtrace -n 'BEGIN { trace(42); trace("hi"); }'
        let mut out = header();
        out += &prefix(0, 1, "", "BEGIN");
        out += &trace(&Value::long(42), false);
        out += &trace(&Value::Str("hi".into()), false);
        out += end_of_firing(false);
        assert_eq!(
            out,
            "CPU     ID                    FUNCTION:NAME\n  0      1                           :BEGIN                42  hi                               \n"
        );
        assert_eq!(end_of_firing(true), "");
        assert_eq!(end_of_tracing(), "\n");
        assert_eq!(on_interrupt(), "\n");
    }
}
