//! Expressions into r0: integers, builtins, variables, strings and their comparisons.

use super::*;
use crate::abi::{Callback, F_USER_STACK, USTACKS_BUILD_ID_MAP, USTACKS_MAP};

/// bpf_get_stackid's error for a probe that fired with no kernel stack (in user mode).
const EFAULT: i32 = 14;

impl Emitter<'_> {
    /// The interned id of a probe string or constant, into r0.
    pub(super) fn str_id(&mut self, s: &StrExpr) -> Result<(), EmitError> {
        match s {
            StrExpr::Const(id) => self.ld64(R0, *id as i64),
            StrExpr::Ternary(c, a, b) => self.choose(c, |e| e.str_id(a), |e| e.str_id(b))?,
            StrExpr::Seq(stmts, s) => {
                self.stmts(stmts)?;
                self.str_id(s)?;
            }
            StrExpr::Probe(h) => {
                if *h == VarHook::ProbeFunc && self.context().probe_func_id(self) {
                    return Ok(());
                }
                let text = self.probe_const(*h).unwrap_or_default().to_string();
                let id = self.p.strings.lookup(&text).ok_or_else(|| self.err(format!("internal: probe string `{text}` not interned")))?;
                self.ld64(R0, id as i64);
            }
            StrExpr::SyscallName { nr, unknown } => self.syscall_name_id(nr, *unknown)?,
            _ => return Err(self.err("internal: a string in a buffer has no string id")),
        }
        Ok(())
    }

    /// bpftrace's `syscall_name(nr)` into r0: the interned id of system call `nr`'s name
    /// (SYSCALL_STR_BASE + nr), or `unknown` for a number beyond the table.
    pub(super) fn syscall_name_id(&mut self, nr: &Expr, unknown: u64) -> Result<(), EmitError> {
        let max = crumbs_lang::syscalls::SyscallTable::get().highest();
        let (beyond, out) = (self.label(), self.label());
        self.expr(nr)?;
        // Unsigned: a negative number is beyond the table too.
        self.jump(Insn::jmp_imm(Cond::Gt, R0, max as i32, 0), beyond);
        self.ld64(R1, SYSCALL_STR_BASE as i64);
        self.push(Insn::alu_reg(Alu::Add, R0, R1));
        self.goto(out);
        self.bind(beyond);
        self.ld64(R0, unknown as i64);
        self.bind(out);
        Ok(())
    }

    /// probeprov/probemod/probefunc/probename when they are the same for every firing.
    pub(super) fn probe_const(&self, h: VarHook) -> Option<&str> {
        self.context().probe_const(self, h)
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Result<(), EmitError> {
        match e {
            Expr::Int(v) => self.ld64(R0, *v),
            Expr::Str(s) => self.str_id(s)?,
            Expr::Var(h) => self.var(*h)?,
            Expr::Global(g) => {
                self.ld_map(R1, GLOBALS_SYMBOL, self.p.global_offset(*g) as i32);
                self.push(Insn::ldx(DW, R0, R1, 0));
            }
            Expr::TpField(name) => {
                let f = self.tp_field(name)?;
                self.push(Insn::ldx(width(f.size as u8), R0, R6, f.offset as i16));
                if f.signed {
                    self.sign_extend(f.size as u8);
                }
            }
            // As a number: the verifier allows a context pointer little arithmetic (none with
            // an unbounded value, no multiplying), and D does any with an address.
            Expr::TpRecord => {
                self.push(Insn::mov(R0, R6));
                self.launder()?;
            }
            Expr::Object { .. } | Expr::ObjectPrefix { .. } | Expr::PointedStrings { .. } | Expr::Buf { .. } | Expr::StrBuf { .. } => return Err(self.err("internal: an object is only recorded or stored, never computed")),
            Expr::VarAddr(v) => self.var_addr(v)?,
            // A map pointer the verifier allows no arithmetic or record to hold: a number.
            Expr::MapAddr(a) => {
                self.ld_map(R0, &crate::abi::array_map_name(*a), 0);
                self.launder()?;
            }
            Expr::Load { addr, size, signed } => {
                let (size, signed) = (*size, *signed);
                // A constant offset (a member's) goes into the helper's address argument.
                let (base, off) = match &**addr {
                    Expr::Binary(BinOp::Add, base, k) => match **k {
                        Expr::Int(k) if i32::try_from(k).is_ok() => (&**base, k as i32),
                        _ => (&**addr, 0),
                    },
                    a => (a, 0),
                };
                self.scoped(|e| {
                    let tmp = e.slot(8)?;
                    e.expr(base)?;
                    e.read_kernel_or_fault(tmp, R0, off, size as i32)?;
                    e.push(Insn::ldx(width(size), R0, R10, tmp));
                    Ok(())
                })?;
                if signed {
                    self.sign_extend(size);
                }
            }
            Expr::Bits { inner, shift, width, signed } => {
                self.expr(inner)?;
                let (shift, width) = (*shift as i32, *width as i32);
                if shift + width < 64 {
                    self.push(Insn::alu_imm(Alu::Lsh, R0, 64 - shift - width));
                }
                if width < 64 {
                    self.push(Insn::alu_imm(if *signed { Alu::Arsh } else { Alu::Rsh }, R0, 64 - width));
                }
            }
            // The address itself: user space symbolizes it.
            Expr::Sym(_, pc) => self.expr(pc)?,
            Expr::Probe => self.context().probe_id(self)?,
            Expr::Strftime { ns, .. } | Expr::Named(_, ns) => self.expr(ns)?,
            // A stack's id: user space reads its frames.
            Expr::Stack(_) => self.stack_id(STACKS_MAP, 0)?,
            // A user stack's too, with the process's id, for the symbols.
            Expr::UStack(u) => {
                let map = if matches!(u, UStackUse::Frames(_, StackMode::BuildId)) { USTACKS_BUILD_ID_MAP } else { USTACKS_MAP };
                self.stack_id(map, F_USER_STACK)?;
                self.scoped(|e| {
                    let id = e.slot(8)?;
                    e.push(Insn::stx(DW, R10, id, R0));
                    e.push(Insn::call(helper::GET_CURRENT_PID_TGID));
                    e.push(Insn::alu_imm(Alu::Rsh, R0, 32));
                    e.push(Insn::alu_imm(Alu::Lsh, R0, 32));
                    e.push(Insn::ldx(DW, R1, R10, id));
                    e.push(Insn::mov32(R1, R1));
                    e.push(Insn::alu_reg(Alu::Or, R0, R1));
                    Ok(())
                })?;
            }
            Expr::USym(..) | Expr::Stored(Repr::USym(_), _) => return Err(self.err("internal: a user symbol is stored, not computed")),
            // The word the variable holds: the stack id, address or number it was stored as.
            Expr::Stored(_, v) => self.expr(v)?,
            Expr::ClauseLocal(l) => {
                let Buf::Stack(at) = self.local(*l)? else { return Err(self.err("internal: an integer local in the scratch space")) };
                self.push(Insn::ldx(DW, R0, R10, at));
            }
            Expr::ThreadLocal(t) => {
                self.scoped(|e| {
                    let key = e.tls_key(*t)?;
                    e.lookup(TLS_MAP, key);
                    e.push(Insn::jmp_imm(Cond::Eq, R0, 0, 1));
                    e.push(Insn::ldx(DW, R0, R0, 0));
                    Ok(())
                })?;
            }
            Expr::Element { array, keys } => {
                self.scoped(|e| {
                    let key = e.element_key(*array, keys)?;
                    e.lookup(&array_map_name(*array), key);
                    e.push(Insn::jmp_imm(Cond::Eq, R0, 0, 1));
                    e.push(Insn::ldx(DW, R0, R0, 0));
                    Ok(())
                })?;
            }
            Expr::MapLen(array) => {
                // The callback goes on at every element: the helper returns how many it saw.
                self.ld_map(R1, &array_map_name(*array), 0);
                self.ld_func(R2, Func::Shared(Callback::CountElement));
                self.push(Insn::mov_imm(R3, 0));
                self.push(Insn::mov_imm(R4, 0));
                self.push(Insn::call(helper::FOR_EACH_MAP_ELEM));
            }
            Expr::HasElement { array, keys } => {
                self.scoped(|e| {
                    let key = e.element_key(*array, keys)?;
                    e.lookup(&array_map_name(*array), key);
                    e.bool_of(Cond::Ne, None, 0);
                    Ok(())
                })?;
            }
            Expr::Seq(stmts, value) => {
                self.stmts(stmts)?;
                self.expr(value)?;
            }
            Expr::Unary(op, inner) => {
                self.expr(inner)?;
                match op {
                    UnOp::Not => self.bool_of(Cond::Eq, None, 0),
                    UnOp::BitNot => self.push(Insn::alu_imm(Alu::Xor, R0, -1)),
                    UnOp::Neg => self.push(Insn::neg(R0)),
                    UnOp::Plus => {}
                }
            }
            Expr::Binary(op, l, r) => self.binary(*op, l, r, false)?,
            Expr::Unsigned(op, l, r) => self.binary(*op, l, r, true)?,
            Expr::StrCmp(op, a, b) => self.str_cmp(*op, a, b)?,
            Expr::Strlen(s) => self.strlen(s)?,
            Expr::IntCall { f, args } => self.int_call(*f, args)?,
            Expr::Ternary(c, a, b) => self.choose(c, |e| e.expr(a), |e| e.expr(b))?,
            Expr::Speculation => self.claim_speculation()?,
            Expr::Alloc { site, size, max, from } => self.alloc(*site, size, *max, from.as_deref())?,
            Expr::Bounded { index, len } => {
                self.expr(index)?;
                match i32::try_from(*len) {
                    Ok(len) => self.fault_unless(Cond::Lt, R0, len, Fault::BadIndex, FaultValue::Reg(R0))?,
                    Err(_) => {
                        self.ld64(R1, *len as i64);
                        let ok = self.label();
                        self.jump(Insn::jmp_reg(Cond::Lt, R0, R1, 0), ok);
                        self.fault(Fault::BadIndex, FaultValue::Reg(R0))?;
                        self.bind(ok);
                    }
                }
            }
        }
        Ok(())
    }

    /// `cond ? then : els`: evaluates `cond`, then one of the two.
    pub(super) fn choose(
        &mut self,
        cond: &Expr,
        then: impl FnOnce(&mut Self) -> Result<(), EmitError>,
        els: impl FnOnce(&mut Self) -> Result<(), EmitError>,
    ) -> Result<(), EmitError> {
        let other = self.label();
        let out = self.label();
        self.expr(cond)?;
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), other);
        then(self)?;
        self.goto(out);
        self.bind(other);
        els(self)?;
        self.bind(out);
        Ok(())
    }

    /// The statements an assignment used as a value runs first (they emit nothing).
    pub(super) fn stmts(&mut self, stmts: &[Stmt]) -> Result<(), EmitError> {
        stmts.iter().try_for_each(|s| self.stmt(s, None))
    }

    /// r0 = (r0 `cond` (src or imm)) ? 1 : 0.
    pub(super) fn bool_of(&mut self, cond: Cond, src: Option<Reg>, imm: i32) {
        let i = match src {
            Some(s) => Insn::jmp_reg(cond, R0, s, 2),
            None => Insn::jmp_imm(cond, R0, imm, 2),
        };
        self.push(i);
        self.push(Insn::mov_imm(R0, 0));
        self.push(Insn::jmp_imm(Cond::Ja, 0, 0, 1));
        self.push(Insn::mov_imm(R0, 1));
    }

    /// `l op r` into r0; `unsigned`: `/ % >>` and the orderings treat the operands as
    /// unsigned.
    pub(super) fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, unsigned: bool) -> Result<(), EmitError> {
        match op {
            BinOp::LogAnd | BinOp::LogOr => {
                let out = self.label();
                self.expr(l)?;
                self.bool_of(Cond::Ne, None, 0);
                let c = if op == BinOp::LogAnd { Cond::Eq } else { Cond::Ne };
                self.jump(Insn::jmp_imm(c, R0, 0, 0), out);
                self.expr(r)?;
                self.bool_of(Cond::Ne, None, 0);
                self.bind(out);
                return Ok(());
            }
            _ => {}
        }
        match r {
            // A constant right operand needs no stack slot (and left-deep chains like
            // a + 1 + 2 + ... then use no stack at all).
            Expr::Int(v) if *v == *v as i32 as i64 => {
                self.expr(l)?;
                self.push(Insn::mov_imm(R1, *v as i32));
            }
            _ => self.operands(|s| s.expr(l), |s| s.expr(r))?,
        }
        let alu = |s: &mut Self, a: Alu| s.push(Insn::alu_reg(a, R0, R1));
        match op {
            BinOp::Add => alu(self, Alu::Add),
            BinOp::Sub => alu(self, Alu::Sub),
            BinOp::Mul => alu(self, Alu::Mul),
            BinOp::BitAnd => alu(self, Alu::And),
            BinOp::BitOr => alu(self, Alu::Or),
            BinOp::BitXor => alu(self, Alu::Xor),
            BinOp::Shl => alu(self, Alu::Lsh),
            BinOp::Shr => alu(self, if unsigned { Alu::Rsh } else { Alu::Arsh }),
            BinOp::Div | BinOp::Rem if unsigned => {
                self.no_zero_divisor(r)?;
                alu(self, if op == BinOp::Rem { Alu::Mod } else { Alu::Div })
            }
            BinOp::Div | BinOp::Rem => {
                self.no_zero_divisor(r)?;
                self.signed_divide(op == BinOp::Rem)
            }
            BinOp::LogXor => {
                self.bool_of(Cond::Ne, None, 0);
                self.push(Insn::mov(R2, R0));
                self.push(Insn::mov(R0, R1));
                self.bool_of(Cond::Ne, None, 0);
                self.push(Insn::alu_reg(Alu::Xor, R0, R2));
            }
            BinOp::Eq => self.bool_of(Cond::Eq, Some(R1), 0),
            BinOp::Ne => self.bool_of(Cond::Ne, Some(R1), 0),
            BinOp::Lt => self.bool_of(if unsigned { Cond::Lt } else { Cond::Slt }, Some(R1), 0),
            BinOp::Le => self.bool_of(if unsigned { Cond::Le } else { Cond::Sle }, Some(R1), 0),
            BinOp::Gt => self.bool_of(if unsigned { Cond::Gt } else { Cond::Sgt }, Some(R1), 0),
            BinOp::Ge => self.bool_of(if unsigned { Cond::Ge } else { Cond::Sge }, Some(R1), 0),
            BinOp::LogAnd | BinOp::LogOr => unreachable!(),
        }
        Ok(())
    }

    /// Faults if the divisor in r1 is 0 (a constant one that is not needs no check).
    fn no_zero_divisor(&mut self, r: &Expr) -> Result<(), EmitError> {
        if matches!(r, Expr::Int(k) if *k != 0) {
            return Ok(());
        }
        self.fault_unless(Cond::Ne, R1, 0, Fault::DivZero, FaultValue::Zero)
    }

    /// r0 = r0 / r1 (or %) with C's signed semantics, from unsigned BPF division.
    pub(super) fn signed_divide(&mut self, rem: bool) {
        // r2 = sign of the result (quotient: l^r; remainder: l), r0/r1 = magnitudes.
        self.push(Insn::mov(R2, R0));
        if !rem {
            self.push(Insn::alu_reg(Alu::Xor, R2, R1));
        }
        self.push(Insn::jmp_imm(Cond::Sge, R0, 0, 1));
        self.push(Insn::neg(R0));
        self.push(Insn::jmp_imm(Cond::Sge, R1, 0, 1));
        self.push(Insn::neg(R1));
        self.push(Insn::alu_reg(if rem { Alu::Mod } else { Alu::Div }, R0, R1));
        self.push(Insn::jmp_imm(Cond::Sge, R2, 0, 1));
        self.push(Insn::neg(R0));
    }

    pub(super) fn var(&mut self, h: VarHook) -> Result<(), EmitError> {
        match h {
            VarHook::Kernel(KernelValue::SwTaiNs, _) => {
                self.push(Insn::call(helper::KTIME_GET_BOOT_NS));
                self.ld64(R1, self.target.tai_offset);
                self.push(Insn::alu_reg(Alu::Add, R0, R1));
            }
            VarHook::Kernel(value, part) => {
                self.push(Insn::call(match value {
                    KernelValue::PidTgid => helper::GET_CURRENT_PID_TGID,
                    KernelValue::UidGid => helper::GET_CURRENT_UID_GID,
                    KernelValue::Cpu => helper::GET_SMP_PROCESSOR_ID,
                    KernelValue::MonotonicNs => helper::KTIME_GET_NS,
                    KernelValue::CurrentTask => helper::GET_CURRENT_TASK,
                    KernelValue::NumaNode => helper::GET_NUMA_NODE_ID,
                    KernelValue::Jiffies => helper::JIFFIES64,
                    KernelValue::BootNs | KernelValue::SwTaiNs => helper::KTIME_GET_BOOT_NS,
                    KernelValue::TaiNs => helper::KTIME_GET_TAI_NS,
                }));
                match part {
                    Part::Whole => {}
                    Part::High32 => self.push(Insn::alu_imm(Alu::Rsh, R0, 32)),
                    Part::Low32 => self.push(Insn::mov32(R0, R0)),
                }
            }
            VarHook::WallTimestamp => {
                self.push(Insn::call(helper::KTIME_GET_NS));
                self.ld64(R1, self.target.wall_offset);
                self.push(Insn::alu_reg(Alu::Add, R0, R1));
            }
            VarHook::Ppid => {
                let (parent, tgid) = self.target.task_offsets.ok_or_else(|| self.err("ppid needs kernel BTF (/sys/kernel/btf/vmlinux) to find task_struct fields"))?;
                self.scoped(|e| {
                    let tmp = e.slot(8)?;
                    e.push(Insn::call(helper::GET_CURRENT_TASK));
                    e.read_kernel(tmp, R0, parent, 8);
                    e.push(Insn::ldx(DW, R0, R10, tmp));
                    e.read_kernel(tmp, R0, tgid, 4);
                    e.push(Insn::ldx(W, R0, R10, tmp));
                    Ok(())
                })?;
            }
            VarHook::Arg(n) => self.context().arg(self, n)?,
            VarHook::Errno => self.context().errno(self),
            VarHook::Retval | VarHook::BpftraceProbe | VarHook::Username | VarHook::Target | VarHook::Elapsed | VarHook::Call(_) | VarHook::StackArg(_) => return Err(self.err(format!("internal: {h:?} is lowered by the checker"))),
            VarHook::ProbeId => self.context().probe_id(self)?,
            VarHook::Epid => {
                let c = self.clause.ok_or_else(|| self.err("internal: epid outside a clause"))?;
                self.push(Insn::mov_imm(R0, c as i32 + 1));
            }
            VarHook::Caller { user } => self.stack_value(user, false)?,
            VarHook::StackDepth { user } => self.stack_value(user, true)?,
            VarHook::StackLen { user, frames } => {
                self.stack_value(user, true)?;
                // What the stack value keeps: its depth, up to its frames.
                let most = match (frames, user) {
                    (0, false) => self.p.options.stackframes.unwrap_or(crumbs_lang::ir::STACK_FRAMES_DEFAULT),
                    (0, true) => self.p.options.ustackframes.unwrap_or(crumbs_lang::ir::USTACK_FRAMES_MAX),
                    (n, _) => n,
                };
                self.push(Insn::jmp_imm(Cond::Le, R0, most as i32, 1));
                self.push(Insn::mov_imm(R0, most as i32));
            }
            VarHook::Comm | VarHook::Cwd | VarHook::ProbeProv | VarHook::ProbeMod | VarHook::ProbeFunc | VarHook::ProbeName => {
                return Err(self.err(format!("internal: string builtin {h:?} used as an integer")));
            }
        }
        Ok(())
    }

    /// bpf_probe_read_kernel(r10 + slot, size, ptr + off).
    pub(super) fn read_kernel(&mut self, slot: i16, ptr: Reg, off: i32, size: i32) {
        self.read_kernel_to(R10, slot as i32, ptr, off, size);
    }

    /// bpf_probe_read_kernel(r10 + slot, size, ptr + off), faulting with the address if it
    /// cannot read (clobbers r0-r5).
    pub(super) fn read_kernel_or_fault(&mut self, slot: i16, ptr: Reg, off: i32, size: i32) -> Result<(), EmitError> {
        self.read_kernel_to_or_fault(R10, slot as i32, ptr, off, size)
    }

    /// bpf_probe_read_kernel(dst + dst_off, size, ptr + off), faulting with the address if
    /// it cannot read (`dst` must survive the call: r10, r6-r9).
    pub(super) fn read_kernel_to_or_fault(&mut self, dst: Reg, dst_off: i32, ptr: Reg, off: i32, size: i32) -> Result<(), EmitError> {
        self.push(Insn::mov(R3, ptr));
        if off != 0 {
            self.push(Insn::alu_imm(Alu::Add, R3, off));
        }
        // The helper keeps no argument register: the address goes where the fault reads it.
        self.keep_fault_value(R3)?;
        self.push(Insn::mov(R1, dst));
        self.push(Insn::alu_imm(Alu::Add, R1, dst_off));
        self.push(Insn::mov_imm(R2, size));
        self.push(Insn::call(helper::PROBE_READ_KERNEL));
        self.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)
    }

    /// bpf_probe_read_kernel(dst + dst_off, size, ptr + off): zeros there if it cannot read.
    pub(super) fn read_kernel_to(&mut self, dst: Reg, dst_off: i32, ptr: Reg, off: i32, size: i32) {
        self.push(Insn::mov(R3, ptr));
        if off != 0 {
            self.push(Insn::alu_imm(Alu::Add, R3, off));
        }
        self.push(Insn::mov(R1, dst));
        self.push(Insn::alu_imm(Alu::Add, R1, dst_off));
        self.push(Insn::mov_imm(R2, size));
        self.push(Insn::call(helper::PROBE_READ_KERNEL));
    }
}

