//! inet_ntoa(), inet_ntoa6(), inet_ntop(): a network address in kernel memory as text, in
//! DTrace's forms: IPv4 dotted; IPv6 as eight hex words without leading zeros, the longest
//! run of two or more zero words (the first of equally long ones) written `::`, and an
//! IPv4-mapped (::ffff:a.b.c.d) or -compatible (::a.b.c.d, but not :: or ::1) address as
//! dotted IPv4, with its prefix only when strict (inet_ntop()'s form). An address that
//! cannot be read faults (invalid address), as does inet_ntop() of another family (illegal
//! operation), as in DTrace.

use super::strings::Buf;
use super::*;

const AF_INET: i32 = 2;
const AF_INET6: i32 = 10;

/// The text is built in a 64-byte buffer (the longest form is 39 bytes), written at a
/// place kept in a stack slot and masked to the buffer, so the verifier needs no checks.
const TEXT: u32 = 64;

/// How an IPv6 address's IPv4 forms are written.
#[derive(Clone, Copy)]
enum V6Form {
    /// DTrace's inet_ntoa6(): mapped and compatible (but not :: or ::1) addresses dotted,
    /// with their prefix if strict.
    Dtrace { strict: bool },
    /// glibc's inet_ntop(3) (bpftrace's ntop()): ::ffff:a.b.c.d, and ::a.b.c.d where only
    /// the last two words are not zero and the first of them is not.
    Glibc,
}

/// Where an address is being formatted.
#[derive(Clone, Copy)]
struct Text {
    /// The address's bytes (16, as read).
    bytes: Buf,
    /// The text so far.
    text: Buf,
    /// The next place in `text`.
    pos: i16,
    /// A value being written.
    val: i16,
}

