//! printf() in a pinned iterator (`iter:task:PIN`, current bpftrace's): crumbs is gone when
//! the pin is read (`cat /sys/fs/bpf/PIN`), so the program writes its text itself, with
//! bpf_seq_printf into the iterator's text, as bpftrace's does. The kernel formats it
//! (its bpf_bprintf_prepare): integers (`d i u x X`, given as 64-bit words), strings (`s`,
//! a pointer to the string's buffer) and characters (`c`), with the flags `- + 0 space` and a
//! width; no precision, no `#`, at most 12 arguments. This turns a printf() into the format
//! the kernel takes, or says why it cannot be.

use crate::ir::Repr;
use crate::printf::Piece;

/// Most arguments bpf_seq_printf takes (the kernel's MAX_BPRINTF_VARARGS).
pub const MAX_ARGS: usize = 12;

/// What one argument of the kernel's format is: a 64-bit integer, or the address of a
/// string's buffer in the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqArg {
    Int,
    Str,
}

/// printf()'s `pieces` with arguments `args` as bpf_seq_printf's format (NUL-terminated) and
/// the kind of each argument, or what the kernel cannot print.
pub fn format(pieces: &[Piece], args: &[Repr]) -> Result<(String, Vec<SeqArg>), String> {
    if args.len() > MAX_ARGS {
        return Err(format!("{} arguments; the kernel's bpf_seq_printf takes at most {MAX_ARGS}", args.len()));
    }
    let mut out = String::new();
    let mut kinds = Vec::new();
    let mut reprs = args.iter();
    for piece in pieces {
        match piece {
            Piece::Lit(text) => out.push_str(&text.replace('%', "%%")),
            Piece::Conv(c) => {
                let repr = reprs.next().ok_or("fewer arguments than conversions")?;
                if c.flags.contains('#') || c.precision.is_some() || c.suffix.is_some() {
                    return Err(format!("%{}{}: the kernel's bpf_seq_printf takes no precision and no `#`", c.flags, c.conv));
                }
                let width = c.width.map(|w| w.to_string()).unwrap_or_default();
                let kind = match (c.conv, repr) {
                    ('d' | 'i' | 'u' | 'x' | 'X', Repr::Int(_)) => {
                        out.push_str(&format!("%{}{width}ll{}", c.flags, c.conv));
                        SeqArg::Int
                    }
                    ('c', Repr::Int(_)) => {
                        out.push_str(&format!("%{}{width}c", c.flags));
                        SeqArg::Int
                    }
                    ('s', Repr::Str(_)) => {
                        out.push_str(&format!("%{}{width}s", c.flags));
                        SeqArg::Str
                    }
                    ('s', Repr::StrId) => return Err("%s of a string constant (or probe): the kernel's bpf_seq_printf prints strings in memory; write the text in the format".into()),
                    (_, r) => return Err(format!("{}: the kernel's bpf_seq_printf prints integers (%d %i %u %x %X %c) and strings (%s)", r.describe())),
                };
                kinds.push(kind);
            }
        }
    }
    out.push('\0');
    Ok((out, kinds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::IntRepr;

    fn fmt(f: &str, args: &[Repr]) -> Result<(String, Vec<SeqArg>), String> {
        let pieces = crate::printf::parse(f).unwrap();
        format(&pieces, args)
    }

    #[test]
    fn integers_are_64_bit_and_strings_pointers() {
        let (f, k) = fmt("%s:%d 100%% %-5x|%08u%c\n", &[Repr::Str(16), Repr::Int(IntRepr::I32), Repr::Int(IntRepr::U64), Repr::Int(IntRepr::U64), Repr::Int(IntRepr::U64)]).unwrap();
        assert_eq!(f, "%s:%lld 100%% %-5llx|%08llu%c\n\0");
        assert_eq!(k, [SeqArg::Str, SeqArg::Int, SeqArg::Int, SeqArg::Int, SeqArg::Int]);
    }

    #[test]
    fn what_the_kernel_cannot_format_is_refused() {
        assert!(fmt("%.3s", &[Repr::Str(16)]).unwrap_err().contains("no precision"));
        assert!(fmt("%#x", &[Repr::Int(IntRepr::U64)]).unwrap_err().contains("no `#`"));
        assert!(fmt("%o", &[Repr::Int(IntRepr::U64)]).unwrap_err().contains("prints integers"));
        assert!(fmt("%d", &[Repr::Str(16)]).unwrap_err().contains("prints integers"));
        assert!(fmt("%s", &[Repr::StrId]).unwrap_err().contains("write the text in the format"));
        let many = vec![Repr::Int(IntRepr::U64); 13];
        assert!(fmt(&"%d".repeat(13), &many).unwrap_err().contains("at most 12"));
    }
}
