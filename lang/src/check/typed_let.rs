//! bpftrace's typed `let`: `let $a: uint16 = 5;`, `let $s: string;`, `let $p: struct file *;`.
//! The declaration gives the scratch variable its type before anything is stored in it; the
//! value (zero, or "", when none is given) is then stored as into any variable of that type,
//! converted to it (an integer truncated to the declared width). As bpftrace's cast creator
//! does, an integer literal that does not fit the declared type is refused rather than
//! truncated, in this assignment and every later one.

use super::*;
use crate::ast::TypeName;
use crate::types::Type;
use vars::VarRef;

impl Checker<'_> {
    /// `let $var: ty [= value];`: the statements that store its first value.
    pub(super) fn declare_scratch(&mut self, var: &ast::Ident, ty: &TypeName, value: Option<&ast::Expr>, span: &Span) -> Result<Vec<Stmt>, Diagnostic> {
        let t = match &ty.base {
            // `let $t: typeof($s)`: the expression's type, a string's too.
            ast::BaseType::TypeOf(_) if ty.pointers == 0 => {
                let t = self.type_of_name(ty)?;
                match self.types.real(t).map_err(|e| ctypes::no_types(&ty.span, e))? {
                    Type::String { .. } => t,
                    _ => self.variable_type(ty)?,
                }
            }
            _ => self.variable_type(ty)?,
        };
        let l = match self.clause_locals.iter().position(|n| n == &var.name) {
            // Declared again with its own type (a branch of its own, or an unrolled loop's
            // copies: crumbs' scratch variables are the clause's, bpftrace's the block's).
            Some(l) if self.var_types.get(&VarRef::Clause(l)).is_none_or(|had| self.types.name(*had) == self.types.name(t)) => l,
            Some(l) => {
                let had = self.types.name(self.var_types[&VarRef::Clause(l)]);
                return Err(Diagnostic::new(var.span.clone(), format!("Variable {} was already declared. Variable shadowing is not allowed.", var.name))
                    .label(format!("already `{had}` in this clause"))
                    .hint("a scratch variable keeps one type in its clause: give this one another name"));
            }
            None => {
                self.clause_locals.push(var.name.clone());
                self.clause_locals.len() - 1
            }
        };
        // `let $s: string[64]`: its size, which no string stored in it may exceed.
        if let Some(n) = postfix_types::string_size(ty) {
            match self.declared_str_sizes.get(&l) {
                Some(had) if *had != n => {
                    return Err(Diagnostic::new(var.span.clone(), format!("Variable {} was already declared. Variable shadowing is not allowed.", var.name))
                        .label(format!("already `string[{had}]` in this clause"))
                        .hint("a scratch variable keeps one type in its clause: give this one another name"));
                }
                _ => self.declared_str_sizes.insert(l, n),
            };
        }
        self.var_types.insert(VarRef::Clause(l), t);
        if !self.declared_scratch.contains(&l) {
            self.declared_scratch.push(l);
        }
        let zero;
        let value = match value {
            Some(v) => v,
            None => {
                let kind = match self.types.real(t).map_err(|e| ctypes::no_types(&ty.span, e))? {
                    Type::String { .. } => ExprKind::Str(ast::StrLit { value: String::new(), origin: vec![var.span.end as u32] }),
                    r if r.is_scalar() => ExprKind::Int(0, crate::types::IntType { name: "int".into(), size: 4, signed: true, char: false, bool: false }),
                    // An array is zeroed where the `let` runs (in a loop, at each pass).
                    Type::Array { .. } => return self.zeroed(l, t, &ty.span),
                    // A struct or union variable starts zeroed, as a declared D variable does
                    // (once: a `let` in a loop does not zero it again, spec §13.3).
                    _ => return Ok(Vec::new()),
                };
                zero = ast::Expr { kind, span: span.clone() };
                &zero
            }
        };
        // `let $b: bool = 5;` is true: converted as a cast to bool converts.
        let as_bool;
        let value = match self.types.real(t) {
            Ok(Type::Int(i)) if i.bool && const_int(value).is_none_or(|n| n != 0 && n != 1) => {
                as_bool = ast::Expr { kind: ExprKind::Cast(ty.clone(), Box::new(value.clone())), span: value.span.clone() };
                &as_bool
            }
            _ => value,
        };
        self.assign(&ast::LValue::ClauseLocal(var.clone(), var.span.clone()), None, Some(value), 0, span)
    }

    /// The statements that zero array variable `l` of type `t`, 8 bytes at a time.
    fn zeroed(&mut self, l: usize, t: crate::types::TypeId, span: &Span) -> Result<Vec<Stmt>, Diagnostic> {
        let size = self.sized(t, span)? as u32;
        let mut out = Vec::new();
        let mut at = 0;
        while at < size {
            let n = [8u32, 4, 2, 1].into_iter().find(|n| at + n <= size).expect("1 fits");
            out.push(Stmt::SetMember { var: StrVar::Clause(l), offset: at, field: crate::ir::Field::Int(n as u8), value: Expr::Int(0) });
            at += n;
        }
        Ok(out)
    }

    /// Storing `value` into scratch variable `l` declared with a type: an integer literal
    /// must fit it (`let $a: uint16 = -1;` is bpftrace's error; `(uint16)-1` truncates), and
    /// a string one declared `string[N]` (a literal, `comm`, or a string of the string size).
    pub(super) fn declared_literal_fits(&mut self, l: usize, name: &str, value: &ast::Expr) -> Result<(), Diagnostic> {
        if !self.declared_scratch.contains(&l) {
            return Ok(());
        }
        if let Some(n) = self.declared_str_sizes.get(&l).copied() {
            let size = match &value.kind {
                ExprKind::Str(s) => s.value.len() as u32 + 1,
                ExprKind::Ident(c) if c == "comm" => 16,
                ExprKind::Call(f, _) if f.name == "str" => self.strsize,
                ExprKind::ClauseLocal(v) => match self.clause_locals.iter().position(|x| x == v) {
                    Some(k) if self.declared_str_sizes.contains_key(&k) => self.declared_str_sizes[&k],
                    Some(k) if self.holds_strings(VarRef::Clause(k)) => self.strsize,
                    _ => 0,
                },
                _ => 0,
            };
            if size > n {
                return Err(Diagnostic::new(value.span.clone(), format!("Type mismatch for {name}: trying to assign value of type 'string[{size}]' when variable already has a type 'string[{n}]'"))
                    .label(format!("longer than {n} bytes"))
                    .hint(format!("a variable declared string[{n}] holds strings of at most {} characters; keep part of one with substr(s, 0, {})", n - 1, n - 1)));
            }
            return Ok(());
        }
        let Some(n) = const_int(value) else { return Ok(()) };
        let Some(t) = self.var_types.get(&VarRef::Clause(l)).copied() else { return Ok(()) };
        let Ok(Type::Int(it)) = self.types.real(t) else { return Ok(()) };
        // A literal past i64's range is kept as its 64 bits, typed unsigned.
        let huge = matches!(&value.kind, ExprKind::Int(v, lt) if *v < 0 && !lt.signed);
        let bits = 8 * it.size as u32;
        let fits = match (huge, it.signed) {
            (true, signed) => !signed && bits == 64,
            (false, true) => bits == 64 || (-(1i64 << (bits - 1))..1i64 << (bits - 1)).contains(&n),
            (false, false) => n >= 0 && (bits == 64 || n < 1i64 << bits),
        };
        if fits {
            return Ok(());
        }
        let declared = bpftrace_int_name(it.size, it.signed);
        Err(Diagnostic::new(value.span.clone(), format!("Type mismatch for {name}: trying to assign value of type '{}' when variable already has a type '{declared}'", literal_type_name(n, huge)))
            .label(format!("does not fit in `{declared}`"))
            .hint(format!("an integer literal must fit the variable's declared type; cast it to keep its low bits: `({declared})...`")))
    }
}

/// bpftrace's name of an integer type: `uint16`, `int64`.
fn bpftrace_int_name(size: u8, signed: bool) -> String {
    format!("{}int{}", if signed { "" } else { "u" }, 8 * size as u32)
}

/// The type bpftrace gives an integer literal: the smallest signed type that holds it, or
/// `uint64` past `int64`.
fn literal_type_name(n: i64, huge: bool) -> String {
    if huge {
        return "uint64".into();
    }
    let size = [1u8, 2, 4].into_iter().find(|s| (-(1i64 << (8 * *s as u32 - 1))..1i64 << (8 * *s as u32 - 1)).contains(&n)).unwrap_or(8);
    bpftrace_int_name(size, true)
}