impl Emitter<'_> {
    /// inet_ntoa(addr), inet_ntoa6(addr[, strict]), inet_ntop(af, addr) at `out`.
    pub(super) fn inet(&mut self, f: StrFn, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let int = |e: &Self, i: usize| match args.get(i) {
            Some(StrArg::Int(x)) => Ok(x),
            _ => Err(e.err(format!("internal: argument {i} of {f:?} is not an integer"))),
        };
        self.scoped(|e| {
            let (af, addr) = (e.slot(8)?, e.slot(8)?);
            let t = Text { bytes: Buf::Scratch(e.scratch(16)?), text: Buf::Scratch(e.scratch(TEXT as usize)?), pos: e.slot(8)?, val: e.slot(8)? };
            if f == StrFn::InetNtop {
                e.expr(int(e, 0)?)?;
                e.push(Insn::stx(DW, R10, af, R0));
            }
            e.expr(int(e, if f == StrFn::InetNtop { 1 } else { 0 })?)?;
            e.push(Insn::stx(DW, R10, addr, R0));
            e.zero_buf(out, own);
            e.zero_buf(t.text, TEXT);
            e.zero_buf(t.bytes, 16);
            e.push(Insn::st_imm(DW, R10, t.pos, 0));
            // An address that cannot be read is a fault, as in DTrace.
            let read = |e: &mut Self, n: i32| -> Result<(), EmitError> {
                e.buf_addr(R1, t.bytes);
                e.push(Insn::mov_imm(R2, n));
                e.push(Insn::ldx(DW, R3, R10, addr));
                e.push(Insn::call(helper::PROBE_READ_KERNEL));
                e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Slot(addr))
            };
            match f {
                StrFn::InetNtoa => {
                    read(e, 4)?;
                    e.put_ipv4(t, 0);
                }
                StrFn::InetNtoa6 => {
                    let strict = matches!(args.get(1), Some(StrArg::Int(Expr::Int(s))) if *s != 0);
                    read(e, 16)?;
                    e.put_ipv6(t, V6Form::Dtrace { strict })?;
                }
                _ => {
                    let v6 = e.label();
                    e.push(Insn::ldx(DW, R1, R10, af));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, AF_INET6, 0), v6);
                    // Another family is an illegal operation, as in DTrace.
                    e.fault_unless(Cond::Eq, R1, AF_INET, Fault::IllOp, FaultValue::Zero)?;
                    read(e, 4)?;
                    e.put_ipv4(t, 0);
                    let copy = e.label();
                    e.goto(copy);
                    e.bind(v6);
                    read(e, 16)?;
                    e.put_ipv6(t, V6Form::Dtrace { strict: true })?;
                    e.bind(copy);
                }
            }
            e.text_into(t, out, own);
            Ok(())
        })
    }

    /// bpftrace's ntop(af, addr) at `out` ([`StrFn::Ntop`]): the address's bytes (16,
    /// zeroed first) from the integer or from memory, then AF_INET's or AF_INET6's text
    /// (an af known when compiling writes only its own), else "".
    pub(super) fn ntop(&mut self, from: NtopFrom, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let (Some(StrArg::Int(af)), Some(addr)) = (args.first(), args.get(1)) else {
            return Err(self.err("internal: ntop() without two arguments"));
        };
        self.scoped(|e| {
            let (af_at, addr_at) = (e.slot(8)?, e.slot(8)?);
            let t = Text { bytes: Buf::Scratch(e.scratch(16)?), text: Buf::Scratch(e.scratch(TEXT as usize)?), pos: e.slot(8)?, val: e.slot(8)? };
            if !matches!(af, Expr::Int(_)) {
                e.expr(af)?;
                e.push(Insn::stx(DW, R10, af_at, R0));
            }
            if let StrArg::Int(addr) = addr {
                e.expr(addr)?;
                e.push(Insn::stx(DW, R10, addr_at, R0));
            }
            e.zero_buf(out, own);
            e.zero_buf(t.text, TEXT);
            e.zero_buf(t.bytes, 16);
            e.push(Insn::st_imm(DW, R10, t.pos, 0));
            match from {
                NtopFrom::Int => {
                    e.push(Insn::ldx(DW, R0, R10, addr_at));
                    let (base, off) = e.buf_base(R1, t.bytes);
                    e.push(Insn::stx(W, base, off, R0));
                }
                // bpftrace reads the bytes with a probe read that leaves zeros on failure.
                NtopFrom::Memory(n) => {
                    e.buf_addr(R1, t.bytes);
                    e.push(Insn::mov_imm(R2, n.min(16) as i32));
                    e.push(Insn::ldx(DW, R3, R10, addr_at));
                    e.push(Insn::call(helper::PROBE_READ_KERNEL));
                }
                // The string's first bytes, copied a word at a time (its buffer is at least
                // as large, 8-byte aligned).
                NtopFrom::Str(n) => {
                    let StrArg::Str(s) = addr else { return Err(e.err("internal: ntop() of a string without one")) };
                    let size = match s.repr() {
                        Repr::Str(size) => size,
                        _ => crumbs_lang::ir::str_buffer(e.p.options.strsize()),
                    };
                    let src = e.readable(s, size)?;
                    for word in 0..i16::from(n.min(16)) / 4 {
                        e.buf_addr(R1, src);
                        e.push(Insn::ldx(W, R0, R1, 4 * word));
                        e.buf_addr(R1, t.bytes);
                        e.push(Insn::stx(W, R1, 4 * word, R0));
                    }
                }
            }
            match af {
                Expr::Int(k) if *k == AF_INET as i64 => e.put_ipv4(t, 0),
                Expr::Int(k) if *k == AF_INET6 as i64 => e.put_ipv6(t, V6Form::Glibc)?,
                Expr::Int(_) => {}
                _ => {
                    let (v6, copy) = (e.label(), e.label());
                    e.push(Insn::ldx(DW, R1, R10, af_at));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, AF_INET6, 0), v6);
                    e.jump(Insn::jmp_imm(Cond::Ne, R1, AF_INET, 0), copy);
                    e.put_ipv4(t, 0);
                    e.goto(copy);
                    e.bind(v6);
                    e.put_ipv6(t, V6Form::Glibc)?;
                    e.bind(copy);
                }
            }
            e.text_into(t, out, own);
            Ok(())
        })
    }

    /// The text written into `out` (`own` bytes), cut at its string size.
    fn text_into(&mut self, t: Text, out: Buf, own: u32) {
        self.buf_addr(R1, out);
        self.push(Insn::mov_imm(R2, self.str_limit(own).min(TEXT) as i32));
        self.buf_addr(R3, t.text);
        self.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
    }

    /// Appends the byte in r3 to the text (clobbers r1, r2).
    fn put(&mut self, t: Text) {
        self.push(Insn::ldx(DW, R1, R10, t.pos));
        self.push(Insn::alu_imm(Alu::And, R1, TEXT as i32 - 1));
        self.buf_addr(R2, t.text);
        self.push(Insn::alu_reg(Alu::Add, R2, R1));
        self.push(Insn::stx(B, R2, 0, R3));
        self.push(Insn::alu_imm(Alu::Add, R1, 1));
        self.push(Insn::stx(DW, R10, t.pos, R1));
    }

    fn put_char(&mut self, t: Text, c: u8) {
        self.push(Insn::mov_imm(R3, c as i32));
        self.put(t);
    }

    /// Appends the value in `t.val` (0 to 255) in decimal.
    fn put_decimal(&mut self, t: Text) {
        let (tens, ones) = (self.label(), self.label());
        self.push(Insn::ldx(DW, R4, R10, t.val));
        self.jump(Insn::jmp_imm(Cond::Lt, R4, 100, 0), tens);
        self.push(Insn::mov(R3, R4));
        self.push(Insn::alu_imm(Alu::Div, R3, 100));
        self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
        self.put(t);
        self.push(Insn::ldx(DW, R4, R10, t.val));
        self.push(Insn::alu_imm(Alu::Mod, R4, 100));
        self.push(Insn::mov(R3, R4));
        self.push(Insn::alu_imm(Alu::Div, R3, 10));
        self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
        self.put(t);
        self.goto(ones);
        self.bind(tens);
        self.jump(Insn::jmp_imm(Cond::Lt, R4, 10, 0), ones);
        self.push(Insn::mov(R3, R4));
        self.push(Insn::alu_imm(Alu::Div, R3, 10));
        self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
        self.put(t);
        self.bind(ones);
        self.push(Insn::ldx(DW, R3, R10, t.val));
        self.push(Insn::alu_imm(Alu::Mod, R3, 10));
        self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
        self.put(t);
    }

    /// Appends the value in `t.val` (0 to 0xffff) in hex, without leading zeros.
    fn put_hex(&mut self, t: Text) {
        let digits: Vec<Label> = (0..4).map(|_| self.label()).collect();
        self.push(Insn::ldx(DW, R4, R10, t.val));
        for (d, at) in [(3, 0x1000), (2, 0x100), (1, 0x10)] {
            self.jump(Insn::jmp_imm(Cond::Ge, R4, at, 0), digits[d]);
        }
        self.goto(digits[0]);
        for d in (0..4).rev() {
            self.bind(digits[d]);
            let letter = self.label();
            let put = self.label();
            self.push(Insn::ldx(DW, R3, R10, t.val));
            self.push(Insn::alu_imm(Alu::Rsh, R3, 4 * d as i32));
            self.push(Insn::alu_imm(Alu::And, R3, 0xf));
            self.jump(Insn::jmp_imm(Cond::Ge, R3, 10, 0), letter);
            self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
            self.goto(put);
            self.bind(letter);
            self.push(Insn::alu_imm(Alu::Add, R3, b'a' as i32 - 10));
            self.bind(put);
            self.put(t);
        }
    }

    /// Appends bytes `at`..`at + 4` of the address, dotted.
    fn put_ipv4(&mut self, t: Text, at: i16) {
        for k in 0..4 {
            let (base, off) = self.buf_base(R1, t.bytes);
            self.push(Insn::ldx(B, R0, base, off + at + k));
            self.push(Insn::stx(DW, R10, t.val, R0));
            self.put_decimal(t);
            if k < 3 {
                self.put_char(t, b'.');
            }
        }
    }

    /// r0 = 16-bit word `i` of the address (network order read as a number).
    fn word(&mut self, t: Text, i: i16) {
        let (base, off) = self.buf_base(R1, t.bytes);
        self.push(Insn::ldx(H, R0, base, off + 2 * i));
        self.push(Insn::to_be(R0, 16));
    }

    /// Appends the 16-byte address as IPv6 text (see the module's comment).
    fn put_ipv6(&mut self, t: Text, form: V6Form) -> Result<(), EmitError> {
        let (v6, mapped, compat, done) = (self.label(), self.label(), self.label(), self.label());
        for i in 0..5 {
            self.word(t, i);
            self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), v6);
        }
        self.word(t, 5);
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0xffff, 0), mapped);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), v6);
        self.word(t, 6);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), compat);
        let strict = match form {
            V6Form::Dtrace { strict } => {
                // :: and ::1 are IPv6's own.
                self.word(t, 7);
                self.jump(Insn::jmp_imm(Cond::Le, R0, 1, 0), v6);
                strict
            }
            // glibc's: six zero words and a seventh that is not (a longer zero run is
            // written `::`).
            V6Form::Glibc => {
                self.goto(v6);
                true
            }
        };
        self.bind(compat);
        if strict {
            self.put_char(t, b':');
            self.put_char(t, b':');
        }
        self.put_ipv4(t, 12);
        self.goto(done);
        self.bind(mapped);
        if strict {
            for c in *b"::ffff:" {
                self.put_char(t, c);
            }
        }
        self.put_ipv4(t, 12);
        self.goto(done);
        self.bind(v6);
        self.put_words(t)?;
        self.bind(done);
        Ok(())
    }

    /// Appends the eight words in hex with the longest run of two or more zero words as
    /// `::`. The run is found from a bitmap z of the zero words (bit i for word i): the
    /// bits set in z & z>>1 & ... & z>>(k-1) are where runs of k start.
    fn put_words(&mut self, t: Text) -> Result<(), EmitError> {
        self.scoped(|e| {
            let (start, len, starts) = (e.slot(8)?, e.slot(8)?, e.slot(8)?);
            e.push(Insn::mov_imm(R5, 0));
            for i in 0..8 {
                let nonzero = e.label();
                e.word(t, i);
                e.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), nonzero);
                e.push(Insn::alu_imm(Alu::Or, R5, 1 << i));
                e.bind(nonzero);
            }
            // The longest run's length (0: none) and the bits where such runs start.
            let measured = e.label();
            e.push(Insn::st_imm(DW, R10, len, 0));
            e.push(Insn::st_imm(DW, R10, starts, 0));
            e.push(Insn::mov(R4, R5));
            for k in 2..=8 {
                e.push(Insn::mov(R3, R5));
                e.push(Insn::alu_imm(Alu::Rsh, R3, k - 1));
                e.push(Insn::alu_reg(Alu::And, R4, R3));
                e.jump(Insn::jmp_imm(Cond::Eq, R4, 0, 0), measured);
                e.push(Insn::st_imm(DW, R10, len, k));
                e.push(Insn::stx(DW, R10, starts, R4));
            }
            e.bind(measured);
            // The first such run: the lowest bit.
            let (have, firsts) = (e.label(), (0..8).map(|_| e.label()).collect::<Vec<_>>());
            e.push(Insn::st_imm(DW, R10, start, 8));
            e.push(Insn::ldx(DW, R4, R10, starts));
            for (i, l) in firsts.iter().enumerate() {
                e.jump(Insn::jmp_imm(Cond::Set, R4, 1 << i, 0), *l);
            }
            e.goto(have);
            for (i, l) in firsts.iter().enumerate() {
                e.bind(*l);
                e.push(Insn::st_imm(DW, R10, start, i as i32));
                e.goto(have);
            }
            e.bind(have);
            for i in 0..8i32 {
                let (normal, colon, word, next) = (e.label(), e.label(), e.label(), e.label());
                e.push(Insn::ldx(DW, R1, R10, len));
                e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), normal);
                e.push(Insn::ldx(DW, R2, R10, start));
                e.jump(Insn::jmp_imm(Cond::Sgt, R2, i, 0), normal);
                e.push(Insn::alu_reg(Alu::Add, R1, R2));
                e.jump(Insn::jmp_imm(Cond::Sle, R1, i, 0), normal);
                // In the run: its first word writes the `::`.
                e.jump(Insn::jmp_imm(Cond::Ne, R2, i, 0), next);
                e.put_char(t, b':');
                e.put_char(t, b':');
                e.goto(next);
                e.bind(normal);
                if i > 0 {
                    // A separator, except right after the `::`.
                    e.push(Insn::ldx(DW, R1, R10, len));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, 0, 0), colon);
                    e.push(Insn::ldx(DW, R2, R10, start));
                    e.push(Insn::alu_reg(Alu::Add, R1, R2));
                    e.jump(Insn::jmp_imm(Cond::Eq, R1, i, 0), word);
                    e.bind(colon);
                    e.put_char(t, b':');
                }
                e.bind(word);
                e.word(t, i as i16);
                e.push(Insn::stx(DW, R10, t.val, R0));
                e.put_hex(t);
                e.bind(next);
            }
            Ok(())
        })
    }
}
