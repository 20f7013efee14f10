//! The callbacks every program shares (one copy each in `.text`): their names, prototypes
//! and code.

use super::chill::SPIN_READS;
use super::*;
use crate::abi::Callback;
use crate::btf::FuncKind;

impl Callback {
    /// Its name in the ELF (a C identifier: BTF names it).
    pub fn name(self) -> &'static str {
        match self {
            Callback::ChillSpin => "crumbs_chill_spin",
            Callback::CountElement => "crumbs_count_element",
        }
    }

    /// What it is called by (its prototype).
    pub fn kind(self) -> FuncKind {
        match self {
            Callback::ChillSpin => FuncKind::Loop,
            Callback::CountElement => FuncKind::MapElem,
        }
    }

    /// Its code: `long f(u32 index, void *ctx)`, returning 1 to stop bpf_loop;
    /// `long f(map, key, value, ctx)`, returning 1 to stop bpf_for_each_map_elem.
    pub fn code(self) -> Vec<Insn> {
        match self {
            Callback::ChillSpin => {
                // ctx points at the end time, on the caller's stack.
                let mut code = vec![Insn::ldx(DW, R6, R2, 0)];
                for i in 0..SPIN_READS {
                    code.push(Insn::call(helper::KTIME_GET_NS));
                    // To the `r0 = 1` after the `r0 = 0; exit` that follows the reads.
                    let left = (SPIN_READS - 1 - i) * 2 + 2;
                    code.push(Insn::jmp_reg(Cond::Ge, R0, R6, left as i16));
                }
                code.extend([Insn::mov_imm(R0, 0), Insn::exit(), Insn::mov_imm(R0, 1), Insn::exit()]);
                code
            }
            Callback::CountElement => vec![Insn::mov_imm(R0, 0), Insn::exit()],
        }
    }
}

