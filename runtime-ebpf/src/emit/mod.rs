//! IR to BPF: one program per attach point, its clauses in program order.
//!
//! Expressions evaluate into r0; intermediate values live in stack slots, so helper calls
//! anywhere in an expression are safe. r6 holds the context, r7 the system call number
//! (syscall programs), r8 the reserved output record while a clause fills it.

use crate::abi::drops::{DropKind, DROPS_MAP};
use crate::abi::{agg_map_name, array_map_name, record, Target, Func, FuncRef, Subprogram, MapRef, ProgramCode, EVENTS_MAP, SCRATCH_DEPTH_MAP, SCRATCH_LEVELS, SCRATCH_MAP, STACKS_MAP, SYSCALL_NAMES_MAP, SYSCALL_NAME_SIZE, TLS_STR_MAP};
use crate::insn::*;
use crumbs_lang::ast::{BinOp, UnOp};
use crumbs_lang::builtins::{KernelValue, Part, VarHook};
use crumbs_lang::ir::*;
use crumbs_lang::providers::AttachPoint;

mod agg_reads;
mod aggregate;
mod buffer;
pub(crate) mod attach;
mod callbacks;
mod chill;
mod cleanpath;
mod copyout;
mod cwd;
mod dname;
mod expr;
mod faults;
mod frame;
mod inet;
mod join;
mod kernel_path;
mod link_ntop;
mod loops;
mod map_loops;
mod numbers;
mod percpu;
mod objects;
mod search;
mod send;
mod seq_printf;
pub use seq_printf::{formats as seq_formats, SEQ_FORMATS_SYMBOL};
mod memory;
mod psargs;
mod speculation;
mod stack_values;
mod strings;
mod strtok;
mod subroutines;
mod task_comm;

use faults::{ErrorArgs, FaultTarget};
pub(crate) use faults::FaultValue;
pub use speculation::{speculations_offset, speculations_size};
use frame::Frame;
use strings::Buf;


#[derive(Debug)]
pub struct EmitError {
    /// The clause (index into the source's clauses) that could not be compiled.
    pub clause: Option<usize>,
    pub message: String,
}

pub const ZERO_MAP: &str = "zero";
/// Thread-local variables: key (tid, variable id), value u64.
pub const TLS_MAP: &str = "tls";
pub const GLOBALS_SYMBOL: &str = "globals";

/// Where the "exit() has run" word is among the globals, after the program's own, if the
/// program calls exit() at all. Once exit() runs, no clause runs again but END's: not the
/// next clauses of the same firing, nor firings on other CPUs (DTrace's DRAINING state),
/// so nothing counts after the exit.
pub fn exit_flag_offset(p: &Program) -> Option<i32> {
    p.records.iter().any(|r| r.items.iter().any(|i| matches!(i, Item::Exit))).then_some(p.globals_size() as i32)
}

/// Aggregation values up to this many bytes are zeroed by stores; larger ones are copied
/// from the zero map.
pub const INLINE_ZEROING: usize = 16 * 8;

/// The most instructions the kernel loads in one program (BPF_COMPLEXITY_LIMIT_INSNS); a
/// longer one fails to load with an empty verifier log.
pub const MAX_INSNS: usize = 1_000_000;

pub fn emit_program(p: &Program, group: &Group, target: &Target) -> Result<ProgramCode, EmitError> {
    emit(p, group, &[], target)
}

/// One kprobe.multi program for fbt functions `functions`, all with the clauses of `group`
/// (one of theirs): the firing function's probe id and name come from the attach cookie.
pub fn emit_multi_program(p: &Program, group: &Group, functions: &[u16], target: &Target) -> Result<ProgramCode, EmitError> {
    emit(p, group, functions, target)
}

fn emit(p: &Program, group: &Group, functions: &[u16], target: &Target) -> Result<ProgramCode, EmitError> {
    let exit_flag = exit_flag_offset(p);
    // ERROR's clauses run inside the programs of clauses that fault.
    let errors = p.group(AttachPoint::Error).map_or(&[][..], |g| &g.clauses[..]);
    let faults_here = group.clauses.iter().any(|c| faults::may_fault(p, c));
    // A pinned iterator's records are built in the scratch space.
    let pinned = matches!(group.attach, AttachPoint::Iter(_, Some(_))) && group.clauses.iter().any(|c| c.record.is_some());
    let scratch = pinned || group.clauses.iter().any(needs_scratch) || (errors.iter().any(needs_scratch) && faults_here);
    let mut e = Emitter { p, loops: Vec::new(), return_to: None, target, attach: group.attach, insns: Vec::new(), map_refs: Vec::new(), func_refs: Vec::new(), subprograms: Vec::new(), labels: Vec::new(), fixups: Vec::new(), frame: Frame::new(scratch), clause: None, locals: Vec::new(), exit_flag, fault: None, error_args: None, pieces: Default::default(), strtok: None, shared_locals: Vec::new(), nr_in_r7: false, multi: !functions.is_empty(), fentry: target.fbt_fentry && matches!(group.attach, AttachPoint::FbtEntry(_) | AttachPoint::FbtReturn(_)) };
    e.push(Insn::mov(R6, R1));
    e.context().prologue(&mut e, group);
    if scratch {
        e.scratch_prologue()?;
    }
    if group.clauses.iter().any(uses_strtok) || (errors.iter().any(uses_strtok) && faults_here) {
        e.strtok_prologue()?;
    }
    // A variable only one clause uses is zeroed where that clause starts (after the checks
    // that can skip it); one several clauses share, once for the firing, here.
    let all: Vec<Variable> = group.clauses.iter().flat_map(|c| c.locals.iter().cloned()).collect();
    let (shared, own): (Vec<Variable>, Vec<Variable>) = all.iter().cloned().partition(|v| all.iter().filter(|w| *w == v).count() > 1);
    e.shared_locals = e.take_locals(&shared, true)?.into_iter().map(|(n, r, b)| (n, r, b, false)).collect();
    let own = e.take_locals(&own, false)?;
    e.shared_locals.extend(own.into_iter().map(|(n, r, b)| (n, r, b, true)));
    for c in &group.clauses {
        e.clause = Some(c.index);
        e.scoped(|e| e.clause(c))?;
        if e.insns.len() + 2 > MAX_INSNS {
            return Err(e.err(format!("this clause brings its BPF program to {} instructions, over the kernel's limit of {MAX_INSNS}; split the work over fewer clauses per probe or smaller clauses", e.insns.len() + 2)));
        }
    }
    if scratch {
        e.leave_scratch_level();
    }
    e.push(Insn::mov_imm(R0, 0));
    e.push(Insn::exit());
    e.resolve()?;
    Ok(ProgramCode { name: e.context().program_name(p, group.attach), attach: group.attach, insns: e.insns, map_refs: e.map_refs, func_refs: e.func_refs, subprograms: e.subprograms, scratch: e.frame.scratch_max, functions: functions.to_vec(), fentry: e.fentry })
}

