//! An output action that sends its own record when it runs (a clause that prints inside a
//! loop: spec §13.3). The record is built in the scratch space and copied into the ring
//! buffer whole (bpf_ringbuf_output), so a fault while its values are computed leaves
//! nothing reserved behind; r8 points at it while it is built, as at the clause's record.

use super::*;

impl Emitter<'_> {
    pub(super) fn send(&mut self, rid: usize, args: &[Expr]) -> Result<(), EmitError> {
        let rec = &self.p.records[rid];
        let layout = self.record_layout(rid);
        let reprs = rec.items[0].arg_reprs();
        let exits = matches!(rec.items[0], Item::Exit);
        self.check_record_size(layout.size)?;
        self.scoped(|e| {
            let at = e.scratch(layout.size)?;
            e.buf_addr(R8, Buf::Scratch(at));
            e.record_header(rid)?;
            for ((a, off), r) in args.iter().zip(&layout.offsets[0]).zip(reprs) {
                e.store_value(a, r, Buf::Record(*off as i16))?;
            }
            if e.pinned_iterator() {
                return e.seq_printf(rid, 0);
            }
            e.ld_map(R1, EVENTS_MAP, 0);
            e.push(Insn::mov(R2, R8));
            e.push(Insn::mov_imm(R3, layout.size as i32));
            e.push(Insn::mov_imm(R4, 0));
            e.push(Insn::call(helper::RINGBUF_OUTPUT));
            let (dropped, done) = (e.label(), e.label());
            e.jump(Insn::jmp_imm(Cond::Slt, R0, 0, 0), dropped);
            // exit() takes effect once its record is sure to reach user space.
            if let (true, Some(flag)) = (exits, e.exit_flag) {
                e.ld_map(R1, GLOBALS_SYMBOL, flag);
                e.push(Insn::st_imm(DW, R1, 0, 1));
            }
            e.goto(done);
            e.bind(dropped);
            e.count_drop(DropKind::Record)?;
            e.bind(done);
            Ok(())
        })
    }
}
