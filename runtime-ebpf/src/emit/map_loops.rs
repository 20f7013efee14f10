//! bpftrace's `for ($kv : @m) { body }`: bpf_for_each_map_elem calls the body, written as a
//! function of the program's own, once per element of the map. The verifier checks that
//! function once, however many elements the map has (a loop in the program would be walked
//! element by element).
//!
//! The body's code is the same as anywhere in the clause: it finds the clause's variables
//! and the scratch pointers at their offsets from r10, and the probe's context in r6. The
//! function has a frame of its own, so it starts by copying those words from the caller's
//! frame (the helper hands it the caller's frame as its context) into the same offsets of
//! its own, and copies the variables back whenever it returns. Its own slots lie below the
//! caller's, so nothing it takes overlaps them. `break` stops the walk, `continue` goes on
//! to the next element; `return` and a fault stop it and tell the caller, through a status
//! word in the caller's frame, to go on to the clause's end or its fault block (the fault
//! already written to the caller's fault slot).

use super::*;

/// The status word: the walk ended without a `return` or a fault.
const WALKED: i32 = 0;
/// The body ran `return`.
const RETURNED: i32 = 1;
/// The body faulted (the fault is in the caller's fault slot).
const FAULTED: i32 = 2;

/// Where the callback finds its caller's frame: the caller's slots at offset `o` from its
/// r10 are at `ctx + o + depth`.
#[derive(Clone, Copy)]
struct CallerFrame {
    depth: i32,
    /// The callback's slot holding ctx (the pointer into the caller's frame).
    ctx: i16,
}

impl CallerFrame {
    fn at(self, offset: i16) -> i16 {
        (offset as i32 + self.depth) as i16
    }
}

