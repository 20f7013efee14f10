//! Strings. Every string the program computes with is a buffer of a size the IR fixes (16
//! bytes for a process name, the `strsize` option's for the others), NUL-terminated and
//! NUL-padded to its end, so that comparing, hashing and copying work word by word. Small
//! buffers live on the stack; larger ones in this CPU's scratch space (the BPF stack has
//! only 512 bytes). Constants and probe names stay interned ids until a buffer is needed.

use super::expr::mirror;
use super::frame::SCRATCH_POINTER;
use super::*;

/// Where a string buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Buf {
    /// r10 + offset.
    Stack(i16),
    /// The output record: r8 + offset.
    Record(i16),
    /// This CPU's scratch space + offset.
    Scratch(i16),
    /// The globals area + offset.
    Global(i32),
    /// The address kept in this stack slot (a map value found by a lookup).
    Ptr(i16),
}

impl Buf {
    /// The place `by` bytes further on (none for an address kept in a slot).
    pub(super) fn plus(self, by: i16) -> Option<Buf> {
        match self {
            Buf::Stack(o) => Some(Buf::Stack(o + by)),
            Buf::Record(o) => Some(Buf::Record(o + by)),
            Buf::Scratch(o) => Some(Buf::Scratch(o + by)),
            Buf::Global(o) => Some(Buf::Global(o + by as i32)),
            Buf::Ptr(_) => None,
        }
    }
}

/// Buffers up to this size are zeroed by stores; larger ones by a read that fails.
const INLINE_ZERO_BYTES: u32 = 64;

