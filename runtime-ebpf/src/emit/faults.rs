//! Run-time faults, as DTrace has them: a division by zero, an address that cannot be read,
//! an index past an array's end abort the clause (its record is discarded, what it stored
//! stays), send a fault report for user space to print, and run the program's `ERROR`
//! clauses right there, with the fault in `arg1`..`arg5`. The next clause runs as usual.
//!
//! A fault site writes the fault to the clause's 16-byte fault slot (the value, then the
//! code and action number, then its own instruction index) and jumps to the clause's fault
//! block, after the clause's normal end.

use super::*;
use crate::abi::record::{FAULT_RECORD, FAULT_SIZE, HEADER};
use crumbs_lang::providers::AttachPoint;

/// The lowest address a user string can be at: the first page is never mapped.
const USER_MIN_ADDR: i32 = 4096;

/// Where the fault sites of the code being emitted jump.
#[derive(Clone, Copy, Debug)]
pub(super) struct FaultTarget {
    pub(super) label: Label,
    /// 0 in the predicate, else the statement's action number.
    pub(super) action: u32,
    /// The clause's fault slot (16 bytes on the stack).
    pub(super) slot: i16,
}

/// Where the value a fault reports (arg5) is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FaultValue {
    Zero,
    Reg(Reg),
    /// In this stack slot.
    Slot(i16),
    /// Already written by [`Emitter::keep_fault_value`].
    Kept,
}

/// What the `ERROR` clauses being emitted read their arguments from.
#[derive(Clone, Copy, Debug)]
pub(super) struct ErrorArgs {
    pub(super) slot: i16,
    pub(super) epid: u32,
    /// The attach point of the program they run in (its stack is the ERROR probe's).
    pub(super) program: AttachPoint,
}

/// Whether the clause holds anything that can fault: it then keeps a fault slot and a
/// fault block.
pub(super) fn may_fault(p: &Program, c: &Clause) -> bool {
    // commit() or discard() of an id past nspec
    let frees = c.record.is_some_and(|r| p.records[r].items.iter().any(|i| matches!(i, Item::Commit | Item::Discard)));
    frees || c.any(&mut |n| match n {
        Node::Expr(Expr::Binary(op, _, r) | Expr::Unsigned(op, _, r)) => matches!(op, BinOp::Div | BinOp::Rem) && !matches!(**r, Expr::Int(k) if k != 0),
        Node::Expr(Expr::Load { .. } | Expr::Object { .. } | Expr::ObjectPrefix { .. } | Expr::Bounded { .. } | Expr::Alloc { .. }) | Node::Stmt(Stmt::Copy { .. }) => true,
        // chill() past the CPU's budget
        Node::Stmt(Stmt::Chill(..) | Stmt::CopyOut { .. }) => true,
        Node::Str(StrExpr::UserStr(..) | StrExpr::KernelStr(..) | StrExpr::AnyStr(..) | StrExpr::DPath { .. }) => true,
        // An address that cannot be read, another family or type; strtok(NULL, ...) with no
        // string.
        Node::Str(StrExpr::Call { f: StrFn::InetNtoa | StrFn::InetNtoa6 | StrFn::InetNtop | StrFn::LinkNtop | StrFn::StrtokNext, .. }) => true,
        // A base known only when the probe fires, outside 2..36.
        Node::Str(StrExpr::Call { f: StrFn::Lltostr, args, .. }) => matches!(args.get(1), Some(StrArg::Int(b)) if !matches!(b, Expr::Int(_))),
        _ => false,
    })
}

/// The enabled probe id DTrace would give a clause (crumbs gives one per clause, whatever
/// probes it has): its index + 1.
pub(super) fn epid(c: &Clause) -> u32 {
    c.index as u32 + 1
}

