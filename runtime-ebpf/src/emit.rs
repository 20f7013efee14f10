//! IR to BPF: one program per attach point, its clauses in program order.
//!
//! Expressions evaluate into r0; intermediate values live in stack slots, so helper calls
//! anywhere in an expression are safe. r6 holds the context, r7 the system call number
//! (syscall programs), r8 the reserved output record while a clause fills it.

use crate::insn::*;
use crumbs_lang::ast::{BinOp, UnOp};
use crumbs_lang::builtins::VarHook;
use crumbs_lang::ir::*;
use crumbs_lang::providers::{AttachPoint, BEGIN_ID, END_ID, SYSCALL_ID_BASE};

/// Facts about the running system that code generation needs.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns, for walltimestamp.
    pub wall_offset: i64,
    /// Offsets of task_struct.real_parent and task_struct.tgid, for ppid (from BTF).
    pub task_offsets: Option<(i32, i32)>,
}

/// A reference from an instruction (the first half of an ld_imm64) to a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapRef {
    pub insn: usize,
    pub map: String,
}

#[derive(Clone, Debug)]
pub struct ProgramCode {
    pub name: String,
    pub attach: AttachPoint,
    pub insns: Vec<Insn>,
    pub map_refs: Vec<MapRef>,
}

#[derive(Debug)]
pub struct EmitError {
    /// The clause (index into the source's clauses) that could not be compiled.
    pub clause: Option<usize>,
    pub message: String,
}

pub const EVENTS_MAP: &str = "events";
pub const ZERO_MAP: &str = "zero";
/// Thread-local variables: key (tid, variable id), value u64.
pub const TLS_MAP: &str = "tls";
pub const GLOBALS_SYMBOL: &str = "globals";

pub fn agg_map_name(id: usize) -> String {
    format!("agg{id}")
}

/// Byte offset in the globals area of the dropped-records counter (after the D globals).
pub fn drops_offset(p: &Program) -> usize {
    p.globals.len() * 8
}

pub fn program_name(a: AttachPoint) -> &'static str {
    match a {
        AttachPoint::Begin => "crumbs_begin",
        AttachPoint::End => "crumbs_end",
        AttachPoint::SyscallEntry => "crumbs_sys_enter",
        AttachPoint::SyscallReturn => "crumbs_sys_exit",
    }
}

/// pt_regs offsets of the six system call arguments on x86-64 (di, si, dx, r10, r8, r9).
const ARG_REGS: [i32; 6] = [112, 104, 96, 56, 72, 64];
const ORIG_AX: i32 = 120;
const STACK_LIMIT: i32 = 512;

pub fn emit_program(p: &Program, group: &Group, target: &Target) -> Result<ProgramCode, EmitError> {
    let mut e = Emitter { p, target, attach: group.attach, insns: Vec::new(), map_refs: Vec::new(), labels: Vec::new(), fixups: Vec::new(), frame: 8, clause: None, locals_base: 0 };
    e.push(Insn::mov(R6, R1));
    match group.attach {
        AttachPoint::SyscallEntry => e.push(Insn::ldx(DW, R7, R6, 8)),
        AttachPoint::SyscallReturn => {
            // The syscall number is not an argument of sys_exit: read regs->orig_ax.
            e.push(Insn::mov(R1, R10));
            e.push(Insn::alu_imm(Alu::Add, R1, -8));
            e.push(Insn::mov_imm(R2, 8));
            e.push(Insn::ldx(DW, R3, R6, 0));
            e.push(Insn::alu_imm(Alu::Add, R3, ORIG_AX));
            e.push(Insn::call(helper::PROBE_READ_KERNEL));
            e.push(Insn::ldx(DW, R7, R10, -8));
        }
        _ => {}
    }
    for c in &group.clauses {
        e.clause = Some(c.index);
        e.frame = 8;
        e.clause(c)?;
    }
    e.push(Insn::mov_imm(R0, 0));
    e.push(Insn::exit());
    e.resolve();
    Ok(ProgramCode { name: program_name(group.attach).to_string(), attach: group.attach, insns: e.insns, map_refs: e.map_refs })
}

type Label = usize;

struct Emitter<'a> {
    p: &'a Program,
    target: &'a Target,
    attach: AttachPoint,
    insns: Vec<Insn>,
    map_refs: Vec<MapRef>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
    /// Bytes of stack in use below r10 by this clause.
    frame: i32,
    clause: Option<usize>,
    /// Stack offset of the clause's `this->` variables.
    locals_base: i16,
}

