//! The abstract syntax tree, exactly as written, with byte spans into the source.

use std::ops::Range;

pub type Span = Range<usize>;

#[derive(Clone, Debug)]
pub struct Program {
    pub pragmas: Vec<Pragma>,
    /// Type declarations, in program order.
    pub decls: Vec<Decl>,
    pub clauses: Vec<Clause>,
    /// bpftrace's `config = { name = value; ... }` block's settings, in order.
    pub config: Vec<ConfigEntry>,
    /// bpftrace's `macro name(params) { body }` definitions, in order (expanded into their
    /// calls by [`crate::macros`] before checking).
    pub macros: Vec<MacroDef>,
    /// bpftrace's `let @name = kind(max_entries);` map declarations, in order.
    pub map_decls: Vec<MapDecl>,
    /// Each bpftrace map whose keys nest tuples or records (`@m[1, (2, 3)]`), by name
    /// without `@`: the paths of its scalar keys, in order (`.0`, `.1.0`, `.1.1`), found by
    /// [`crate::tuples::lower`]; printed nested.
    pub key_paths: std::collections::BTreeMap<String, Vec<String>>,
}

/// bpftrace's `let @name = kind(max_entries);`: which BPF map type holds map `@name` and how
/// many elements it may have.
#[derive(Clone, Debug)]
pub struct MapDecl {
    /// The name without `@` ("" for `@`).
    pub name: String,
    pub name_span: Span,
    pub kind: Ident,
    pub max_entries: u64,
    pub max_entries_span: Span,
}

/// `name = value` in bpftrace's config block.
#[derive(Clone, Debug)]
pub struct ConfigEntry {
    pub name: Ident,
    pub value: ConfigValue,
    pub value_span: Span,
    pub span: Span,
}

/// A config variable's value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigValue {
    Int(u64),
    Bool(bool),
    Str(String),
    /// A bare name: `perf`, `warn`.
    Name(String),
}

/// bpftrace's `macro name(params) { body }`.
#[derive(Clone, Debug)]
pub struct MacroDef {
    pub name: Ident,
    pub params: Vec<MacroParam>,
    /// The statements before the value (all of them when there is no value).
    pub body: Vec<Stmt>,
    /// The final expression written without `;`: the macro's value.
    pub value: Option<Expr>,
    pub span: Span,
}

/// A macro's parameter: what its argument must be.
#[derive(Clone, Debug)]
pub enum MacroParam {
    /// `$x`: a scratch variable, which the body may change.
    Var(Ident),
    /// `@m`: a map, which the body may change.
    Map(Ident),
    /// `x`: any expression, put where the body names `x`.
    Expr(Ident),
}

impl MacroParam {
    /// The parameter as written (`$x`, `@m`, `x`).
    pub fn ident(&self) -> &Ident {
        match self {
            MacroParam::Var(i) | MacroParam::Map(i) | MacroParam::Expr(i) => i,
        }
    }
}

/// A C type declaration of the script: `struct s { int a; char b[4]; };`,
/// `enum e { A, B = 5 };`, `typedef unsigned long ulong_t;`.
#[derive(Clone, Debug)]
pub enum Decl {
    Record { union: bool, name: Ident, members: Vec<MemberDecl>, span: Span },
    /// `struct s;`: a struct or union named before it is defined.
    Forward { union: bool, name: Ident },
    Enum { name: Option<Ident>, values: Vec<(Ident, Option<Expr>)>, span: Span },
    Typedef { ty: TypeName, name: Ident, len: Option<u32>, span: Span },
    /// `[self|this] TYPE NAME[KEYS];`: a variable declared with its type (an associative
    /// array when `keys` is given, a scalar array of `len` elements for `TYPE NAME[len];`).
    Var { scope: Scope, ty: TypeName, name: Ident, keys: Option<Vec<TypeName>>, len: Option<u32>, span: Span },
    /// `inline TYPE NAME = EXPR;`.
    Inline { ty: TypeName, name: Ident, value: Expr, span: Span },
    /// `translator TO < FROM PARAM > { MEMBER = EXPR; ... }` (`library`: one of crumbs'
    /// stdlib, whose spans are not in the program's text).
    Translator { to: TypeName, from: TypeName, param: Ident, members: Vec<(Ident, Expr)>, span: Span, library: bool },
}