/// Whether a clause works with strings in buffers larger than the stack holds comfortably,
/// or with string variables: its program then needs the scratch space.
fn needs_scratch(c: &Clause) -> bool {
    c.locals.iter().any(|v| v.is_str() || v.is_object())
        || c.any(&mut |n| match n {
            // The path walk of cwd and d_path() builds in a buffer twice the string's.
            Node::Str(s) => matches!(s.repr(), Repr::Str(n) if n > 16) || matches!(s, StrExpr::Var(..) | StrExpr::Call { .. } | StrExpr::Cwd { .. } | StrExpr::DPath { .. }),
            // Two names ordered: both are written out in strsize buffers.
            Node::Expr(Expr::StrCmp(op, a, b)) => !matches!(op, BinOp::Eq | BinOp::Ne) && a.repr() == Repr::StrId && b.repr() == Repr::StrId,
            Node::Stmt(Stmt::SetStr(..) | Stmt::SetObject(..) | Stmt::SetMember { .. } | Stmt::Copy { .. } | Stmt::CopyOut { .. } | Stmt::Send { .. }) | Node::Expr(Expr::Alloc { .. }) => true,
            // A struct key may be larger than the stack holds.
            Node::Stmt(Stmt::Aggregate { keys, .. } | Stmt::SetElement { keys, .. }) | Node::Expr(Expr::Element { keys, .. } | Expr::VarAddr(StrVar::Element { keys, .. })) => keys.iter().any(|k| matches!(k, Expr::Object { .. })),
            // The searches work in scratch buffers, and so do caller and stackdepth.
            Node::Expr(Expr::IntCall { f: IntFn::Index | IntFn::Rindex | IntFn::ByteAt | IntFn::Memcmp(_) | IntFn::WriteUser(_), .. } | Expr::Var(VarHook::Caller { .. } | VarHook::StackDepth { .. } | VarHook::StackLen { .. })) => true,
            _ => false,
        })
}

/// Whether a clause calls strtok(): its program keeps strtok()'s state.
fn uses_strtok(c: &Clause) -> bool {
    c.any(&mut |n| matches!(n, Node::Str(StrExpr::Call { f: StrFn::Strtok | StrFn::StrtokNext, .. })))
}

type Label = usize;

/// The largest key built on the stack (half of it); a larger one is built in the scratch
/// space.
const KEY_STACK_MAX: usize = 256;

pub(crate) struct Emitter<'a> {
    p: &'a Program,
    /// The `while` loops around the statement being emitted, innermost last: where
    /// `continue` and `break` go.
    loops: Vec<(Label, Label)>,
    /// Where `return` goes: the end of the clause's statements, before its record is sent.
    return_to: Option<Label>,
    target: &'a Target,
    attach: AttachPoint,
    insns: Vec<Insn>,
    map_refs: Vec<MapRef>,
    func_refs: Vec<FuncRef>,
    /// The program's own functions so far (loop bodies).
    subprograms: Vec<Subprogram>,
    labels: Vec<Option<usize>>,
    /// Jumps to patch: (instruction, target, the clause it is in).
    fixups: Vec<(usize, Label, Option<usize>)>,
    /// The stack below r10; each clause starts from an empty frame.
    frame: Frame,
    clause: Option<usize>,
    /// Where the clause's `this->` variables are and how they are stored: integers on the
    /// stack, strings in the scratch space.
    locals: Vec<(Buf, Repr)>,
    /// [`exit_flag_offset`] of the program, found once.
    exit_flag: Option<i32>,
    /// Where a fault in the code being emitted goes (None outside clauses).
    fault: Option<FaultTarget>,
    /// While ERROR's clauses are emitted (inside a faulting clause's fault block): where
    /// their arguments are.
    error_args: Option<ErrorArgs>,
    /// The clause's scratch memory for alloca() and copyin().
    pieces: memory::Pieces,
    /// The program's `this->` variables, shared by its clauses (name, representation, place,
    /// and whether one clause alone uses it).
    shared_locals: Vec<(String, Repr, Buf, bool)>,
    /// The prologue left the system call number in r7 (syscall programs).
    nr_in_r7: bool,
    /// A kprobe.multi program: one for many functions (r7 holds the attach cookie).
    multi: bool,
    /// An fentry or fexit program (an fbt probe's, in that mode).
    fentry: bool,
    /// Where strtok()'s state is in the scratch space, if the program calls strtok().
    strtok: Option<i16>,
}