impl Emitter<'_> {
    /// Aborts the clause with `fault`, reporting `value` (arg5: an address or an index).
    pub(super) fn fault(&mut self, fault: Fault, value: FaultValue) -> Result<(), EmitError> {
        let Some(t) = self.fault else {
            return Err(self.err("internal: a fault outside a clause"));
        };
        match value {
            FaultValue::Zero => self.push(Insn::st_imm(DW, R10, t.slot, 0)),
            FaultValue::Reg(r) => self.push(Insn::stx(DW, R10, t.slot, r)),
            FaultValue::Slot(at) => {
                self.push(Insn::ldx(DW, R4, R10, at));
                self.push(Insn::stx(DW, R10, t.slot, R4));
            }
            FaultValue::Kept => {}
        }
        self.fault_code(fault)
    }

    /// Faults unless `reg cond imm` holds.
    pub(super) fn fault_unless(&mut self, cond: Cond, reg: Reg, imm: i32, fault: Fault, value: FaultValue) -> Result<(), EmitError> {
        let ok = self.label();
        self.jump(Insn::jmp_imm(cond, reg, imm, 0), ok);
        self.fault(fault, value)?;
        self.bind(ok);
        Ok(())
    }

    /// The rest of a fault, its value written.
    fn fault_code(&mut self, fault: Fault) -> Result<(), EmitError> {
        let Some(t) = self.fault else {
            return Err(self.err("internal: a fault outside a clause"));
        };
        self.push(Insn::st_imm(W, R10, t.slot + 8, (fault.code() | t.action.min(0xffff) << 16) as i32));
        let pc = self.insns.len() as i32;
        self.push(Insn::st_imm(W, R10, t.slot + 12, pc));
        self.goto(t.label);
        Ok(())
    }

    /// Writes the value a fault would report (from a register that a helper call is about
    /// to clobber), for a fault with [`FaultValue::Kept`].
    pub(super) fn keep_fault_value(&mut self, r: Reg) -> Result<(), EmitError> {
        let Some(t) = self.fault else {
            return Err(self.err("internal: a fault outside a clause"));
        };
        self.push(Insn::stx(DW, R10, t.slot, r));
        Ok(())
    }

    /// After a user string read (r0: its length, or an error): a failed read of an address
    /// that no user string can be at (the first page, or the kernel's half) faults with the
    /// address kept; a user address that cannot be read now (its page not in memory: a
    /// probe cannot wait for it) leaves the string empty.
    pub(super) fn user_string_fault(&mut self) -> Result<(), EmitError> {
        self.user_read_fault(Cond::Sgt)
    }

    /// [`Emitter::user_string_fault`] after a read whose result in r0 is `ok` 0 when it
    /// worked (`Sgt`: a length, `Eq`: 0).
    pub(super) fn user_read_fault(&mut self, ok_when: Cond) -> Result<(), EmitError> {
        let Some(t) = self.fault else {
            return Err(self.err("internal: a fault outside a clause"));
        };
        let (ok, bad) = (self.label(), self.label());
        self.jump(Insn::jmp_imm(ok_when, R0, 0, 0), ok);
        self.push(Insn::ldx(DW, R1, R10, t.slot));
        self.jump(Insn::jmp_imm(Cond::Slt, R1, 0, 0), bad);
        self.jump(Insn::jmp_imm(Cond::Ge, R1, USER_MIN_ADDR, 0), ok);
        self.bind(bad);
        self.fault_code(Fault::BadAddr)?;
        self.bind(ok);
        Ok(())
    }

    /// The code a clause's faults jump to: `body` discards the clause's reserved record and
    /// goes on to `before_record`, where predicate faults start. Reports the fault, then
    /// runs the ERROR clauses (not from an ERROR clause's own fault: DTrace does not nest).
    pub(super) fn fault_block(&mut self, c: &Clause, slot: i16, body: Option<Label>, before_record: Label) -> Result<(), EmitError> {
        if let Some(body) = body {
            self.bind(body);
            // A pinned iterator's record is in the scratch space, not the ring buffer.
            if !self.pinned_iterator() {
                self.push(Insn::mov(R1, R8));
                self.push(Insn::mov_imm(R2, 0));
                self.push(Insn::call(helper::RINGBUF_DISCARD));
            }
        }
        self.bind(before_record);
        self.report_fault(epid(c), slot)?;
        if self.error_args.is_some() {
            return Ok(());
        }
        let Some(group) = self.p.group(AttachPoint::Error) else { return Ok(()) };
        let saved = (self.attach, self.clause, std::mem::take(&mut self.locals));
        self.attach = AttachPoint::Error;
        self.error_args = Some(ErrorArgs { slot, epid: epid(c), program: saved.0 });
        let r = group.clauses.iter().try_for_each(|ec| {
            self.clause = Some(ec.index);
            self.scoped(|e| e.clause(ec))
        });
        self.error_args = None;
        (self.attach, self.clause, self.locals) = saved;
        r
    }

    /// Sends the fault report (a drop if the event buffer is full).
    fn report_fault(&mut self, epid: u32, slot: i16) -> Result<(), EmitError> {
        let sent = self.label();
        let got = self.label();
        self.ld_map(R1, EVENTS_MAP, 0);
        self.push(Insn::mov_imm(R2, FAULT_SIZE as i32));
        self.push(Insn::mov_imm(R3, 0));
        self.push(Insn::call(helper::RINGBUF_RESERVE));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), got);
        self.count_drop(DropKind::Record)?;
        self.goto(sent);
        self.bind(got);
        self.push(Insn::mov(R8, R0));
        self.push(Insn::st_imm(W, R8, 0, FAULT_RECORD as i32));
        self.context().probe_id(self)?;
        self.push(Insn::stx(W, R8, 4, R0));
        self.push(Insn::call(helper::GET_SMP_PROCESSOR_ID));
        self.push(Insn::stx(W, R8, 8, R0));
        self.push(Insn::st_imm(W, R8, 12, epid as i32));
        for w in [0, 8] {
            self.push(Insn::ldx(DW, R1, R10, slot + w));
            self.push(Insn::stx(DW, R8, HEADER as i16 + w, R1));
        }
        self.push(Insn::mov(R1, R8));
        self.push(Insn::mov_imm(R2, 0));
        self.push(Insn::call(helper::RINGBUF_SUBMIT));
        self.bind(sent);
        Ok(())
    }

    /// `argN` of the ERROR probe into r0: 0, the enabled probe id, the action number, the
    /// BPF instruction, the fault code, the value.
    pub(super) fn error_arg(&mut self, n: u8) -> Result<(), EmitError> {
        let Some(a) = self.error_args else {
            return Err(self.err("internal: ERROR's arguments outside an ERROR clause"));
        };
        match n {
            1 => self.push(Insn::mov_imm(R0, a.epid as i32)),
            2 => {
                self.push(Insn::ldx(W, R0, R10, a.slot + 8));
                self.push(Insn::alu_imm(Alu::Rsh, R0, 16));
            }
            3 => self.push(Insn::ldx(W, R0, R10, a.slot + 12)),
            4 => {
                self.push(Insn::ldx(W, R0, R10, a.slot + 8));
                self.push(Insn::alu_imm(Alu::And, R0, 0xffff));
            }
            5 => self.push(Insn::ldx(DW, R0, R10, a.slot)),
            _ => self.push(Insn::mov_imm(R0, 0)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::check::CheckOptions;

    fn code(src: &str) -> String {
        let p = crumbs_lang::compile(src, &CheckOptions::default()).unwrap();
        let g = p.groups.iter().find(|g| g.attach == AttachPoint::Begin).unwrap();
        disassemble(&emit_program(&p, g, &Target::default()).unwrap().insns)
    }

    /// Only what can fault pays for it: a constant divisor needs no check, and a clause
    /// without a fault has no fault slot or block.
    #[test]
    fn only_clauses_that_can_fault_have_a_fault_block() {
        for quiet in ["BEGIN { x = arg0 / 2; y = arg0 % 7; trace(x + y); }", "BEGIN { trace(execname); }"] {
            let text = code(quiet);
            assert!(!text.contains(&format!("= {}\n", FAULT_RECORD as i32)), "{quiet}\n{text}");
        }
        let text = code("BEGIN { x = 2 / arg0; trace(x); }");
        assert_eq!(text.matches(&format!("= {}\n", FAULT_RECORD as i32)).count(), 1, "{text}");
        assert_eq!(text.matches("call bpf_ringbuf_discard").count(), 1, "{text}");
    }

    /// ERROR's clauses are emitted in the fault block of each clause that can fault.
    #[test]
    fn error_clauses_run_in_each_fault_block() {
        let p = crumbs_lang::compile("BEGIN { x = 2 / arg0; } BEGIN { y = 3 / arg0; } BEGIN { z = 1; } ERROR { @e[arg4] = count(); }", &CheckOptions::default()).unwrap();
        let g = p.groups.iter().find(|g| g.attach == AttachPoint::Begin).unwrap();
        let begin = emit_program(&p, g, &Target::default()).unwrap();
        let text = disassemble(&begin.insns);
        assert_eq!(text.matches(&format!("= {}\n", FAULT_RECORD as i32)).count(), 2, "{text}");
        // the ERROR clause's aggregation, once per faulting clause
        assert_eq!(begin.map_refs.iter().filter(|m| m.map == "agg0").count(), 2, "{text}");
        let p = crumbs_lang::compile("BEGIN { x = 1; } ERROR { trace(arg1); }", &CheckOptions::default()).unwrap();
        let c = crate::compile(&p, &Target::default()).unwrap();
        assert!(c.programs.iter().all(|x| x.attach != AttachPoint::Error), "ERROR has no program of its own");
    }
}
