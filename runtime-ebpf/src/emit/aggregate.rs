//! Aggregation updates: find or claim the key's slot in this CPU's table (see
//! [`crate::abi::table`]), then update its value in place.

use super::*;
use crate::abi::table::{self, Layout};
use crumbs_lang::ir::agg::tseries::{self, Series};
use crumbs_lang::ir::agg::{llquantize, Index, Keep, Op};

/// Multiplier of the key hash (2^64 / the golden ratio, odd).
const HASH_MUL: i64 = 0x9e37_79b9_7f4a_7c15_u64 as i64;

impl Emitter<'_> {
    pub(super) fn aggregate(&mut self, id: usize, keys: &[Expr], value: &Expr) -> Result<(), EmitError> {
        let def = &self.p.aggregations[id];
        let ops = def.kind.update();
        let layout = table::layout(self.p, id, self.target.cpus);
        // The key and value slots live until the update is done; the clause's next statement
        // reuses them.
        self.scoped(|e| {
            let key = e.key_buf(def.key_size())?;
            if keys.is_empty() {
                let (base, off) = e.buf_base(R1, key);
                e.push(Insn::st_imm(DW, base, off, 0));
            }
            let mut off = 0;
            for (k, r) in keys.iter().zip(&def.keys) {
                let at = key.plus(off).ok_or_else(|| e.err("internal: a key at a kept address"))?;
                e.store_key(k, *r, at)?;
                off += r.size().next_multiple_of(8) as i16;
            }
            let val = e.slot(8)?;
            if ops.iter().any(Op::reads_value) {
                e.expr(value)?;
                e.push(Insn::stx(DW, R10, val, R0));
            }
            // A value the program reads is kept merged as well (agg_reads.rs), whether or
            // not this CPU's table has room for the key.
            for (array, part) in def.read.iter().zip(def.kind.read_parts().unwrap_or_default()) {
                e.keep_read_value(*array, *part, key, val)?;
            }
            // tseries()'s clock, read before the slot is found (a helper call clobbers r0).
            let now = match ops.iter().any(|op| matches!(op, Op::Series(_))) {
                true => {
                    let now = e.slot(8)?;
                    e.var(crumbs_lang::builtins::VarHook::Kernel(crumbs_lang::builtins::KernelValue::TaiNs, crumbs_lang::builtins::Part::Whole))?;
                    e.push(Insn::stx(DW, R10, now, R0));
                    now
                }
                false => 0,
            };
            let done = e.label();
            e.find_slot(id, &layout, !def.keys.is_empty(), key, done)?;
            e.push(Insn::alu_imm(Alu::Add, R0, layout.value_offset() as i32));
            let last = ops.len() - 1;
            for (i, op) in ops.into_iter().enumerate() {
                // A bucket update moves r0 to its bucket, so nothing can follow it.
                debug_assert!(i == last || !matches!(op, Op::Bucket { .. } | Op::Series(_)), "a bucket op before another op");
                e.agg_op(op, val, now);
            }
            e.bind(done);
            Ok(())
        })
    }

    /// One update op on the state words at r0, the value in stack slot `val` (and, for
    /// tseries(), the time in stack slot `now`).
    fn agg_op(&mut self, op: Op, val: i16, now: i16) {
        let word = |w: usize| 8 * w as i16;
        match op {
            Op::Count(w) => self.add_to(R0, word(w), None),
            Op::Add(w) => self.add_to(R0, word(w), Some(val)),
            Op::AddSquare(w) => self.add_square(val, word(w)),
            Op::Keep { seen, value, keep } => {
                let set = self.label();
                let skip = self.label();
                self.push(Insn::ldx(DW, R1, R10, val));
                self.push(Insn::ldx(DW, R2, R0, word(seen)));
                self.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), set);
                self.push(Insn::ldx(DW, R3, R0, word(value)));
                let keep = match keep {
                    Keep::Min => Cond::Sge,
                    Keep::Max => Cond::Sle,
                };
                self.jump(Insn::jmp_reg(keep, R1, R3, 0), skip);
                self.bind(set);
                self.push(Insn::stx(DW, R0, word(value), R1));
                self.bind(skip);
                self.push(Insn::alu_imm(Alu::Add, R2, 1));
                self.push(Insn::stx(DW, R0, word(seen), R2));
            }
            Op::Bucket { first, buckets, index } => {
                self.push(Insn::ldx(DW, R1, R10, val));
                match index {
                    Index::Log2 => self.quantize_index(),
                    Index::Linear { base, limit, step } => self.linear_index(base, limit, step, buckets as i32),
                    Index::LogLinear(params) => self.log_linear_index(&llquantize::Layout::new(params)),
                    Index::Log2Split(k) => self.split_log2_index(k),
                }
                self.bump_bucket(word(first), buckets as i32 - 1);
            }
            Op::Series(p) => self.series_update(p, val, now),
        }
    }

    /// tseries()'s update (`crumbs_lang::ir::agg::tseries`): r4 = now / interval (the
    /// epoch), r0 moves to bucket r4 % intervals, a bucket of an older epoch starts afresh
    /// (with a function), then the value, its word and the epoch are stored.
    fn series_update(&mut self, p: tseries::Params, val: i16, now: i16) {
        self.push(Insn::ldx(DW, R4, R10, now));
        self.ld64(R3, p.interval_ns as i64);
        self.push(Insn::alu_reg(Alu::Div, R4, R3));
        self.push(Insn::mov(R2, R4));
        self.ld64(R3, p.intervals as i64);
        self.push(Insn::alu_reg(Alu::Mod, R2, R3));
        let ok = self.label();
        self.jump(Insn::jmp_imm(Cond::Le, R2, p.intervals as i32 - 1, 0), ok);
        self.push(Insn::mov_imm(R2, 0));
        self.bind(ok);
        self.push(Insn::alu_imm(Alu::Mul, R2, 8 * tseries::BUCKET_WORDS as i32));
        self.push(Insn::alu_reg(Alu::Add, R0, R2));
        let (value, meta, epoch) = (0, 8, 16);
        if p.func != Series::Last {
            let same = self.label();
            self.push(Insn::ldx(DW, R3, R0, epoch));
            self.jump(Insn::jmp_reg(Cond::Eq, R3, R4, 0), same);
            self.push(Insn::st_imm(DW, R0, value, 0));
            self.push(Insn::st_imm(DW, R0, meta, 0));
            self.bind(same);
        }
        self.push(Insn::ldx(DW, R1, R10, val));
        match p.func {
            Series::Last => {
                self.push(Insn::stx(DW, R0, value, R1));
                self.push(Insn::ldx(DW, R3, R10, now));
                self.push(Insn::stx(DW, R0, meta, R3));
            }
            Series::Sum | Series::Avg => {
                self.push(Insn::ldx(DW, R3, R0, value));
                self.push(Insn::alu_reg(Alu::Add, R3, R1));
                self.push(Insn::stx(DW, R0, value, R3));
                if p.func == Series::Avg {
                    self.add_to(R0, meta, None);
                }
            }
            Series::Min | Series::Max => {
                let set = self.label();
                let skip = self.label();
                self.push(Insn::ldx(DW, R2, R0, meta));
                self.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), set);
                self.push(Insn::ldx(DW, R3, R0, value));
                // Keep the old value unless the new one is beyond it.
                let keep = match (p.func == Series::Min, p.signed) {
                    (true, true) => Cond::Sge,
                    (true, false) => Cond::Ge,
                    (false, true) => Cond::Sle,
                    (false, false) => Cond::Le,
                };
                self.jump(Insn::jmp_reg(keep, R1, R3, 0), skip);
                self.bind(set);
                self.push(Insn::stx(DW, R0, value, R1));
                self.bind(skip);
                self.push(Insn::st_imm(DW, R0, meta, 1));
            }
        }
        self.push(Insn::stx(DW, R0, epoch, R4));
    }

    /// lquantize's bucket of r1 into r2: 0 below `base`, `n - 1` at or above `limit`, else
    /// 1 + (r1 - base) / step.
    fn linear_index(&mut self, base: i64, limit: i64, step: i64, n: i32) {
        let below = self.label();
        let above = self.label();
        let bucket = self.label();
        self.ld64(R3, base);
        self.jump(Insn::jmp_reg(Cond::Slt, R1, R3, 0), below);
        self.ld64(R3, limit);
        self.jump(Insn::jmp_reg(Cond::Sge, R1, R3, 0), above);
        self.push(Insn::mov(R2, R1));
        self.ld64(R3, base);
        self.push(Insn::alu_reg(Alu::Sub, R2, R3));
        self.ld64(R3, step);
        self.push(Insn::alu_reg(Alu::Div, R2, R3));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.goto(bucket);
        self.bind(below);
        self.push(Insn::mov_imm(R2, 0));
        self.goto(bucket);
        self.bind(above);
        self.push(Insn::mov_imm(R2, n - 1));
        self.bind(bucket);
    }

    /// llquantize's bucket of r1 into r2, as `layout` says: bucket 0 below factor^low, then
    /// one test per order of magnitude, then the overflow bucket (or, when the last order is
    /// clamped, that order's last bucket).
    fn log_linear_index(&mut self, layout: &llquantize::Layout) {
        let done = self.label();
        let below = self.label();
        self.ld64(R3, layout.low);
        self.jump(Insn::jmp_reg(Cond::Slt, R1, R3, 0), below);
        // Whether the code after the last order is reached (by a value above it).
        let mut reached = true;
        let last = layout.magnitudes.len().saturating_sub(1);
        for (i, m) in layout.magnitudes.iter().enumerate() {
            let above = m.end.map(|end| {
                let above = self.label();
                self.ld64(R3, end);
                self.jump(Insn::jmp_reg(Cond::Sge, R1, R3, 0), above);
                above
            });
            // r1 >= m.start here, so the unsigned division is the signed one.
            self.push(Insn::mov(R2, R1));
            self.ld64(R3, m.start);
            self.push(Insn::alu_reg(Alu::Sub, R2, R3));
            self.ld64(R3, m.width);
            self.push(Insn::alu_reg(Alu::Div, R2, R3));
            self.push(Insn::alu_imm(Alu::Add, R2, m.first as i32));
            self.goto(done);
            reached = above.is_some();
            if let Some(above) = above {
                self.bind(above);
                if i == last && layout.clamped {
                    self.push(Insn::mov_imm(R2, (m.first + m.buckets - 1) as i32));
                    self.goto(done);
                    reached = false;
                }
            }
        }
        if reached {
            self.push(Insn::mov_imm(R2, layout.overflow().unwrap_or(0) as i32));
            self.goto(done);
        }
        self.bind(below);
        self.push(Insn::mov_imm(R2, 0));
        self.bind(done);
    }

    /// Leaves in r0 the slot holding the key at stack `key` in this CPU's table, claiming
    /// and initialising a free one if the key is new. An update that finds neither within
    /// the probe limit, or loses a free slot to a program that interrupted it, counts an
    /// aggregation drop and jumps to `done`. A keyless aggregation's one slot needs no key
    /// comparison.
    ///
    /// The probe loop calls no helper, so it keeps everything in registers: r5 the table,
    /// r3 the slot index, r4 the probes left (r1, r2 and r9 are scratch; a key in the
    /// scratch space is read through r9, and r3 waits in a stack slot while the key is
    /// compared). The verifier walks it once per probe; every way out clears r4 and passes
    /// a jump target, so what follows is checked once.
    fn find_slot(&mut self, id: usize, t: &Layout, keyed: bool, key: Buf, done: Label) -> Result<(), EmitError> {
        let words = (t.key_size / 8) as i16;
        let spill = if matches!(key, Buf::Stack(_)) { None } else { Some(self.slot(8)?) };
        let mut kbase = (R10, 0);
        let (to_claim, to_drop, to_found) = self.scoped(|e| {
            let cpu = e.slot(8)?;
            e.push(Insn::call(helper::GET_SMP_PROCESSOR_ID));
            e.push(Insn::stx(DW, R10, cpu, R0));
            e.lookup(&agg_map_name(id), Buf::Stack(cpu));
            let (to_claim, to_drop, to_found) = (e.label(), e.label(), e.label());
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), to_drop);
            e.push(Insn::mov(R5, R0));
            kbase = e.buf_base(R9, key);
            if t.bits() > 0 {
                // The hash's top bits pick the first slot. Seeded with the CPU number, which
                // the verifier does not know: a constant key would otherwise make it check
                // every probe's exact slot separately.
                e.push(Insn::ldx(DW, R1, R10, cpu));
                e.hash_key(kbase, words);
                e.push(Insn::mov(R3, R1));
                e.push(Insn::alu_imm(Alu::Rsh, R3, 64 - t.bits() as i32));
            } else {
                e.push(Insn::mov_imm(R3, 0));
            }
            e.push(Insn::mov_imm(R4, t.probes() as i32));
            Ok((to_claim, to_drop, to_found))
        })?;

        let probe = self.label();
        self.bind(probe);
        self.push(Insn::mov(R0, R3));
        self.push(Insn::alu_imm(Alu::Mul, R0, t.slot_size() as i32));
        self.push(Insn::alu_reg(Alu::Add, R0, R5));
        self.push(Insn::ldx(DW, R1, R0, 0));
        self.jump(Insn::jmp_imm(Cond::Eq, R1, table::EMPTY as i32, 0), to_claim);
        // Ours if ready and every key word equal: one test of (state ^ READY) | (word ^ word)
        // | ..., so that one path, not one per word, goes on to the next probe.
        self.push(Insn::alu_imm(Alu::Xor, R1, table::READY as i32));
        if keyed {
            let (base, off) = kbase;
            let temp = match spill {
                Some(at) => {
                    self.push(Insn::stx(DW, R10, at, R3));
                    R3
                }
                None => R9,
            };
            for w in 0..words {
                self.push(Insn::ldx(DW, R2, R0, t.key_offset() as i16 + 8 * w));
                self.push(Insn::ldx(DW, temp, base, off + 8 * w));
                self.push(Insn::alu_reg(Alu::Xor, R2, temp));
                self.push(Insn::alu_reg(Alu::Or, R1, R2));
            }
            if let Some(at) = spill {
                self.push(Insn::ldx(DW, R3, R10, at));
            }
        }
        self.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), to_found);
        // The next slot, wrapping around (the mask also bounds the index for the verifier).
        if t.probes() > 1 {
            self.push(Insn::alu_imm(Alu::Add, R3, 1));
            self.push(Insn::alu_imm(Alu::And, R3, t.slots as i32 - 1));
            self.push(Insn::alu_imm(Alu::Sub, R4, 1));
            self.jump(Insn::jmp_imm(Cond::Ne, R4, 0, 0), probe);
        }

        let drop = self.leave_loop(to_drop);
        self.count_drop(DropKind::Aggregation)?;
        self.goto(done);

        // A free slot: take it unless a program that interrupted this one took it first.
        self.leave_loop(to_claim);
        self.push(Insn::mov(R3, R0));
        self.push(Insn::mov_imm(R0, table::EMPTY as i32));
        self.push(Insn::mov_imm(R1, table::CLAIMED as i32));
        self.push(Insn::cmpxchg(R3, 0, R1));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, table::EMPTY as i32, 0), drop);
        for w in 0..words {
            self.push(Insn::ldx(DW, R1, kbase.0, kbase.1 + 8 * w));
            self.push(Insn::stx(DW, R3, t.key_offset() as i16 + 8 * w, R1));
        }
        // A slot freed by trunc() keeps its old value: start from zero.
        let voff = t.value_offset() as i16;
        if t.value_size <= INLINE_ZEROING {
            for w in 0..(t.value_size / 8) as i16 {
                self.push(Insn::st_imm(DW, R3, voff + 8 * w, 0));
            }
        } else {
            // Copied from the zero map; r9 keeps the slot across the helper calls.
            self.push(Insn::mov(R9, R3));
            self.scoped(|e| {
                let zkey = e.slot(8)?;
                e.push(Insn::st_imm(DW, R10, zkey, 0));
                e.lookup(ZERO_MAP, Buf::Stack(zkey));
                Ok(())
            })?;
            self.push(Insn::mov(R3, R0));
            self.jump(Insn::jmp_imm(Cond::Eq, R3, 0, 0), drop);
            self.push(Insn::mov(R1, R9));
            self.push(Insn::alu_imm(Alu::Add, R1, voff as i32));
            self.push(Insn::mov_imm(R2, t.value_size as i32));
            self.push(Insn::call(helper::PROBE_READ_KERNEL));
            self.push(Insn::mov(R3, R9));
        }
        self.push(Insn::st_imm(DW, R3, 0, table::READY as i32));
        self.push(Insn::mov(R0, R3));
        let found = self.label();
        self.goto(found);

        self.leave_loop(to_found);
        self.bind(found);
        Ok(())
    }

    /// Binds `exit` (a way out of the probe loop): clears the probe counter, then falls into
    /// the returned label, a jump target where the verifier finds the states of every probe
    /// equal.
    fn leave_loop(&mut self, exit: Label) -> Label {
        self.bind(exit);
        self.push(Insn::mov_imm(R4, 0));
        let after = self.label();
        self.goto(after);
        self.bind(after);
        after
    }

    /// A 64-bit hash of the key's `words` at `base + off` and the seed in r1, into r1
    /// (clobbers r2, r3).
    fn hash_key(&mut self, (base, off): (Reg, i16), words: i16) {
        self.ld64(R2, HASH_MUL);
        for w in 0..words {
            self.push(Insn::ldx(DW, R3, base, off + 8 * w));
            self.push(Insn::alu_reg(Alu::Xor, R1, R3));
            self.push(Insn::alu_reg(Alu::Mul, R1, R2));
            self.push(Insn::mov(R3, R1));
            self.push(Insn::alu_imm(Alu::Rsh, R3, 29));
            self.push(Insn::alu_reg(Alu::Xor, R1, R3));
        }
    }

    /// Adds the square of the value in stack slot `val` to the 128-bit sum at r0+off (low)
    /// and r0+off+8 (high). |v| = h*2^32 + l, so v^2 = h^2*2^64 + 2hl*2^32 + l^2, all in u64
    /// parts.
    fn add_square(&mut self, val: i16, off: i16) {
        self.push(Insn::ldx(DW, R1, R10, val));
        self.push(Insn::jmp_imm(Cond::Sge, R1, 0, 1));
        self.push(Insn::neg(R1));
        self.push(Insn::mov(R2, R1));
        self.push(Insn::alu_imm(Alu::Rsh, R2, 32)); // h
        self.push(Insn::mov32(R1, R1)); // l
        self.push(Insn::mov(R3, R2));
        self.push(Insn::alu_reg(Alu::Mul, R3, R1)); // hl
        self.push(Insn::alu_reg(Alu::Mul, R2, R2)); // h^2
        self.push(Insn::alu_reg(Alu::Mul, R1, R1)); // l^2
        self.push(Insn::mov(R4, R3));
        self.push(Insn::alu_imm(Alu::Rsh, R4, 31)); // high part of 2hl*2^32
        self.push(Insn::alu_reg(Alu::Add, R2, R4));
        self.push(Insn::alu_imm(Alu::Lsh, R3, 33)); // low part of 2hl*2^32
        self.push(Insn::alu_reg(Alu::Add, R3, R1)); // square low = l^2 + (hl << 33)
        self.push(Insn::jmp_reg(Cond::Ge, R3, R1, 1));
        self.push(Insn::alu_imm(Alu::Add, R2, 1)); // carry into square high
        // sum += square
        self.push(Insn::ldx(DW, R4, R0, off));
        self.push(Insn::alu_reg(Alu::Add, R4, R3));
        self.push(Insn::stx(DW, R0, off, R4));
        self.push(Insn::jmp_reg(Cond::Ge, R4, R3, 1));
        self.push(Insn::alu_imm(Alu::Add, R2, 1)); // carry into sum high
        self.push(Insn::ldx(DW, R5, R0, off + 8));
        self.push(Insn::alu_reg(Alu::Add, R5, R2));
        self.push(Insn::stx(DW, R0, off + 8, R5));
    }

    /// `*(u64 *)(ptr + off) += 1` or `+= [stack slot]`.
    pub(super) fn add_to(&mut self, ptr: Reg, off: i16, slot: Option<i16>) {
        self.push(Insn::ldx(DW, R1, ptr, off));
        match slot {
            None => self.push(Insn::alu_imm(Alu::Add, R1, 1)),
            Some(s) => {
                self.push(Insn::ldx(DW, R2, R10, s));
                self.push(Insn::alu_reg(Alu::Add, R1, R2));
            }
        }
        self.push(Insn::stx(DW, ptr, off, R1));
    }

    /// Increments bucket r2 (bounded to `max` for the verifier) of the buckets at r0+off.
    pub(super) fn bump_bucket(&mut self, off: i16, max: i32) {
        let ok = self.label();
        self.jump(Insn::jmp_imm(Cond::Le, R2, max, 0), ok);
        self.push(Insn::mov_imm(R2, 0));
        self.bind(ok);
        self.push(Insn::alu_imm(Alu::Lsh, R2, 3));
        self.push(Insn::alu_reg(Alu::Add, R0, R2));
        self.add_to(R0, off, None);
    }

    /// DTrace's power-of-two bucket of r1, into r2 (63 is zero; 64+k holds [2^k, 2^(k+1))).
    pub(super) fn quantize_index(&mut self) {
        let pos = self.label();
        let neg = self.label();
        let out = self.label();
        self.push(Insn::mov_imm(R2, 63));
        self.jump(Insn::jmp_imm(Cond::Sgt, R1, 0, 0), pos);
        self.jump(Insn::jmp_imm(Cond::Slt, R1, 0, 0), neg);
        self.goto(out);
        self.bind(pos);
        self.push(Insn::mov(R3, R1));
        self.log2();
        self.push(Insn::alu_imm(Alu::Add, R4, 64));
        self.push(Insn::mov(R2, R4));
        self.goto(out);
        self.bind(neg);
        self.push(Insn::mov(R3, R1));
        self.push(Insn::neg(R3));
        self.log2();
        self.push(Insn::mov_imm(R2, 62));
        self.push(Insn::alu_reg(Alu::Sub, R2, R4));
        self.bind(out);
    }

    /// hist(x, k)'s bucket of r1 into r2 (`crumbs_lang::ir::agg::hist::index`): 0 for a
    /// negative value, 1 + r1 below 2^k, else ((l - k + 1) << k) + the k bits after the
    /// leftmost 1 (bit l) + 1.
    fn split_log2_index(&mut self, k: u32) {
        let out = self.label();
        let big = self.label();
        let mask = (1i32 << k) - 1;
        self.push(Insn::mov_imm(R2, 0));
        self.jump(Insn::jmp_imm(Cond::Slt, R1, 0, 0), out);
        self.jump(Insn::jmp_imm(Cond::Gt, R1, mask, 0), big);
        self.push(Insn::mov(R2, R1));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.goto(out);
        self.bind(big);
        self.push(Insn::mov(R3, R1));
        self.log2();
        self.push(Insn::alu_imm(Alu::Sub, R4, k as i32));
        self.push(Insn::mov(R3, R1));
        self.push(Insn::alu_reg(Alu::Rsh, R3, R4));
        self.push(Insn::alu_imm(Alu::And, R3, mask));
        self.push(Insn::mov(R2, R4));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.push(Insn::alu_imm(Alu::Lsh, R2, k as i32));
        self.push(Insn::alu_reg(Alu::Add, R2, R3));
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.bind(out);
    }

    /// floor(log2(r3)) into r4, for r3 > 0 (unsigned); clobbers r3, r5.
    pub(super) fn log2(&mut self) {
        self.push(Insn::mov_imm(R4, 0));
        for s in [32, 16, 8, 4, 2, 1] {
            self.push(Insn::mov(R5, R3));
            self.push(Insn::alu_imm(Alu::Rsh, R5, s));
            self.push(Insn::jmp_imm(Cond::Eq, R5, 0, 2));
            self.push(Insn::mov(R3, R5));
            self.push(Insn::alu_imm(Alu::Add, R4, s));
        }
    }

    /// Builds the key (tid, variable) of thread-local `t` in a fresh 16-byte slot.
    pub(super) fn tls_key(&mut self, t: usize) -> Result<Buf, EmitError> {
        let key = self.slot(16)?;
        self.store_tid(Buf::Stack(key));
        self.push(Insn::st_imm(DW, R10, key + 8, t as i32));
        Ok(Buf::Stack(key))
    }

    /// The current thread's id as a 64-bit word at `at` (the first word of a
    /// thread-local variable's or array's key).
    pub(super) fn store_tid(&mut self, at: Buf) {
        self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
        self.push(Insn::mov32(R0, R0));
        let (base, off) = self.buf_base(R1, at);
        self.push(Insn::stx(DW, base, off, R0));
    }

    pub(super) fn lookup(&mut self, map: &str, key: Buf) {
        self.ld_map(R1, map, 0);
        self.buf_addr(R2, key);
        self.push(Insn::call(helper::MAP_LOOKUP_ELEM));
    }
}
