//! Statements after a `return`, `break` or `continue` (bpftrace's, or the return that ends a
//! run at bpftrace's `exit()`) never run; they are checked but not kept, since the kernel's
//! verifier refuses a program with code no path reaches.

use crate::ir::Stmt;

/// Drops every statement of `body`, and of the blocks in it, that follows one that always
/// jumps away. An `if` whose `then` always jumps has its `else` after it instead (the jump
/// over the `else` at the end of `then` would be code no path reaches).
pub(super) fn drop_unreachable(body: &mut Vec<Stmt>) {
    for s in std::mem::take(body) {
        match s {
            Stmt::If { cond, mut then, mut els } => {
                drop_unreachable(&mut then);
                drop_unreachable(&mut els);
                if then.last().is_some_and(always_jumps) && !els.is_empty() {
                    body.push(Stmt::If { cond, then, els: Vec::new() });
                    body.extend(els);
                } else {
                    body.push(Stmt::If { cond, then, els });
                }
            }
            Stmt::While { cond, body: mut inner } => {
                drop_unreachable(&mut inner);
                body.push(Stmt::While { cond, body: inner });
            }
            Stmt::ForMap { array, keys, value, body: mut inner } => {
                drop_unreachable(&mut inner);
                body.push(Stmt::ForMap { array, keys, value, body: inner });
            }
            s => body.push(s),
        }
    }
    if let Some(i) = body.iter().position(always_jumps) {
        body.truncate(i + 1);
    }
}

/// Whether `s` never lets the statement after it run.
fn always_jumps(s: &Stmt) -> bool {
    match s {
        Stmt::Return | Stmt::Break | Stmt::Continue => true,
        Stmt::If { then, els, .. } => then.last().is_some_and(always_jumps) && els.last().is_some_and(always_jumps),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::check::CheckOptions;
    use crate::dialect::Dialect;
    use crate::ir::Stmt;

    fn body(src: &str) -> Vec<Stmt> {
        let p = crate::compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() }).unwrap_or_else(|d| panic!("{}", d.message));
        p.groups[0].clauses[0].body.clone()
    }

    #[test]
    fn nothing_after_a_jump_is_kept() {
        // exit() ends the run: the printf after it is gone, the one before kept.
        let b = body(r#"BEGIN { printf("a\n"); exit(); printf("b\n"); }"#);
        assert!(matches!(b.last(), Some(Stmt::Return)), "{b:?}");
        assert_eq!(b.iter().filter(|s| matches!(s, Stmt::Emit { .. })).count(), 2, "{b:?}");
        // Both branches return: what follows the if is gone (the else follows the if, whose
        // then ends in a jump); one branch: kept.
        let b = body(r#"BEGIN { if (pid > 1) { return; } else { exit(); } printf("b\n"); }"#);
        assert!(matches!(b.last(), Some(Stmt::Return)), "{b:?}");
        assert!(matches!(b.iter().find(|s| matches!(s, Stmt::If { .. })), Some(Stmt::If { els, .. }) if els.is_empty()), "{b:?}");
        let b = body(r#"BEGIN { if (pid > 1) { return; } printf("b\n"); }"#);
        assert!(matches!(b.last(), Some(Stmt::Emit { .. })), "{b:?}");
        // In a loop's body.
        let b = body(r#"BEGIN { $i = 0; while ($i < 3) { $i++; continue; printf("x\n"); } }"#);
        let Some(Stmt::While { body, .. }) = b.iter().find(|s| matches!(s, Stmt::While { .. })) else { panic!("{b:?}") };
        assert!(matches!(body.last(), Some(Stmt::Continue)), "{body:?}");
    }

    #[test]
    fn what_follows_a_jump_is_still_checked() {
        let e = crate::compile(r#"BEGIN { return; printf("%d\n", "s"); }"#, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() }).unwrap_err();
        assert!(e.message.contains("%d"), "{}", e.message);
    }
}
