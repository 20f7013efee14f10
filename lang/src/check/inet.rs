//! bpftrace's network addresses: `ntop([af,] addr)` of an integer, of a 4- or 16-byte array
//! or struct (a record's `__u8 saddr[4]`, `struct in6_addr`, `u6_addr8`) and of `pton()`;
//! `pton("addr")`, a constant address's bytes, which ntop() prints and `==`/`!=` compare
//! with an address in memory. The text is built when the probe fires ([`StrFn::Ntop`]), or
//! here for a constant, as glibc's inet_ntop(3) writes it, which is what bpftrace prints.
//! `macaddr(addr)`: a hardware address's 6 bytes as text, built when the probe fires.

use super::*;
use crate::ir::NtopFrom;
use crate::types::Type;

const AF_INET: i64 = 2;
const AF_INET6: i64 = 10;

/// Bytes of ntop()'s text: the longest, `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`, is
/// 45 and its NUL.
const NTOP_SIZE: u32 = 48;

impl Checker<'_> {
    /// `ntop([af,] addr)`. Without af, the family is AF_INET for an integer or 4 bytes and
    /// AF_INET6 for 16, as bpftrace's; af may be any integer (another family prints "").
    pub(super) fn ntop(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let (af, addr) = match args {
            [af, addr] => (Some(self.int_expr(af, "ntop()'s address family")?), addr),
            [addr] => (None, addr),
            _ => unreachable!("arity checked"),
        };
        let string = self.c_string();
        // pton()'s bytes, or a string literal's: the text is known now.
        let constant = match self.pton_arg(addr)? {
            Some(b) => Some(b),
            None => literal_bytes(addr)?,
        };
        if let Some(bytes) = constant {
            let family = |n: usize| if n == 4 { AF_INET } else { AF_INET6 };
            let text = |cx: &mut Self, af: i64| StrExpr::Const(cx.strings.intern(&ntop_text(af, &bytes)));
            let s = match af {
                None => text(self, family(bytes.len())),
                Some(Expr::Int(k)) => text(self, k),
                // A family known only when the probe fires picks one of the texts.
                Some(af) => {
                    let is = |k: i64| Box::new(Expr::Binary(BinOp::Eq, Box::new(af.clone()), Box::new(Expr::Int(k))));
                    let (v4, v6, none) = (text(self, AF_INET), text(self, AF_INET6), text(self, 0));
                    StrExpr::Ternary(is(AF_INET), Box::new(v4), Box::new(StrExpr::Ternary(is(AF_INET6), Box::new(v6), Box::new(none))))
                }
            };
            return Ok(TExpr::new(Expr::Str(s), string));
        }
        let t = self.typed(addr)?;
        let (from, at) = match self.address_bytes(&t, addr)? {
            Some((n, at)) => (NtopFrom::Memory(n as u8), StrArg::Int(at)),
            None => {
                let v = self.value_of(t, &addr.span)?;
                if let Expr::Str(s) = v {
                    // bpftrace 0.17 reads a string of 4 or 16 bytes as an address: comm, or
                    // a variable or map it gave that size (its first bytes here).
                    let kept = self.str_sizes.kept(self.clause_index, addr);
                    let n = match (&s, kept) {
                        (StrExpr::Comm, _) => crate::ir::COMM_SIZE,
                        (_, Some(n)) => n,
                        _ => match s.repr() {
                            crate::ir::Repr::Str(n) => n,
                            _ => 0,
                        },
                    };
                    if n != 4 && n != 16 {
                        return Err(Diagnostic::new(addr.span.clone(), "ntop() argument must be 4 or 16 bytes in size")
                            .label("a string of another size")
                            .hint("bpftrace 0.17 reads a 4- or 16-byte string's bytes (comm, or a variable or map holding only comm or 3- or 15-character literals); pass a 4- or 16-byte array (args.saddr), an integer, or pton(\"...\")"));
                    }
                    let af = af.unwrap_or(Expr::Int(if n == 16 { AF_INET6 } else { AF_INET }));
                    return Ok(TExpr::new(Expr::Str(StrExpr::Call { f: StrFn::Ntop(NtopFrom::Str(n as u8)), args: vec![StrArg::Int(af), StrArg::Str(s)], size: NTOP_SIZE }), string));
                }
                if !v.is_int() {
                    return Err(Diagnostic::new(addr.span.clone(), format!("ntop() takes an address, but this is {}", v.repr().describe()))
                        .label("not an address")
                        .hint("pass an IPv4 address as an integer (uint32, network order), or a 4- or 16-byte array or struct (args.saddr, $sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8), or pton(\"...\")"));
                }
                (NtopFrom::Int, StrArg::Int(v))
            }
        };
        let af = af.unwrap_or(Expr::Int(if from == NtopFrom::Memory(16) { AF_INET6 } else { AF_INET }));
        Ok(TExpr::new(Expr::Str(StrExpr::Call { f: StrFn::Ntop(from), args: vec![StrArg::Int(af), at], size: NTOP_SIZE }), string))
    }

    /// A 4- or 16-byte array, struct or union in memory: its size and address. Another
    /// array or struct is an error; anything else (an integer) is None.
    fn address_bytes(&mut self, t: &ctypes::Typed, e: &ast::Expr) -> Result<Option<(u64, Expr)>, Diagnostic> {
        let real = self.types.real(t.ty).map_err(|x| ctypes::no_types(&e.span, x))?;
        if !matches!(real, Type::Array { .. } | Type::Struct(_) | Type::Union(_)) {
            return Ok(None);
        }
        let size = self.sized(t.ty, &e.span)?;
        let at = match &t.val {
            ctypes::Val::Place(a) if size == 4 || size == 16 => a.clone(),
            _ => {
                let name = self.types.name(t.ty);
                return Err(Diagnostic::new(e.span.clone(), format!("an address is 4 or 16 bytes, but a `{name}` is {size}"))
                    .label("not an IPv4 or IPv6 address")
                    .hint("pass a 4-byte (IPv4) or 16-byte (IPv6) array or struct, e.g. args.saddr or $sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8"));
            }
        };
        Ok(Some((size, at)))
    }

    /// The bytes of `pton("addr")` if `e` is that call (in the bpftrace dialect).
    fn pton_arg(&mut self, e: &ast::Expr) -> Result<Option<Vec<u8>>, Diagnostic> {
        let ExprKind::Call(name, args) = &e.kind else { return Ok(None) };
        if name.name != "pton" || !self.bpftrace() {
            return Ok(None);
        }
        let f = builtins::function("pton", self.dialect()).expect("a bpftrace function");
        check_arity(f, args, &e.span)?;
        let ExprKind::Str(s) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), "pton() takes a string literal").label("not a string literal").hint("write the address as text: pton(\"127.0.0.1\") or pton(\"::1\")"));
        };
        pton_bytes(&s.value).map(Some).ok_or_else(|| {
            Diagnostic::new(args[0].span.clone(), format!("pton() expects a valid IPv4/IPv6 address, got {}", s.value))
                .label("not an address")
                .hint("an IPv4 address is dotted (\"10.0.0.1\"); an IPv6 one has colons (\"fe80::1\"); as bpftrace 0.17, text with a `.` is read as IPv4, so \"::ffff:1.2.3.4\" is not one")
        })
    }

    /// `pton()` used elsewhere than in ntop() or a comparison: an array of 4 or 16 bytes.
    pub(super) fn pton(&mut self, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        let call = ast::Expr { kind: ExprKind::Call(ast::Ident { name: "pton".into(), span: span.clone() }, args.to_vec()), span: span.clone() };
        match self.pton_arg(&call)? {
            Some(bytes) => Ok(self.constant_array(&bytes)),
            None => Err(Diagnostic::new(span.clone(), "pton() is bpftrace's").label("not D").hint("D has inet_ntop() and inet_ntoa() for addresses in memory")),
        }
    }

    /// `addr == pton("...")` or `!=` (either way round): the address's bytes in memory (an
    /// array or struct of the same size) compared with the constant's, a word at a time.
    pub(super) fn address_compare(&mut self, op: BinOp, l: &ast::Expr, r: &ast::Expr) -> Result<Option<TExpr>, Diagnostic> {
        let (lp, rp) = (self.pton_arg(l)?, self.pton_arg(r)?);
        let (bytes, other) = match (lp, rp) {
            (None, None) => return Ok(None),
            (Some(b), None) => (b, r),
            (None, Some(b)) => (b, l),
            (Some(a), Some(b)) => {
                let int = self.int();
                return Ok(Some(TExpr::new(Expr::Int(match op {
                    BinOp::Eq => (a == b) as i64,
                    BinOp::Ne => (a != b) as i64,
                    _ => return Err(compare_op(op, &l.span)),
                }), int)));
            }
        };
        if !matches!(op, BinOp::Eq | BinOp::Ne) {
            return Err(compare_op(op, &other.span));
        }
        let t = self.typed(other)?;
        let Some((size, at)) = self.address_bytes(&t, other)? else {
            let name = self.types.name(t.ty);
            return Err(Diagnostic::new(other.span.clone(), format!("pton()'s address is compared with an address in memory, but this is of type `{name}`"))
                .label("not a 4- or 16-byte array or struct")
                .hint("compare an array or struct of the address's size, e.g. args.daddr == pton(\"127.0.0.1\"), or ntop() both"));
        };
        if size != bytes.len() as u64 {
            return Err(Diagnostic::new(other.span.clone(), format!("this address is {size} bytes, but pton()'s is {}", bytes.len()))
                .label("sizes differ")
                .hint("compare an IPv4 address (4 bytes) with pton(\"a.b.c.d\") and an IPv6 one (16) with pton(\"x:...\")"));
        }
        // Equal when every 8-byte (or the one 4-byte) word is.
        let mut all: Option<Expr> = None;
        for (i, word) in bytes.chunks(8).enumerate() {
            let mut b = [0u8; 8];
            b[..word.len()].copy_from_slice(word);
            let load = Expr::Load { addr: Box::new(ctypes::add_offset(at.clone(), 8 * i as i64)), size: word.len() as u8, signed: false };
            let want = if word.len() == 8 { i64::from_le_bytes(b) } else { u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as i64 };
            let eq = Expr::Binary(BinOp::Eq, Box::new(load), Box::new(Expr::Int(want)));
            all = Some(match all {
                None => eq,
                Some(a) => Expr::Binary(BinOp::LogAnd, Box::new(a), Box::new(eq)),
            });
        }
        let eq = all.expect("4 or 16 bytes");
        let v = if op == BinOp::Eq { eq } else { Expr::Unary(crate::ast::UnOp::Not, Box::new(eq)) };
        let int = self.int();
        Ok(Some(TExpr::new(v, int)))
    }
}

