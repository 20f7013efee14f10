//! Speculations in the kernel: which are in use, one word each after the globals (0: free,
//! else the generation that claimed it), claimed by `speculation()` with a
//! compare-and-exchange and freed by `commit()` and `discard()`; after them, the counter
//! the generations come from. The records themselves go through the event buffer like any
//! other, tagged with their speculation and its generation (`id | generation << 5`); user
//! space holds them until the commit or discard of that tag arrives (records arrive in the
//! order they were reserved, so a speculation's records precede its commit). The
//! generation keeps apart two uses of one id: a record that speculate()s after a commit
//! freed the id and another speculation() took it belongs to the new one, though reserved
//! before that commit.

use super::*;
use crate::abi::record::SPEC_DROPPED;

/// Whether the program uses speculations at all.
pub fn uses_speculation(p: &Program) -> bool {
    p.groups.iter().flat_map(|g| &g.clauses).any(|c| c.any(&mut |n| matches!(n, Node::Expr(Expr::Speculation) | Node::Stmt(Stmt::Speculate(_)))))
        || p.records.iter().any(|r| r.items.iter().any(|i| matches!(i, Item::Commit | Item::Discard)))
}

/// Where the speculations' words are in the globals area, if the program has them: after
/// the program's globals and the exit flag.
pub fn speculations_offset(p: &Program) -> Option<i32> {
    uses_speculation(p).then(|| p.globals_size() as i32 + if exit_flag_offset(p).is_some() { 8 } else { 0 })
}

/// Bytes the speculations take in the globals area: a word each, and the generation counter.
pub fn speculations_size(p: &Program) -> usize {
    if uses_speculation(p) { 8 * p.options.nspec() as usize + 8 } else { 0 }
}

/// Where a tag's generation starts: below it, the speculation's id (1 to 16).
const GEN_SHIFT: i32 = 5;
/// Generations wrap around within the tag's 32 bits (0 is never one).
const GEN_MASK: i32 = (1 << (32 - GEN_SHIFT)) - 1;

