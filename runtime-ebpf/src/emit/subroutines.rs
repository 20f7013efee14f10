//! D's string subroutines in BPF: strlen(), strjoin(), substr(), toupper()/tolower(),
//! basename()/dirname(). Each works on strings in scratch buffers, NUL-padded as every
//! buffer is (see [`super::strings`]); lengths come from the string-read helper, loops are
//! bounded by the buffer's size so that the verifier can follow them.

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    /// r0 = the length of the string in `buf`, a `size`-byte buffer: the string-read helper
    /// copying a string onto itself returns its length, NUL included (clobbers r0-r5).
    pub(super) fn buf_len(&mut self, buf: Buf, size: u32) {
        let limit = self.str_limit(size) as i32;
        self.buf_addr(R1, buf);
        self.push(Insn::mov(R3, R1));
        self.push(Insn::mov_imm(R2, limit));
        self.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
        // Bounds the verifier can follow: 1..=limit, then the NUL taken off.
        self.push(Insn::jmp_imm(Cond::Sge, R0, 1, 1));
        self.push(Insn::mov_imm(R0, 1));
        self.push(Insn::jmp_imm(Cond::Le, R0, limit, 1));
        self.push(Insn::mov_imm(R0, limit));
        self.push(Insn::alu_imm(Alu::Sub, R0, 1));
    }

    /// The buffer size a string argument is written into: its own, or strsize's for an id.
    pub(super) fn arg_size(&self, s: &StrExpr) -> u32 {
        match s.repr() {
            Repr::Str(n) => n,
            _ => str_buffer(self.p.options.strsize()),
        }
    }

    /// `strlen(s)` into r0.
    pub(super) fn strlen(&mut self, s: &StrExpr) -> Result<(), EmitError> {
        if let Some(text) = self.const_text(s) {
            self.ld64(R0, text.len() as i64);
            return Ok(());
        }
        let size = self.arg_size(s);
        // Always a copy: the length is found by copying the buffer onto itself, which must
        // not race a store to a global on another CPU.
        self.scoped(|e| {
            let buf = e.str_temp(size)?;
            e.str_into(s, buf, size)?;
            e.buf_len(buf, size);
            Ok(())
        })
    }

    /// Copies the string in `src` (an `ssize`-byte buffer) to `dst` as `size` bytes.
    pub(super) fn buf_copy(&mut self, src: Buf, ssize: u32, dst: Buf, size: u32) {
        if size != ssize {
            self.zero_buf(dst, size);
        }
        self.buf_addr(R3, src);
        self.copy_from_r3(ssize, dst, size);
    }

    /// A string subroutine's result (an `own`-byte buffer) at `dst` as `size` bytes.
    pub(super) fn subroutine(&mut self, f: StrFn, args: &[StrArg], own: u32, dst: Buf, size: u32) -> Result<(), EmitError> {
        // Built in place when `dst` is scratch space of the result's size, else aside.
        // strjoin() reads its second string to a place the verifier only knows is within
        // the first's buffer, for as many bytes as that buffer holds: it needs twice the room.
        let direct = matches!(dst, Buf::Scratch(_)) && size == own && f != StrFn::Join;
        let room = if f == StrFn::Join { 2 * own } else { own };
        let out = if direct { dst } else { Buf::Scratch(self.scratch(room as usize)?) };
        let str_arg = |i: usize| match args.get(i) {
            Some(StrArg::Str(s)) => Ok(s),
            _ => Err(EmitError { clause: None, message: format!("internal: argument {i} of {f:?} is not a string") }),
        };
        match f {
            // str_into() writes a copy itself.
            StrFn::Copy => return Err(self.err("internal: a string copy is not a subroutine")),
            StrFn::Join => self.join(str_arg(0)?, str_arg(1)?, out, own)?,
            StrFn::Substr => self.substr(str_arg(0)?, args, out, own)?,
            StrFn::Upper | StrFn::Lower => {
                self.str_into(str_arg(0)?, out, own)?;
                self.map_case(out, own, f == StrFn::Upper);
            }
            StrFn::Basename | StrFn::Dirname => self.path_part(str_arg(0)?, out, own, f == StrFn::Basename)?,
            StrFn::Strstr => self.strstr(args, out, own)?,
            StrFn::Strchr | StrFn::Strrchr => self.strchr(args, out, own, f == StrFn::Strrchr)?,
            StrFn::Strtok | StrFn::StrtokNext => self.strtok(f, args, out, own)?,
            StrFn::Lltostr => match args.first() {
                Some(StrArg::Int(n)) => {
                    let base = match args.get(1) {
                        Some(StrArg::Int(b)) => Some(b),
                        _ => None,
                    };
                    self.lltostr(n, base, out, own)?
                }
                _ => return Err(self.err("internal: lltostr() without an integer")),
            },
            StrFn::InetNtoa | StrFn::InetNtoa6 | StrFn::InetNtop => self.inet(f, args, out, own)?,
            StrFn::LinkNtop => self.link_ntop(args, out, own)?,
            StrFn::Ntop(from) => self.ntop(from, args, out, own)?,
            StrFn::Macaddr => self.macaddr(args, out, own)?,
            StrFn::Cleanpath => self.cleanpath(str_arg(0)?, out, own)?,
            StrFn::CommOfPid { missing } => self.comm_of_pid(args, missing, out, own)?,
        }
        if !direct {
            self.buf_copy(out, own, dst, size);
        }
        Ok(())
    }

    /// strjoin(a, b) at `out`: a, then b read in after a's last byte.
    fn join(&mut self, a: &StrExpr, b: &StrExpr, out: Buf, own: u32) -> Result<(), EmitError> {
        self.str_into(a, out, own)?;
        self.scoped(|e| {
            let n = e.slot(8)?;
            e.buf_len(out, own);
            e.push(Insn::stx(DW, R10, n, R0));
            let sb = e.arg_size(b);
            let tb = e.readable(b, sb)?;
            e.buf_addr(R3, tb);
            e.buf_addr(R1, out);
            e.push(Insn::ldx(DW, R2, R10, n));
            e.push(Insn::alu_reg(Alu::Add, R1, R2));
            // Room left: the string's limit less n, the NUL included.
            e.push(Insn::mov_imm(R4, e.str_limit(own) as i32));
            e.push(Insn::alu_reg(Alu::Sub, R4, R2));
            e.push(Insn::mov(R2, R4));
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })
    }

    /// substr(s, index[, length]) at `out`, with DTrace's rules: a negative index counts
    /// from the end; a negative length leaves that many bytes off the end; no length means
    /// to the end; an index outside the string gives "".
    fn substr(&mut self, s: &StrExpr, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let strsize = self.p.options.strsize() as i32;
        let ss = self.arg_size(s);
        self.scoped(|e| {
            let ts = e.str_temp(ss)?;
            let (index, remaining, len) = (e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.str_into(s, ts, ss)?;
            for (slot, arg) in [(index, args.get(1)), (remaining, args.get(2))] {
                match arg {
                    Some(StrArg::Int(x)) => e.expr(x)?,
                    _ => e.push(Insn::mov_imm(R0, strsize)),
                }
                e.push(Insn::stx(DW, R10, slot, R0));
            }
            e.buf_len(ts, ss);
            e.push(Insn::stx(DW, R10, len, R0));
            e.zero_buf(out, own);
            let (done, nonneg, positive, copy) = (e.label(), e.label(), e.label(), e.label());
            e.push(Insn::ldx(DW, R1, R10, index));
            e.push(Insn::ldx(DW, R2, R10, remaining));
            e.push(Insn::ldx(DW, R3, R10, len));
            // A negative index counts from the end; still before the start, the part
            // before it is cut from the length.
            e.jump(Insn::jmp_imm(Cond::Sge, R1, 0, 0), nonneg);
            e.push(Insn::alu_reg(Alu::Add, R1, R3));
            e.jump(Insn::jmp_imm(Cond::Sge, R1, 0, 0), nonneg);
            e.push(Insn::mov(R4, R1));
            e.push(Insn::alu_reg(Alu::Add, R4, R2));
            e.jump(Insn::jmp_imm(Cond::Sle, R4, 0, 0), nonneg);
            e.push(Insn::alu_reg(Alu::Add, R2, R1));
            e.push(Insn::mov_imm(R1, 0));
            e.bind(nonneg);
            e.jump(Insn::jmp_reg(Cond::Sge, R1, R3, 0), done);
            e.jump(Insn::jmp_imm(Cond::Slt, R1, 0, 0), done);
            e.jump(Insn::jmp_imm(Cond::Sge, R2, 0, 0), positive);
            e.push(Insn::alu_reg(Alu::Add, R2, R3));
            e.push(Insn::alu_reg(Alu::Sub, R2, R1));
            e.goto(copy);
            e.bind(positive);
            e.push(Insn::mov(R4, R1));
            e.push(Insn::alu_reg(Alu::Add, R4, R2));
            e.jump(Insn::jmp_imm(Cond::Sle, R4, strsize, 0), copy);
            e.push(Insn::mov_imm(R2, strsize));
            e.push(Insn::alu_reg(Alu::Sub, R2, R1));
            e.bind(copy);
            e.jump(Insn::jmp_imm(Cond::Sle, R2, 0, 0), done);
            e.jump(Insn::jmp_imm(Cond::Gt, R1, ss as i32 - 1, 0), done);
            // remaining bytes and the NUL, at most the string's limit.
            let limit = e.str_limit(own) as i32;
            e.push(Insn::alu_imm(Alu::Add, R2, 1));
            e.push(Insn::jmp_imm(Cond::Le, R2, limit, 1));
            e.push(Insn::mov_imm(R2, limit));
            e.buf_addr(R3, ts);
            e.push(Insn::alu_reg(Alu::Add, R3, R1));
            e.buf_addr(R1, out);
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            e.bind(done);
            Ok(())
        })
    }

    /// toupper()/tolower() of the string at `buf`, in place: ASCII letters only.
    fn map_case(&mut self, buf: Buf, size: u32, upper: bool) {
        let (lo, hi) = if upper { (b'a', b'z') } else { (b'A', b'Z') };
        let (top, next, done) = (self.label(), self.label(), self.label());
        self.buf_addr(R1, buf);
        self.push(Insn::mov_imm(R2, 0));
        self.bind(top);
        self.jump(Insn::jmp_imm(Cond::Ge, R2, size as i32 - 1, 0), done);
        self.push(Insn::mov(R3, R1));
        self.push(Insn::alu_reg(Alu::Add, R3, R2));
        self.push(Insn::ldx(B, R4, R3, 0));
        self.jump(Insn::jmp_imm(Cond::Eq, R4, 0, 0), done);
        self.jump(Insn::jmp_imm(Cond::Lt, R4, lo as i32, 0), next);
        self.jump(Insn::jmp_imm(Cond::Gt, R4, hi as i32, 0), next);
        self.push(Insn::alu_imm(Alu::Xor, R4, 0x20));
        self.push(Insn::stx(B, R3, 0, R4));
        self.bind(next);
        self.push(Insn::alu_imm(Alu::Add, R2, 1));
        self.goto(top);
        self.bind(done);
    }

    /// basename(s) or dirname(s) at `out`. A path is "dir///base///": trailing slashes are
    /// skipped, then the base runs back to a slash, then the slashes before it. "" gives
    /// "."; a path of slashes gives "/"; a base with no slash before it has dirname ".".
    fn path_part(&mut self, s: &StrExpr, out: Buf, own: u32, base: bool) -> Result<(), EmitError> {
        self.scoped(|e| {
            let ts = Buf::Scratch(e.scratch(own as usize)?);
            let (end, start) = (e.slot(8)?, e.slot(8)?);
            e.str_into(s, ts, own)?;
            e.buf_len(ts, own);
            let (dot, slash, copy, done) = (e.label(), e.label(), e.label(), e.label());
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), dot);
            e.buf_addr(R1, ts);
            e.push(Insn::mov(R2, R0));
            // r2 walks back from the end, one byte a step, to `before` past the start; r4
            // is then the byte at r2 (r3 its address).
            let step_back = |e: &mut Self, before: Label| {
                e.push(Insn::alu_imm(Alu::Sub, R2, 1));
                e.jump(Insn::jmp_imm(Cond::Slt, R2, 0, 0), before);
                e.jump(Insn::jmp_imm(Cond::Gt, R2, own as i32 - 1, 0), done);
                e.push(Insn::mov(R3, R1));
                e.push(Insn::alu_reg(Alu::Add, R3, R2));
                e.push(Insn::ldx(B, R4, R3, 0));
            };
            // Back over the trailing slashes: the last byte of the base.
            let skip = e.label();
            e.bind(skip);
            step_back(e, slash);
            e.jump(Insn::jmp_imm(Cond::Eq, R4, b'/' as i32, 0), skip);
            e.push(Insn::stx(DW, R10, end, R2));
            // Back over the base to the slash before it.
            let in_base = e.label();
            let no_dir = e.label();
            e.bind(in_base);
            step_back(e, no_dir);
            e.jump(Insn::jmp_imm(Cond::Ne, R4, b'/' as i32, 0), in_base);
            if base {
                // The base: from after the slash to its last byte.
                e.bind(no_dir);
                e.push(Insn::alu_imm(Alu::Add, R2, 1));
                e.push(Insn::stx(DW, R10, start, R2));
                e.goto(copy);
            } else {
                // Back over the slashes before the base: the dirname ends at the byte
                // before them, or is "/" if they start the path.
                let in_slashes = e.label();
                e.bind(in_slashes);
                step_back(e, slash);
                e.jump(Insn::jmp_imm(Cond::Eq, R4, b'/' as i32, 0), in_slashes);
                e.push(Insn::stx(DW, R10, end, R2));
                e.push(Insn::st_imm(DW, R10, start, 0));
                e.goto(copy);
                e.bind(no_dir);
                e.goto(dot);
            }
            // bytes start..=end of the path.
            e.bind(copy);
            e.zero_buf(out, own);
            e.push(Insn::ldx(DW, R1, R10, start));
            e.push(Insn::ldx(DW, R2, R10, end));
            e.jump(Insn::jmp_imm(Cond::Gt, R1, own as i32 - 1, 0), done);
            e.jump(Insn::jmp_imm(Cond::Gt, R2, own as i32 - 1, 0), done);
            e.push(Insn::alu_reg(Alu::Sub, R2, R1));
            e.push(Insn::alu_imm(Alu::Add, R2, 2));
            e.push(Insn::jmp_imm(Cond::Le, R2, own as i32, 1));
            e.push(Insn::mov_imm(R2, own as i32));
            e.buf_addr(R3, ts);
            e.push(Insn::alu_reg(Alu::Add, R3, R1));
            e.buf_addr(R1, out);
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            e.goto(done);
            e.bind(dot);
            e.const_into(".", out, own);
            e.goto(done);
            e.bind(slash);
            e.const_into("/", out, own);
            e.bind(done);
            Ok(())
        })
    }
}
