//! bpftrace's `cgroup_path(id [, filter])`: a cgroup id, named in user space when it is
//! printed (runtime/src/output/cgroup_paths.rs), as the paths of that cgroup in the mounted
//! hierarchies whose names match `filter` (a string literal; `*` if not given).

use super::*;
use crate::types::TypeId;

/// The filter bpftrace uses when none is given: every hierarchy.
const EVERY_HIERARCHY: &str = "*";

impl Checker<'_> {
    pub(super) fn cgroup_path(&mut self, f: &builtins::BuiltinFn, args: &[ast::Expr], span: &Span, string: TypeId) -> Result<TExpr, Diagnostic> {
        check_arity(f, args, span)?;
        let id = self.int_expr(&args[0], "cgroup_path()'s cgroup id")?;
        let filter = match args.get(1) {
            None => EVERY_HIERARCHY.to_string(),
            Some(ast::Expr { kind: ExprKind::Str(s), span }) if s.value.is_empty() => {
                return Err(Diagnostic::new(span.clone(), "cgroup_path()'s filter is empty")
                    .label("matches no hierarchy")
                    .hint("name hierarchies as they print (\"unified\" for cgroup v2, \"memory\", ...), `*` a wildcard: cgroup_path(cgroup, \"unified\")"));
            }
            Some(ast::Expr { kind: ExprKind::Str(s), .. }) => s.value.clone(),
            Some(a) => {
                return Err(Diagnostic::new(a.span.clone(), "cgroup_path() takes its filter as a string literal")
                    .label("not a string literal")
                    .hint("the hierarchies are chosen when the program is compiled: cgroup_path(cgroup, \"unified\")"));
            }
        };
        let filter = self.strings.intern(&filter) as u32;
        Ok(TExpr::new(Expr::Named(crate::ir::NameOf::CgroupPath(filter), Box::new(id)), string))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Expr, NameOf, Node};
    use crate::check::CheckOptions;

    fn compile(src: &str) -> Result<crate::ir::Program, crate::diag::Diagnostic> {
        crate::compile(src, &CheckOptions { dialect: Some(crate::dialect::Dialect::Bpftrace), ..Default::default() })
    }

    /// The filters the program's cgroup_path() calls name, in order.
    fn filters(p: &crate::ir::Program) -> Vec<String> {
        let mut out = Vec::new();
        for c in p.groups.iter().flat_map(|g| &g.clauses) {
            c.any(&mut |n| {
                if let Node::Expr(Expr::Named(NameOf::CgroupPath(f), _)) = n {
                    out.push(p.strings.resolve(*f as u64));
                }
                false
            });
        }
        out
    }

    #[test]
    fn the_filter_is_every_hierarchy_unless_a_literal_names_some() {
        let p = compile("BEGIN { printf(\"%s\\n\", cgroup_path(cgroup)); @[cgroup_path(1, \"uni*\")] = count(); }").unwrap();
        assert_eq!(filters(&p), ["*", "uni*"]);
    }

    #[test]
    fn bad_arguments_are_errors_with_a_hint() {
        for (src, message) in [
            ("BEGIN { print(cgroup_path(1, \"\")); }", "cgroup_path()'s filter is empty"),
            ("BEGIN { $f = \"unified\"; print(cgroup_path(1, $f)); }", "cgroup_path() takes its filter as a string literal"),
            ("BEGIN { print(cgroup_path(1, \"a\", 2)); }", "cgroup_path() takes 1 or 2 arguments, but 3 given"),
            ("BEGIN { print(cgroup_path()); }", "cgroup_path() takes 1 or 2 arguments, but 0 given"),
        ] {
            let d = compile(src).unwrap_err();
            assert_eq!(d.message, message, "{src}");
            assert!(d.hint.is_some(), "{src}");
        }
        let d = compile("BEGIN { print(cgroup_path(\"x\")); }").unwrap_err();
        assert!(d.message.contains("cgroup id"), "{}", d.message);
        let d = compile("BEGIN { $c = cgroup_path(1, \"unified\"); $c = cgroup_path(2); }").unwrap_err();
        assert_eq!(d.message, "`$c` holds cgroup_path()s filtered by \"unified\", but this one is filtered by \"*\"");
        // A cgroup path is printed, not compared.
        assert!(compile("BEGIN { if (cgroup_path(1) == \"/\") { exit(); } }").is_err());
    }
}