impl Checker<'_> {
    /// `macaddr(addr)`: a 6-byte array or struct in memory, or a kernel pointer or integer
    /// address of the bytes.
    pub(super) fn macaddr(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let e = &args[0];
        if let ExprKind::Str(_) = e.kind {
            return Err(Diagnostic::new(e.span.clone(), "macaddr() does not support literal string arguments").label("a string literal").hint("pass a 6-byte array (an ethhdr's h_source) or the kernel address of one"));
        }
        let t = self.typed(e)?;
        let real = self.types.real(t.ty).map_err(|x| ctypes::no_types(&e.span, x))?;
        let addr = match (real, &t.val) {
            (Type::Array { .. } | Type::Struct(_) | Type::Union(_), val) => {
                let size = self.sized(t.ty, &e.span)?;
                match val {
                    ctypes::Val::Place(a) if size == 6 => a.clone(),
                    _ => {
                        let name = self.types.name(t.ty);
                        return Err(Diagnostic::new(e.span.clone(), format!("macaddr() argument must be 6 bytes in size, but a `{name}` is {size}"))
                            .label("not a hardware address")
                            .hint("pass a 6-byte array (an ethhdr's h_source) or the kernel address of one (a net_device's dev_addr)"));
                    }
                }
            }
            (Type::Ptr { space: crate::types::AddrSpace::User, .. }, _) => {
                return Err(Diagnostic::new(e.span.clone(), "macaddr() of a user-space pointer").label("points into the traced process").hint("macaddr() reads kernel memory; copy user bytes in first"));
            }
            _ => {
                let v = self.value_of(t, &e.span)?;
                if v.repr().is_str() {
                    return Err(Diagnostic::new(e.span.clone(), "macaddr() argument must be 6 bytes in size, but this is a string")
                        .label("not a hardware address")
                        .hint("pass a 6-byte array (an ethhdr's h_source) or the kernel address of one; a string is kept in a buffer of its own size (strsize bytes, 16 for comm)"));
                }
                if !v.is_int() {
                    return Err(Diagnostic::new(e.span.clone(), format!("macaddr() takes an array or an address, but this is {}", v.repr().describe()))
                        .label("not an address")
                        .hint("pass a 6-byte array or the kernel address of one"));
                }
                v
            }
        };
        let string = self.c_string();
        Ok(TExpr::new(Expr::Str(StrExpr::Call { f: StrFn::Macaddr, args: vec![StrArg::Int(addr)], size: MACADDR_SIZE }), string))
    }
}