impl Emitter<'_> {
    /// How the program's probe context reads.
    fn context(&self) -> &'static dyn attach::ProbeContext {
        attach::context_for(self.attach, self.multi, self.fentry)
    }

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

    /// Loads the address of `func` for a helper that calls it back.
    fn ld_func(&mut self, r: Reg, func: Func) {
        self.func_refs.push(FuncRef { insn: self.insns.len(), func });
        let [a, b] = Insn::ld_imm64(r, 0);
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
        self.fixups.push((self.insns.len(), l, self.clause));
        self.push(i);
    }

    fn goto(&mut self, l: Label) {
        self.jump(Insn::jmp_imm(Cond::Ja, 0, 0, 0), l);
    }

    /// Whether the code emitted so far can run on into the next instruction: it does not
    /// end with a `goto` or `exit`, or a jump lands right after it. (The verifier refuses
    /// code nothing reaches: a loop's step after a body that ends in `break`.)
    fn falls_through(&self) -> bool {
        let here = self.insns.len();
        let ends = self.insns.last().is_some_and(|i| *i == Insn::jmp_imm(Cond::Ja, 0, 0, i.off) || *i == Insn::exit());
        !ends || self.labels.contains(&Some(here))
    }

    /// Patches every jump; a jump further than a BPF jump's 16-bit offset reaches is an
    /// error on its clause (the clause is too long), never a wrapped offset.
    fn resolve(&mut self) -> Result<(), EmitError> {
        for (at, l, clause) in self.fixups.drain(..) {
            let to = self.labels[l].expect("bound label");
            let off = to as i64 - at as i64 - 1;
            let Ok(off) = i16::try_from(off) else {
                return Err(EmitError { clause, message: format!("this clause compiles to a jump over {} BPF instructions, more than a BPF jump reaches ({}); split it into several clauses", off.abs(), i16::MAX) });
            };
            self.insns[at].off = off;
        }
        Ok(())
    }

    /// A record must fit a BPF store's 16-bit offset and the event buffer (the ring buffer
    /// keeps an 8-byte header per record): a larger one could never be sent.
    fn check_record_size(&self, size: usize) -> Result<(), EmitError> {
        if size > i16::MAX as usize {
            return Err(self.err(format!("this clause sends {size} bytes per firing, over the {} a record can hold; split its output over several clauses", i16::MAX)));
        }
        let buffer = crate::event_buffer_size(self.p) as usize;
        if size + 8 > buffer {
            return Err(self.err(format!("this clause sends {size} bytes per firing, more than the {buffer}-byte event buffer holds; raise it with -x bufsize")));
        }
        Ok(())
    }

    fn err(&self, message: impl Into<String>) -> EmitError {
        EmitError { clause: self.clause, message: message.into() }
    }

    fn clause(&mut self, c: &Clause) -> Result<(), EmitError> {
        let end = self.label();
        // END runs after exit(); ERROR's clauses run for a clause that already passed this.
        if let (Some(flag), false) = (self.exit_flag, matches!(self.attach, AttachPoint::End | AttachPoint::Error)) {
            self.ld_map(R1, GLOBALS_SYMBOL, flag);
            self.push(Insn::ldx(DW, R0, R1, 0));
            self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), end);
        }
        let fault_slot = if faults::may_fault(self.p, c) { Some(self.slot(16)?) } else { None };
        self.pieces = self.take_pieces(c)?;
        let (fault_body, fault_before) = (self.label(), self.label());
        // The probe's clauses share their `this->` variables (the program's, taken once);
        // ERROR's clauses, another probe's, have their own.
        // This clause's own `this->` variables, zeroed once its filter lets the firing in.
        let mut own_locals = Vec::new();
        self.locals = match self.error_args {
            None => {
                let mut places = Vec::new();
                for v in &c.locals {
                    let (at, r, own) = self.shared_local(v)?;
                    if own {
                        own_locals.push((at, r));
                    }
                    places.push((at, r));
                }
                places
            }
            Some(_) => {
                let own = self.take_locals(&c.locals, true)?;
                c.locals.iter().map(|v| Ok((own.iter().find(|(n, r, _)| *n == v.name && *r == v.repr).expect("taken").2, v.repr))).collect::<Result<_, EmitError>>()?
            }
        };
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
        for (at, r) in own_locals {
            self.zero_local(at, r);
        }
        if let Some(pred) = &c.predicate {
            self.fault = fault_slot.map(|slot| FaultTarget { label: fault_before, action: 0, slot });
            self.expr(pred)?;
            self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), end);
        }
        if let (Some(rid), true) = (c.record, self.pinned_iterator()) {
            // Never sent: its printf()s are written into the iterator as they run.
            let size = self.record_layout(rid).size;
            self.check_record_size(size)?;
            let at = self.scratch(size)?;
            self.buf_addr(R8, Buf::Scratch(at));
            self.record_header(rid)?;
        } else if let Some(rid) = c.record {
            let size = self.record_layout(rid).size;
            self.check_record_size(size)?;
            self.ld_map(R1, EVENTS_MAP, 0);
            self.push(Insn::mov_imm(R2, size as i32));
            self.push(Insn::mov_imm(R3, 0));
            self.push(Insn::call(helper::RINGBUF_RESERVE));
            let got = self.label();
            self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), got);
            // Buffer full: count the drop and skip the clause.
            self.count_drop(DropKind::Record)?;
            self.goto(end);
            self.bind(got);
            self.push(Insn::mov(R8, R0));
            self.record_header(rid)?;
            if let Some(at) = self.record_layout(rid).present {
                // Ring buffer space is not cleared: no item is there until one is stored.
                for w in (at..at + self.p.records[rid].items.len()).step_by(8) {
                    self.push(Insn::st_imm(DW, R8, w as i16, 0));
                }
            }
        }
        let after_record = if c.record.is_some() { fault_body } else { fault_before };
        let returned = self.label();
        self.return_to = Some(returned);
        for (s, action) in c.body.iter().zip(&c.actions) {
            self.fault = fault_slot.map(|slot| FaultTarget { label: after_record, action: *action, slot });
            self.stmt(s, c.record)?;
        }
        self.bind(returned);
        self.return_to = None;
        self.fault = None;
        // A pinned iterator's record is not sent.
        if let Some(rid) = c.record.filter(|_| !self.pinned_iterator()) {
            if c.body.iter().any(|s| matches!(s, Stmt::Speculate(_))) {
                self.drop_if_not_speculated(end);
            }
            self.exit_when_sent(rid);
            self.free_when_sent(rid)?;
            self.push(Insn::mov(R1, R8));
            self.push(Insn::mov_imm(R2, 0));
            self.push(Insn::call(helper::RINGBUF_SUBMIT));
        }
        let used = |e: &Self, l: Label| e.fixups.iter().any(|f| f.1 == l);
        if let (Some(slot), true) = (fault_slot, used(self, fault_body) || used(self, fault_before)) {
            self.goto(end);
            let body = used(self, fault_body).then_some(fault_body);
            self.fault_block(c, slot, body, fault_before)?;
        }
        self.bind(end);
        Ok(())
    }

    /// Where record `rid`'s arguments are, in this program's records (with metadata or not).
    fn record_layout(&self, rid: usize) -> record::Layout {
        record::layout_with(&self.p.records[rid], self.target.record_meta)
    }

    /// The header of record `rid` at r8: its id, the probe's, the CPU's, a zero word; then,
    /// if records carry it, the metadata (timestamp, thread and process ids, comm).
    fn record_header(&mut self, rid: usize) -> Result<(), EmitError> {
        self.push(Insn::st_imm(W, R8, 0, rid as i32));
        self.context().probe_id(self)?;
        self.push(Insn::stx(W, R8, 4, R0));
        self.push(Insn::call(helper::GET_SMP_PROCESSOR_ID));
        self.push(Insn::stx(W, R8, 8, R0));
        self.push(Insn::st_imm(W, R8, 12, 0));
        if self.target.record_meta {
            let at = record::HEADER as i16;
            self.push(Insn::call(helper::KTIME_GET_NS));
            self.push(Insn::stx(DW, R8, at, R0));
            self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
            self.push(Insn::stx(DW, R8, at + 8, R0));
            self.push(Insn::mov(R1, R8));
            self.push(Insn::alu_imm(Alu::Add, R1, (record::HEADER + 16) as i32));
            self.push(Insn::mov_imm(R2, 16));
            self.push(Insn::call(helper::GET_CURRENT_COMM));
        }
        Ok(())
    }

    /// Sets the exit flag if the record about to be sent holds an `exit()` (only once it is
    /// sure to be sent: a fault after exit() in the clause discards the record, exit() too).
    fn exit_when_sent(&mut self, rid: usize) {
        let Some(flag) = self.exit_flag else { return };
        let present = self.record_layout(rid).present;
        for (i, item) in self.p.records[rid].items.iter().enumerate() {
            if !matches!(item, Item::Exit) {
                continue;
            }
            let skip = self.label();
            if let Some(at) = present {
                self.push(Insn::ldx(B, R0, R8, (at + i) as i16));
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), skip);
            }
            self.ld_map(R1, GLOBALS_SYMBOL, flag);
            self.push(Insn::st_imm(DW, R1, 0, 1));
            self.bind(skip);
        }
    }

    /// Adds one to this CPU's counter of `kind` (clobbers r0-r5).
    fn count_drop(&mut self, kind: DropKind) -> Result<(), EmitError> {
        self.scoped(|e| {
            let key = e.slot(8)?;
            e.push(Insn::st_imm(DW, R10, key, 0));
            e.lookup(DROPS_MAP, Buf::Stack(key));
            e.push(Insn::jmp_imm(Cond::Eq, R0, 0, 2));
            e.push(Insn::mov_imm(R1, 1));
            e.push(Insn::atomic_add(R0, kind.offset() as i16, R1));
            Ok(())
        })
    }

    fn stmt(&mut self, s: &Stmt, record: Option<usize>) -> Result<(), EmitError> {
        match s {
            Stmt::SetGlobal(g, v) => {
                self.expr(v)?;
                self.ld_map(R1, GLOBALS_SYMBOL, self.p.global_offset(*g) as i32);
                self.push(Insn::stx(DW, R1, 0, R0));
            }
            Stmt::SetClauseLocal(l, v) => {
                self.expr(v)?;
                let Buf::Stack(at) = self.local(*l)? else { return Err(self.err("internal: an integer local in the scratch space")) };
                self.push(Insn::stx(DW, R10, at, R0));
            }
            Stmt::SetStr(v, s) => self.set_str(v, s)?,
            Stmt::SetObject(v, o) => self.set_object(v, o)?,
            Stmt::SetMember { var, offset, field, value } => self.set_member(var, *offset, *field, value)?,
            Stmt::SetThreadLocal(t, v) => {
                self.scoped(|e| {
                    let val = e.slot(8)?;
                    e.expr(v)?;
                    e.push(Insn::stx(DW, R10, val, R0));
                    let key = e.tls_key(*t)?;
                    e.store_dynamic(TLS_MAP, key, val)
                })?;
            }
            Stmt::SetElement { array, keys, value } => {
                self.scoped(|e| {
                    let val = e.slot(8)?;
                    e.expr(value)?;
                    e.push(Insn::stx(DW, R10, val, R0));
                    let key = e.element_key(*array, keys)?;
                    if e.p.arrays[*array].len.is_some() {
                        // A scalar array's element is always there (its index was checked):
                        // stored in place, 0 included.
                        e.lookup(&array_map_name(*array), key);
                        e.push(Insn::jmp_imm(Cond::Eq, R0, 0, 2));
                        e.push(Insn::ldx(DW, R1, R10, val));
                        e.push(Insn::stx(DW, R0, 0, R1));
                        return Ok(());
                    }
                    e.store_element(*array, key, Buf::Stack(val), DW)
                })?;
            }
            Stmt::While { cond, body } => {
                let (head, out) = (self.label(), self.label());
                self.bind(head);
                self.expr(cond)?;
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), out);
                self.loops.push((head, out));
                let r = self.scoped(|e| body.iter().try_for_each(|s| e.stmt(s, record)));
                self.loops.pop();
                r?;
                if self.falls_through() {
                    self.goto(head);
                }
                self.bind(out);
            }
            Stmt::ForMap { array, keys, value, body } => self.for_map(*array, keys, *value, body)?,
            Stmt::Break | Stmt::Continue => {
                let &(head, out) = self.loops.last().ok_or_else(|| self.err("internal: break or continue outside a loop"))?;
                self.goto(if matches!(s, Stmt::Break) { out } else { head });
            }
            Stmt::Return => {
                let to = self.return_to.ok_or_else(|| self.err("internal: return outside a clause"))?;
                self.goto(to);
            }
            Stmt::DeleteElement { array, keys } => self.delete_var(&StrVar::Element { array: *array, keys: keys.clone() })?,
            Stmt::If { cond, then, els } if els.is_empty() => {
                let out = self.label();
                self.expr(cond)?;
                self.jump(Insn::jmp_imm(Cond::Eq, R0, 0, 0), out);
                self.scoped(|e| then.iter().try_for_each(|s| e.stmt(s, record)))?;
                self.bind(out);
            }
            Stmt::If { cond, then, els } => self.choose(cond, |e| e.scoped(|e| then.iter().try_for_each(|s| e.stmt(s, record))), |e| e.scoped(|e| els.iter().try_for_each(|s| e.stmt(s, record))))?,
            Stmt::Emit { item, args } => {
                let rid = record.expect("emit has a record");
                let layout = self.record_layout(rid);
                let reprs = self.p.records[rid].items[*item].arg_reprs();
                for ((a, off), r) in args.iter().zip(&layout.offsets[*item]).zip(reprs) {
                    self.store_value(a, r, Buf::Record(*off as i16))?;
                }
                if let Some(at) = layout.present {
                    self.push(Insn::st_imm(B, R8, (at + item) as i16, 1));
                }
                if matches!(self.p.records[rid].items[*item], Item::Commit | Item::Discard) {
                    self.check_speculation_id(layout.offsets[*item][0] as i16)?;
                }
                if self.pinned_iterator() {
                    self.seq_printf(rid, *item)?;
                }
            }
            Stmt::Send { record, args } => self.send(*record, args)?,
            Stmt::Aggregate { agg, keys, value } => self.aggregate(*agg, keys, value)?,
            Stmt::Speculate(id) => self.speculate(id, record)?,
            Stmt::Copy { user, src, dest, size } => self.copy_into(*user, src, dest, size)?,
            Stmt::Chill(ns) => self.chill(ns)?,
            Stmt::CopyOut { src, addr, size } => self.copy_out(src, addr, size)?,
            Stmt::Override(rc) => {
                self.expr(rc)?;
                self.context().override_return(self)?;
            }
            Stmt::Signal { sig, thread } => {
                self.expr(sig)?;
                self.push(Insn::mov(R1, R0));
                self.push(Insn::call(if *thread { helper::SEND_SIGNAL_THREAD } else { helper::SEND_SIGNAL }));
            }
        }
        Ok(())
    }

    /// Stores the integer at stack `val` under the key at stack `key` in hash map `map`, or
    /// deletes the key when it is 0 (see [`Emitter::store_dynamic_at`]).
    fn store_dynamic(&mut self, map: &str, key: Buf, val: i16) -> Result<(), EmitError> {
        self.store_dynamic_at(map, key, Buf::Stack(val), DW)
    }

    /// Builds the key of an element of array `a` in a fresh buffer ([`Emitter::key_buf`]):
    /// the thread id for a thread-local array, then each key 8-byte aligned.
    fn element_key(&mut self, a: usize, keys: &[Expr]) -> Result<Buf, EmitError> {
        let def = &self.p.arrays[a];
        let key = self.key_buf(def.key_size())?;
        let mut off = 0;
        if def.thread {
            self.store_tid(key);
            off += 8;
        }
        if def.keys.is_empty() && !def.thread {
            // A map without keys: its one element's key is a zero word.
            let (base, at) = self.buf_base(R1, key);
            self.push(Insn::st_imm(DW, base, at, 0));
        }
        for (k, r) in keys.iter().zip(&def.keys) {
            let at = key.plus(off).ok_or_else(|| self.err("internal: a key at a kept address"))?;
            self.store_key(k, *r, at)?;
            off += r.size().next_multiple_of(8) as i16;
        }
        Ok(key)
    }

    /// Stores key `k` at `at`: a struct's or an array's size need not be whole words, and the
    /// bytes after it up to the next word are zeroed so that equal structs are equal keys.
    fn store_key(&mut self, k: &Expr, r: Repr, at: Buf) -> Result<(), EmitError> {
        let bytes = match r {
            Repr::Object(n) => Some(n),
            Repr::Array(..) => Some(r.array_bytes()),
            _ => None,
        };
        if let Some(n) = bytes {
            if n % 8 != 0 {
                let (base, off) = self.buf_base(R1, at);
                self.push(Insn::st_imm(DW, base, off + (n & !7) as i16, 0));
            }
        }
        self.store_value(k, r, at)
    }

    /// A fresh buffer for a key of `size` bytes: on the stack, or in the scratch space when
    /// the key is larger than [`KEY_STACK_MAX`] (two strsize strings would fill the whole
    /// stack) and the program has one.
    fn key_buf(&mut self, size: usize) -> Result<Buf, EmitError> {
        if size > KEY_STACK_MAX && self.frame.has_scratch {
            Ok(Buf::Scratch(self.scratch(size)?))
        } else {
            Ok(Buf::Stack(self.slot(size)?))
        }
    }

    /// The field `name` of the firing tracepoint's record.
    fn tp_field(&self, name: &str) -> Result<crumbs_lang::tracepoints::Field, EmitError> {
        let AttachPoint::Tracepoint(i) = self.attach else {
            return Err(self.err(format!("internal: args->{name} outside a tracepoint")));
        };
        self.p.tracepoints[i as usize].field(name).cloned().ok_or_else(|| self.err(format!("internal: no field {name}")))
    }

    /// Evaluates two operands: `rhs` first, kept in a stack slot across `lhs` (which may call
    /// helpers); leaves lhs in r0 and rhs in r1.
    fn operands(
        &mut self,
        lhs: impl FnOnce(&mut Self) -> Result<(), EmitError>,
        rhs: impl FnOnce(&mut Self) -> Result<(), EmitError>,
    ) -> Result<(), EmitError> {
        self.scoped(|e| {
            let tmp = e.slot(8)?;
            rhs(e)?;
            e.push(Insn::stx(DW, R10, tmp, R0));
            lhs(e)?;
            e.push(Insn::ldx(DW, R1, R10, tmp));
            Ok(())
        })
    }

    /// Stores a value at `base + off` (base is r8 or r10) as `repr` says.
    /// Stores `v`, as `repr`, at `dst` (the record, a key); a value computed into r0 is
    /// stored through r1 when `dst` needs its address loaded.
    fn store_value(&mut self, v: &Expr, repr: Repr, dst: Buf) -> Result<(), EmitError> {
        match (v, repr) {
            (Expr::Str(s), Repr::Str(size)) => self.str_into(s, dst, size)?,
            (Expr::Str(s), _) => {
                self.str_id(s)?;
                let (base, off) = self.buf_base(R1, dst);
                self.push(Insn::stx(DW, base, off, R0));
            }
            // The address, then the process it belongs to.
            (Expr::USym(_, pc), _) => {
                self.expr(pc)?;
                let (base, off) = self.buf_base(R1, dst);
                self.push(Insn::stx(DW, base, off, R0));
                self.push(Insn::call(helper::GET_CURRENT_PID_TGID));
                self.push(Insn::alu_imm(Alu::Rsh, R0, 32));
                let (base, off) = self.buf_base(R1, dst);
                self.push(Insn::stx(DW, base, off + 8, R0));
            }
            // A user symbol or a buffer read back from a variable: its bytes copied.
            (Expr::Stored(Repr::USym(_) | Repr::Buf(_), o), _) => self.store_value(o, repr, dst)?,
            // bpftrace's array: its bytes, zeros where they cannot be read (as bpftrace reads
            // a map's element never stored).
            (Expr::Stored(Repr::Array(..), o), _) => {
                let Expr::Object { addr, size } = o.as_ref() else { return Err(self.err("internal: an array is an object")) };
                self.expr(addr)?;
                let (base, off) = self.buf_base(R1, dst);
                self.read_kernel_to(base, off as i32, R0, 0, *size as i32);
            }
            (Expr::Buf { addr, from, len, cap }, _) => self.buffer(addr, *from, len, *cap, dst)?,
            (Expr::StrBuf { s, len, cap }, _) => self.string_buffer(s, len, *cap, dst)?,
            (Expr::ObjectPrefix { addr, size, len }, _) => self.object_prefix(addr, *size, len, dst)?,
            (Expr::PointedStrings { addr, from, count, size }, _) => self.pointed_strings(addr, *from, *count, *size, dst)?,
            // Copied whole into the record.
            (Expr::Object { addr, size }, _) => {
                self.expr(addr)?;
                let (base, off) = self.buf_base(R1, dst);
                self.read_kernel_to_or_fault(base, off as i32, R0, 0, *size as i32)?;
            }
            _ => {
                self.expr(v)?;
                let (base, off) = self.buf_base(R1, dst);
                self.push(Insn::stx(DW, base, off, R0));
            }
        }
        Ok(())
    }

    /// Takes a place for each distinct `this->` variable of `vars` (by name and
    /// representation), zeroed if `zero`: integers on the stack, strings in the scratch space.
    fn take_locals(&mut self, vars: &[Variable], zero: bool) -> Result<Vec<(String, Repr, Buf)>, EmitError> {
        let mut out: Vec<(String, Repr, Buf)> = Vec::new();
        for v in vars {
            if out.iter().any(|(n, r, _)| *n == v.name && *r == v.repr) {
                continue;
            }
            let at = match v.repr {
                Repr::Str(n) | Repr::Object(n) => Buf::Scratch(self.scratch(n as usize)?),
                // A user symbol's two words, kept as a struct's bytes are.
                r @ (Repr::USym(_) | Repr::Buf(_) | Repr::Array(..)) => Buf::Scratch(self.scratch(r.size())?),
                _ => Buf::Stack(self.slot(8)?),
            };
            if zero {
                self.zero_local(at, v.repr);
            }
            out.push((v.name.clone(), v.repr, at));
        }
        Ok(out)
    }

    /// Zeroes the place of a `this->` variable stored as `repr`.
    fn zero_local(&mut self, at: Buf, repr: Repr) {
        match (at, repr) {
            (at, Repr::Str(n) | Repr::Object(n)) => self.zero_buf(at, n),
            (at, r @ (Repr::USym(_) | Repr::Buf(_) | Repr::Array(..))) => self.zero_buf(at, r.size() as u32),
            (Buf::Stack(off), _) => self.push(Insn::st_imm(DW, R10, off, 0)),
            _ => {}
        }
    }

    /// Where the program keeps `this->` variable `v` for every clause.
    /// `own`: only this clause uses it, and zeroes it when it starts.
    fn shared_local(&self, v: &Variable) -> Result<(Buf, Repr, bool), EmitError> {
        self.shared_locals.iter().find(|(n, r, _, _)| *n == v.name && *r == v.repr).map(|(_, r, b, own)| (*b, *r, *own)).ok_or_else(|| self.err(format!("internal: no place for this->{}", v.name)))
    }

    /// Where clause-local `l` is.
    fn local(&self, l: usize) -> Result<Buf, EmitError> {
        self.locals.get(l).map(|x| x.0).ok_or_else(|| self.err(format!("internal: no clause-local {l}")))
    }

    /// Looks up this CPU's scratch space once, for the whole program, and keeps the pointer
    /// at [`frame::SCRATCH_POINTER`] (the verifier follows it there). A program that
    /// interrupts another on this CPU (in an interrupt or NMI) takes the next element, so
    /// neither sees the other's bytes: the CPU's depth count, kept until
    /// [`Emitter::leave_scratch_level`], says which.
    fn scratch_prologue(&mut self) -> Result<(), EmitError> {
        let (counted, found) = (self.label(), self.label());
        self.push(Insn::st_imm(W, R10, frame::SCRATCH_POINTER, 0));
        self.ld_map(R1, SCRATCH_DEPTH_MAP, 0);
        self.push(Insn::mov(R2, R10));
        self.push(Insn::alu_imm(Alu::Add, R2, frame::SCRATCH_POINTER as i32));
        self.push(Insn::call(helper::MAP_LOOKUP_ELEM));
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), counted);
        self.push(Insn::mov_imm(R0, 0));
        self.push(Insn::exit());
        self.bind(counted);
        self.push(Insn::stx(DW, R10, frame::SCRATCH_DEPTH_POINTER, R0));
        self.push(Insn::mov_imm(R1, 1));
        self.push(Insn::atomic_fetch_add(R0, 0, R1));
        // Nested deeper than the levels (or the lookup failing, which it cannot): the
        // program gives its level back and does nothing.
        self.jump(Insn::jmp_imm(Cond::Ge, R1, SCRATCH_LEVELS as i32, 0), found);
        self.push(Insn::stx(W, R10, frame::SCRATCH_POINTER, R1));
        self.ld_map(R1, SCRATCH_MAP, 0);
        self.push(Insn::mov(R2, R10));
        self.push(Insn::alu_imm(Alu::Add, R2, frame::SCRATCH_POINTER as i32));
        self.push(Insn::call(helper::MAP_LOOKUP_ELEM));
        let ok = self.label();
        self.jump(Insn::jmp_imm(Cond::Ne, R0, 0, 0), ok);
        self.bind(found);
        self.leave_scratch_level();
        self.push(Insn::mov_imm(R0, 0));
        self.push(Insn::exit());
        self.bind(ok);
        self.push(Insn::stx(DW, R10, frame::SCRATCH_POINTER, R0));
        Ok(())
    }

    /// The program's end: gives its scratch level back.
    fn leave_scratch_level(&mut self) {
        self.push(Insn::ldx(DW, R1, R10, frame::SCRATCH_DEPTH_POINTER));
        self.push(Insn::mov_imm(R2, -1));
        self.push(Insn::atomic_add(R1, 0, R2));
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

    /// Issue 6: a program the kernel would refuse for its size is a compile-time error on
    /// the clause that made it too large, not a verifier "bug" with an empty log.
    #[test]
    fn programs_over_the_kernel_limit_are_refused_at_their_clause() {
        let body = "x = x + 1; ".repeat(3000);
        let mut p = crumbs_lang::compile(&format!("syscall:::entry {{ {body} }}"), &CheckOptions::default()).unwrap();
        let one = emit_program(&p, &p.groups[0], &Target::default()).unwrap().insns.len();
        let copies = MAX_INSNS / one + 1;
        let clause = p.groups[0].clauses[0].clone();
        p.groups[0].clauses = (0..copies).map(|i| Clause { index: i, ..clause.clone() }).collect();
        let e = emit_program(&p, &p.groups[0], &Target::default()).unwrap_err();
        assert_eq!(e.clause, Some(copies - 1), "{}", e.message);
        assert!(e.message.contains("limit of 1000000"), "{}", e.message);
    }

    /// A clause longer than a jump reaches is refused, not given a wrapped jump offset.
    #[test]
    fn clauses_longer_than_a_jump_are_refused() {
        let body = "x = x + 1; ".repeat(5000);
        let p = crumbs_lang::compile(&format!("syscall::read:entry /pid == 1/ {{ {body} }}"), &CheckOptions::default()).unwrap();
        let e = emit_program(&p, &p.groups[0], &Target::default()).unwrap_err();
        assert_eq!(e.clause, Some(0));
        assert!(e.message.contains("more than a BPF jump reaches"), "{}", e.message);
    }

    /// Each operand of `timestamp + (timestamp + (...))` holds a stack slot while the next
    /// is computed: `depth` of them take 8 * depth bytes, given back when the statement ends.
    fn nested_sum(depth: usize) -> String {
        format!("{}timestamp{}", "timestamp + (".repeat(depth), ")".repeat(depth))
    }

    #[test]
    fn stack_slots_are_given_back_after_each_statement() {
        let stmt = format!("x = {}; ", nested_sum(60));
        let p = crumbs_lang::compile(&format!("syscall:::entry {{ {} }}", stmt.repeat(20)), &CheckOptions::default()).unwrap();
        let code = emit_program(&p, &p.groups[0], &Target::default()).unwrap();
        let deepest = code.insns.iter().filter(|i| i.dst == R10 || i.src == R10).map(|i| i.off).min();
        assert_eq!(deepest, Some(-8 - 8 * 60));
    }

    #[test]
    fn a_clause_over_the_stack_limit_is_refused() {
        let p = crumbs_lang::compile(&format!("BEGIN {{ x = 1; }} syscall:::entry {{ x = {}; }}", nested_sum(70)), &CheckOptions::default()).unwrap();
        let g = p.groups.iter().find(|g| g.attach == AttachPoint::SyscallEntry).unwrap();
        let e = emit_program(&p, g, &Target::default()).unwrap_err();
        assert_eq!(e.clause, Some(1));
        assert_eq!(e.message, "this clause needs more than the 512 bytes of BPF stack; split it into several clauses");
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
        // This CPU's table, and the drop counters (only when the key finds no slot).
        let maps: Vec<&str> = code[0].map_refs.iter().map(|m| m.map.as_str()).collect();
        assert_eq!(maps, ["agg0", "drops"], "{text}");
        assert_eq!(text.matches("call bpf_map_lookup_elem").count(), 2, "{text}");
        assert_eq!(text.matches("call bpf_get_current_comm").count(), 0, "{text}");
        assert_eq!(code[0].insns.last().unwrap().code, JMP | EXIT);
    }

    /// The first probe loop (target..=the backward jump on r4, the probes left), if any.
    fn probe_loop(insns: &[Insn]) -> Option<&[Insn]> {
        let (at, j) = insns.iter().enumerate().find(|(_, i)| i.is_jump() && i.off < 0 && i.dst == R4)?;
        Some(&insns[(at as i64 + 1 + j.off as i64) as usize..=at])
    }

    #[test]
    fn a_new_key_is_claimed_by_compare_and_exchange_without_helpers_in_the_probe_loop() {
        let (_, code) = compile("syscall:::entry { @[timestamp, execname] = sum(arg0); }");
        let insns = &code[0].insns;
        let text = disassemble(insns);
        let body = probe_loop(insns).unwrap_or_else(|| panic!("no probe loop\n{text}"));
        assert!(!body.iter().any(|i| i.code == JMP | CALL), "{text}");
        // one probe: 3 words compared (timestamp, then the 16-byte name), then the counter
        assert!(body.len() < 30, "{} instructions\n{text}", body.len());
        assert_eq!(text.matches("= cmpxchg(").count(), 1, "{text}");
        assert!(text.contains(&format!("if r4 != 0 goto -{}", body.len())), "{text}");
    }

    /// Once exit() runs, no clause but END's runs: each checks the flag first, and a program
    /// without exit() checks nothing.
    #[test]
    fn clauses_check_the_exit_flag_only_where_exit_is_used() {
        let globals = |c: &ProgramCode| c.map_refs.iter().filter(|m| m.map == GLOBALS_SYMBOL).count();
        let (_, code) = compile("syscall::read:entry { @ = count(); } END { @e = count(); }");
        assert!(code.iter().all(|c| globals(c) == 0));
        let (p, code) = compile("syscall::read:entry { @ = count(); } syscall::read:entry { exit(0); } END { @e = count(); }");
        assert_eq!(exit_flag_offset(&p), Some(0));
        let [read, end] = [AttachPoint::SyscallEntry, AttachPoint::End].map(|a| code.iter().find(|c| c.attach == a).unwrap());
        // Two checks and the store after the exit record.
        assert_eq!(globals(read), 3, "{}", disassemble(&read.insns));
        assert_eq!(globals(end), 0, "{}", disassemble(&end.insns));
    }

    #[test]
    fn a_keyless_aggregation_has_one_slot_and_no_loop() {
        let (_, code) = compile("syscall:::entry { @ = count(); @m = max(arg0); }");
        assert!(probe_loop(&code[0].insns).is_none(), "{}", disassemble(&code[0].insns));
    }

    #[test]
    fn every_drop_is_an_atomic_add_to_this_cpus_counter() {
        let (_, code) = compile("syscall:::entry { self->t = timestamp; self->s = speculation(); @[stack()] = count(); printf(\"%d\\n\", 1); }");
        let text = disassemble(&code[0].insns);
        let drops = code[0].map_refs.iter().filter(|m| m.map == DROPS_MAP).count();
        // a record, the two thread-local stores, the failed speculation, the stack and the
        // aggregation
        assert_eq!(drops, 6, "{text}");
        let counted = |text: &str, kind: DropKind| text.contains(&format!("lock *(u64 *)(r0 +{}) += r1", kind.offset()));
        for kind in DropKind::ALL.into_iter().filter(|k| *k != DropKind::DeclaredMap) {
            assert!(counted(&text, kind), "{kind:?}\n{text}");
        }
        // the generation counter and the one speculation's word, and no exit flag
        assert_eq!(code[0].map_refs.iter().filter(|m| m.map == GLOBALS_SYMBOL).count(), 2, "{text}");
        // A bpftrace map declared with its size counts its own.
        let (_, code) = compile("let @h = hash(2); BEGIN { @h[1] = 1; }");
        let text = disassemble(&code[0].insns);
        assert!(counted(&text, DropKind::DeclaredMap) && !counted(&text, DropKind::DynamicVariable), "{text}");
    }

    #[test]
    fn comm_compare_reads_the_name_once_and_compares_words() {
        let (_, code) = compile("syscall:::entry /execname == \"cat\"/ { @ = count(); }");
        let text = disassemble(&code[0].insns);
        assert_eq!(text.matches("call bpf_get_current_comm").count(), 1, "{text}");
        // the name buffer is zeroed first: kernels before 6.2 do not pad it
        let call = text.find("call bpf_get_current_comm").unwrap();
        assert!(text[..call].matches("= 0\n").count() >= 2, "{text}");
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
    fn return_programs_read_the_syscall_number_only_when_needed() {
        let reads = |src: &str| disassemble(&compile(src).1[0].insns).contains("call bpf_probe_read_kernel");
        assert!(!reads("syscall:::return { @[execname] = count(); }"));
        assert!(!reads("syscall:::return /errno != 0/ { @ = sum(arg0); }"));
        assert!(reads("syscall::read:return { @ = count(); }"));
        assert!(reads("syscall:::return { @[probefunc] = count(); }"));
        assert!(reads("syscall:::return /probefunc == \"read\"/ { @ = count(); }"));
        assert!(reads("syscall:::return { trace(1); }"));
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
