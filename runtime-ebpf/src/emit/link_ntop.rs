//! link_ntop(type, addr) and bpftrace's macaddr(addr): a link-layer address in kernel memory as text, as DTrace writes
//! it: each byte as two lower-case hex digits, joined by colons. The hardware type says how
//! many bytes: ARPHRD_ETHER 6, ARPHRD_INFINIBAND 20; another type is an illegal operation,
//! and an address that cannot be read an invalid address, as in DTrace.

use super::strings::Buf;
use super::*;

const ARPHRD_ETHER: i32 = 1;
const ARPHRD_INFINIBAND: i32 = 32;
const ETHER_LEN: usize = 6;
const INFINIBAND_LEN: usize = 20;

/// The text's buffer: the longest, an InfiniBand address, is 59 bytes and its NUL.
const TEXT: u32 = 64;

impl Emitter<'_> {
    /// link_ntop(type, addr) at `out`.
    pub(super) fn link_ntop(&mut self, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let (Some(StrArg::Int(ty)), Some(StrArg::Int(addr))) = (args.first(), args.get(1)) else {
            return Err(self.err("internal: link_ntop() without two integers"));
        };
        self.scoped(|e| {
            let (ty_at, addr_at) = (e.slot(8)?, e.slot(8)?);
            let bytes = Buf::Scratch(e.scratch(INFINIBAND_LEN.next_multiple_of(8))?);
            let text = Buf::Scratch(e.scratch(TEXT as usize)?);
            e.expr(ty)?;
            e.push(Insn::stx(DW, R10, ty_at, R0));
            e.expr(addr)?;
            e.push(Insn::stx(DW, R10, addr_at, R0));
            e.zero_buf(out, own);
            e.zero_buf(text, TEXT);
            let (infiniband, copy) = (e.label(), e.label());
            e.push(Insn::ldx(DW, R1, R10, ty_at));
            e.jump(Insn::jmp_imm(Cond::Eq, R1, ARPHRD_INFINIBAND, 0), infiniband);
            e.fault_unless(Cond::Eq, R1, ARPHRD_ETHER, Fault::IllOp, FaultValue::Zero)?;
            e.hex_bytes(bytes, text, addr_at, ETHER_LEN)?;
            e.goto(copy);
            e.bind(infiniband);
            e.hex_bytes(bytes, text, addr_at, INFINIBAND_LEN)?;
            e.bind(copy);
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, e.str_limit(own).min(TEXT) as i32));
            e.buf_addr(R3, text);
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })
    }

    /// Reads `n` bytes from the address in stack slot `addr` into `bytes` (faulting if it
    /// cannot) and writes them to `text` as `xx:xx:...`, unrolled.
    fn hex_bytes(&mut self, bytes: Buf, text: Buf, addr: i16, n: usize) -> Result<(), EmitError> {
        self.buf_addr(R1, bytes);
        self.push(Insn::mov_imm(R2, n as i32));
        self.push(Insn::ldx(DW, R3, R10, addr));
        self.push(Insn::call(helper::PROBE_READ_KERNEL));
        self.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Slot(addr))?;
        self.hex_text(bytes, text, n, b'a');
        Ok(())
    }

    /// bpftrace's macaddr(addr) at `out`: the 6 bytes at the kernel address as
    /// `XX:XX:XX:XX:XX:XX`, upper-case, as bpftrace prints them; bytes that cannot be read
    /// are 0 (bpftrace's probe read leaves them so).
    pub(super) fn macaddr(&mut self, args: &[StrArg], out: Buf, own: u32) -> Result<(), EmitError> {
        let Some(StrArg::Int(addr)) = args.first() else {
            return Err(self.err("internal: macaddr() without an address"));
        };
        self.scoped(|e| {
            let bytes = Buf::Scratch(e.scratch(ETHER_LEN.next_multiple_of(8))?);
            let text = Buf::Scratch(e.scratch(TEXT as usize)?);
            let addr_at = e.slot(8)?;
            e.expr(addr)?;
            e.push(Insn::stx(DW, R10, addr_at, R0));
            e.zero_buf(out, own);
            e.zero_buf(text, TEXT);
            e.zero_buf(bytes, ETHER_LEN.next_multiple_of(8) as u32);
            e.buf_addr(R1, bytes);
            e.push(Insn::mov_imm(R2, ETHER_LEN as i32));
            e.push(Insn::ldx(DW, R3, R10, addr_at));
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.hex_text(bytes, text, ETHER_LEN, b'A');
            e.buf_addr(R1, out);
            e.push(Insn::mov_imm(R2, e.str_limit(own).min(TEXT) as i32));
            e.buf_addr(R3, text);
            e.push(Insn::call(helper::PROBE_READ_KERNEL_STR));
            Ok(())
        })
    }

    /// Writes `n` bytes of `bytes` to `text` as `xx:xx:...` (hex letters from `a`: `a` or
    /// `A`), unrolled.
    fn hex_text(&mut self, bytes: Buf, text: Buf, n: usize, a: u8) {
        self.buf_addr(R1, bytes);
        self.buf_addr(R2, text);
        for i in 0..n as i16 {
            for (shift, at) in [(4, 3 * i), (0, 3 * i + 1)] {
                self.push(Insn::ldx(B, R3, R1, i));
                if shift > 0 {
                    self.push(Insn::alu_imm(Alu::Rsh, R3, shift));
                }
                self.push(Insn::alu_imm(Alu::And, R3, 0xf));
                self.push(Insn::alu_imm(Alu::Add, R3, b'0' as i32));
                // Past '9': on to 'a'.
                self.push(Insn::jmp_imm(Cond::Le, R3, b'9' as i32, 1));
                self.push(Insn::alu_imm(Alu::Add, R3, (a - b'9' - 1) as i32));
                self.push(Insn::stx(B, R2, at, R3));
            }
            if (i as usize) < n - 1 {
                self.push(Insn::st_imm(B, R2, 3 * i + 2, b':' as i32));
            }
        }
    }
}
