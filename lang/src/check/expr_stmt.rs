//! bpftrace's expression statements. An action's call runs; any other expression (a
//! variable, a builtin, a subroutine's call such as `has_key(@m, 1);`) is evaluated for its
//! effects alone and prints nothing, as bpftrace does (D traces its value); and
//! `c ? print(a) : print(b);` runs the action of the branch taken, as bpftrace 0.17 does.

use super::*;

impl Checker<'_> {
    pub(super) fn bpftrace_expr_stmt(&mut self, e: &ast::Expr, body: &mut Vec<Stmt>, items: &mut Vec<Item>) -> Result<(), Diagnostic> {
        let is_call = |e: &ast::Expr| matches!(e.kind, ExprKind::Call(..));
        match &e.kind {
            ExprKind::Ternary(c, a, b) if is_call(a) || is_call(b) => {
                let stmt = ast::Stmt::If { cond: (**c).clone(), then: vec![ast::Stmt::Expr((**a).clone())], els: Some(vec![ast::Stmt::Expr((**b).clone())]), span: e.span.clone() };
                return self.stmt(&stmt, body, items);
            }
            ExprKind::Call(name, args) if builtins::function(&name.name, self.dialect()).is_none_or(|f| f.kind != FnKind::Subroutine) => {
                return self.action(name, args, &e.span, body, items);
            }
            _ => {}
        }
        let v = self.value(e)?.expr;
        if v.has_effects() {
            // Evaluated for what it assigns (find()'s variable): a test with empty branches.
            let cond = match v {
                Expr::Str(s) => Expr::Strlen(s),
                v => v,
            };
            body.push(Stmt::If { cond, then: Vec::new(), els: Vec::new() });
        }
        Ok(())
    }
}