/// Where a declared variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    /// `self`: one per thread.
    Thread,
    /// `this`: one per clause firing.
    Clause,
}

/// A member of a declared struct or union: `TYPE NAME[LEN] : BITS;`, or a struct or union
/// defined in place, `struct [TAG] { ... } [NAME][LEN];` (without a name, an anonymous
/// member whose members are found as the outer record's, as in C11).
#[derive(Clone, Debug)]
pub struct MemberDecl {
    pub ty: MemberType,
    pub name: Option<Ident>,
    pub len: Option<u32>,
    pub bits: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum MemberType {
    Named(TypeName),
    Record { union: bool, tag: Option<Ident>, members: Vec<MemberDecl>, span: Span },
}

/// `#pragma D option name[=value]`.
#[derive(Clone, Debug)]
pub struct Pragma {
    pub name: String,
    pub value: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Clause {
    pub probes: Vec<ProbeDesc>,
    pub predicate: Option<Expr>,
    /// `None`: no action block, DTrace's default action.
    pub body: Option<Vec<Stmt>>,
    pub span: Span,
    /// From crumbs' stdlib (bookkeeping a stable probe needs): its probes are not counted
    /// among those the program's descriptions matched.
    pub library: bool,
}

/// `provider:module:function:name`, fields right-aligned as DTrace does
/// (`BEGIN` is the name field, `read:entry` function and name).
#[derive(Clone, Debug)]
pub struct ProbeDesc {
    pub text: String,
    pub fields: Vec<String>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Expr(Expr),
    Assign { target: LValue, op: Option<BinOp>, value: Expr, span: Span },
    IncDec { target: LValue, delta: i64, span: Span },
    Aggregate { agg: AggRef, func: Ident, args: Vec<Expr>, span: Span },
    /// `if (cond) then else els`; `else if` is an `If` alone in `els`.
    If { cond: Expr, then: Vec<Stmt>, els: Option<Vec<Stmt>>, span: Span },
    /// `{ ... }` inside an action block.
    Block(Vec<Stmt>),
    /// bpftrace's `while (cond) { body }`.
    While { cond: Expr, body: Vec<Stmt>, span: Span },
    /// bpftrace's `for ($var : ...) { body }`.
    For { var: Ident, iter: ForIter, body: Vec<Stmt>, span: Span },
    /// bpftrace's `break`, `continue` and `return`.
    Jump(Jump, Span),
    /// bpftrace's `let $var: type [= value];`: the scratch variable's type, then its value
    /// (zero, or "", when none is given).
    Declare { var: Ident, ty: TypeName, value: Option<Expr>, span: Span },
}

/// What a bpftrace `for` loop runs over.
#[derive(Clone, Debug)]
pub enum ForIter {
    /// `start..end`: the integers from start up to end (not included), both read once.
    Range(Expr, Expr),
    /// `@map`: its elements, each a tuple of its key (a tuple of the keys if it has several)
    /// and its value.
    Map(AggRef),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    Break,
    Continue,
    Return,
}

#[derive(Clone, Debug)]
pub enum LValue {
    Global(Ident),
    ThreadLocal(Ident, Span),
    ClauseLocal(Ident, Span),
    /// `name[keys]` (global) or `self->name[keys]` (thread-local): an element of an
    /// associative array.
    Element { name: Ident, thread: bool, keys: Vec<Expr>, span: Span },
    /// A member (or a member's element) of a struct variable: `r.position`,
    /// `self->s.inner.x`, `a[k].m`, `v.arr[2]`, as written.
    Member(Box<Expr>),
}

impl LValue {
    /// The whole target as written.
    pub fn span(&self) -> Span {
        match self {
            LValue::Global(i) => i.span.clone(),
            LValue::ThreadLocal(_, s) | LValue::ClauseLocal(_, s) | LValue::Element { span: s, .. } => s.clone(),
            LValue::Member(e) => e.span.clone(),
        }
    }