pub(super) fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

impl Emitter<'_> {
    /// The id of the stack where the probe fired in stack map `map` (the kernel stack, or
    /// with [`F_USER_STACK`] the user stack), into r0. A negative id is kept (it prints as
    /// the reason); all but "no stack here" (a kernel stack at a user-mode sample, a user
    /// stack in a kernel thread) are counted as stack drops.
    fn stack_id(&mut self, map: &str, flags: i32) -> Result<(), EmitError> {
        self.push(Insn::mov(R1, R6));
        self.ld_map(R2, map, 0);
        self.push(Insn::mov_imm(R3, flags));
        self.push(Insn::call(helper::GET_STACKID));
        let kept = self.label();
        self.jump(Insn::jmp_imm(Cond::Sge, R0, 0, 0), kept);
        self.jump(Insn::jmp_imm(Cond::Eq, R0, -EFAULT, 0), kept);
        self.scoped(|e| {
            let id = e.slot(8)?;
            e.push(Insn::stx(DW, R10, id, R0));
            e.count_drop(DropKind::Stack)?;
            e.push(Insn::ldx(DW, R0, R10, id));
            Ok(())
        })?;
        self.bind(kept);
        Ok(())
    }

    /// r0's low `size` bytes, sign-extended to 64 bits.
    fn sign_extend(&mut self, size: u8) {
        if size < 8 {
            let shift = 64 - 8 * size as i32;
            self.push(Insn::alu_imm(Alu::Lsh, R0, shift));
            self.push(Insn::alu_imm(Alu::Arsh, R0, shift));
        }
    }
}

