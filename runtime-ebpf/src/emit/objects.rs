//! Struct and union variables. A struct variable is a buffer of its type's size, where a
//! string variable's would be: the globals area, this CPU's scratch space (`this->`), a
//! thread-local map's value or an array's element. Its value is copied whole from kernel
//! memory; its members are read from the buffer with the probe-read helper, as from kernel
//! memory, through the buffer's address laundered into a plain number (the verifier would
//! keep it a map pointer, which no arithmetic or record may hold).

use super::strings::Buf;
use super::*;
use crate::abi::TLS_OBJ_MAP;

impl Emitter<'_> {
    /// r0 = the pointer in r0 as a number (clobbers r1-r5).
    pub(super) fn launder(&mut self) -> Result<(), EmitError> {
        self.scoped(|e| {
            let (ptr, num) = (e.slot(8)?, e.slot(8)?);
            e.push(Insn::stx(DW, R10, ptr, R0));
            e.push(Insn::mov(R1, R10));
            e.push(Insn::alu_imm(Alu::Add, R1, num as i32));
            e.push(Insn::mov_imm(R2, 8));
            e.push(Insn::mov(R3, R10));
            e.push(Insn::alu_imm(Alu::Add, R3, ptr as i32));
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.push(Insn::ldx(DW, R0, R10, num));
            Ok(())
        })
    }

    /// r0 = the address of struct variable `v`'s buffer as a number; 0 where a thread-local
    /// one or an element does not exist (reading a member of it then faults, as in DTrace).
    pub(super) fn var_addr(&mut self, v: &StrVar) -> Result<(), EmitError> {
        let (map, key) = match v {
            StrVar::Global(g) => {
                self.ld_map(R0, GLOBALS_SYMBOL, self.p.global_offset(*g) as i32);
                return self.launder();
            }
            StrVar::Clause(l) => {
                let at = self.local(*l)?;
                self.buf_addr(R0, at);
                return self.launder();
            }
            StrVar::Thread(t) => (TLS_OBJ_MAP.to_string(), *t),
            StrVar::Element { array, .. } => (array_map_name(*array), *array),
        };
        self.scoped(|e| {
            let key = match v {
                StrVar::Element { keys, .. } => e.element_key(key, keys)?,
                _ => e.tls_key(key)?,
            };
            let missing = e.label();
            e.lookup(&map, key);
            e.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), missing);
            e.launder()?;
            e.bind(missing);
            Ok(())
        })
    }

    /// Stores `o` (an [`Expr::Object`]) in struct variable `v`: copied from its address, which
    /// faults if it cannot be read. A global or `this->` one is copied in place (zeroed by a
    /// copy that faults, as DTrace's); a thread-local one or an element is built aside and
    /// stored whole (a store the full map refuses is counted as a dynamic variable drop).
    pub(super) fn set_object(&mut self, v: &StrVar, o: &Expr) -> Result<(), EmitError> {
        // Whether bytes that cannot be read fault (a struct's) or are zeros (bpftrace's array,
        // as bpftrace reads one: a map's element never stored reads as zeros).
        let mut faults = true;
        let (addr, size) = match o {
            Expr::Object { addr, size } => (Some(addr), *size),
            Expr::Stored(Repr::Array(..), inner) => match inner.as_ref() {
                Expr::Object { addr, size } => {
                    faults = false;
                    (Some(addr), *size)
                }
                _ => return Err(self.err("internal: an array variable stores an object")),
            },
            // A user symbol's 16 bytes (address and process), computed into the buffer.
            Expr::USym(..) | Expr::Stored(Repr::USym(_), _) => (None, Repr::USym(USymKind::Func).size() as u32),
            // A buffer's count and bytes, read into the variable's place.
            Expr::Buf { .. } | Expr::StrBuf { .. } | Expr::Stored(Repr::Buf(_), _) => (None, o.repr().size() as u32),
            _ => return Err(self.err("internal: a struct variable stores an object")),
        };
        if size == 0 {
            return self.delete_var(v);
        }
        self.scoped(|e| {
            let src = e.slot(8)?;
            if let Some(addr) = addr {
                e.expr(addr)?;
                e.push(Insn::stx(DW, R10, src, R0));
            }
            let dst = match v {
                StrVar::Global(g) => Buf::Global(e.p.global_offset(*g) as i32),
                StrVar::Clause(l) => e.local(*l)?,
                _ => {
                    let words = size.next_multiple_of(8);
                    let tmp = Buf::Scratch(e.scratch(words as usize)?);
                    // The padding after the struct, so that stored elements hold no stale bytes.
                    if words != size {
                        let (base, off) = e.buf_base(R1, tmp);
                        e.push(Insn::st_imm(DW, base, off + words as i16 - 8, 0));
                    }
                    tmp
                }
            };
            if addr.is_some() {
                e.push(Insn::ldx(DW, R3, R10, src));
                e.keep_fault_value(R3)?;
                e.buf_addr(R1, dst);
                e.push(Insn::mov_imm(R2, size as i32));
                e.push(Insn::call(helper::PROBE_READ_KERNEL));
                if faults {
                    e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)?;
                }
            } else {
                e.store_value(o, o.repr(), dst)?;
            }
            let (map, key) = match v {
                StrVar::Global(_) | StrVar::Clause(_) => return Ok(()),
                StrVar::Thread(t) => (TLS_OBJ_MAP.to_string(), e.tls_key(*t)?),
                StrVar::Element { array, keys } => (array_map_name(*array), e.element_key(*array, keys)?),
            };
            e.store_at(&map, key, dst, DropKind::DynamicVariable)
        })
    }

    /// Stores `value` into the member `offset` bytes into struct variable `v`, as `field`
    /// says: an integer at its width, a bitfield's bits into its word, or a struct copied
    /// from the address of an [`Expr::Object`] (faulting if it cannot be read).
    pub(super) fn set_member(&mut self, v: &StrVar, offset: u32, field: Field, value: &Expr) -> Result<(), EmitError> {
        let value = match (field, value) {
            (Field::Object(_), Expr::Object { addr, .. }) => addr.as_ref(),
            (Field::Object(_), _) => return Err(self.err("internal: a struct member stores an object")),
            (_, v) => v,
        };
        let off = offset as i16;
        self.scoped(|e| {
            let (val, ptr) = (e.slot(8)?, e.slot(8)?);
            e.expr(value)?;
            e.push(Insn::stx(DW, R10, val, R0));
            let done = e.label();
            match v {
                StrVar::Global(g) => e.ld_map(R0, GLOBALS_SYMBOL, e.p.global_offset(*g) as i32),
                StrVar::Clause(l) => {
                    let at = e.local(*l)?;
                    e.buf_addr(R0, at);
                }
                _ => e.dynamic_object(v, done)?,
            }
            e.push(Insn::stx(DW, R10, ptr, R0));
            match field {
                Field::Int(size) => {
                    e.push(Insn::ldx(DW, R1, R10, val));
                    e.push(Insn::stx(size_code(size), R0, off, R1));
                }
                Field::Bits { size, shift, width } => {
                    let ones = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
                    e.push(Insn::ldx(size_code(size), R1, R0, off));
                    e.ld64(R2, !(ones << shift) as i64);
                    e.push(Insn::alu_reg(Alu::And, R1, R2));
                    e.push(Insn::ldx(DW, R3, R10, val));
                    e.ld64(R2, ones as i64);
                    e.push(Insn::alu_reg(Alu::And, R3, R2));
                    if shift > 0 {
                        e.push(Insn::alu_imm(Alu::Lsh, R3, shift as i32));
                    }
                    e.push(Insn::alu_reg(Alu::Or, R1, R3));
                    e.push(Insn::stx(size_code(size), R0, off, R1));
                }
                Field::Object(size) => {
                    e.push(Insn::ldx(DW, R3, R10, val));
                    e.keep_fault_value(R3)?;
                    e.push(Insn::ldx(DW, R1, R10, ptr));
                    e.push(Insn::alu_imm(Alu::Add, R1, offset as i32));
                    e.push(Insn::mov_imm(R2, size as i32));
                    e.push(Insn::call(helper::PROBE_READ_KERNEL));
                    e.fault_unless(Cond::Eq, R0, 0, Fault::BadAddr, FaultValue::Kept)?;
                }
            }
            e.bind(done);
            Ok(())
        })
    }

    /// r0 = the buffer of thread-local or element struct `v`, created zeroed if it does not
    /// exist; where the full map refuses it, a dynamic variable drop is counted and the code
    /// goes on at `skip`.
    fn dynamic_object(&mut self, v: &StrVar, skip: Label) -> Result<(), EmitError> {
        let (map, key, size) = match v {
            StrVar::Thread(t) => {
                let size = self.p.thread_locals.iter().filter(|v| v.is_object()).map(|v| v.repr.size()).max().unwrap_or(8);
                (TLS_OBJ_MAP.to_string(), self.tls_key(*t)?, size)
            }
            StrVar::Element { array, keys } => (array_map_name(*array), self.element_key(*array, keys)?, self.p.arrays[*array].value.size()),
            _ => return Err(self.err("internal: only a dynamic struct variable is looked up")),
        };
        let found = self.label();
        self.lookup(&map, key);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), found);
        let zero = Buf::Scratch(self.scratch(size)?);
        self.zero_buf(zero, size as u32);
        self.ld_map(R1, &map, 0);
        self.buf_addr(R2, key);
        self.buf_addr(R3, zero);
        self.push(Insn::mov_imm(R4, 1)); // BPF_NOEXIST
        self.push(Insn::call(helper::MAP_UPDATE_ELEM));
        self.lookup(&map, key);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), found);
        self.count_drop(DropKind::DynamicVariable)?;
        self.goto(skip);
        self.bind(found);
        Ok(())
    }

    /// `self->s = 0` or `a[k] = 0` of a struct, and bpftrace's `delete(@m[k])`: deletes the
    /// variable or element.
    pub(super) fn delete_var(&mut self, v: &StrVar) -> Result<(), EmitError> {
        self.scoped(|e| {
            let (map, key) = match v {
                StrVar::Thread(t) => (TLS_OBJ_MAP.to_string(), e.tls_key(*t)?),
                StrVar::Element { array, keys } => (array_map_name(*array), e.element_key(*array, keys)?),
                _ => return Err(e.err("internal: only a dynamic struct variable is deleted")),
            };
            e.ld_map(R1, &map, 0);
            e.buf_addr(R2, key);
            e.push(Insn::call(helper::MAP_DELETE_ELEM));
            Ok(())
        })
    }

    /// Stores the value at `val` under the key at `key` in hash map `map`; a store the full
    /// map refuses is lost and counted as a `drop` (a dynamic variable's, or a declared
    /// map's).
    pub(super) fn store_at(&mut self, map: &str, key: Buf, val: Buf, drop: DropKind) -> Result<(), EmitError> {
        let done = self.label();
        self.ld_map(R1, map, 0);
        self.buf_addr(R2, key);
        self.buf_addr(R3, val);
        self.push(Insn::mov_imm(R4, 0)); // BPF_ANY
        self.push(Insn::call(helper::MAP_UPDATE_ELEM));
        self.jump(Insn::jmp_imm(Cond::Sge, R0, 0, 0), done);
        self.count_drop(drop)?;
        self.bind(done);
        Ok(())
    }
}

/// The load/store size code of an integer of `size` bytes.
fn size_code(size: u8) -> u8 {
    match size {
        1 => B,
        2 => H,
        4 => W,
        _ => DW,
    }
}