    /// The target as D writes it, for messages.
    pub fn text(&self) -> String {
        match self {
            LValue::Global(i) => i.name.clone(),
            LValue::ThreadLocal(i, _) => format!("self->{}", i.name),
            LValue::ClauseLocal(i, _) => clause_local_text(&i.name),
            LValue::Element { name, thread: true, .. } => format!("self->{}[...]", name.name),
            // An element's map of a map of tuples or records (`@m.1`) is element .1 of the
            // user's `@m[...]`.
            LValue::Element { name, .. } => match name.name.split_once('.').filter(|_| crate::tuples::split_element_name(&name.name).is_some()) {
                Some((map, path)) => format!("{map}[...].{path}"),
                None => format!("{}[...]", name.name),
            },
            LValue::Member(e) => member_text(e),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `@name[keys]`; the unnamed aggregation `@` has the name "".
#[derive(Clone, Debug)]
pub struct AggRef {
    pub name: String,
    pub keys: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// An integer or character constant and its C type (by C's rules for its suffix and
    /// base; a character constant is a `char`).
    Int(i64, crate::types::IntType),
    Str(StrLit),
    Ident(String),
    Macro(String),
    ThreadLocal(String),
    /// `args->name`: a field of the tracepoint's record.
    ArgsField(String),
    ClauseLocal(String),
    Agg(AggRef),
    Call(Ident, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(type)expr`.
    Cast(TypeName, Box<Expr>),
    /// `expr.member`, or `expr->member` when `arrow`.
    Member { base: Box<Expr>, member: Ident, arrow: bool },
    /// `expr[index]` on a pointer or an array, or `a[k1, k2, ...]` on an associative array.
    Index(Box<Expr>, Vec<Expr>),
    /// `target = value` or `target op= value` used as a value: the value stored.
    Assign { target: Box<LValue>, op: Option<BinOp>, value: Box<Expr> },
    /// `++x`/`--x` (the new value) or `x++`/`x--` (`post`: the old value).
    IncDec { target: Box<LValue>, delta: i64, post: bool },
    /// `*expr`.
    Deref(Box<Expr>),
    /// `&expr`.
    AddrOf(Box<Expr>),
    /// `sizeof(type)`.
    SizeofType(TypeName),
    /// `sizeof expr` / `sizeof(expr)`.
    SizeofExpr(Box<Expr>),
    /// `offsetof(type, member.member...)`.
    Offsetof(TypeName, Vec<Ident>),
    /// `xlate <TYPE> (expr)`.
    Xlate(TypeName, Box<Expr>),
    /// bpftrace's tuple `(a, b, ...)`.
    Tuple(Vec<Expr>),
    /// bpftrace's record `(name = a, other = b)`: its fields as written.
    Record(Vec<(Ident, Expr)>),
    /// bpftrace's block expression `{ statements; value }`: the statements run, then the
    /// value is the block's. The macro pass moves the statements before the statement that
    /// uses the value, so the checker never sees one.
    Block(Vec<Stmt>, Box<Expr>),
    /// Current bpftrace's `typeof(...)` as a macro call's argument: a type the macro's body
    /// puts where it names the parameter (`(a *)b`, `sizeof(a)`).
    TypeArg(TypeName),
    /// Current bpftrace's `comptime expr`: `expr`, which must be known when compiling.
    Comptime(Box<Expr>),
}

/// `typeof(expr)` in a type: the expression, never evaluated, whose type it names.
#[derive(Clone, Debug)]
pub struct TypeOfExpr(pub Box<Expr>);

/// Two `typeof(expr)` are the same type name where they are the same text.
impl PartialEq for TypeOfExpr {
    fn eq(&self, other: &TypeOfExpr) -> bool {
        self.0.span == other.0.span
    }
}

impl Eq for TypeOfExpr {}

/// A C type as written: `int`, `unsigned long`, `struct file *`, `uint64_t`, `char **`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeName {
    pub base: BaseType,
    /// How many `*` follow the base type.
    pub pointers: u8,
    /// Current bpftrace's postfix modifiers from the first `[N]` on, read left to right:
    /// `int32*[4]*` is one pointer, then `[4]`, then `*` (empty for every C type name). Of
    /// `string`, `buffer` and `inet`, a first `[N]` is the size, not an array.
    pub suffix: Vec<TypeSuffix>,
    pub span: Span,
}

/// A modifier after a type name's first `[N]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSuffix {
    /// `*`: a pointer to what is left of it.
    Pointer,
    /// `[N]`, or `[]` (a cast's array whose length the value's size gives).
    Array(Option<u32>),
}

impl TypeName {
    /// A type name with no modifiers after its `*`s.
    pub fn plain(base: BaseType, pointers: u8, span: Span) -> TypeName {
        TypeName { base, pointers, suffix: Vec::new(), span }
    }

    /// A pointer to this type.
    pub fn pointer_to(mut self) -> TypeName {
        if self.suffix.is_empty() {
            self.pointers = self.pointers.saturating_add(1);
        } else {
            self.suffix.push(TypeSuffix::Pointer);
        }
        self
    }

    /// This name's modifiers applied after `inner`'s: a macro's type parameter `T` given
    /// `typeof(int32[4])` and written `T*` is `int32[4]*`.
    pub fn applied_to(&self, inner: &TypeName) -> TypeName {
        let mut t = TypeName { base: inner.base.clone(), pointers: inner.pointers, suffix: inner.suffix.clone(), span: self.span.clone() };
        for _ in 0..self.pointers {
            t = t.pointer_to();
        }
        t.suffix.extend(self.suffix.iter().cloned());
        t
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaseType {
    /// Integer keywords in the order written (`["unsigned", "long", "long"]`), `void`, or one
    /// typedef name (`uint64_t`, `size_t`, a kernel typedef such as `pid_t`).
    Named(Vec<String>),
    Struct(String),
    Union(String),
    Enum(String),
    /// Current bpftrace's `typeof(expr)`: the expression's type.
    TypeOf(TypeOfExpr),
}

/// A string literal's value, and for each byte of it where in the source it was written (an
/// escape like `\n` is two source bytes for one byte of value), so that a diagnostic about a
/// part of the string, such as one printf conversion, points at what the user typed.
#[derive(Clone, Debug)]
pub struct StrLit {
    pub value: String,
    /// Source offsets: one per byte of `value`, then the closing quote's.
    pub origin: Vec<u32>,
}

impl StrLit {
    /// The source span of the value's bytes `start..end`.
    pub fn source_span(&self, start: usize, end: usize) -> Span {
        let at = |i: usize| self.origin[i.min(self.origin.len() - 1)] as usize;
        let s = at(start);
        // The end is where the last byte's source ends: the next byte's origin, or the quote.
        let e = if end > start { self.origin.get(end).map_or(at(end), |&o| o as usize).max(at(end - 1) + 1) } else { s + 1 };
        s..e
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    BitNot,
    Neg,
    Plus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    LogOr,
    LogXor,
    LogAnd,
    BitOr,
    BitXor,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            LogOr => "||",
            LogXor => "^^",
            LogAnd => "&&",
            BitOr => "|",
            BitXor => "^",
            BitAnd => "&",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    }
}

impl Expr {
    /// The expressions directly inside this one (an assignment's target's keys included).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Agg(a) => a.keys.iter().collect(),
            ExprKind::Call(_, args) => args.iter().collect(),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Deref(a) | ExprKind::AddrOf(a) | ExprKind::SizeofExpr(a) => vec![a],
            ExprKind::Member { base, .. } => vec![base],
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::Ternary(a, b, c) => vec![a, b, c],
            ExprKind::Index(a, keys) => std::iter::once(&**a).chain(keys).collect(),
            ExprKind::Tuple(elems) => elems.iter().collect(),
            ExprKind::Record(fields) => fields.iter().map(|(_, e)| e).collect(),
            ExprKind::Block(_, value) => vec![value],
            ExprKind::Comptime(a) => vec![a],
            ExprKind::Assign { target, value, .. } => target.keys().iter().chain(std::iter::once(&**value)).collect(),
            ExprKind::IncDec { target, .. } => target.keys().iter().collect(),
            _ => Vec::new(),
        }
    }

    /// Calls `f` on every assignment target inside this expression.
    pub fn each_target<'a>(&'a self, f: &mut dyn FnMut(&'a LValue)) {
        match &self.kind {
            ExprKind::Assign { target, .. } | ExprKind::IncDec { target, .. } => f(target),
            _ => {}
        }
        for c in self.children() {
            c.each_target(f);
        }
    }
}

/// A clause-local variable as written: `this->x` in D, `$x` (bpftrace's scratch variable,
/// named with its `$`).
pub fn clause_local_text(name: &str) -> String {
    if name.starts_with('$') {
        name.to_string()
    } else {
        format!("this->{name}")
    }
}

/// A member expression as D writes it, for messages (keys and indexes elided).
fn member_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Ident(n) => n.clone(),
        ExprKind::ThreadLocal(n) => format!("self->{n}"),
        ExprKind::ClauseLocal(n) => clause_local_text(n),
        ExprKind::Member { base, member, arrow } => format!("{}{}{}", member_text(base), if *arrow { "->" } else { "." }, member.name),
        ExprKind::Index(base, _) => format!("{}[...]", member_text(base)),
        ExprKind::Deref(inner) => format!("(*{})", member_text(inner)),
        _ => "...".into(),
    }
}

impl LValue {
    /// An array element's keys (none for a plain variable).
    pub fn keys(&self) -> &[Expr] {
        match self {
            LValue::Element { keys, .. } => keys,
            _ => &[],
        }
    }
}

impl Stmt {
    /// Calls `f` on every assignment target in this statement, nested ones included, in
    /// program order.
    pub fn each_target<'a>(&'a self, f: &mut dyn FnMut(&'a LValue)) {
        match self {
            Stmt::Expr(e) => e.each_target(f),
            Stmt::Assign { target, value, .. } => {
                f(target);
                target.keys().iter().for_each(|k| k.each_target(f));
                value.each_target(f);
            }
            Stmt::IncDec { target, .. } => {
                f(target);
                target.keys().iter().for_each(|k| k.each_target(f));
            }
            Stmt::Aggregate { agg, args, .. } => agg.keys.iter().chain(args).for_each(|e| e.each_target(f)),
            Stmt::If { cond, then, els, .. } => {
                cond.each_target(f);
                then.iter().chain(els.iter().flatten()).for_each(|s| s.each_target(f));
            }
            Stmt::Block(b) => b.iter().for_each(|s| s.each_target(f)),
            Stmt::While { cond, body, .. } => {
                cond.each_target(f);
                body.iter().for_each(|s| s.each_target(f));
            }
            Stmt::For { iter, body, .. } => {
                match iter {
                    ForIter::Range(a, b) => [a, b].into_iter().for_each(|e| e.each_target(f)),
                    ForIter::Map(m) => m.keys.iter().for_each(|e| e.each_target(f)),
                }
                body.iter().for_each(|s| s.each_target(f));
            }
            Stmt::Jump(..) => {}
            // The declared scratch variable is the clause's own: only its value may assign.
            Stmt::Declare { value, .. } => value.iter().for_each(|e| e.each_target(f)),
        }
    }
}

impl Stmt {
    /// Calls `f` on the aggregation of every aggregating statement (`@a[k] = count()`) in
    /// this statement, nested ones included.
    pub fn each_aggregate<'a>(&'a self, f: &mut dyn FnMut(&'a AggRef)) {
        match self {
            Stmt::Aggregate { agg, .. } => f(agg),
            Stmt::If { then, els, .. } => then.iter().chain(els.iter().flatten()).for_each(|s| s.each_aggregate(f)),
            Stmt::Block(b) | Stmt::While { body: b, .. } | Stmt::For { body: b, .. } => b.iter().for_each(|s| s.each_aggregate(f)),
            Stmt::Expr(_) | Stmt::Assign { .. } | Stmt::IncDec { .. } | Stmt::Jump(..) | Stmt::Declare { .. } => {}
        }
    }
}

impl Clause {
    /// Calls `f` on every assignment target of the clause, predicate first.
    pub fn each_target<'a>(&'a self, f: &mut dyn FnMut(&'a LValue)) {
        if let Some(p) = &self.predicate {
            p.each_target(f);
        }
        self.body.iter().flatten().for_each(|s| s.each_target(f));
    }
}