impl Emitter<'_> {
    pub(super) fn for_map(&mut self, array: usize, keys: &[usize], value: usize, body: &[Stmt]) -> Result<(), EmitError> {
        self.scoped(|e| {
            // The registers the body's code relies on (the context, and r7's syscall number
            // or attach cookie), and the status word.
            let regs = e.slot(16)?;
            let status = e.slot(8)?;
            e.push(Insn::stx(DW, R10, regs, R6));
            if e.r7_holds_a_value() {
                e.push(Insn::stx(DW, R10, regs + 8, R7));
            }
            e.push(Insn::st_imm(DW, R10, status, WALKED));
            let depth = e.frame.depth();
            let f = e.loop_body(array, keys, value, body, regs, status, depth)?;
            e.ld_map(R1, &array_map_name(array), 0);
            e.ld_func(R2, Func::Own(f));
            e.push(Insn::mov(R3, R10));
            e.push(Insn::alu_imm(Alu::Add, R3, -depth));
            e.push(Insn::mov_imm(R4, 0));
            e.push(Insn::call(helper::FOR_EACH_MAP_ELEM));
            e.push(Insn::ldx(DW, R0, R10, status));
            if let Some(to) = e.return_to {
                e.jump(Insn::jmp_imm(Cond::Eq, R0, RETURNED, 0), to);
            }
            if let Some(t) = e.fault {
                e.jump(Insn::jmp_imm(Cond::Eq, R0, FAULTED, 0), t.label);
            }
            Ok(())
        })
    }

    /// Writes the loop's body as a function of the program's own; returns its index.
    #[allow(clippy::too_many_arguments)]
    fn loop_body(&mut self, array: usize, keys: &[usize], value: usize, body: &[Stmt], regs: i16, status: i16, depth: i32) -> Result<usize, EmitError> {
        // The caller's code, set aside while the function's is written.
        let insns = std::mem::take(&mut self.insns);
        let fixups = std::mem::take(&mut self.fixups);
        let map_refs = std::mem::take(&mut self.map_refs);
        let func_refs = std::mem::take(&mut self.func_refs);
        let loops = std::mem::take(&mut self.loops);
        let (return_to, fault) = (self.return_to, self.fault);
        let r = self.scoped(|e| e.loop_function(array, keys, value, body, regs, status, depth)).and_then(|()| self.resolve());
        let sub = Subprogram { insns: std::mem::replace(&mut self.insns, insns), map_refs: std::mem::replace(&mut self.map_refs, map_refs), func_refs: std::mem::replace(&mut self.func_refs, func_refs) };
        self.fixups = fixups;
        self.loops = loops;
        self.return_to = return_to;
        self.fault = fault;
        r?;
        self.subprograms.push(sub);
        Ok(self.subprograms.len() - 1)
    }

    /// The function: `long f(map, key, value, ctx)`, 0 to go on to the next element, 1 to
    /// stop.
    #[allow(clippy::too_many_arguments)]
    fn loop_function(&mut self, array: usize, keys: &[usize], value: usize, body: &[Stmt], regs: i16, status: i16, depth: i32) -> Result<(), EmitError> {
        let caller = CallerFrame { depth, ctx: self.slot(8)? };
        let (key, val) = (self.slot(8)?, self.slot(8)?);
        self.push(Insn::stx(DW, R10, caller.ctx, R4));
        self.push(Insn::stx(DW, R10, key, R2));
        self.push(Insn::stx(DW, R10, val, R3));
        let mut shared: Vec<i16> = self.locals.iter().filter_map(|(b, _)| match b {
            Buf::Stack(at) => Some(*at),
            _ => None,
        }).collect();
        let variables = shared.clone();
        if self.frame.has_scratch {
            shared.extend([frame::SCRATCH_POINTER, frame::SCRATCH_DEPTH_POINTER]);
        }
        for &o in &shared {
            self.push(Insn::ldx(DW, R0, R4, caller.at(o)));
            self.push(Insn::stx(DW, R10, o, R0));
        }
        self.push(Insn::ldx(DW, R6, R4, caller.at(regs)));
        if self.r7_holds_a_value() {
            self.push(Insn::ldx(DW, R7, R4, caller.at(regs + 8)));
        }
        // The element into the loop's variables.
        let def = &self.p.arrays[array];
        let mut off = if def.thread { 8 } else { 0 };
        let parts: Vec<(usize, i16, Repr)> = keys.iter().zip(def.keys.clone()).map(|(&l, r)| {
            let at = off;
            off += r.size().next_multiple_of(8) as i16;
            (l, at, r)
        }).collect();
        for (l, at, r) in parts {
            self.element_part(key, at, l, r)?;
        }
        let value_repr = self.p.arrays[array].value;
        self.element_part(val, 0, value, value_repr)?;

        let (next, stop, returned, faulted) = (self.label(), self.label(), self.label(), self.label());
        self.loops = vec![(next, stop)];
        self.return_to = Some(returned);
        let outer_fault = self.fault;
        self.fault = outer_fault.map(|t| FaultTarget { label: faulted, ..t });
        for s in body {
            self.stmt(s, None)?;
        }
        // Each way out that the body has (the verifier refuses code nothing reaches).
        let used = |e: &Self, l: Label| e.fixups.iter().any(|f| f.1 == l);
        if self.falls_through() || used(self, next) {
            self.bind(next);
            self.copy_back(caller, &variables);
            self.push(Insn::mov_imm(R0, 0));
            self.push(Insn::exit());
        }
        if used(self, returned) {
            self.bind(returned);
            self.set_status(caller, status, RETURNED);
            self.goto(stop);
        }
        if let (Some(t), true) = (outer_fault, used(self, faulted)) {
            self.bind(faulted);
            self.push(Insn::ldx(DW, R4, R10, caller.ctx));
            for w in [0, 8] {
                self.push(Insn::ldx(DW, R0, R10, t.slot + w));
                self.push(Insn::stx(DW, R4, caller.at(t.slot + w), R0));
            }
            self.set_status(caller, status, FAULTED);
            self.goto(stop);
        }
        if used(self, stop) {
            self.bind(stop);
            self.copy_back(caller, &variables);
            self.push(Insn::mov_imm(R0, 1));
            self.push(Insn::exit());
        }
        Ok(())
    }

    /// Whether the program keeps something in r7 for its clauses (the syscall number, or
    /// a kprobe.multi program's attach cookie).
    fn r7_holds_a_value(&self) -> bool {
        self.nr_in_r7 || self.multi
    }

    fn set_status(&mut self, caller: CallerFrame, status: i16, value: i32) {
        self.push(Insn::ldx(DW, R4, R10, caller.ctx));
        self.push(Insn::st_imm(DW, R4, caller.at(status), value));
    }

    /// The clause's variables on the stack back into the caller's frame.
    fn copy_back(&mut self, caller: CallerFrame, variables: &[i16]) {
        self.push(Insn::ldx(DW, R4, R10, caller.ctx));
        for &o in variables {
            self.push(Insn::ldx(DW, R0, R10, o));
            self.push(Insn::stx(DW, R4, caller.at(o), R0));
        }
    }

    /// Clause-local `l` set from the part of the key or value at `offset` from the address
    /// kept in slot `ptr`, stored there as `repr`.
    fn element_part(&mut self, ptr: i16, offset: i16, l: usize, repr: Repr) -> Result<(), EmitError> {
        let (at, local_repr) = self.locals.get(l).copied().ok_or_else(|| self.err(format!("internal: no clause-local {l}")))?;
        match (at, repr) {
            (Buf::Stack(slot), Repr::Int(_)) => {
                self.push(Insn::ldx(DW, R1, R10, ptr));
                self.push(Insn::ldx(DW, R0, R1, offset));
                self.push(Insn::stx(DW, R10, slot, R0));
            }
            (dst, r @ (Repr::Str(_) | Repr::Object(_) | Repr::Array(..))) => {
                let n = r.size() as u32;
                let size = local_repr.size() as u32;
                let copied = n.min(size);
                self.buf_addr(R1, dst);
                self.push(Insn::mov_imm(R2, copied as i32));
                self.push(Insn::ldx(DW, R3, R10, ptr));
                self.push(Insn::alu_imm(Alu::Add, R3, offset as i32));
                self.push(Insn::call(helper::PROBE_READ_KERNEL));
                if size > copied {
                    let rest = dst.plus(copied as i16).ok_or_else(|| self.err("internal: a loop variable at a kept address"))?;
                    self.zero_buf(rest, size - copied);
                }
            }
            _ => return Err(self.err(format!("internal: a loop variable stored as {} from {}", local_repr.describe(), repr.describe()))),
        }
        Ok(())
    }
}
