//! `pcap(skb, protocol)`: a network packet recorded for a capture file, as DTrace on Linux
//! has it: the time, the bytes captured (the sk_buff's linear data, `len - data_len`, at most
//! the `pcapsize` option's), the link type, and the bytes. A NULL sk_buff captures nothing.

use super::*;

/// Bytes captured per packet unless the `pcapsize` option says: DTrace's default (an
/// Ethernet frame).
pub const PCAP_SIZE: u32 = 1514;

impl Checker<'_> {
    pub(super) fn pcap(&mut self, args: &[ast::Expr], span: &Span) -> Result<(Item, Vec<Expr>), Diagnostic> {
        let skb = self.address(&args[0], "the sk_buff given to pcap()")?;
        let proto = self.int_expr(&args[1], "pcap()'s link type")?;
        let [len, data_len, data] = self.skb_offsets(span)?;
        let size = self.pcapsize;
        let at = |off: i32| Box::new(Expr::Binary(BinOp::Add, Box::new(skb.clone()), Box::new(Expr::Int(off as i64))));
        let load = |off: i32, size: u8| Expr::Load { addr: at(off), size, signed: false };
        let unless_null = |e: Expr| Expr::Ternary(Box::new(Expr::Binary(BinOp::Eq, Box::new(skb.clone()), Box::new(Expr::Int(0)))), Box::new(Expr::Int(0)), Box::new(e));
        let linear = Expr::Binary(BinOp::Sub, Box::new(load(len, 4)), Box::new(load(data_len, 4)));
        let captured = Expr::Ternary(Box::new(Expr::Unsigned(BinOp::Gt, Box::new(linear.clone()), Box::new(Expr::Int(size as i64)))), Box::new(Expr::Int(size as i64)), Box::new(linear));
        let captured = unless_null(captured);
        let bytes = Expr::ObjectPrefix { addr: Box::new(unless_null(load(data, 8))), size, len: Box::new(captured.clone()) };
        let time = Expr::Var(builtins::VarHook::Kernel(builtins::KernelValue::MonotonicNs, builtins::Part::Whole));
        Ok((Item::Pcap { size }, vec![time, captured, proto, bytes]))
    }

    /// bpftrace's `skboutput(path, skb, length, offset)`: as pcap() records a packet, its
    /// first `length` bytes (of the linear data, at most `pcapsize`), for the capture file
    /// `path`; user space leaves out the first `offset`, as bpftrace's does.
    pub(super) fn skboutput(&mut self, args: &[ast::Expr], span: &Span) -> Result<(Item, Vec<Expr>), Diagnostic> {
        let ExprKind::Str(path) = &args[0].kind else {
            return Err(Diagnostic::new(args[0].span.clone(), "skboutput() expects a string literal as the first argument").label("not a string literal").hint("name the capture file: skboutput(\"receive.pcap\", args.skb, args.skb.len, 0)"));
        };
        let offset = match const_int(&args[3]) {
            Some(n) if n >= 0 => n as u64,
            _ => return Err(Diagnostic::new(args[3].span.clone(), "skboutput()'s offset must be a non-negative integer constant").label("not a constant").hint("the bytes to leave out at the start: 0, or 14 for an Ethernet header")),
        };
        let skb = self.address(&args[1], "the sk_buff given to skboutput()")?;
        let length = self.int_expr(&args[2], "skboutput()'s length")?;
        let [len, data_len, data] = self.skb_offsets(span)?;
        let size = self.pcapsize;
        let at = |off: i32| Box::new(Expr::Binary(BinOp::Add, Box::new(skb.clone()), Box::new(Expr::Int(off as i64))));
        let load = |off: i32, size: u8| Expr::Load { addr: at(off), size, signed: false };
        let unless_null = |e: Expr| Expr::Ternary(Box::new(Expr::Binary(BinOp::Eq, Box::new(skb.clone()), Box::new(Expr::Int(0)))), Box::new(Expr::Int(0)), Box::new(e));
        let min = |a: Expr, b: Expr| Expr::Ternary(Box::new(Expr::Unsigned(BinOp::Gt, Box::new(a.clone()), Box::new(b.clone()))), Box::new(b), Box::new(a));
        let linear = Expr::Binary(BinOp::Sub, Box::new(load(len, 4)), Box::new(load(data_len, 4)));
        let captured = unless_null(min(min(linear, length), Expr::Int(size as i64)));
        let bytes = Expr::ObjectPrefix { addr: Box::new(unless_null(load(data, 8))), size, len: Box::new(captured.clone()) };
        let time = Expr::Var(builtins::VarHook::Kernel(builtins::KernelValue::MonotonicNs, builtins::Part::Whole));
        Ok((Item::SkbOutput { path: path.value.clone(), offset, size }, vec![time, captured, bytes]))
    }

    /// The byte offsets of sk_buff's `len`, `data_len` and `data`, from the kernel's types.
    fn skb_offsets(&mut self, span: &Span) -> Result<[i32; 3], Diagnostic> {
        let mut out = [0; 3];
        for (o, member) in out.iter_mut().zip(["len", "data_len", "data"]) {
            let t = self.types.lookup(crate::facts::TypeSpace::Struct, "sk_buff").map_err(|e| ctypes::no_types(span, e))?;
            let found = t.and_then(|t| self.types.member(t, member).ok().flatten());
            *o = found.map(|f| (f.bit_offset / 8) as i32).ok_or_else(|| {
                Diagnostic::new(span.clone(), format!("the kernel's `struct sk_buff` has no `{member}`")).label("needs it").hint("pcap() reads the packet's linear data through the sk_buff")
            })?;
        }
        Ok(out)
    }
}