/// A string literal's bytes and its NUL, which ntop() reads as an address when they are 4
/// or 16, as bpftrace 0.17 does (`ntop("abc")` is 97.98.99.0); None if `e` is no literal.
fn literal_bytes(e: &ast::Expr) -> Result<Option<Vec<u8>>, Diagnostic> {
    let ExprKind::Str(s) = &e.kind else { return Ok(None) };
    let bytes: Vec<u8> = s.value.bytes().chain([0]).collect();
    if bytes.len() != 4 && bytes.len() != 16 {
        return Err(Diagnostic::new(e.span.clone(), format!("ntop() argument must be 4 or 16 bytes in size, but this string is {} (its NUL included)", bytes.len()))
            .label("not an IPv4 or IPv6 address")
            .hint("write the address as pton(\"127.0.0.1\"), or pass a 4- or 16-byte array or an integer"));
    }
    Ok(Some(bytes))
}

/// Bytes of macaddr()'s text: 17 and its NUL.
const MACADDR_SIZE: u32 = 24;

fn compare_op(op: BinOp, span: &Span) -> Diagnostic {
    Diagnostic::new(span.clone(), format!("addresses are compared with == and !=, not `{}`", op.symbol())).label("not an equality").hint("write addr == pton(\"...\") or addr != pton(\"...\")")
}

