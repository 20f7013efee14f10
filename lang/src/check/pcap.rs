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
