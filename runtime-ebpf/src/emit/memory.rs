//! Scratch memory for `alloca()` and `copyin()`: each call of a clause has its own piece of
//! this CPU's scratch space, taken when the clause starts and kept until it ends. The value
//! the program sees is the piece's address as a plain number (laundered through a helper
//! copy, since the verifier would keep it a map pointer), so every way of reading kernel
//! memory reads it. `copyinto()` and `bcopy()` write into the clause's pieces only: their
//! destination is checked against them when the probe fires.

use super::strings::Buf;
use super::*;

/// The clause's pieces of scratch memory: by allocation site, their offset and size.
#[derive(Clone, Debug, Default)]
pub(super) struct Pieces {
    sites: Vec<(u32, i16, u32)>,
    /// Where the pieces start and end in the scratch space (none: both 0).
    start: i32,
    end: i32,
}

impl Emitter<'_> {
    /// Takes the clause's pieces (in the clause's scope). A clause that copies into them
    /// takes as many bytes again past them: the verifier bounds a copy's offset and size
    /// separately.
    pub(super) fn take_pieces(&mut self, c: &Clause) -> Result<Pieces, EmitError> {
        let mut sites = Vec::new();
        c.any(&mut |n| {
            if let Node::Expr(Expr::Alloc { site, max, .. }) = n {
                sites.push((*site, *max));
            }
            false
        });
        sites.sort();
        sites.dedup();
        let too_much = |e: &Self| e.err("this clause's alloca() and copyin() need more scratch memory than there is (32768 bytes per clause, with its strings); take less");
        let mut p = Pieces::default();
        for (i, (site, max)) in sites.into_iter().enumerate() {
            // At least a word: a 0-byte piece is still a place to copy nothing into.
            let size = max.max(8);
            let at = self.scratch(size as usize).map_err(|_| too_much(self))?;
            if i == 0 {
                p.start = at as i32;
            }
            p.end = at as i32 + size as i32;
            p.sites.push((site, at, max));
        }
        if c.any(&mut |n| matches!(n, Node::Stmt(Stmt::Copy { .. }))) {
            if p.sites.is_empty() {
                return Err(self.err("bcopy() and copyinto() copy into scratch memory from alloca() or copyin() in the same clause, and this clause has none"));
            }
            self.scratch((p.end - p.start) as usize).map_err(|_| too_much(self))?;
        }
        Ok(p)
    }

    /// r0 = the address of scratch offset `at` as a number (clobbers r1-r5).
    fn scratch_address(&mut self, at: i16) -> Result<(), EmitError> {
        self.buf_addr(R0, Buf::Scratch(at));
        self.launder()
    }

    /// `alloca(size)` / `copyin(from, size)` into r0.
    pub(super) fn alloc(&mut self, site: u32, size: &Expr, max: u32, from: Option<&Expr>) -> Result<(), EmitError> {
        let Some(&(_, at, _)) = self.pieces.sites.iter().find(|s| s.0 == site) else {
            return Err(self.err(format!("internal: no scratch piece for allocation {site}")));
        };
        self.scoped(|e| {
            let (src, len) = (e.slot(8)?, e.slot(8)?);
            if let Some(from) = from {
                e.expr(from)?;
                e.push(Insn::stx(DW, R10, src, R0));
            }
            e.expr(size)?;
            e.push(Insn::stx(DW, R10, len, R0));
            e.fault_unless(Cond::Le, R0, max as i32, Fault::NoScratch, FaultValue::Reg(R0))?;
            // The size from the checked register: the verifier knows its bound there.
            e.push(Insn::mov(R2, R0));
            e.buf_addr(R1, Buf::Scratch(at));
            match from {
                Some(_) => {
                    // A read that fails zeroes the piece; an address no user data can be at
                    // faults (as copyinstr()'s, spec §7.9).
                    e.push(Insn::ldx(DW, R3, R10, src));
                    e.keep_fault_value(R3)?;
                    e.push(Insn::call(helper::PROBE_READ_USER));
                    e.user_read_fault(Cond::Eq)?;
                }
                None => {
                    // A read of address 0 fails at once and zeroes the piece.
                    e.push(Insn::mov_imm(R3, 0));
                    e.push(Insn::call(helper::PROBE_READ_KERNEL));
                }
            }
            Ok(())
        })?;
        self.scratch_address(at)
    }

    /// `copyinto()` / `bcopy()`: `size` bytes from `src` (user or kernel memory) to `dest`,
    /// which must be inside the clause's pieces (else an invalid address).
    pub(super) fn copy_into(&mut self, user: bool, src: &Expr, dest: &Expr, size: &Expr) -> Result<(), EmitError> {
        let (start, room) = (self.pieces.start as i16, self.pieces.end - self.pieces.start);
        self.scoped(|e| {
            let (s, d, n) = (e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.expr(src)?;
            e.push(Insn::stx(DW, R10, s, R0));
            e.expr(dest)?;
            e.push(Insn::stx(DW, R10, d, R0));
            e.expr(size)?;
            e.push(Insn::stx(DW, R10, n, R0));
            // The destination's offset from the first piece, and the room after it.
            e.scratch_address(start)?;
            e.push(Insn::ldx(DW, R1, R10, d));
            e.push(Insn::alu_reg(Alu::Sub, R1, R0));
            e.fault_unless(Cond::Lt, R1, room, Fault::BadAddr, FaultValue::Slot(d))?;
            e.push(Insn::ldx(DW, R2, R10, n));
            e.fault_unless(Cond::Le, R2, room, Fault::NoScratch, FaultValue::Slot(n))?;
            e.push(Insn::mov(R3, R1));
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.fault_unless(Cond::Le, R3, room, Fault::NoScratch, FaultValue::Slot(n))?;
            e.buf_addr(R3, Buf::Scratch(start));
            e.push(Insn::alu_reg(Alu::Add, R1, R3));
            e.push(Insn::ldx(DW, R3, R10, s));
            e.keep_fault_value(R3)?;
            e.push(Insn::call(if user { helper::PROBE_READ_USER } else { helper::PROBE_READ_KERNEL }));
            if user {
                e.user_read_fault(Cond::Eq)
            } else {
                e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)
            }
        })
    }
}