impl Emitter<'_> {
    fn speculations(&self) -> Result<i32, EmitError> {
        speculations_offset(self.p).ok_or_else(|| self.err("internal: a speculation in a program without speculations"))
    }

    /// `speculation()` into r0: the first free speculation, claimed (its id, from 1), or 0
    /// and a failed speculation counted.
    pub(super) fn claim_speculation(&mut self) -> Result<(), EmitError> {
        let base = self.speculations()?;
        let nspec = self.p.options.nspec() as i32;
        let out = self.label();
        // A new generation, not 0: r4.
        self.ld_map(R3, GLOBALS_SYMBOL, base + 8 * nspec);
        self.push(Insn::mov_imm(R4, 1));
        self.push(Insn::atomic_fetch_add(R3, 0, R4));
        self.push(Insn::alu_imm(Alu::Add, R4, 1));
        self.push(Insn::alu_imm(Alu::And, R4, GEN_MASK));
        self.push(Insn::jmp_imm(Cond::Ne, R4, 0, 1));
        self.push(Insn::mov_imm(R4, 1));
        for i in 0..nspec {
            let taken = self.label();
            self.ld_map(R3, GLOBALS_SYMBOL, base + 8 * i);
            self.push(Insn::mov_imm(R0, 0));
            self.push(Insn::mov(R1, R4));
            self.push(Insn::cmpxchg(R3, 0, R1));
            self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), taken);
            self.push(Insn::mov_imm(R0, i + 1));
            self.goto(out);
            self.bind(taken);
        }
        self.count_drop(DropKind::Speculation)?;
        self.push(Insn::mov_imm(R0, 0));
        self.bind(out);
        Ok(())
    }

    /// r1 = the byte offset of speculation r0's word, or a jump to `invalid` if r0 is no
    /// speculation id (0 or past nspec).
    fn speculation_word(&mut self, invalid: Label) {
        self.push(Insn::mov(R1, R0));
        self.push(Insn::alu_imm(Alu::Sub, R1, 1));
        // 0 wraps around to the largest number: one unsigned comparison checks both ends.
        self.jump(Insn::jmp_imm(Cond::Ge, R1, self.p.options.nspec() as i32, 0), invalid);
        self.push(Insn::alu_imm(Alu::Lsh, R1, 3));
    }

    /// `speculate(id)`: tags the clause's record with the speculation and its generation,
    /// or marks it dropped if the speculation is not in use (DTrace drops it silently).
    pub(super) fn speculate(&mut self, id: &Expr, record: Option<usize>) -> Result<(), EmitError> {
        self.expr(id)?;
        if record.is_none() {
            return Ok(());
        }
        let base = self.speculations()?;
        let (drop, out) = (self.label(), self.label());
        self.speculation_word(drop);
        self.ld_map(R2, GLOBALS_SYMBOL, base);
        self.push(Insn::alu_reg(Alu::Add, R2, R1));
        self.push(Insn::ldx(DW, R2, R2, 0));
        self.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), drop);
        self.push(Insn::alu_imm(Alu::Lsh, R2, GEN_SHIFT));
        self.push(Insn::alu_reg(Alu::Or, R2, R0));
        self.push(Insn::stx(W, R8, SPEC_WORD, R2));
        self.goto(out);
        self.bind(drop);
        self.push(Insn::st_imm(W, R8, SPEC_WORD, SPEC_DROPPED as i32));
        self.bind(out);
        Ok(())
    }

    /// After `commit(id)` or `discard(id)` stored its id at `r8 + at`: an id past nspec is
    /// an illegal operation (0 does nothing); a valid one becomes the tag of what it commits
    /// (the speculation's generation now; 0 if it is not in use, which tags nothing). The
    /// speculation is freed when the record is sent ([`Emitter::free_when_sent`]).
    pub(super) fn check_speculation_id(&mut self, at: i16) -> Result<(), EmitError> {
        let base = self.speculations()?;
        let (ok, bad) = (self.label(), self.label());
        self.push(Insn::ldx(DW, R0, R8, at));
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), ok);
        self.speculation_word(bad);
        self.ld_map(R2, GLOBALS_SYMBOL, base);
        self.push(Insn::alu_reg(Alu::Add, R2, R1));
        self.push(Insn::ldx(DW, R2, R2, 0));
        self.push(Insn::alu_imm(Alu::Lsh, R2, GEN_SHIFT));
        self.push(Insn::alu_reg(Alu::Or, R0, R2));
        self.push(Insn::stx(DW, R8, at, R0));
        self.goto(ok);
        self.bind(bad);
        self.fault(Fault::IllOp, FaultValue::Zero)?;
        self.bind(ok);
        Ok(())
    }

    /// Frees the speculations the record about to be sent commits or discards: only once
    /// it is sure to be sent, so user space, which drops or prints what they hold when the
    /// record arrives, never sees a speculation reused before that; and only if it still
    /// holds the generation committed (another commit of it may have freed it already, and
    /// another speculation() taken it).
    pub(super) fn free_when_sent(&mut self, rid: usize) -> Result<(), EmitError> {
        let layout = self.record_layout(rid);
        for (i, item) in self.p.records[rid].items.iter().enumerate() {
            if !matches!(item, Item::Commit | Item::Discard) {
                continue;
            }
            let base = self.speculations()?;
            let skip = self.label();
            if let Some(at) = layout.present {
                self.push(Insn::ldx(B, R0, R8, (at + i) as i16));
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), skip);
            }
            self.push(Insn::ldx(DW, R3, R8, layout.offsets[i][0] as i16));
            self.push(Insn::mov(R0, R3));
            self.push(Insn::alu_imm(Alu::And, R0, (1 << GEN_SHIFT) - 1));
            self.speculation_word(skip);
            self.ld_map(R2, GLOBALS_SYMBOL, base);
            self.push(Insn::alu_reg(Alu::Add, R2, R1));
            self.push(Insn::mov(R0, R3));
            self.push(Insn::alu_imm(Alu::Rsh, R0, GEN_SHIFT));
            self.push(Insn::mov_imm(R1, 0));
            self.push(Insn::cmpxchg(R2, 0, R1));
            self.bind(skip);
        }
        Ok(())
    }

    /// Before a speculating clause's record is sent: a dropped one is discarded instead.
    pub(super) fn drop_if_not_speculated(&mut self, end: Label) {
        let send = self.label();
        self.push(Insn::ldx(W, R1, R8, SPEC_WORD));
        self.jump(Insn::jmp_imm(Cond::Ne, R1, SPEC_DROPPED as i32, 0), send);
        self.push(Insn::mov(R1, R8));
        self.push(Insn::mov_imm(R2, 0));
        self.push(Insn::call(helper::RINGBUF_DISCARD));
        self.goto(end);
        self.bind(send);
    }
}

/// Where a record's header holds its speculation (0: none).
const SPEC_WORD: i16 = 12;
