//! A pinned iterator's printf() (`iter:task:PIN`, current bpftrace's): the pin is read once
//! crumbs has exited, so the program writes the text into the iterator itself with
//! bpf_seq_printf (its seq_file: `ctx->meta->seq`). The kernel wants the format in read-only
//! map memory: every such format is in `.rodata` ([`formats`]), and the arguments are 64-bit
//! words on the stack, each an integer read back from the record or the address of a
//! string's buffer in it. The record itself is built in the scratch space and never sent.

use super::*;
use crumbs_lang::seq_printf::{self, SeqArg};

/// The symbol of `.rodata`, which holds the formats.
pub const SEQ_FORMATS_SYMBOL: &str = "seq_formats";

/// Whether a program of `p` is a pinned iterator's.
fn has_pinned_iterator(p: &Program) -> bool {
    p.groups.iter().any(|g| matches!(g.attach, AttachPoint::Iter(_, Some(_))))
}

/// Where each format is in `.rodata`, by (record, item).
type FormatOffsets = Vec<((usize, usize), u32)>;

/// The bytes of `.rodata`: the kernel's format of every printf() item a pinned iterator of
/// `p` may run, NUL-terminated, one after another; and where each is.
pub fn formats(p: &Program) -> (Vec<u8>, FormatOffsets) {
    let (mut bytes, mut at) = (Vec::new(), Vec::new());
    if !has_pinned_iterator(p) {
        return (bytes, at);
    }
    for (rid, r) in p.records.iter().enumerate() {
        for (i, item) in r.items.iter().enumerate() {
            let Item::Printf { pieces, args } = item else { continue };
            if let Ok((f, _)) = seq_printf::format(pieces, args) {
                at.push(((rid, i), bytes.len() as u32));
                bytes.extend_from_slice(f.as_bytes());
            }
        }
    }
    (bytes, at)
}

impl Emitter<'_> {
    /// Whether this program is a pinned iterator's: its output is written with bpf_seq_printf.
    pub(super) fn pinned_iterator(&self) -> bool {
        matches!(self.attach, AttachPoint::Iter(_, Some(_)))
    }

    /// Writes printf() item `item` of record `rid` (its arguments stored in the record at r8)
    /// into the iterator's text.
    pub(super) fn seq_printf(&mut self, rid: usize, item: usize) -> Result<(), EmitError> {
        let Item::Printf { pieces, args } = &self.p.records[rid].items[item] else {
            return Err(self.err("internal: a pinned iterator's output other than printf()"));
        };
        let (format, kinds) = seq_printf::format(pieces, args).map_err(|why| self.err(format!("internal: printf() in a pinned iterator: {why}")))?;
        let (_, at) = formats(self.p);
        let offset = at.iter().find(|(k, _)| *k == (rid, item)).map(|(_, o)| *o).ok_or_else(|| self.err("internal: a pinned iterator's format is not in .rodata"))?;
        let offsets = self.record_layout(rid).offsets[item].clone();
        self.scoped(|e| {
            let data = e.slot(8 * kinds.len().max(1))?;
            for (i, (kind, off)) in kinds.iter().zip(&offsets).enumerate() {
                let to = data + 8 * i as i16;
                match kind {
                    SeqArg::Int => e.push(Insn::ldx(DW, R0, R8, *off as i16)),
                    SeqArg::Str => {
                        e.push(Insn::mov(R0, R8));
                        e.push(Insn::alu_imm(Alu::Add, R0, *off as i32));
                    }
                }
                e.push(Insn::stx(DW, R10, to, R0));
            }
            // ctx->meta, then meta->seq.
            e.push(Insn::ldx(DW, R1, R6, 0));
            e.push(Insn::ldx(DW, R1, R1, 0));
            e.ld_map(R2, SEQ_FORMATS_SYMBOL, offset as i32);
            e.push(Insn::mov_imm(R3, format.len() as i32));
            if kinds.is_empty() {
                e.push(Insn::mov_imm(R4, 0));
            } else {
                e.push(Insn::mov(R4, R10));
                e.push(Insn::alu_imm(Alu::Add, R4, data as i32));
            }
            e.push(Insn::mov_imm(R5, 8 * kinds.len() as i32));
            e.push(Insn::call(helper::SEQ_PRINTF));
            Ok(())
        })
    }
}