impl Emitter<'_> {
    /// `reg` = the address of `buf`.
    pub(super) fn buf_addr(&mut self, reg: Reg, buf: Buf) {
        match buf {
            Buf::Stack(off) | Buf::Record(off) => {
                self.push(Insn::mov(reg, if matches!(buf, Buf::Stack(_)) { R10 } else { R8 }));
                self.push(Insn::alu_imm(Alu::Add, reg, off as i32));
            }
            Buf::Scratch(off) => {
                self.push(Insn::ldx(DW, reg, R10, SCRATCH_POINTER));
                if off != 0 {
                    self.push(Insn::alu_imm(Alu::Add, reg, off as i32));
                }
            }
            Buf::Global(off) => self.ld_map(reg, GLOBALS_SYMBOL, off),
            Buf::Ptr(slot) => self.push(Insn::ldx(DW, reg, R10, slot)),
        }
    }

    /// A base register and offset to address `buf`'s words with: r10 or r8 as they are,
    /// else the address loaded into `reg`.
    pub(super) fn buf_base(&mut self, reg: Reg, buf: Buf) -> (Reg, i16) {
        match buf {
            Buf::Stack(off) => (R10, off),
            Buf::Record(off) => (R8, off),
            _ => {
                self.buf_addr(reg, buf);
                (reg, 0)
            }
        }
    }

    /// A buffer of `size` bytes for a value computed on the way, free when the enclosing
    /// scope ends: on the stack if small, else in the scratch space.
    pub(super) fn str_temp(&mut self, size: u32) -> Result<Buf, EmitError> {
        Ok(if size <= 16 { Buf::Stack(self.slot(size as usize)?) } else { Buf::Scratch(self.scratch(size as usize)?) })
    }

    /// Zeroes `size` bytes at `buf` (clobbers r0-r5).
    pub(super) fn zero_buf(&mut self, buf: Buf, size: u32) {
        if size <= INLINE_ZERO_BYTES {
            let (base, off) = self.buf_base(R1, buf);
            for w in 0..(size / 8) as i16 {
                self.push(Insn::st_imm(DW, base, off + 8 * w, 0));
            }
        } else {
            // A failed read zeroes its destination, and a read of address 0 fails at once.
            self.buf_addr(R1, buf);
            self.push(Insn::mov_imm(R2, size as i32));
            self.push(Insn::mov_imm(R3, 0));
            self.push(Insn::call(helper::PROBE_READ_KERNEL));
        }
    }

    /// The bytes a string of `size`-byte buffers may hold, its NUL included: the buffer,
    /// or strsize where the buffer is strsize rounded up to words.
    pub(super) fn str_limit(&self, size: u32) -> u32 {
        let strsize = self.p.options.strsize();
        if size == str_buffer(strsize) {
            strsize
        } else {
            size
        }
    }

    /// Writes string `s` to `dst` as `size` bytes, cut to `size - 1` bytes and NUL-padded
    /// (clobbers r0-r5).
    pub(super) fn str_into(&mut self, s: &StrExpr, dst: Buf, size: u32) -> Result<(), EmitError> {
        match s {
            StrExpr::Const(id) | StrExpr::Padded { id, .. } => {
                let text = self.p.strings.resolve(*id);
                self.const_into(&text, dst, size);
            }
            StrExpr::Probe(h) => match self.probe_const(*h) {
                Some(text) => {
                    let text = text.to_string();
                    self.const_into(&text, dst, size);
                }
                None => self.probe_name_into(dst, size)?,
            },
            StrExpr::SyscallName { nr, unknown } => {
                self.syscall_name_id(nr, *unknown)?;
                self.syscall_id_into(dst, size, Some(*unknown))?;
            }
            StrExpr::Comm => {
                // Kernels before 6.2 copy the name without zero-padding: clear it first, or
                // keys and comparisons would see stale bytes.
                self.zero_buf(dst, size);
                self.buf_addr(R1, dst);
                self.push(Insn::mov_imm(R2, self.str_limit(size).min(COMM_SIZE) as i32));
                self.push(Insn::call(helper::GET_CURRENT_COMM));
            }
            StrExpr::TpField(field) => {
                let f = self.tp_field(field)?;
                self.zero_buf(dst, size);
                let (base, off) = self.buf_base(R1, dst);
                for i in 0..(f.size.min(16) as i16).min(self.str_limit(size) as i16 - 1) {
                    self.push(Insn::ldx(B, R0, R6, f.offset as i16 + i));
                    self.push(Insn::stx(B, base, off + i, R0));
                }
            }
            StrExpr::Psargs { task, offsets } => self.psargs_into(task, *offsets, dst, size)?,
            StrExpr::Cwd { offsets, .. } => self.cwd_into(offsets, dst, size)?,
            StrExpr::DPath { path, offsets, more, .. } => self.d_path_into(path, offsets, more, dst, size)?,
            StrExpr::KernelPath { arg, offset, limit, .. } => self.kernel_path_into(*arg, *offset, *limit, dst, size)?,
            StrExpr::UserStr(addr, _) | StrExpr::KernelStr(addr, _) | StrExpr::AnyStr(addr, _) => {
                // The address first (it may use the stack), then clear the whole buffer (the
                // helper stops at the NUL) and copy.
                self.scoped(|e| {
                    let tmp = e.slot(8)?;
                    e.expr(addr)?;
                    e.push(Insn::stx(DW, R10, tmp, R0));
                    e.zero_buf(dst, size);
                    e.push(Insn::ldx(DW, R3, R10, tmp));
                    e.keep_fault_value(R3)?;
                    e.buf_addr(R1, dst);
                    e.push(Insn::mov_imm(R2, e.str_limit(size) as i32));
                    match s {
                        StrExpr::UserStr(..) => e.push(Insn::call(helper::PROBE_READ_USER_STR)),
                        StrExpr::KernelStr(..) => e.push(Insn::call(helper::PROBE_READ_KERNEL_STR)),
                        // Kernel addresses are the upper half: negative as signed numbers.
                        _ => {
                            let (kernel, read) = (e.label(), e.label());
                            e.jump(Insn::jmp_imm(Cond::Slt, R3, 0, 0), kernel);
                            e.push(Insn::call(helper::PROBE_READ_USER_STR));
                            e.goto(read);
                            e.bind(kernel);
                            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
                            e.bind(read);
                        }
                    }
                    // The length with its NUL, or a negative error: the address cannot be
                    // read. A user address that cannot be read now is "", as copyinstr() has
                    // it (a kernel one faults there too).
                    if matches!(s, StrExpr::KernelStr(..)) {
                        e.fault_unless(Cond::Sgt, R0, 0, Fault::BadAddr, FaultValue::Kept)
                    } else {
                        e.user_string_fault()
                    }
                })?;
            }
            StrExpr::Var(v, vsize) => self.var_into(v, *vsize, dst, size)?,
            StrExpr::Ternary(c, a, b) => self.choose(c, |e| e.scoped(|e| e.str_into(a, dst, size)), |e| e.scoped(|e| e.str_into(b, dst, size)))?,
            StrExpr::Call { f: StrFn::Copy, args, .. } => match args.as_slice() {
                [StrArg::Str(inner)] => self.str_into(inner, dst, size)?,
                _ => return Err(self.err("internal: a string copy takes one string")),
            },
            StrExpr::Call { f, args, size: own } => self.scoped(|e| e.subroutine(*f, args, *own, dst, size))?,
            StrExpr::Seq(stmts, inner) => {
                self.stmts(stmts)?;
                self.str_into(inner, dst, size)?;
            }
        }
        Ok(())
    }

    /// `text` at `dst` as `size` bytes: its first `size - 1` bytes, NUL-padded.
    pub(super) fn const_into(&mut self, text: &str, dst: Buf, size: u32) {
        let mut bytes = text.as_bytes().to_vec();
        bytes.truncate(self.str_limit(size) as usize - 1);
        bytes.resize(size as usize, 0);
        let (base, off) = self.buf_base(R1, dst);
        for (i, w) in bytes.chunks(8).enumerate() {
            let w = i64::from_le_bytes(w.try_into().expect("8-byte words"));
            let at = off + 8 * i as i16;
            // A word that fits 32 bits (the padding's zeros) is one store, sign-extended.
            match i32::try_from(w) {
                Ok(small) => self.push(Insn::st_imm(DW, base, at, small)),
                Err(_) => {
                    self.ld64(R0, w);
                    self.push(Insn::stx(DW, base, at, R0));
                }
            }
        }
    }

    /// The probe's function name where it differs between firings: a system call's,
    /// from the names table the runtime fills.
    fn probe_name_into(&mut self, dst: Buf, size: u32) -> Result<(), EmitError> {
        // (A kprobe.multi program has its function's name only as an id: its functions
        // then get a program each, see `crate::programs`.)
        if self.multi || !self.context().probe_func_id(self) {
            return Err(self.err("internal: a probe name with no value here"));
        }
        self.syscall_id_into(dst, size, None)
    }

    /// The system call name whose interned id is in r0 (SYSCALL_STR_BASE + nr, or
    /// `unknown`'s, "Unknown syscall") into `dst`, from the names table the runtime fills.
    fn syscall_id_into(&mut self, dst: Buf, size: u32, unknown: Option<u64>) -> Result<(), EmitError> {
        let out = self.label();
        if let Some(unknown) = unknown {
            let named = self.label();
            self.ld64(R1, unknown as i64);
            self.jump(Insn::jmp_reg(Cond::Ne, R0, R1, 0), named);
            self.const_into("Unknown syscall", dst, size);
            self.goto(out);
            self.bind(named);
        }
        // r0 = SYSCALL_STR_BASE + nr: the table's key is nr.
        self.scoped(|e| {
            let key = e.slot(8)?;
            e.ld64(R1, SYSCALL_STR_BASE as i64);
            e.push(Insn::alu_reg(Alu::Sub, R0, R1));
            e.push(Insn::stx(W, R10, key, R0));
            e.zero_buf(dst, size);
            e.lookup(SYSCALL_NAMES_MAP, Buf::Stack(key));
            e.push(Insn::mov(R3, R0));
            e.buf_addr(R1, dst);
            e.push(Insn::mov_imm(R2, e.str_limit(size).min(SYSCALL_NAME_SIZE) as i32));
            // An unknown number (no entry) reads from address 0: the name stays "".
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })?;
        self.bind(out);
        Ok(())
    }

    /// String variable `v` (a `vsize`-byte buffer) at `dst` as `size` bytes; "" where the
    /// variable or element does not exist.
    fn var_into(&mut self, v: &StrVar, vsize: u32, dst: Buf, size: u32) -> Result<(), EmitError> {
        if size != vsize {
            self.zero_buf(dst, size);
        }
        self.scoped(|e| {
            match v {
                StrVar::Global(g) => e.ld_map(R3, GLOBALS_SYMBOL, e.p.global_offset(*g) as i32),
                StrVar::Clause(l) => {
                    let at = e.local(*l)?;
                    e.buf_addr(R3, at);
                }
                StrVar::Thread(t) => {
                    let key = e.tls_key(*t)?;
                    e.lookup(TLS_STR_MAP, key);
                    e.push(Insn::mov(R3, R0));
                }
                StrVar::Element { array, keys } => {
                    let key = e.element_key(*array, keys)?;
                    e.lookup(&array_map_name(*array), key);
                    e.push(Insn::mov(R3, R0));
                }
            }
            // A missing element is address 0: the read fails and leaves zeros.
            e.copy_from_r3(vsize, dst, size);
            Ok(())
        })
    }

    /// Copies the string at the address in r3 (an `ssize`-byte buffer) to `dst`, already
    /// zeroed where `size` differs, as `size` bytes: cut with the string-read helper if
    /// smaller, else copied whole.
    pub(super) fn copy_from_r3(&mut self, ssize: u32, dst: Buf, size: u32) {
        self.buf_addr(R1, dst);
        if size < ssize {
            self.push(Insn::mov_imm(R2, self.str_limit(size) as i32));
            self.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
        } else {
            self.push(Insn::mov_imm(R2, ssize as i32));
            self.push(Insn::call(helper::PROBE_READ_KERNEL));
        }
    }

    /// Stores string `s` in string variable `v`. A thread-local variable or an array
    /// element assigned "" is freed, as DTrace frees a dynamic variable assigned its zero.
    pub(super) fn set_str(&mut self, v: &StrVar, s: &StrExpr) -> Result<(), EmitError> {
        // A subroutine may read the variable it is assigned to after it began writing:
        // build its result aside.
        let aliases = s.any(&mut |n| matches!(n, Node::Str(StrExpr::Call { f, .. }) if *f != StrFn::Copy));
        match v {
            StrVar::Global(g) | StrVar::Clause(g) => {
                let (dst, size) = match v {
                    StrVar::Global(_) => (Buf::Global(self.p.global_offset(*g) as i32), self.p.globals[*g].repr.size() as u32),
                    _ => (self.local(*g)?, self.locals[*g].1.size() as u32),
                };
                if !aliases {
                    return self.str_into(s, dst, size);
                }
                self.scoped(|e| {
                    let tmp = e.str_temp(size)?;
                    e.str_into(s, tmp, size)?;
                    e.buf_copy(tmp, size, dst, size);
                    Ok(())
                })
            }
            StrVar::Thread(t) => self.scoped(|e| {
                let size = e.p.thread_locals[*t].repr.size() as u32;
                let tmp = e.str_temp(size)?;
                e.str_into(s, tmp, size)?;
                let key = e.tls_key(*t)?;
                e.store_dynamic_at(TLS_STR_MAP, key, tmp, B)
            }),
            StrVar::Element { array, keys } => self.scoped(|e| {
                let size = e.p.arrays[*array].value.size() as u32;
                let tmp = e.str_temp(size)?;
                e.str_into(s, tmp, size)?;
                let key = e.element_key(*array, keys)?;
                e.store_element(*array, key, tmp, B)
            }),
        }
    }

    /// Stores the value at `val` as an element of array `array`: deleting it when the value
    /// is zero (DTrace's arrays), or keeping a zero too (bpftrace's maps).
    pub(super) fn store_element(&mut self, array: usize, key: Buf, val: Buf, width: u8) -> Result<(), EmitError> {
        let map = array_map_name(array);
        if self.p.arrays[array].keeps_zero {
            let drop = if self.p.arrays[array].declared.is_some() { DropKind::DeclaredMap } else { DropKind::DynamicVariable };
            return self.store_at(&map, key, val, drop);
        }
        self.store_dynamic_at(&map, key, val, width)
    }

    /// Stores the value at `val` under the key at stack `key` in hash map `map`, or deletes
    /// the key when the value is zero: its first `width` bytes (a string's first byte, an
    /// integer's word), as DTrace frees a dynamic variable assigned its zero. A store the
    /// full map refuses is lost and counted as a dynamic variable drop.
    pub(super) fn store_dynamic_at(&mut self, map: &str, key: Buf, val: Buf, width: u8) -> Result<(), EmitError> {
        let delete = self.label();
        let done = self.label();
        let (base, off) = self.buf_base(R0, val);
        self.push(Insn::ldx(width, R0, base, off));
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), delete);
        self.store_at(map, key, val, DropKind::DynamicVariable)?;
        self.goto(done);
        self.bind(delete);
        self.ld_map(R1, map, 0);
        self.buf_addr(R2, key);
        self.push(Insn::call(helper::MAP_DELETE_ELEM));
        self.bind(done);
        Ok(())
    }

    /// r0 = `a op b` (1 or 0) for two strings compared by content, as C's strcmp orders them.
    pub(super) fn str_cmp(&mut self, op: BinOp, a: &StrExpr, b: &StrExpr) -> Result<(), EmitError> {
        let known = |e: &Self, s: &StrExpr| e.const_text(s);
        if let (Some(x), Some(y)) = (known(self, a), known(self, b)) {
            let v = match op {
                BinOp::Eq => x == y,
                BinOp::Ne => x != y,
                BinOp::Lt => x < y,
                BinOp::Le => x <= y,
                BinOp::Gt => x > y,
                _ => x >= y,
            };
            self.push(Insn::mov_imm(R0, v as i32));
            return Ok(());
        }
        match (a.repr(), b.repr()) {
            // Equal strings have equal ids.
            (Repr::StrId, Repr::StrId) if matches!(op, BinOp::Eq | BinOp::Ne) => {
                self.operands(|s| s.str_id(a), |s| s.str_id(b))?;
                let c = if op == BinOp::Eq { Cond::Eq } else { Cond::Ne };
                self.bool_of(c, Some(R1), 0);
                Ok(())
            }
            (Repr::Str(_), Repr::StrId) if known(self, b).is_some() => {
                let text = known(self, b).expect("checked");
                self.buf_cmp_const(op, a, &text)
            }
            (Repr::StrId, Repr::Str(_)) if known(self, a).is_some() => {
                let text = known(self, a).expect("checked");
                self.buf_cmp_const(mirror(op), b, &text)
            }
            (ra, rb) => {
                let strsize = str_buffer(self.p.options.strsize());
                let size_of = |r: Repr| if let Repr::Str(n) = r { n } else { strsize };
                let (sa, sb) = (size_of(ra), size_of(rb));
                self.scoped(|e| {
                    let x = e.readable(a, sa)?;
                    let y = e.readable(b, sb)?;
                    // Both end within the smaller buffer, so its words decide.
                    e.compare_bufs(op, x, y, sa.min(sb) / 8);
                    Ok(())
                })
            }
        }
    }

    /// The text of a string known when compiling: a literal, or a probe name that is the
    /// same for every firing.
    pub(super) fn const_text(&self, s: &StrExpr) -> Option<String> {
        match s {
            StrExpr::Const(id) => Some(self.p.strings.resolve(*id)),
            StrExpr::Probe(h) => self.probe_const(*h).map(str::to_string),
            _ => None,
        }
    }

    /// Where string `s` can be read as it is, without a copy: a global's or clause-local's
    /// own buffer.
    fn in_place(&self, s: &StrExpr) -> Result<Option<Buf>, EmitError> {
        Ok(match s {
            StrExpr::Var(StrVar::Global(g), _) => Some(Buf::Global(self.p.global_offset(*g) as i32)),
            StrExpr::Var(StrVar::Clause(l), _) => Some(self.local(*l)?),
            _ => None,
        })
    }

    /// String `s` in a `size`-byte buffer to read: in place, or written to a temporary one
    /// (free when the enclosing scope ends).
    pub(super) fn readable(&mut self, s: &StrExpr, size: u32) -> Result<Buf, EmitError> {
        if let Some(at) = self.in_place(s)? {
            return Ok(at);
        }
        let tmp = self.str_temp(size)?;
        self.str_into(s, tmp, size)?;
        Ok(tmp)
    }

    /// Compares a string (in a buffer of its own size) with a constant, word by word, up to
    /// the word that holds the constant's NUL: the buffer is NUL-padded, so equal words up
    /// to there mean equal strings.
    fn buf_cmp_const(&mut self, op: BinOp, s: &StrExpr, text: &str) -> Result<(), EmitError> {
        let size = s.repr().size() as u32;
        let empty = match op {
            BinOp::Eq | BinOp::Ge => text.is_empty(),
            BinOp::Ne | BinOp::Lt => !text.is_empty(),
            BinOp::Le => true,
            _ => false,
        };
        let mut text = text.as_bytes().to_vec();
        let mut op = op;
        if text.len() >= size as usize {
            // The buffer holds at most size-1 bytes: it never equals a longer string, and
            // comparing with the constant's first size-1 bytes decides the order, equal meaning
            // "shorter, so less".
            match op {
                BinOp::Eq | BinOp::Ne => {
                    self.push(Insn::mov_imm(R0, (op == BinOp::Ne) as i32));
                    return Ok(());
                }
                BinOp::Lt | BinOp::Le => op = BinOp::Le,
                _ => op = BinOp::Gt,
            }
            text.truncate(size as usize - 1);
        }
        let mut bytes = vec![0u8; size as usize];
        bytes[..text.len()].copy_from_slice(&text);
        let words: Vec<i64> = bytes.chunks(8).take(text.len() / 8 + 1).map(|c| i64::from_le_bytes(c.try_into().expect("8-byte words"))).collect();
        self.scoped(|e| {
            // A dynamic variable is compared where the lookup finds it; one that does not
            // exist is "", whose comparison is known.
            let (map, key) = match s {
                StrExpr::Var(StrVar::Thread(t), _) => (TLS_STR_MAP.to_string(), e.tls_key(*t)?),
                StrExpr::Var(StrVar::Element { array, keys }, _) => (array_map_name(*array), e.element_key(*array, keys)?),
                _ => {
                    let buf = e.readable(s, size)?;
                    e.compare_words(op, buf, &words);
                    return Ok(());
                }
            };
            let (found, out) = (e.label(), e.label());
            e.lookup(&map, key);
            e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), found);
            e.push(Insn::mov_imm(R0, empty as i32));
            e.goto(out);
            e.bind(found);
            let ptr = e.slot(8)?;
            e.push(Insn::stx(DW, R10, ptr, R0));
            e.compare_words(op, Buf::Ptr(ptr), &words);
            e.bind(out);
            Ok(())
        })
    }

    /// r0 = (the string at `buf` `op` the constant `words`) ? 1 : 0: 64-bit words,
    /// byte-swapped for ordering so that the comparison is lexicographic.
    fn compare_words(&mut self, op: BinOp, buf: Buf, words: &[i64]) {
        let (base, off) = self.buf_base(R3, buf);
        self.compare(op, words.len() as i16, |e, w| {
            e.push(Insn::ldx(DW, R1, base, off + 8 * w));
            e.ld64(R2, words[w as usize]);
        });
    }

    /// r0 = (the string at `x` `op` the string at `y`) ? 1 : 0, over their first `words`
    /// words.
    fn compare_bufs(&mut self, op: BinOp, x: Buf, y: Buf, words: u32) {
        let (xb, xo) = self.buf_base(R3, x);
        let (yb, yo) = self.buf_base(R4, y);
        self.compare(op, words as i16, |e, w| {
            e.push(Insn::ldx(DW, R1, xb, xo + 8 * w));
            e.push(Insn::ldx(DW, R2, yb, yo + 8 * w));
        });
    }

    /// r0 = (left `op` right) ? 1 : 0 for two strings given word by word: `load(w)` puts
    /// word `w` of the left into r1 and of the right into r2.
    fn compare(&mut self, op: BinOp, words: i16, mut load: impl FnMut(&mut Self, i16)) {
        let f = self.label();
        let t = self.label();
        let out = self.label();
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            let (on_eq, on_ne) = if op == BinOp::Eq { (t, f) } else { (f, t) };
            for w in 0..words {
                load(self, w);
                self.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), on_ne);
            }
            self.goto(on_eq);
        } else {
            let (lt, eq_true) = match op {
                BinOp::Lt => (true, false),
                BinOp::Le => (true, true),
                BinOp::Gt => (false, false),
                _ => (false, true),
            };
            for w in 0..words {
                let next = self.label();
                load(self, w);
                // Big endian: a string word then compares like the bytes it holds.
                self.push(Insn::to_be(R1, 64));
                self.push(Insn::to_be(R2, 64));
                self.jump(Insn::jmp_reg(Cond::Eq, R1, R2, 0), next);
                self.jump(Insn::jmp_reg(Cond::Lt, R1, R2, 0), if lt { t } else { f });
                self.goto(if lt { f } else { t });
                self.bind(next);
            }
            self.goto(if eq_true { t } else { f });
        }
        self.bind(t);
        self.push(Insn::mov_imm(R0, 1));
        self.goto(out);
        self.bind(f);
        self.push(Insn::mov_imm(R0, 0));
        self.bind(out);
    }
}
