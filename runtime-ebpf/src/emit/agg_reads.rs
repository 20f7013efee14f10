//! An update of an aggregation the program reads (bpftrace's `@c > 10`, `for ($kv : @c)`)
//! also keeps the merged value in the maps of values lang's check/agg_reads.rs made for
//! it: hash maps shared by every CPU, so each change is atomic (an add, or a
//! compare-and-exchange of a kept minimum or maximum).

use super::*;
use crumbs_lang::ir::agg::{Keep, ReadPart};

/// Times a kept minimum or maximum is tried again after a program on another CPU changed it
/// in between: each retry means another program stored a value, so losing after this many
/// needs as many updates racing on one key within a few instructions.
const KEEP_TRIES: usize = 4;

impl Emitter<'_> {
    /// Applies `part` of an update to element `key` (the aggregation's key buffer, laid out
    /// as the array's) of associative array `array`; the update's value is at stack `val`.
    /// A new key is added first (as 0, or as the value for a minimum or maximum); a full map
    /// counts a drop and leaves it.
    pub(super) fn keep_read_value(&mut self, array: usize, part: ReadPart, key: Buf, val: i16) -> Result<(), EmitError> {
        let map = array_map_name(array);
        let (found, done) = (self.label(), self.label());
        self.scoped(|e| {
            e.lookup(&map, key);
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), found);
            let start = match part {
                ReadPart::Keep(_) => val,
                ReadPart::Count | ReadPart::Add => {
                    let zero = e.slot(8)?;
                    e.push(Insn::st_imm(DW, R10, zero, 0));
                    zero
                }
            };
            e.ld_map(R1, &map, 0);
            e.buf_addr(R2, key);
            e.push(Insn::mov(R3, R10));
            e.push(Insn::alu_imm(Alu::Add, R3, start as i32));
            e.push(Insn::mov_imm(R4, 1)); // BPF_NOEXIST
            e.push(Insn::call(helper::MAP_UPDATE_ELEM));
            // A minimum or maximum added with the value is done; another program may have
            // added the key first (-EEXIST), so look again.
            if matches!(part, ReadPart::Keep(_)) {
                e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), done);
            }
            e.lookup(&map, key);
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), found);
            let kind = if e.p.arrays[array].declared.is_some() { DropKind::DeclaredMap } else { DropKind::DynamicVariable };
            e.count_drop(kind)?;
            e.goto(done);
            Ok(())
        })?;
        self.bind(found);
        match part {
            ReadPart::Count => {
                self.push(Insn::mov_imm(R1, 1));
                self.push(Insn::atomic_add(R0, 0, R1));
            }
            ReadPart::Add => {
                self.push(Insn::ldx(DW, R1, R10, val));
                self.push(Insn::atomic_add(R0, 0, R1));
            }
            ReadPart::Keep(keep) => {
                // r3 the element, r1 the value, r0 (then r4) what the element held.
                self.push(Insn::mov(R3, R0));
                self.push(Insn::ldx(DW, R1, R10, val));
                let kept = match keep {
                    Keep::Min => Cond::Sge,
                    Keep::Max => Cond::Sle,
                };
                for _ in 0..KEEP_TRIES {
                    self.push(Insn::ldx(DW, R0, R3, 0));
                    self.jump(Insn::jmp_reg(kept, R1, R0, 0), done);
                    self.push(Insn::mov(R4, R0));
                    self.push(Insn::cmpxchg(R3, 0, R1));
                    self.jump(Insn::jmp_reg(Cond::Eq, R0, R4, 0), done);
                }
            }
        }
        self.bind(done);
        Ok(())
    }
}
