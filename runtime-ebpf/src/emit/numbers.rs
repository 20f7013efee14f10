//! The subroutines that give an integer (index(), rindex(), htons() and the other byte
//! swaps, rand(), progenyof(), __syscall()) and lltostr(), which writes one.

use super::strings::Buf;
use super::*;

/// How far progenyof() walks up the parents, as DTrace's does: far deeper than any
/// process tree, and a bound the verifier can see.
const ANCESTORS_MAX: i32 = 256;

impl Emitter<'_> {
    /// An integer subroutine's value into r0.
    pub(super) fn int_call(&mut self, f: IntFn, args: &[StrArg]) -> Result<(), EmitError> {
        let int_arg = |e: &Self, i: usize| match args.get(i) {
            Some(StrArg::Int(x)) => Ok(x),
            _ => Err(e.err(format!("internal: argument {i} of {f:?} is not an integer"))),
        };
        match f {
            IntFn::Index | IntFn::Rindex => self.index_of(args, f == IntFn::Rindex)?,
            IntFn::Swap(bytes) => {
                self.expr(int_arg(self, 0)?)?;
                self.push(Insn::to_be(R0, 8 * bytes as i32));
            }
            IntFn::Cgroup => self.push(Insn::call(helper::GET_CURRENT_CGROUP_ID)),
            IntFn::Rand => {
                // An int: the 32 random bits, sign-extended.
                self.push(Insn::call(helper::GET_PRANDOM_U32));
                self.push(Insn::alu_imm(Alu::Lsh, R0, 32));
                self.push(Insn::alu_imm(Alu::Arsh, R0, 32));
            }
            IntFn::Progenyof => {
                let pid = int_arg(self, 0)?;
                self.progenyof(pid)?;
            }
            IntFn::Syscall => {
                let task = int_arg(self, 0)?;
                self.current_syscall(task)?;
            }
            IntFn::UserReg(n) => self.user_register(n)?,
            IntFn::ProbeReg(word) => self.context().register(self, word)?,
            IntFn::StackArg(n) => self.context().stack_arg(self, n)?,
            IntFn::FunctionArg(n) => self.context().trusted_arg(self, R0, n)?,
            IntFn::FuncIp => self.context().function_address(self)?,
            IntFn::ByteAt => self.byte_at(args)?,
            IntFn::Memcmp(n) => self.memcmp(args, n)?,
            IntFn::WriteUser(n) => self.write_user(args, n)?,
            IntFn::PercpuKaddr(name) => self.percpu_kaddr(name, args)?,
            IntFn::SocketCookie(n) => {
                self.context().trusted_arg(self, R1, n)?;
                self.push(Insn::call(helper::GET_SOCKET_COOKIE));
            }
            IntFn::Ncpus => self.ld64(R0, i64::from(self.target.cpus)),
        }
        Ok(())
    }

    /// r0 = the byte of string `args[0]` at index `args[1]`, sign-extended (a `char`); 0 past
    /// the string's buffer.
    fn byte_at(&mut self, args: &[StrArg]) -> Result<(), EmitError> {
        let (Some(StrArg::Str(s)), Some(StrArg::Int(i))) = (args.first(), args.get(1)) else {
            return Err(self.err("internal: s[i] takes a string and an index"));
        };
        self.scoped(|e| {
            // A string kept as an id (a constant, probefunc) is written out at strsize.
            let size = match s.repr() {
                Repr::Str(n) => n,
                _ => crumbs_lang::ir::str_buffer(e.p.options.strsize()),
            };
            let index = e.slot(8)?;
            e.expr(i)?;
            e.push(Insn::stx(DW, R10, index, R0));
            let buf = e.readable(s, size)?;
            let (past, done) = (e.label(), e.label());
            e.push(Insn::ldx(DW, R1, R10, index));
            e.jump(Insn::jmp_imm(Cond::Ge, R1, size as i32, 0), past);
            e.buf_addr(R2, buf);
            e.push(Insn::alu_reg(Alu::Add, R2, R1));
            e.push(Insn::ldx(B, R0, R2, 0));
            e.push(Insn::alu_imm(Alu::Lsh, R0, 56));
            e.push(Insn::alu_imm(Alu::Arsh, R0, 56));
            e.goto(done);
            e.bind(past);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// r0 = the difference of the first bytes (signed chars) that differ among the first
    /// `n` of two strings' buffers, 0 past a buffer; 0 if none differ (bpftrace's memcmp()).
    /// Unrolled: n is a constant, at most the string size.
    fn memcmp(&mut self, args: &[StrArg], n: u32) -> Result<(), EmitError> {
        let (Some(StrArg::Str(a)), Some(StrArg::Str(b))) = (args.first(), args.get(1)) else {
            return Err(self.err("internal: memcmp() takes two strings"));
        };
        self.scoped(|e| {
            let size = |e: &Self, s: &StrExpr| match s.repr() {
                Repr::Str(n) => n,
                _ => crumbs_lang::ir::str_buffer(e.p.options.strsize()),
            };
            // A computed count, kept for the comparison of each byte's place with it.
            let count = match args.get(2) {
                Some(StrArg::Int(c)) => {
                    let at = e.slot(8)?;
                    e.expr(c)?;
                    e.push(Insn::stx(DW, R10, at, R0));
                    Some(at)
                }
                _ => None,
            };
            let (sa, sb) = (size(e, a), size(e, b));
            let ba = e.readable(a, sa)?;
            let bb = e.readable(b, sb)?;
            let (done, same) = (e.label(), e.label());
            for i in 0..n.min(sa.max(sb)) {
                if let Some(at) = count {
                    e.push(Insn::ldx(DW, R1, R10, at));
                    e.jump(Insn::jmp_imm(Cond::Le, R1, i as i32, 0), same);
                }
                for (reg, buf, size) in [(R1, ba, sa), (R2, bb, sb)] {
                    if i < size {
                        e.buf_addr(reg, buf);
                        e.push(Insn::ldx(B, reg, reg, i as i16));
                        e.push(Insn::alu_imm(Alu::Lsh, reg, 56));
                        e.push(Insn::alu_imm(Alu::Arsh, reg, 56));
                    } else {
                        e.push(Insn::mov_imm(reg, 0));
                    }
                }
                e.push(Insn::mov(R0, R1));
                e.push(Insn::alu_reg(Alu::Sub, R0, R2));
                e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), done);
            }
            e.bind(same);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// r0 = 1 if bpf_probe_write_user() wrote the first `len` bytes of a string's buffer to
    /// the user address, else 0 (bpftrace's write_user()).
    fn write_user(&mut self, args: &[StrArg], len: u32) -> Result<(), EmitError> {
        let (Some(StrArg::Int(dst)), Some(StrArg::Str(src))) = (args.first(), args.get(1)) else {
            return Err(self.err("internal: write_user() takes an address and a string"));
        };
        self.scoped(|e| {
            let at = e.slot(8)?;
            e.expr(dst)?;
            e.push(Insn::stx(DW, R10, at, R0));
            let size = match src.repr() {
                Repr::Str(n) => n,
                _ => crumbs_lang::ir::str_buffer(e.p.options.strsize()),
            };
            // A computed length, bounded for the verifier: at most the buffer, none for 0.
            let computed = match args.get(2) {
                Some(StrArg::Int(l)) => {
                    let n = e.slot(8)?;
                    e.expr(l)?;
                    e.push(Insn::stx(DW, R10, n, R0));
                    Some(n)
                }
                _ => None,
            };
            let buf = e.readable(src, size)?;
            let skip = e.label();
            e.buf_addr(R2, buf);
            e.push(Insn::ldx(DW, R1, R10, at));
            match computed {
                Some(n) => {
                    let most = len.min(size) as i32;
                    e.push(Insn::ldx(DW, R3, R10, n));
                    e.push(Insn::mov32(R3, R3));
                    e.push(Insn::mov_imm(R0, -1));
                    e.jump(Insn::jmp_imm(Cond::Eq, R3, 0, 0), skip);
                    // 1 to most in a form the verifier bounds (it learns no lower bound
                    // from `!= 0`): (len - 1) capped at most - 1, plus 1.
                    e.push(Insn::alu_imm(Alu::Sub, R3, 1));
                    e.push(Insn::jmp_imm(Cond::Le, R3, most - 1, 1));
                    e.push(Insn::mov_imm(R3, most - 1));
                    e.push(Insn::alu_imm(Alu::Add, R3, 1));
                }
                None => e.push(Insn::mov_imm(R3, len.min(size) as i32)),
            }
            e.push(Insn::call(helper::PROBE_WRITE_USER));
            e.bind(skip);
            // 0 is success: 1; an error (negative): 0.
            e.push(Insn::mov_imm(R1, 1));
            e.push(Insn::jmp_imm(Cond::Eq, R0, 0, 1));
            e.push(Insn::mov_imm(R1, 0));
            e.push(Insn::mov(R0, R1));
            Ok(())
        })
    }

    /// r0 = 1 if the current process (thread group) is `pid` or descends from it: its
    /// real_parent chain holds a task whose tgid is pid; else 0.
    fn progenyof(&mut self, pid: &Expr) -> Result<(), EmitError> {
        let (parent, tgid) = self.target.task_offsets.ok_or_else(|| self.err("progenyof() needs kernel BTF (/sys/kernel/btf/vmlinux) to find task_struct fields"))?;
        self.scoped(|e| {
            let (want, task, left, tmp) = (e.slot(8)?, e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.expr(pid)?;
            e.push(Insn::mov32(R0, R0));
            e.push(Insn::stx(DW, R10, want, R0));
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.push(Insn::stx(DW, R10, task, R0));
            e.push(Insn::st_imm(DW, R10, left, ANCESTORS_MAX));
            let (head, yes, no, done) = (e.label(), e.label(), e.label(), e.label());
            e.bind(head);
            e.push(Insn::ldx(DW, R1, R10, left));
            e.exit_if(Insn::jmp_imm(Cond::Sle, R1, 0, 0), no);
            e.push(Insn::alu_imm(Alu::Sub, R1, 1));
            e.push(Insn::stx(DW, R10, left, R1));
            e.push(Insn::ldx(DW, R0, R10, task));
            e.exit_if(Insn::jmp_imm(Cond::Eq, R0, 0, 0), no);
            e.read_kernel(tmp, R0, tgid, 4);
            e.exit_if(Insn::jmp_imm(Cond::Ne, R0, 0, 0), no);
            e.push(Insn::ldx(W, R1, R10, tmp));
            e.push(Insn::ldx(DW, R2, R10, want));
            e.exit_if(Insn::jmp_reg(Cond::Eq, R1, R2, 0), yes);
            e.push(Insn::ldx(DW, R0, R10, task));
            e.read_kernel(tmp, R0, parent, 8);
            e.exit_if(Insn::jmp_imm(Cond::Ne, R0, 0, 0), no);
            // The idle task is its own parent: the top.
            e.push(Insn::ldx(DW, R1, R10, tmp));
            e.push(Insn::ldx(DW, R2, R10, task));
            e.exit_if(Insn::jmp_reg(Cond::Eq, R1, R2, 0), no);
            e.push(Insn::stx(DW, R10, task, R1));
            e.goto(head);
            e.bind(yes);
            e.push(Insn::mov_imm(R0, 1));
            e.goto(done);
            e.bind(no);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// r0 = the system call the current thread is in: its user registers' orig_ax, saved at
    /// the top of its kernel stack when it entered the kernel, if `task` is the current
    /// thread and those registers are a user mode's (cs's privilege level 3: a kernel
    /// thread has none) and orig_ax is not negative (an interrupt or exception); else -1.
    fn current_syscall(&mut self, task: &Expr) -> Result<(), EmitError> {
        /// x86-64 pt_regs: orig_ax, ip, cs.
        const ORIG_AX: i32 = 120;
        const CS: i16 = 16;
        self.scoped(|e| {
            let (want, regs) = (e.slot(8)?, e.slot(24)?);
            e.expr(task)?;
            e.push(Insn::stx(DW, R10, want, R0));
            let (none, done) = (e.label(), e.label());
            e.push(Insn::call(helper::GET_CURRENT_TASK));
            e.push(Insn::ldx(DW, R1, R10, want));
            e.jump(Insn::jmp_reg(Cond::Ne, R0, R1, 0), none);
            e.push(Insn::call(helper::GET_CURRENT_TASK_BTF));
            e.push(Insn::mov(R1, R0));
            e.push(Insn::call(helper::TASK_PT_REGS));
            e.push(Insn::mov(R3, R0));
            e.push(Insn::alu_imm(Alu::Add, R3, ORIG_AX));
            e.push(Insn::mov(R1, R10));
            e.push(Insn::alu_imm(Alu::Add, R1, regs as i32));
            e.push(Insn::mov_imm(R2, 24));
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), none);
            e.push(Insn::ldx(DW, R1, R10, regs + CS));
            e.push(Insn::alu_imm(Alu::And, R1, 3));
            e.jump(Insn::jmp_imm(Cond::Ne, R1, 3, 0), none);
            e.push(Insn::ldx(DW, R0, R10, regs));
            e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), none);
            e.goto(done);
            e.bind(none);
            e.push(Insn::mov_imm(R0, -1));
            e.bind(done);
            Ok(())
        })
    }

    /// uregs[n]: word n of the registers the current thread's user mode left at the top of
    /// its kernel stack (bpf_task_pt_regs: at a uprobe, the probe's own context), where
    /// they are a user mode's (cs's privilege level 3); else, and past pt_regs' 21 words
    /// (the segment registers and trap number x86-64 does not save there), 0.
    fn user_register(&mut self, n: u8) -> Result<(), EmitError> {
        /// x86-64 pt_regs: words, and cs's offset.
        const WORDS: u8 = 21;
        const CS: i32 = 17 * 8;
        if n >= WORDS {
            self.push(Insn::mov_imm(R0, 0));
            return Ok(());
        }
        self.scoped(|e| {
            let (cs, word) = (e.slot(8)?, e.slot(8)?);
            let (none, done) = (e.label(), e.label());
            e.push(Insn::call(helper::GET_CURRENT_TASK_BTF));
            e.push(Insn::mov(R1, R0));
            e.push(Insn::call(helper::TASK_PT_REGS));
            e.push(Insn::stx(DW, R10, word, R0));
            e.read_kernel(cs, R0, CS, 8);
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), none);
            e.push(Insn::ldx(DW, R1, R10, cs));
            e.push(Insn::alu_imm(Alu::And, R1, 3));
            e.jump(Insn::jmp_imm(Cond::Ne, R1, 3, 0), none);
            e.push(Insn::ldx(DW, R0, R10, word));
            e.read_kernel(word, R0, 8 * n as i32, 8);
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), none);
            e.push(Insn::ldx(DW, R0, R10, word));
            e.goto(done);
            e.bind(none);
            e.push(Insn::mov_imm(R0, 0));
            e.bind(done);
            Ok(())
        })
    }

    /// lltostr(n [, base]) at `out`, as DTrace's: n signed in decimal; in another base
    /// (2 to 36, digits 0-9a-z) the 64 bits unsigned, base 16 after "0x", base 8 after "0"
    /// (but 0 alone); cut to the string's limit. A base known only when the probe fires and
    /// outside 2..36 faults (illegal operation); a constant one the checker has vetted.
    pub(super) fn lltostr(&mut self, n: &Expr, base: Option<&Expr>, out: Buf, own: u32) -> Result<(), EmitError> {
        let base = match base {
            None => Radix::Const(10),
            Some(Expr::Int(k)) => Radix::Const(*k),
            Some(e) => Radix::Run(e),
        };
        // Decimal's "-9223372036854775808" and its NUL fit 24 bytes; binary's 64 digits
        // need more, and room for the prefixes the loop leaves (it stops `reserve` short of
        // the buffer's start so that the verifier sees each prefix byte in bounds).
        let (size, reserve) = match base {
            Radix::Const(10) => (24, 0),
            Radix::Const(_) => (72, 2),
            // Two prefixes the verifier cannot tell apart from one another and the sign.
            Radix::Run(_) => (72, 3),
        };
        self.scoped(|e| {
            let (val, neg) = (e.slot(8)?, e.slot(8)?);
            let radix = match base {
                Radix::Run(_) => Some(e.slot(8)?),
                Radix::Const(_) => None,
            };
            let digits = Buf::Scratch(e.scratch(size as usize)?);
            e.expr(n)?;
            e.push(Insn::stx(DW, R10, val, R0));
            // Only decimal has a sign.
            match (base, radix) {
                (Radix::Const(10), _) => {
                    e.push(Insn::mov(R1, R0));
                    e.push(Insn::alu_imm(Alu::Rsh, R1, 63));
                    e.push(Insn::stx(DW, R10, neg, R1));
                }
                (Radix::Run(b), Some(radix)) => {
                    e.expr(b)?;
                    e.fault_unless(Cond::Sge, R0, 2, Fault::IllOp, FaultValue::Zero)?;
                    e.fault_unless(Cond::Sle, R0, 36, Fault::IllOp, FaultValue::Zero)?;
                    e.push(Insn::stx(DW, R10, radix, R0));
                    e.push(Insn::mov_imm(R1, 0));
                    e.push(Insn::jmp_imm(Cond::Ne, R0, 10, 2));
                    e.push(Insn::ldx(DW, R1, R10, val));
                    e.push(Insn::alu_imm(Alu::Rsh, R1, 63));
                    e.push(Insn::stx(DW, R10, neg, R1));
                }
                _ => {}
            }
            e.zero_buf(digits, size);
            e.push(Insn::ldx(DW, R1, R10, val));
            match base {
                // |n| as unsigned (the most negative n is its own negation, right as unsigned).
                Radix::Const(10) => {
                    e.push(Insn::jmp_imm(Cond::Sge, R1, 0, 1));
                    e.push(Insn::neg(R1));
                }
                Radix::Run(_) => {
                    e.push(Insn::ldx(DW, R2, R10, neg));
                    e.push(Insn::jmp_imm(Cond::Eq, R2, 0, 1));
                    e.push(Insn::neg(R1));
                }
                Radix::Const(_) => {}
            }
            if let Some(radix) = radix {
                e.push(Insn::ldx(DW, R5, R10, radix));
            }
            let (head, written) = (e.label(), e.label());
            e.push(Insn::mov_imm(R2, size as i32 - 2));
            e.bind(head);
            e.push(Insn::mov(R4, R1));
            match base {
                Radix::Const(k) => e.push(Insn::alu_imm(Alu::Mod, R4, k as i32)),
                Radix::Run(_) => e.push(Insn::alu_reg(Alu::Mod, R4, R5)),
            }
            if matches!(base, Radix::Const(k) if k <= 10) {
                e.push(Insn::alu_imm(Alu::Add, R4, b'0' as i32));
            } else {
                // 10 and up are the letters.
                e.push(Insn::jmp_imm(Cond::Lt, R4, 10, 1));
                e.push(Insn::alu_imm(Alu::Add, R4, (b'a' - b'0' - 10) as i32));
                e.push(Insn::alu_imm(Alu::Add, R4, b'0' as i32));
            }
            e.buf_addr(R3, digits);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::stx(B, R3, 0, R4));
            match base {
                Radix::Const(k) => e.push(Insn::alu_imm(Alu::Div, R1, k as i32)),
                Radix::Run(_) => e.push(Insn::alu_reg(Alu::Div, R1, R5)),
            }
            e.push(Insn::alu_imm(Alu::Sub, R2, 1));
            e.exit_if(Insn::jmp_imm(Cond::Eq, R1, 0, 0), written);
            e.jump(Insn::jmp_imm(Cond::Sgt, R2, reserve, 0), head);
            e.bind(written);
            // The prefixes, each written at r2 and stepped past.
            let put = |e: &mut Self, c: u8| {
                e.buf_addr(R3, digits);
                e.push(Insn::alu_reg(Alu::Add, R3, R2));
                e.push(Insn::st_imm(B, R3, 0, c as i32));
                e.push(Insn::alu_imm(Alu::Sub, R2, 1));
            };
            match (base, radix) {
                (Radix::Const(16), _) => {
                    put(e, b'x');
                    put(e, b'0');
                }
                (Radix::Const(8), _) => {
                    let zero = e.label();
                    e.push(Insn::ldx(DW, R1, R10, val));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), zero);
                    put(e, b'0');
                    e.bind(zero);
                }
                (Radix::Run(_), Some(radix)) => {
                    let (not16, not8) = (e.label(), e.label());
                    e.push(Insn::ldx(DW, R1, R10, radix));
                    e.jump(Insn::jmp_imm(Cond::Ne, R1, 16, 0), not16);
                    put(e, b'x');
                    put(e, b'0');
                    e.bind(not16);
                    e.push(Insn::ldx(DW, R1, R10, radix));
                    e.jump(Insn::jmp_imm(Cond::Ne, R1, 8, 0), not8);
                    e.push(Insn::ldx(DW, R1, R10, val));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), not8);
                    put(e, b'0');
                    e.bind(not8);
                }
                _ => {}
            }
            if matches!(base, Radix::Const(10) | Radix::Run(_)) {
                let positive = e.label();
                e.push(Insn::ldx(DW, R1, R10, neg));
                e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), positive);
                put(e, b'-');
                e.bind(positive);
            }
            let at = e.slot(8)?;
            e.push(Insn::stx(DW, R10, at, R2));
            e.zero_buf(out, own);
            e.push(Insn::ldx(DW, R2, R10, at));
            e.buf_addr(R3, digits);
            e.push(Insn::alu_reg(Alu::Add, R3, R2));
            e.push(Insn::alu_imm(Alu::Add, R3, 1));
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, e.str_limit(own) as i32));
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })
    }
}

/// lltostr()'s base: known when the script is compiled, or only when the probe fires.
#[derive(Clone, Copy, PartialEq)]
enum Radix<'a> {
    Const(i64),
    Run(&'a Expr),
}