impl Emitter<'_> {
    fn push(&mut self, i: Insn) {
        self.insns.push(i);
    }

    fn ld64(&mut self, r: Reg, v: i64) {
        if v == v as i32 as i64 {
            self.push(Insn::mov_imm(r, v as i32));
        } else {
            let [a, b] = Insn::ld_imm64(r, v);
            self.push(a);
            self.push(b);
        }
    }

    fn ld_map(&mut self, r: Reg, map: &str, value_offset: i32) {
        self.map_refs.push(MapRef { insn: self.insns.len(), map: map.to_string() });
        let [mut a, b] = Insn::ld_imm64(r, 0);
        a.imm = value_offset;
        self.push(a);
        self.push(b);
    }

    fn label(&mut self) -> Label {
        self.labels.push(None);
        self.labels.len() - 1
    }

    fn bind(&mut self, l: Label) {
        self.labels[l] = Some(self.insns.len());
    }

    fn jump(&mut self, i: Insn, l: Label) {
        self.fixups.push((self.insns.len(), l));
        self.push(i);
    }

    fn goto(&mut self, l: Label) {
        self.jump(Insn::jmp_imm(Cond::Ja, 0, 0, 0), l);
    }

    fn resolve(&mut self) {
        for (at, l) in self.fixups.drain(..) {
            let to = self.labels[l].expect("bound label");
            self.insns[at].off = (to as i64 - at as i64 - 1) as i16;
        }
    }

    fn err(&self, message: impl Into<String>) -> EmitError {
        EmitError { clause: self.clause, message: message.into() }
    }

    /// A fresh 8-aligned stack slot of `size` bytes; returns its offset from r10.
    fn slot(&mut self, size: usize) -> Result<i16, EmitError> {
        self.frame += size.next_multiple_of(8) as i32;
        if self.frame > STACK_LIMIT {
            return Err(self.err("this clause needs more than the 512 bytes of BPF stack; split it into several clauses"));
        }
        Ok(-self.frame as i16)
    }

    fn clause(&mut self, c: &Clause) -> Result<(), EmitError> {
        let end = self.label();
        if c.locals > 0 {
            self.locals_base = self.slot(8 * c.locals)?;
            for i in 0..c.locals {
                self.push(Insn::st_imm(DW, R10, self.locals_base + 8 * i as i16, 0));
            }
        }
        if let Filter::Syscalls(nrs) = &c.filter {
            let body = self.label();
            for (lo, hi) in ranges(nrs) {
                if lo == hi {
                    self.jump(Insn::jmp_imm(Cond::Eq, R7, lo as i32, 0), body);
                } else {
                    let next = self.label();
                    self.jump(Insn::jmp_imm(Cond::Lt, R7, lo as i32, 0), next);
                    self.jump(Insn::jmp_imm(Cond::Le, R7, hi as i32, 0), body);
                    self.bind(next);
                }
            }
            self.goto(end);
            self.bind(body);
        }
        if let Some(pred) = &c.predicate {
            self.expr(pred)?;
            self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), end);
        }
        if let Some(rid) = c.record {
            let (_, size) = self.p.records[rid].layout();
            self.ld_map(R1, EVENTS_MAP, 0);
            self.push(Insn::mov_imm(R2, size as i32));
            self.push(Insn::mov_imm(R3, 0));
            self.push(Insn::call(helper::RINGBUF_RESERVE));
            let got = self.label();
            self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), got);
            // Buffer full: count the drop and skip the clause.
            self.ld_map(R1, GLOBALS_SYMBOL, drops_offset(self.p) as i32);
            self.push(Insn::ldx(DW, R2, R1, 0));
            self.push(Insn::alu_imm(Alu::Add, R2, 1));
            self.push(Insn::stx(DW, R1, 0, R2));
            self.goto(end);
            self.bind(got);
            self.push(Insn::mov(R8, R0));
            self.push(Insn::st_imm(W, R8, 0, rid as i32));
            self.probe_id()?;
            self.push(Insn::stx(W, R8, 4, R0));
            self.push(Insn::call(helper::GET_SMP_PROCESSOR_ID));
            self.push(Insn::stx(W, R8, 8, R0));
            self.push(Insn::st_imm(W, R8, 12, 0));
        }
        for s in &c.body {
            self.stmt(s, c.record)?;
        }
        if c.record.is_some() {
            self.push(Insn::mov(R1, R8));
            self.push(Insn::mov_imm(R2, 0));
            self.push(Insn::call(helper::RINGBUF_SUBMIT));
        }
        self.bind(end);
        Ok(())
    }

    /// The DTrace probe id of the firing probe, into r0.
    fn probe_id(&mut self) -> Result<(), EmitError> {
        match self.attach {
            AttachPoint::Begin => self.push(Insn::mov_imm(R0, BEGIN_ID as i32)),
            AttachPoint::End => self.push(Insn::mov_imm(R0, END_ID as i32)),
            AttachPoint::SyscallEntry | AttachPoint::SyscallReturn => {
                self.push(Insn::mov(R0, R7));
                self.push(Insn::alu_imm(Alu::Lsh, R0, 1));
                let ret = (self.attach == AttachPoint::SyscallReturn) as i32;
                self.push(Insn::alu_imm(Alu::Add, R0, SYSCALL_ID_BASE as i32 + ret));
            }
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, record: Option<usize>) -> Result<(), EmitError> {
        match s {
            Stmt::SetGlobal(g, v) => {
                self.expr(v)?;
                self.ld_map(R1, GLOBALS_SYMBOL, (*g * 8) as i32);
                self.push(Insn::stx(DW, R1, 0, R0));
            }
            Stmt::SetClauseLocal(l, v) => {
                self.expr(v)?;
                self.push(Insn::stx(DW, R10, self.locals_base + 8 * *l as i16, R0));
            }
            Stmt::SetThreadLocal(t, v) => {
                let val = self.slot(8)?;
                self.expr(v)?;
                self.push(Insn::stx(DW, R10, val, R0));
                let key = self.tls_key(*t)?;
                let delete = self.label();
                let done = self.label();
                self.push(Insn::ldx(DW, R0, R10, val));
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), delete);
                self.ld_map(R1, TLS_MAP, 0);
                self.push(Insn::mov(R2, R10));
                self.push(Insn::alu_imm(Alu::Add, R2, key as i32));
                self.push(Insn::mov(R3, R10));
                self.push(Insn::alu_imm(Alu::Add, R3, val as i32));
                self.push(Insn::mov_imm(R4, 0)); // BPF_ANY
                self.push(Insn::call(helper::MAP_UPDATE_ELEM));
                self.goto(done);
                // DTrace frees a thread-local when 0 is assigned to it.
                self.bind(delete);
                self.ld_map(R1, TLS_MAP, 0);
                self.push(Insn::mov(R2, R10));
                self.push(Insn::alu_imm(Alu::Add, R2, key as i32));
                self.push(Insn::call(helper::MAP_DELETE_ELEM));
                self.bind(done);
                self.frame -= 24;
            }
            Stmt::Emit { item, args } => {
                let rid = record.expect("emit has a record");
                let (offsets, _) = self.p.records[rid].layout();
                for (a, off) in args.iter().zip(&offsets[*item]) {
                    self.store_value(a, R8, *off as i16)?;
                }
            }
            Stmt::Aggregate { agg, keys, value } => self.aggregate(*agg, keys, value)?,
        }
        Ok(())
    }

    /// Stores a value in its representation at `base + off` (base is r8 or r10).
    fn store_value(&mut self, v: &Expr, base: Reg, off: i16) -> Result<(), EmitError> {
        match v {
            Expr::Str(StrExpr::Comm) => {
                // Kernels before 6.2 copy the name without zero-padding: clear the bytes
                // after it, or keys and comparisons would see stale stack or buffer bytes.
                self.push(Insn::st_imm(DW, base, off, 0));
                self.push(Insn::st_imm(DW, base, off + 8, 0));
                self.push(Insn::mov(R1, base));
                self.push(Insn::alu_imm(Alu::Add, R1, off as i32));
                self.push(Insn::mov_imm(R2, 16));
                self.push(Insn::call(helper::GET_CURRENT_COMM));
            }
            Expr::Str(s) => {
                self.str_id(s)?;
                self.push(Insn::stx(DW, base, off, R0));
            }
            _ => {
                self.expr(v)?;
                self.push(Insn::stx(DW, base, off, R0));
            }
        }
        Ok(())
    }

    fn aggregate(&mut self, id: usize, keys: &[Expr], value: &Expr) -> Result<(), EmitError> {
        let def = &self.p.aggregations[id];
        let kind = def.kind.clone();
        let map = agg_map_name(id);
        let key = self.slot(def.key_size())?;
        if keys.is_empty() {
            self.push(Insn::st_imm(DW, R10, key, 0));
        }
        let mut off = key;
        for k in keys {
            self.store_value(k, R10, off)?;
            off += k.repr().size() as i16;
        }
        let val = self.slot(8)?;
        if kind != AggKind::Count {
            self.expr(value)?;
            self.push(Insn::stx(DW, R10, val, R0));
        }
        let done = self.label();
        let have = self.label();
        self.lookup(&map, key);
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), have);
        // First update of this key on this CPU: insert zeros, then look up again.
        let vsize = kind.value_size();
        if vsize <= 16 {
            let z = self.slot(16)?;
            self.push(Insn::st_imm(DW, R10, z, 0));
            self.push(Insn::st_imm(DW, R10, z + 8, 0));
            self.push(Insn::mov(R3, R10));
            self.push(Insn::alu_imm(Alu::Add, R3, z as i32));
        } else {
            let zkey = self.slot(8)?;
            self.push(Insn::st_imm(DW, R10, zkey, 0));
            self.lookup(ZERO_MAP, zkey);
            self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), done);
            self.push(Insn::mov(R3, R0));
        }
        self.ld_map(R1, &map, 0);
        self.push(Insn::mov(R2, R10));
        self.push(Insn::alu_imm(Alu::Add, R2, key as i32));
        self.push(Insn::mov_imm(R4, 1)); // BPF_NOEXIST
        self.push(Insn::call(helper::MAP_UPDATE_ELEM));
        self.lookup(&map, key);
        self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), done);
        self.bind(have);
        match kind {
            AggKind::Count => self.add_to(R0, 0, None),
            AggKind::Sum => self.add_to(R0, 0, Some(val)),
            AggKind::Avg => {
                self.add_to(R0, 0, None);
                self.add_to(R0, 8, Some(val));
            }
            AggKind::Min | AggKind::Max => {
                let set = self.label();
                let skip = self.label();
                self.push(Insn::ldx(DW, R1, R10, val));
                self.push(Insn::ldx(DW, R2, R0, 0));
                self.jump(Insn::jmp_imm(Cond::Eq, R2, 0, 0), set);
                self.push(Insn::ldx(DW, R3, R0, 8));
                let keep = if kind == AggKind::Min { Cond::Sge } else { Cond::Sle };
                self.jump(Insn::jmp_reg(keep, R1, R3, 0), skip);
                self.bind(set);
                self.push(Insn::stx(DW, R0, 8, R1));
                self.bind(skip);
                self.push(Insn::alu_imm(Alu::Add, R2, 1));
                self.push(Insn::stx(DW, R0, 0, R2));
            }
            AggKind::Quantize => {
                self.push(Insn::ldx(DW, R1, R10, val));
                self.quantize_index(done)?;
                self.bump_bucket((QUANTIZE_BUCKETS - 1) as i32);
            }
            AggKind::Lquantize { base, limit, step } => {
                let n = kind.lquantize_buckets() as i32;
                self.push(Insn::ldx(DW, R1, R10, val));
                let below = self.label();
                let above = self.label();
                let bucket = self.label();
                self.ld64(R3, base);
                self.jump(Insn::jmp_reg(Cond::Slt, R1, R3, 0), below);
                self.ld64(R3, limit);
                self.jump(Insn::jmp_reg(Cond::Sge, R1, R3, 0), above);
                self.push(Insn::mov(R2, R1));
                self.ld64(R3, base);
                self.push(Insn::alu_reg(Alu::Sub, R2, R3));
                self.ld64(R3, step);
                self.push(Insn::alu_reg(Alu::Div, R2, R3));
                self.push(Insn::alu_imm(Alu::Add, R2, 1));
                self.goto(bucket);
                self.bind(below);
                self.push(Insn::mov_imm(R2, 0));
                self.goto(bucket);
                self.bind(above);
                self.push(Insn::mov_imm(R2, n - 1));
                self.bind(bucket);
                self.bump_bucket(n - 1);
            }
        }
        self.bind(done);
        Ok(())
    }

    /// `*(u64 *)(ptr + off) += 1` or `+= [stack slot]`.
    fn add_to(&mut self, ptr: Reg, off: i16, slot: Option<i16>) {
        self.push(Insn::ldx(DW, R1, ptr, off));
        match slot {
            None => self.push(Insn::alu_imm(Alu::Add, R1, 1)),
            Some(s) => {
                self.push(Insn::ldx(DW, R2, R10, s));
                self.push(Insn::alu_reg(Alu::Add, R1, R2));
            }
        }
        self.push(Insn::stx(DW, ptr, off, R1));
    }

    /// Increments bucket r2 (bounded to `max` for the verifier) of the value at r0.
    fn bump_bucket(&mut self, max: i32) {
        let ok = self.label();
        self.jump(Insn::jmp_imm(Cond::Le, R2, max, 0), ok);
        self.push(Insn::mov_imm(R2, 0));
        self.bind(ok);
        self.push(Insn::alu_imm(Alu::Lsh, R2, 3));
        self.push(Insn::alu_reg(Alu::Add, R0, R2));
        self.add_to(R0, 0, None);
    }

    /// DTrace's power-of-two bucket of r1, into r2 (63 is zero; 64+k holds [2^k, 2^(k+1))).
    fn quantize_index(&mut self, _done: Label) -> Result<(), EmitError> {
        let pos = self.label();
        let neg = self.label();
        let out = self.label();
        self.push(Insn::mov_imm(R2, 63));
        self.jump(Insn::jmp_imm(Cond::Sgt, R1, 0, 0), pos);
        self.jump(Insn::jmp_imm(Cond::Slt, R1, 0, 0), neg);
        self.goto(out);
        self.bind(pos);
        self.push(Insn::mov(R3, R1));
        self.log2();
        self.push(Insn::alu_imm(Alu::Add, R4, 64));
        self.push(Insn::mov(R2, R4));
        self.goto(out);
        self.bind(neg);
        self.push(Insn::mov(R3, R1));
        self.push(Insn::neg(R3));
        self.log2();
        self.push(Insn::mov_imm(R2, 62));
        self.push(Insn::alu_reg(Alu::Sub, R2, R4));
        self.bind(out);
        Ok(())
    }

    /// floor(log2(r3)) into r4, for r3 > 0 (unsigned); clobbers r3, r5.
    fn log2(&mut self) {
        self.push(Insn::mov_imm(R4, 0));
        for s in [32, 16, 8, 4, 2, 1] {
            self.push(Insn::mov(R5, R3));
            self.push(Insn::alu_imm(Alu::Rsh, R5, s));
            self.push(Insn::jmp_imm(Cond::Eq, R5, 0, 2));
            self.push(Insn::mov(R3, R5));
            self.push(Insn::alu_imm(Alu::Add, R4, s));
        }
    }

    /// Builds the key (tid, variable) of thread-local `t` in a fresh 16-byte slot.
    fn tls_key(&mut self, t: usize) -> Result<i16, EmitError> {
        let key = self.slot(16)?;
        self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
        self.push(Insn::mov32(R0, R0));
        self.push(Insn::stx(DW, R10, key, R0));
        self.push(Insn::st_imm(DW, R10, key + 8, t as i32));
        Ok(key)
    }

    fn lookup(&mut self, map: &str, key: i16) {
        self.ld_map(R1, map, 0);
        self.push(Insn::mov(R2, R10));
        self.push(Insn::alu_imm(Alu::Add, R2, key as i32));
        self.push(Insn::call(helper::MAP_LOOKUP_ELEM));
    }

    /// The interned id of a probe string or constant, into r0.
    fn str_id(&mut self, s: &StrExpr) -> Result<(), EmitError> {
        match s {
            StrExpr::Const(id) => self.ld64(R0, *id as i64),
            StrExpr::Comm => return Err(self.err("internal: a process name has no string id")),
            StrExpr::Probe(VarHook::ProbeFunc) if matches!(self.attach, AttachPoint::SyscallEntry | AttachPoint::SyscallReturn) => {
                self.ld64(R0, SYSCALL_STR_BASE as i64);
                self.push(Insn::alu_reg(Alu::Add, R0, R7));
            }
            StrExpr::Probe(h) => {
                let text = self.probe_const(*h).unwrap_or_default();
                let id = self.p.strings.lookup(text).ok_or_else(|| self.err(format!("internal: probe string `{text}` not interned")))?;
                self.ld64(R0, id as i64);
            }
        }
        Ok(())
    }

    /// probeprov/probemod/probefunc/probename when they are the same for every firing.
    fn probe_const(&self, h: VarHook) -> Option<&'static str> {
        let syscall = matches!(self.attach, AttachPoint::SyscallEntry | AttachPoint::SyscallReturn);
        Some(match h {
            VarHook::ProbeProv => if syscall { "syscall" } else { "dtrace" },
            VarHook::ProbeMod => if syscall { "vmlinux" } else { "" },
            VarHook::ProbeFunc if !syscall => "",
            VarHook::ProbeName => match self.attach {
                AttachPoint::Begin => "BEGIN",
                AttachPoint::End => "END",
                AttachPoint::SyscallEntry => "entry",
                AttachPoint::SyscallReturn => "return",
            },
            _ => return None,
        })
    }

    fn expr(&mut self, e: &Expr) -> Result<(), EmitError> {
        match e {
            Expr::Int(v) => self.ld64(R0, *v),
            Expr::Str(s) => self.str_id(s)?,
            Expr::Var(h) => self.var(*h)?,
            Expr::Global(g) => {
                self.ld_map(R1, GLOBALS_SYMBOL, (*g * 8) as i32);
                self.push(Insn::ldx(DW, R0, R1, 0));
            }
            Expr::ClauseLocal(l) => self.push(Insn::ldx(DW, R0, R10, self.locals_base + 8 * *l as i16)),
            Expr::ThreadLocal(t) => {
                let key = self.tls_key(*t)?;
                self.lookup(TLS_MAP, key);
                self.push(Insn::jmp_imm(Cond::Eq, R0, 0, 1));
                self.push(Insn::ldx(DW, R0, R0, 0));
                self.frame -= 16;
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
            Expr::Binary(op, l, r) => self.binary(*op, l, r)?,
            Expr::StrCmp(op, a, b) => self.str_cmp(*op, a, b)?,
            Expr::Ternary(c, a, b) => {
                let other = self.label();
                let out = self.label();
                self.expr(c)?;
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), other);
                self.expr(a)?;
                self.goto(out);
                self.bind(other);
                self.expr(b)?;
                self.bind(out);
            }
        }
        Ok(())
    }

    /// r0 = (r0 `cond` (src or imm)) ? 1 : 0.
    fn bool_of(&mut self, cond: Cond, src: Option<Reg>, imm: i32) {
        let i = match src {
            Some(s) => Insn::jmp_reg(cond, R0, s, 2),
            None => Insn::jmp_imm(cond, R0, imm, 2),
        };
        self.push(i);
        self.push(Insn::mov_imm(R0, 0));
        self.push(Insn::jmp_imm(Cond::Ja, 0, 0, 1));
        self.push(Insn::mov_imm(R0, 1));
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr) -> Result<(), EmitError> {
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
        let tmp = self.slot(8)?;
        self.expr(r)?;
        self.push(Insn::stx(DW, R10, tmp, R0));
        self.expr(l)?;
        self.push(Insn::ldx(DW, R1, R10, tmp));
        // The slot is free again once loaded.
        self.frame -= 8;
        let alu = |s: &mut Self, a: Alu| s.push(Insn::alu_reg(a, R0, R1));
        match op {
            BinOp::Add => alu(self, Alu::Add),
            BinOp::Sub => alu(self, Alu::Sub),
            BinOp::Mul => alu(self, Alu::Mul),
            BinOp::BitAnd => alu(self, Alu::And),
            BinOp::BitOr => alu(self, Alu::Or),
            BinOp::BitXor => alu(self, Alu::Xor),
            BinOp::Shl => alu(self, Alu::Lsh),
            BinOp::Shr => alu(self, Alu::Arsh),
            BinOp::Div | BinOp::Rem => self.signed_divide(op == BinOp::Rem),
            BinOp::LogXor => {
                self.bool_of(Cond::Ne, None, 0);
                self.push(Insn::mov(R2, R0));
                self.push(Insn::mov(R0, R1));
                self.bool_of(Cond::Ne, None, 0);
                self.push(Insn::alu_reg(Alu::Xor, R0, R2));
            }
            BinOp::Eq => self.bool_of(Cond::Eq, Some(R1), 0),
            BinOp::Ne => self.bool_of(Cond::Ne, Some(R1), 0),
            BinOp::Lt => self.bool_of(Cond::Slt, Some(R1), 0),
            BinOp::Le => self.bool_of(Cond::Sle, Some(R1), 0),
            BinOp::Gt => self.bool_of(Cond::Sgt, Some(R1), 0),
            BinOp::Ge => self.bool_of(Cond::Sge, Some(R1), 0),
            BinOp::LogAnd | BinOp::LogOr => unreachable!(),
        }
        Ok(())
    }

    /// r0 = r0 / r1 (or %) with C's signed semantics, from unsigned BPF division.
    fn signed_divide(&mut self, rem: bool) {
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

    fn str_cmp(&mut self, op: BinOp, a: &StrExpr, b: &StrExpr) -> Result<(), EmitError> {
        match (a, b) {
            (StrExpr::Comm, StrExpr::Comm) => {
                let same = matches!(op, BinOp::Eq | BinOp::Le | BinOp::Ge);
                self.push(Insn::mov_imm(R0, same as i32));
                Ok(())
            }
            (StrExpr::Comm, StrExpr::Const(id)) => self.comm_cmp(op, *id, false),
            (StrExpr::Const(id), StrExpr::Comm) => self.comm_cmp(op, *id, true),
            (StrExpr::Const(x), StrExpr::Const(y)) => {
                let (x, y) = (self.p.strings.resolve(*x), self.p.strings.resolve(*y));
                let v = match op {
                    BinOp::Eq => x == y,
                    BinOp::Ne => x != y,
                    BinOp::Lt => x < y,
                    BinOp::Le => x <= y,
                    BinOp::Gt => x > y,
                    _ => x >= y,
                };
                self.push(Insn::mov_imm(R0, v as i32));
                Ok(())
            }
            _ => {
                let tmp = self.slot(8)?;
                self.str_id(b)?;
                self.push(Insn::stx(DW, R10, tmp, R0));
                self.str_id(a)?;
                self.push(Insn::ldx(DW, R1, R10, tmp));
                self.frame -= 8;
                let c = if op == BinOp::Eq { Cond::Eq } else { Cond::Ne };
                self.bool_of(c, Some(R1), 0);
                Ok(())
            }
        }
    }

    /// Compares the current comm with a constant: two 64-bit words, byte-swapped for
    /// ordering so that the comparison is lexicographic.
    fn comm_cmp(&mut self, op: BinOp, id: u64, swapped: bool) -> Result<(), EmitError> {
        let mut text = self.p.strings.resolve(id).into_bytes();
        let mut op = if swapped { mirror(op) } else { op };
        if text.len() >= 16 {
            // A comm holds at most 15 bytes: it never equals a longer string, and comparing it
            // with the literal's first 15 bytes decides the order, equal meaning "shorter, so less".
            match op {
                BinOp::Eq | BinOp::Ne => {
                    self.push(Insn::mov_imm(R0, (op == BinOp::Ne) as i32));
                    return Ok(());
                }
                BinOp::Lt | BinOp::Le => op = BinOp::Le,
                _ => op = BinOp::Gt,
            }
            text.truncate(15);
        }
        let mut bytes = [0u8; 16];
        bytes[..text.len()].copy_from_slice(&text);
        let w0 = i64::from_le_bytes(bytes[..8].try_into().unwrap());
        let w1 = i64::from_le_bytes(bytes[8..].try_into().unwrap());
        let buf = self.slot(16)?;
        self.push(Insn::st_imm(DW, R10, buf, 0));
        self.push(Insn::st_imm(DW, R10, buf + 8, 0));
        self.push(Insn::mov(R1, R10));
        self.push(Insn::alu_imm(Alu::Add, R1, buf as i32));
        self.push(Insn::mov_imm(R2, 16));
        self.push(Insn::call(helper::GET_CURRENT_COMM));
        self.frame -= 16;
        let f = self.label();
        let t = self.label();
        let out = self.label();
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            let (on_eq, on_ne) = if op == BinOp::Eq { (t, f) } else { (f, t) };
            self.push(Insn::ldx(DW, R1, R10, buf));
            self.ld64(R2, w0);
            self.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), on_ne);
            self.push(Insn::ldx(DW, R1, R10, buf + 8));
            self.ld64(R2, w1);
            self.jump(Insn::jmp_reg(Cond::Ne, R1, R2, 0), on_ne);
            self.goto(on_eq);
        } else {
            let (lt, eq_true) = match op {
                BinOp::Lt => (true, false),
                BinOp::Le => (true, true),
                BinOp::Gt => (false, false),
                _ => (false, true),
            };
            for (off, w) in [(buf, w0), (buf + 8, w1)] {
                let next = self.label();
                self.push(Insn::ldx(DW, R1, R10, off));
                self.push(Insn::to_be64(R1));
                self.ld64(R2, w);
                self.push(Insn::to_be64(R2));
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
        Ok(())
    }

    fn var(&mut self, h: VarHook) -> Result<(), EmitError> {
        let syscall = matches!(self.attach, AttachPoint::SyscallEntry | AttachPoint::SyscallReturn);
        match h {
            VarHook::Pid => {
                self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
                self.push(Insn::alu_imm(Alu::Rsh, R0, 32));
            }
            VarHook::Tid => {
                self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
                self.push(Insn::mov32(R0, R0));
            }
            VarHook::Uid => {
                self.push(Insn::call(helper::GET_CURRENT_UID_GID));
                self.push(Insn::mov32(R0, R0));
            }
            VarHook::Gid => {
                self.push(Insn::call(helper::GET_CURRENT_UID_GID));
                self.push(Insn::alu_imm(Alu::Rsh, R0, 32));
            }
            VarHook::Cpu => self.push(Insn::call(helper::GET_SMP_PROCESSOR_ID)),
            VarHook::Timestamp => self.push(Insn::call(helper::KTIME_GET_NS)),
            VarHook::WallTimestamp => {
                self.push(Insn::call(helper::KTIME_GET_NS));
                self.ld64(R1, self.target.wall_offset);
                self.push(Insn::alu_reg(Alu::Add, R0, R1));
            }
            VarHook::Ppid => {
                let (parent, tgid) = self.target.task_offsets.ok_or_else(|| self.err("ppid needs kernel BTF (/sys/kernel/btf/vmlinux) to find task_struct fields"))?;
                let tmp = self.slot(8)?;
                self.push(Insn::call(helper::GET_CURRENT_TASK));
                self.read_kernel(tmp, R0, parent, 8);
                self.push(Insn::ldx(DW, R0, R10, tmp));
                self.read_kernel(tmp, R0, tgid, 4);
                self.push(Insn::ldx(W, R0, R10, tmp));
                self.frame -= 8;
            }
            VarHook::Arg(n) => match self.attach {
                AttachPoint::SyscallEntry => {
                    let tmp = self.slot(8)?;
                    self.push(Insn::ldx(DW, R0, R6, 0));
                    self.read_kernel(tmp, R0, ARG_REGS[n as usize], 8);
                    self.push(Insn::ldx(DW, R0, R10, tmp));
                    self.frame -= 8;
                }
                AttachPoint::SyscallReturn if n <= 1 => self.push(Insn::ldx(DW, R0, R6, 8)),
                _ => self.push(Insn::mov_imm(R0, 0)),
            },
            VarHook::Errno => {
                if self.attach == AttachPoint::SyscallReturn {
                    // errno = -ret for ret in [-4095, -1], else 0.
                    self.push(Insn::ldx(DW, R0, R6, 8));
                    self.push(Insn::jmp_imm(Cond::Sge, R0, 0, 3));
                    self.push(Insn::jmp_imm(Cond::Slt, R0, -4095, 2));
                    self.push(Insn::neg(R0));
                    self.push(Insn::jmp_imm(Cond::Ja, 0, 0, 1));
                    self.push(Insn::mov_imm(R0, 0));
                } else {
                    self.push(Insn::mov_imm(R0, 0));
                }
            }
            VarHook::Comm | VarHook::ProbeProv | VarHook::ProbeMod | VarHook::ProbeFunc | VarHook::ProbeName => {
                return Err(self.err(format!("internal: string builtin {h:?} used as an integer")));
            }
        }
        let _ = syscall;
        Ok(())
    }

    /// bpf_probe_read_kernel(r10 + slot, size, ptr + off).
    fn read_kernel(&mut self, slot: i16, ptr: Reg, off: i32, size: i32) {
        self.push(Insn::mov(R3, ptr));
        self.push(Insn::alu_imm(Alu::Add, R3, off));
        self.push(Insn::mov(R1, R10));
        self.push(Insn::alu_imm(Alu::Add, R1, slot as i32));
        self.push(Insn::mov_imm(R2, size));
        self.push(Insn::call(helper::PROBE_READ_KERNEL));
    }
}

fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// Sorted numbers as inclusive ranges.
fn ranges(nrs: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &n in nrs {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == n => *hi = n,
            _ => out.push((n, n)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::check::CheckOptions;

    fn compile(src: &str) -> (Program, Vec<ProgramCode>) {
        let p = crumbs_lang::compile(src, &CheckOptions::default()).unwrap();
        let code = p.groups.iter().map(|g| emit_program(&p, g, &Target::default()).unwrap()).collect();
        (p, code)
    }

    #[test]
    fn ranges_merge_neighbours() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), vec![(0, 2), (5, 5), (7, 8)]);
    }

    #[test]
    fn count_by_probefunc_is_one_lookup_and_an_add() {
        let (_, code) = compile("syscall:::entry { @[probefunc] = count(); }");
        let text = disassemble(&code[0].insns);
        assert_eq!(code[0].name, "crumbs_sys_enter");
        assert!(text.starts_with("   0: r6 = r1\n   1: r7 = *(u64 *)(r6 +8)\n"), "{text}");
        assert_eq!(text.matches("call bpf_map_lookup_elem").count(), 2, "{text}");
        assert_eq!(text.matches("call bpf_get_current_comm").count(), 0, "{text}");
        assert!(code[0].map_refs.iter().all(|m| m.map == "agg0"));
        assert_eq!(code[0].insns.last().unwrap().code, JMP | EXIT);
    }

    #[test]
    fn comm_compare_is_two_words() {
        let (_, code) = compile("syscall:::entry /execname == \"cat\"/ { @ = count(); }");
        let text = disassemble(&code[0].insns);
        assert_eq!(text.matches("call bpf_get_current_comm").count(), 1, "{text}");
        // the name buffer is zeroed first: kernels before 6.2 do not pad it
        let call = text.find("call bpf_get_current_comm").unwrap();
        assert_eq!(text[..call].matches("= 0\n").count() >= 2, true, "{text}");
        // "cat" as a little-endian word
        assert!(text.contains(&format!("r2 = {}", 0x746163)), "{text}");
    }

    #[test]
    fn syscall_filter_compares_numbers() {
        let (_, code) = compile("syscall::read:entry,syscall::write:entry { @ = count(); }");
        let text = disassemble(&code[0].insns);
        // read = 0, write = 1: one range check
        assert!(text.contains("if r7 < 0 goto") && text.contains("if r7 <= 1 goto"), "{text}");
    }

    #[test]
    fn jumps_land_inside_the_program() {
        let (_, code) = compile("syscall:::return /errno != 0 && arg0 < 0 ? 1 : 0/ { @q = quantize(arg0); @l = lquantize(arg0, -10, 10, 2); printf(\"%s %d\\n\", execname, pid); }");
        let n = code[0].insns.len() as i64;
        for (i, insn) in code[0].insns.iter().enumerate() {
            if insn.is_jump() {
                let to = i as i64 + 1 + insn.off as i64;
                assert!((0..n).contains(&to), "jump at {i} to {to}");
            }
        }
    }
}