/// pton()'s bytes, as bpftrace 0.17 reads the text: with a `.` an IPv4 address (4 bytes),
/// else with a `:` an IPv6 one (16), as inet_pton(3) reads them.
pub(crate) fn pton_bytes(text: &str) -> Option<Vec<u8>> {
    if text.contains('.') {
        text.parse::<std::net::Ipv4Addr>().ok().map(|a| a.octets().to_vec())
    } else if text.contains(':') {
        text.parse::<std::net::Ipv6Addr>().ok().map(|a| a.octets().to_vec())
    } else {
        None
    }
}

/// The address as glibc's inet_ntop(3) writes it, as bpftrace prints ntop(): AF_INET the
/// first 4 bytes dotted; AF_INET6 16 bytes (missing ones 0) as hex words, the longest run of
/// two or more zero words (the first of equal ones) as `::`, ::ffff:a.b.c.d and ::a.b.c.d
/// (six zero words, then one that is not) dotted; another family "".
pub(crate) fn ntop_text(af: i64, bytes: &[u8]) -> String {
    let mut b = [0u8; 16];
    b[..bytes.len().min(16)].copy_from_slice(&bytes[..bytes.len().min(16)]);
    let dotted = |b: &[u8]| format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
    match af {
        AF_INET => dotted(&b),
        AF_INET6 => {
            let words: Vec<u16> = b.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]])).collect();
            // The longest run of zero words, 2 at least.
            let (mut best, mut cur): ((usize, usize), Option<(usize, usize)>) = ((0, 0), None);
            for (i, w) in words.iter().enumerate() {
                cur = match (*w == 0, cur) {
                    (true, Some((s, n))) => Some((s, n + 1)),
                    (true, None) => Some((i, 1)),
                    (false, _) => None,
                };
                if let Some((s, n)) = cur {
                    if n > best.1 {
                        best = (s, n);
                    }
                }
            }
            if best.1 < 2 {
                best = (usize::MAX, 0);
            }
            if best.0 == 0 && (best.1 == 6 || (best.1 == 5 && words[5] == 0xffff)) {
                let prefix = if best.1 == 5 { "::ffff:" } else { "::" };
                return format!("{prefix}{}", dotted(&b[12..]));
            }
            let mut out = String::new();
            let mut i = 0;
            while i < 8 {
                if i == best.0 {
                    out.push_str("::");
                    i += best.1;
                    continue;
                }
                if i > 0 && !out.ends_with("::") {
                    out.push(':');
                }
                out.push_str(&format!("{:x}", words[i]));
                i += 1;
            }
            out
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(text: &str) -> String {
        ntop_text(AF_INET6, &pton_bytes(text).expect("an address"))
    }

    #[test]
    fn ipv6_text_is_glibcs() {
        // Each as glibc's inet_ntop(3) writes it (checked with bpftrace 0.17's ntop(pton())).
        for (text, want) in [
            ("::", "::"),
            ("::1", "::1"),
            ("::5", "::5"),
            ("::1:2", "::0.1.0.2"),
            ("::ffff:0:0", "::ffff:0.0.0.0"),
            ("::ffff:7f00:1", "::ffff:127.0.0.1"),
            ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
            ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
            ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"),
            ("fe80::1:0:0:5", "fe80::1:0:0:5"),
            ("1::", "1::"),
            ("ABCD:EF01::", "abcd:ef01::"),
            ("0:0:0:0:0:1:0:0", "::1:0:0"),
        ] {
            assert_eq!(v6(text), want, "{text}");
        }
    }

    #[test]
    fn ipv4_and_other_families() {
        assert_eq!(ntop_text(AF_INET, &[127, 0, 0, 1]), "127.0.0.1");
        assert_eq!(ntop_text(AF_INET, &pton_bytes("::1").unwrap()), "0.0.0.0");
        assert_eq!(ntop_text(AF_INET6, &[1, 2, 3, 4]), "102:304::");
        assert_eq!(ntop_text(7, &[1, 2, 3, 4]), "");
    }

    #[test]
    fn pton_reads_as_bpftrace_does() {
        assert_eq!(pton_bytes("10.1.2.3"), Some(vec![10, 1, 2, 3]));
        assert_eq!(pton_bytes("::ffff:1.2.3.4"), None);
        assert_eq!(pton_bytes("localhost"), None);
        assert_eq!(pton_bytes("1.2.3"), None);
        assert_eq!(pton_bytes("::1").map(|b| b.len()), Some(16));
    }
}
