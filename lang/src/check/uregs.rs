//! `uregs[N]`: the current thread's user registers (stdlib/regs.d names the indices).

use super::*;

/// uregs[]'s last index: R_TRAPNO (stdlib/regs.d).
const UREGS_LAST: i64 = 25;

impl Checker<'_> {
    /// `uregs[N]`: the current thread's user register N (stdlib/regs.d names them: R_PC,
    /// R_SP, ...), N a constant as DTrace's code generator needs it.
    pub(super) fn user_register(&mut self, index: &ast::Expr) -> Result<Expr, Diagnostic> {
        let v = self.value(index)?.expr;
        let Expr::Int(n) = v else {
            return Err(Diagnostic::new(index.span.clone(), "uregs[] takes a constant index")
                .label("not a constant")
                .hint("name the register: uregs[R_PC], uregs[R_SP], uregs[R_RAX] (or a number from 0 to 25)"));
        };
        if !(0..=UREGS_LAST).contains(&n) {
            return Err(Diagnostic::new(index.span.clone(), format!("uregs[] has no register {n}"))
                .label("out of range")
                .hint(format!("x86-64's are 0 (R_R15) to {UREGS_LAST} (R_TRAPNO)")));
        }
        Ok(Expr::IntCall { f: crate::ir::IntFn::UserReg(n as u8), args: Vec::new() })
    }
}
