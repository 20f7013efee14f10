//! bpftrace's output functions that print what user space makes of a record: `join()`
//! (the strings of an array of pointers, joined) and `cat()` (a file's contents).

use super::*;
use crate::ir::ReadFrom;
use crate::types::{AddrSpace, Type};

/// How many pointers join() reads, and the bytes it keeps of each string: bpftrace 0.17's
/// `join_argnum` and `join_argsize`.
pub const JOIN_ARGS: u32 = 16;
pub const JOIN_ARG_SIZE: u32 = 1024;

/// What cat() prints of a file at most unless the `max_cat_bytes` config variable says:
/// bpftrace's default.
pub const CAT_BYTES: u64 = 10240;

impl Checker<'_> {
    /// `join(arr [, sep])`: the first [`JOIN_ARGS`] strings of the array of pointers `arr`
    /// (a user-space one is read from the process), printed up to the first empty one,
    /// joined by `sep` (a string literal, " " if not given), as a line of its own.
    pub(super) fn join(&mut self, args: &[ast::Expr], span: &Span) -> Result<(Item, Vec<Expr>), Diagnostic> {
        let usage = "join(arr [, sep]): e.g. join(args->argv) or join(args->argv, \",\")";
        let (arr, sep) = match args {
            [arr] => (arr, " ".to_string()),
            [arr, ast::Expr { kind: ExprKind::Str(s), .. }] => (arr, s.value.clone()),
            [_, sep] => return Err(Diagnostic::new(sep.span.clone(), "join()'s separator must be a string literal").label("not a string literal").hint(usage)),
            _ => return Err(Diagnostic::new(span.clone(), format!("join() takes 1 or 2 arguments, but {} given", args.len())).label("wrong number of arguments").hint(usage)),
        };
        let t = self.typed(arr)?;
        let real = self.types.real(t.ty).map_err(|e| ctypes::no_types(&arr.span, e))?;
        let from = match real {
            Type::Ptr { space: AddrSpace::User, .. } => ReadFrom::User,
            Type::Ptr { space: AddrSpace::Kernel, .. } | Type::Array { .. } => ReadFrom::Kernel,
            Type::Int(_) | Type::Enum { .. } => ReadFrom::ByAddress,
            _ => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(arr.span.clone(), format!("join() takes an array of string pointers, but this is a `{name}`"))
                    .label("not a pointer")
                    .hint(usage));
            }
        };
        let addr = self.value_of(t, &arr.span)?;
        // The strings take 16 KiB of a record, whose most is 32 KiB: the clause sends each
        // output action as a record of its own when it runs (as bpftrace does), so two
        // join()s, or a join() and other output, fit.
        self.sends_each_output = true;
        let strings = Expr::PointedStrings { addr: Box::new(addr), from, count: JOIN_ARGS, size: JOIN_ARG_SIZE };
        Ok((Item::Join { sep, count: JOIN_ARGS, size: JOIN_ARG_SIZE }, vec![strings]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() })
    }

    /// Each output action of a clause with join() is a record of its own: two joins' 16 KiB
    /// each would not fit one record.
    #[test]
    fn join_sends_each_output_on_its_own() {
        let p = compile(r#"BEGIN { printf("a"); join(0); join(0x10, ","); }"#).unwrap();
        let items: Vec<&Item> = p.records.iter().flat_map(|r| &r.items).collect();
        assert_eq!(items.len(), 3);
        assert!(matches!(items[1], Item::Join { sep, count: JOIN_ARGS, size: JOIN_ARG_SIZE } if sep == " "));
        assert!(matches!(items[2], Item::Join { sep, .. } if sep == ","));
        assert!(p.records.iter().all(|r| r.items.len() == 1));
    }

    #[test]
    fn join_is_bpftraces_and_takes_a_literal_separator() {
        let d = compile(r#"BEGIN { join(0, comm); }"#).unwrap_err();
        assert_eq!(d.message, "join()'s separator must be a string literal");
        let d = compile(r#"BEGIN { join("x"); }"#).unwrap_err();
        assert!(d.message.starts_with("join() takes an array of string pointers"), "{}", d.message);
        let d = crate::compile("BEGIN { join(0); }", &CheckOptions { dialect: Some(Dialect::D), ..Default::default() }).unwrap_err();
        assert!(d.message.starts_with("unknown function"), "{}", d.message);
    }
}