/// The load size of a `size`-byte integer.
fn width(size: u8) -> u8 {
    match size {
        1 => B,
        2 => H,
        4 => W,
        _ => DW,
    }
}

impl Emitter<'_> {
    /// The first `len` (at most `size`) bytes at kernel address `addr` into `dst`; nothing
    /// for 0. A read that fails faults.
    pub(super) fn object_prefix(&mut self, addr: &Expr, size: u32, len: &Expr, dst: Buf) -> Result<(), EmitError> {
        self.scoped(|e| {
            let (a, n) = (e.slot(8)?, e.slot(8)?);
            e.expr(addr)?;
            e.push(Insn::stx(DW, R10, a, R0));
            e.expr(len)?;
            e.push(Insn::stx(DW, R10, n, R0));
            let done = e.label();
            e.push(Insn::ldx(DW, R2, R10, n));
            e.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), done);
            // Never past the place (the bound is the verifier's too).
            e.push(Insn::jmp_imm(Cond::Le, R2, size as i32, 1));
            e.push(Insn::mov_imm(R2, size as i32));
            e.buf_addr(R1, dst);
            e.push(Insn::ldx(DW, R3, R10, a));
            e.keep_fault_value(R3)?;
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)?;
            e.bind(done);
            Ok(())
        })
    }
}
