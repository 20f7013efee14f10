//! D text to AST, through the pest grammar in `d.pest`.

use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use crate::facts::{KernelFacts, TypeSpace};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::OnceLock;
use crate::dialect::{self, Dialect};

#[derive(pest_derive::Parser)]
#[grammar = "d.pest"]
struct DParser;

/// Parses a whole D program, knowing only the script's own typedefs and D's.
pub fn parse_program(src: &str) -> Result<Program, Diagnostic> {
    parse_program_with(src, None)
}

/// Parses a whole program in `dialect`, or in the one its syntax says ([`detect_dialect`]),
/// from one parse of the text; returns it and the dialect.
pub fn parse_program_detecting(src: &str, facts: Option<Rc<dyn KernelFacts>>, dialect: Option<Dialect>) -> Result<(Program, Dialect), Diagnostic> {
    // A program found to be bpftrace by its syntax may still assign D's globals (`x = 1`),
    // as it could before bpftrace's dialect refused them: only a dialect chosen (--dialect,
    // a .bt file, invoked as bpftrace) refuses them.
    let _chosen = Chosen::enter(dialect.is_some());
    if let Some(d) = dialect.or_else(|| has_directives(src).then_some(Dialect::Bpftrace)) {
        return Ok((parse_program_in(src, facts, d)?, d));
    }
    let _scope = TypeScope::enter(facts);
    let mut tree = DParser::parse(Rule::program, src).map_err(|e| syntax_error(src, e))?;
    let root = tree.next().unwrap();
    let dialect = if bpftrace_only(root.clone()) { Dialect::Bpftrace } else { Dialect::D };
    // No preprocessor lines: the text bpftrace's parse would read is this one.
    let _dialect = DialectGuard::enter(dialect);
    let mut program = whole_program(src, build_unit(root)?)?;
    if dialect == Dialect::Bpftrace {
        bpftrace_passes(&mut program)?;
    }
    Ok((program, dialect))
}

/// What a bpftrace program's syntax tree goes through before checking: its macros expanded,
/// then its tuples and range loops lowered.
fn bpftrace_passes(program: &mut Program) -> Result<(), Diagnostic> {
    crate::macros::expand(program)?;
    crate::tuples::lower(program)
}

/// Parses a whole program in `dialect` (see [`parse_program_with`]); a bpftrace program's
/// preprocessor lines first ([`crate::preprocess`]).
pub fn parse_program_in(src: &str, facts: Option<Rc<dyn KernelFacts>>, dialect: Dialect) -> Result<Program, Diagnostic> {
    let _dialect = DialectGuard::enter(dialect);
    if dialect != Dialect::Bpftrace {
        return parse_program_with(src, facts);
    }
    let (text, defines) = crate::preprocess::preprocess(src)?;
    let mut program = parse_program_with(&text, facts.clone())?;
    for (i, d) in defines.into_iter().enumerate() {
        // The value where it is in the text, so that its spans are the text's.
        let value = parse_expression(&format!("{}{}", " ".repeat(d.value.start), &src[d.value.clone()]), facts.clone())?;
        let ty = if matches!(value.kind, ExprKind::Str(_)) { "string" } else { "int64_t" };
        let name = Ident { name: d.name, span: d.name_span.clone() };
        let ty = TypeName::plain(BaseType::Named(vec![ty.to_string()]), 0, d.name_span.clone());
        program.decls.insert(i, Decl::Inline { ty, name, value, span: d.name_span.start..d.value.end });
    }
    bpftrace_passes(&mut program)?;
    Ok(program)
}

/// Parses a whole D program; `(name)` followed by `-`, `+`, `*` or `&` is a cast when `name`
/// is a typedef of the script or of the kernel (asked through `facts`), as D's own lexer
/// decides: `(u64)-1` is a cast, `(x) - 1` a subtraction.
pub fn parse_program_with(src: &str, facts: Option<Rc<dyn KernelFacts>>) -> Result<Program, Diagnostic> {
    whole_program(src, parse_unit(src, facts)?)
}

/// A program, unless it has no clauses.
fn whole_program(src: &str, program: Program) -> Result<Program, Diagnostic> {
    if program.clauses.is_empty() {
        return Err(Diagnostic::new(src.len()..src.len(), "empty program: no probe clauses")
            .label("expected a probe clause")
            .hint("a clause looks like `syscall::read:entry { @[execname] = count(); }`"));
    }
    Ok(program)
}

/// Parses a D library (stdlib): declarations, without clauses.
pub fn parse_library(src: &str, facts: Option<Rc<dyn KernelFacts>>) -> Result<Program, Diagnostic> {
    parse_unit(src, facts)
}

/// Parses one D expression (crumbs' own definitions: stable providers' arguments).
pub fn parse_expression(src: &str, facts: Option<Rc<dyn KernelFacts>>) -> Result<Expr, Diagnostic> {
    let _scope = TypeScope::enter(facts);
    let mut pairs = DParser::parse(Rule::lone_expr, src).map_err(|e| syntax_error(src, e))?;
    let e = pairs.next().unwrap().into_inner().next().expect("lone_expr holds an expr");
    expr(e)
}

fn parse_unit(src: &str, facts: Option<Rc<dyn KernelFacts>>) -> Result<Program, Diagnostic> {
    let _scope = TypeScope::enter(facts);
    let mut pairs = DParser::parse(Rule::program, src).map_err(|e| syntax_error(src, e))?;
    build_unit(pairs.next().unwrap())
}

/// The program a parse tree's root is (in the type scope entered for its parse).
fn build_unit(root: Pair<Rule>) -> Result<Program, Diagnostic> {
    let mut config_seen: Option<Span> = None;
    let mut program = Program { pragmas: Vec::new(), decls: Vec::new(), clauses: Vec::new(), config: Vec::new(), macros: Vec::new(), map_decls: Vec::new(), key_paths: Default::default() };
    for pair in root.into_inner() {
        match pair.as_rule() {
            Rule::pragma => program.pragmas.push(pragma(pair)?),
            Rule::include => include(pair)?,
            Rule::declaration => {
                for d in declaration(pair)? {
                    if let Decl::Typedef { name, .. } = &d {
                        TypeScope::declare(&name.name);
                    }
                    program.decls.push(d);
                }
            }
            Rule::clause => program.clauses.push(clause(pair)?),
            Rule::config_block => {
                let sp = span(&pair);
                let at = sp.start..sp.start + "config".len();
                bpftrace_only_here(at.clone(), "config")?;
                // As bpftrace's parser says: one block, before probes and macros.
                if !program.clauses.is_empty() || !program.macros.is_empty() {
                    return Err(Diagnostic::new(at, "config must appear before probes and functions")
                        .label("after a probe or macro")
                        .hint("move the config block to the top of the program, after #include and #define lines"));
                }
                if config_seen.replace(sp).is_some() {
                    return Err(Diagnostic::new(at, "duplicate config block").label("a second one").hint("set every config variable in the first block"));
                }
                program.config.extend(pair.into_inner().filter(|p| p.as_rule() == Rule::config_entry).map(config_entry).collect::<Result<Vec<_>, _>>()?);
            }
            Rule::macro_def => {
                let sp = span(&pair);
                bpftrace_only_here(sp.start..sp.start + "macro".len(), "macro")?;
                program.macros.push(macro_def(pair)?);
            }
            Rule::map_decl => {
                let sp = span(&pair);
                bpftrace_only_here(sp.start..sp.start + "let".len(), "let @map")?;
                let decl = map_decl(pair)?;
                if let Some(first) = program.map_decls.iter().find(|d| d.name == decl.name) {
                    return Err(Diagnostic::new(decl.name_span, format!("map `@{}` is declared twice", decl.name))
                        .label("again")
                        .related(first.name_span.clone(), "first declared here")
                        .hint("keep one declaration"));
                }
                program.map_decls.push(decl);
            }
            _ => {}
        }
    }
    Ok(program)
}

/// A construct only bpftrace has (`config`, `macro`): in D, an error that says whose it is.
fn bpftrace_only_here(at: Span, word: &str) -> Result<(), Diagnostic> {
    if bpftrace() {
        return Ok(());
    }
    Err(Diagnostic::new(at, format!("`{word}` is bpftrace's, not D's")).label("not in D").hint("run the program as bpftrace: --dialect bpftrace, or a .bt file"))
}

/// `name = value` in a config block.
fn config_entry(p: Pair<Rule>) -> Result<ConfigEntry, Diagnostic> {
    let sp = span(&p);
    let mut it = p.into_inner();
    let name = ident(it.next().unwrap());
    let v = it.next().unwrap();
    let value_span = span(&v);
    let value = match v.as_rule() {
        Rule::string => ConfigValue::Str(string_literal(&v)?.value),
        Rule::number => {
            let n = parse_int(v.as_str(), value_span.clone())?;
            ConfigValue::Int(u64::try_from(n).map_err(|_| Diagnostic::new(value_span.clone(), "invalid integer in config").label("too large").hint("a config value is a number from 0 to 2^63-1"))?)
        }
        _ if v.as_str() == "true" => ConfigValue::Bool(true),
        _ if v.as_str() == "false" => ConfigValue::Bool(false),
        _ => ConfigValue::Name(v.as_str().to_string()),
    };
    Ok(ConfigEntry { name, value, value_span, span: sp })
}

/// `let @name = kind(max_entries);`: the kind is checked with the map's use.
fn map_decl(p: Pair<Rule>) -> Result<MapDecl, Diagnostic> {
    let mut it = p.into_inner().filter(|x| x.as_rule() != Rule::let_kw);
    let map = it.next().unwrap();
    let kind = ident(it.next().unwrap());
    let n = it.next().unwrap();
    let max_entries_span = span(&n);
    let max_entries = parse_int(n.as_str(), max_entries_span.clone())
        .ok()
        .and_then(|v| u64::try_from(v).ok())
        .filter(|v| (1..=u32::MAX as u64).contains(v))
        .ok_or_else(|| {
            Diagnostic::new(max_entries_span.clone(), "expected positive integer for map declaration max entries")
                .label("not a count of elements")
                .hint(format!("a map holds from 1 to {} elements", u32::MAX))
        })?;
    Ok(MapDecl { name: map.as_str()[1..].to_string(), name_span: span(&map), kind, max_entries, max_entries_span })
}

/// `macro name(params) { statements [value] }`: the value is a last expression with no `;`
/// after it.
fn macro_def(p: Pair<Rule>) -> Result<MacroDef, Diagnostic> {
    let sp = span(&p);
    let mut it = p.into_inner().filter(|x| x.as_rule() != Rule::macro_kw);
    let name = ident(it.next().unwrap());
    let mut params = Vec::new();
    let mut block = None;
    for part in it {
        match part.as_rule() {
            Rule::macro_param => {
                let inner = part.into_inner().next().unwrap();
                let id = Ident { name: inner.as_str().to_string(), span: span(&inner) };
                params.push(match inner.as_rule() {
                    Rule::macro_var => MacroParam::Var(id),
                    Rule::map_param => MacroParam::Map(id),
                    _ => MacroParam::Expr(id),
                });
            }
            _ => block = Some(part.into_inner().next().unwrap()),
        }
    }
    let stmts_pair = block.expect("a macro has a block");
    let stmts_end = stmts_pair.as_span().end();
    let last_end = stmts_pair.clone().into_inner().last().map(|l| l.as_span().end());
    let mut body = statements(stmts_pair)?;
    // A `;` after the last statement is inside the statements' span, after the statement's.
    let value = match body.last() {
        Some(Stmt::Expr(_)) if last_end == Some(stmts_end) => match body.pop() {
            Some(Stmt::Expr(e)) => Some(e),
            _ => unreachable!(),
        },
        _ => None,
    };
    Ok(MacroDef { name, params, body, value, span: sp })
}

/// The type names a parenthesised name may be, while a program is parsed. Which names are
/// typedefs is not in the grammar (the kernel's come from its BTF), and the expression
/// builder is many small functions deep in the parse, so the program's parse keeps them
/// here for its thread while it runs.
struct TypeScope {
    facts: Option<Rc<dyn KernelFacts>>,
    script: HashSet<String>,
    asked: HashMap<String, bool>,
}

thread_local! {
    static TYPE_SCOPE: RefCell<Option<TypeScope>> = const { RefCell::new(None) };
}

/// Ends the scope when the parse ends, however it ends.
struct ScopeGuard;

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        TYPE_SCOPE.with(|s| s.borrow_mut().take());
    }
}

impl TypeScope {
    fn enter(facts: Option<Rc<dyn KernelFacts>>) -> ScopeGuard {
        TYPE_SCOPE.with(|s| *s.borrow_mut() = Some(TypeScope { facts, script: HashSet::new(), asked: HashMap::new() }));
        ScopeGuard
    }

    fn declare(name: &str) {
        TYPE_SCOPE.with(|s| {
            if let Some(scope) = s.borrow_mut().as_mut() {
                scope.script.insert(name.to_string());
            }
        });
    }

    /// Whether `name` is a typedef of the script (declared so far) or of the kernel.
    fn is_type(name: &str) -> bool {
        TYPE_SCOPE.with(|s| {
            let mut s = s.borrow_mut();
            let Some(scope) = s.as_mut() else { return false };
            if scope.script.contains(name) {
                return true;
            }
            if let Some(known) = scope.asked.get(name) {
                return *known;
            }
            let known = scope.facts.as_ref().is_some_and(|f| matches!(f.kernel_type_id(TypeSpace::Ordinary, name), Ok(Some(_))));
            scope.asked.insert(name.to_string(), known);
            known
        })
    }
}

thread_local! {
    static DIALECT: std::cell::Cell<Dialect> = const { std::cell::Cell::new(Dialect::D) };
}

/// The dialect the builder reads the tree in, for one parse on this thread.
struct DialectGuard(Dialect);

impl DialectGuard {
    fn enter(d: Dialect) -> DialectGuard {
        DialectGuard(DIALECT.with(|c| c.replace(d)))
    }
}

impl Drop for DialectGuard {
    fn drop(&mut self) {
        DIALECT.with(|c| c.set(self.0));
    }
}

fn bpftrace() -> bool {
    DIALECT.with(|c| c.get()) == Dialect::Bpftrace
}

thread_local! {
    static CHOSEN: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether the dialect was chosen rather than found from the program's syntax, for one parse.
struct Chosen(bool);

impl Chosen {
    fn enter(chosen: bool) -> Chosen {
        Chosen(CHOSEN.with(|c| c.replace(chosen)))
    }
}

impl Drop for Chosen {
    fn drop(&mut self) {
        CHOSEN.with(|c| c.set(self.0));
    }
}

/// bpftrace's dialect, chosen: D's globals are refused as bpftrace refuses them.
fn strict_bpftrace() -> bool {
    bpftrace() && CHOSEN.with(|c| c.get())
}

/// The dialect a program is written in, from syntax only one of them has: bpftrace's scratch
/// variables (`$x`), maps read or stored into (`@m[k] = v`, `@m[k] + 1`, `@n++`,
/// `delete(@m[k])`), its loops and `let`, and functions D does not have. A
/// program with none of these (or that does not parse) is D.
pub fn detect_dialect(src: &str) -> Dialect {
    if has_directives(src) {
        return Dialect::Bpftrace;
    }
    match DParser::parse(Rule::program, src).map(|mut pairs| pairs.next().map(bpftrace_only)) {
        Ok(Some(true)) => Dialect::Bpftrace,
        _ => Dialect::D,
    }
}

/// Whether the text has C preprocessor lines: bpftrace runs them (D needs -C, which only the
/// dtrace drop-in has).
fn has_directives(src: &str) -> bool {
    const DIRECTIVES: &[&str] = &["define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif"];
    let directive = |l: &str| l.trim_start().strip_prefix('#').is_some_and(|d| DIRECTIVES.contains(&d.trim_start().split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("")));
    src.lines().any(directive)
}

/// D's functions that take an aggregation: `@a` as their whole argument is D.
const TAKES_AGGREGATION: &[&str] = &["printa", "clear", "trunc", "normalize", "denormalize", "setopt"];
/// Builtin variables only bpftrace has (D's spellings of its others are D's too: `comm`,
/// `nsecs`, `curtask`).
const BPFTRACE_VARIABLES: &[&str] = &["cpid", "elapsed", "probe", "kstack", "ustack", "username", "cgroup", "numaid", "jiffies", "sarg0", "sarg1", "sarg2"];
/// Functions only bpftrace has: a call to one is bpftrace.
const BPFTRACE_FUNCTIONS: &[&str] = &["delete", "has_key", "len", "zero", "time", "strftime", "hist", "lhist", "stats", "kstack", "ksym", "kaddr", "buf", "join", "cat", "signal", "override", "cgroup_path", "macaddr", "pton", "reg", "strcontains", "kptr", "uptr", "path", "bswap", "skboutput", "nsecs", "debugf", "unwatch", "percpu_kaddr", "errorf", "warnf", "memcmp", "strcap", "kfunc_exist", "kfunc_allowed", "signal_thread", "write_user", "socket_cookie"];

fn bpftrace_only(p: Pair<Rule>) -> bool {
    // Expressions nest as deep as the grammar lets them (thousands of `(`): the stack grows
    // on demand, as the expression builder's does.
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || bpftrace_only_at(p))
}

fn bpftrace_only_at(p: Pair<Rule>) -> bool {
    match p.as_rule() {
        Rule::macro_var => return !dialect::is_d_macro(&p.as_str()[1..]),
        Rule::while_stmt | Rule::for_stmt | Rule::unroll_stmt | Rule::jump_stmt | Rule::let_stmt | Rule::tuple_index | Rule::trailing_comma | Rule::bare_cond | Rule::config_block | Rule::macro_def | Rule::map_decl | Rule::block_expr | Rule::typeof_type | Rule::typeinfo | Rule::comptime_op | Rule::container_of => return true,
        // A tuple.
        Rule::paren if p.clone().into_inner().count() != 1 => return true,
        Rule::agg_assign => {
            let call = p.clone().into_inner().nth(1).and_then(|c| c.into_inner().next());
            if call.is_some_and(|f| !dialect::is_aggregating(f.as_str()) || BPFTRACE_FUNCTIONS.contains(&f.as_str())) {
                return true;
            }
            // An aggregation's own `@a[keys] = f(...)`: only what is inside says.
            let mut parts = p.into_inner();
            let agg = parts.next().into_iter().flat_map(|a| a.into_inner());
            let args = parts.next().into_iter().flat_map(|c| c.into_inner().skip(1));
            return agg.chain(args).any(bpftrace_only);
        }
        Rule::call => {
            let mut it = p.clone().into_inner();
            let name = it.next().map_or("", |n| n.as_str());
            // `pid()`: bpftrace's variables called, but for D's functions of the same name (`func(pc)`).
            let called = dialect::is_called_variable(name) && crate::builtins::function(name, Dialect::D).is_none();
            if called || BPFTRACE_FUNCTIONS.contains(&name) || (name == "exit" && it.next().is_none()) {
                return true;
            }
            // `ustack(perf, 5)`: a stack mode is bpftrace's.
            let first = p.clone().into_inner().nth(1).map(|a| a.as_str().trim().to_string());
            if name == "ustack" && first.is_some_and(|a| matches!(a.as_str(), "bpftrace" | "perf" | "raw" | "build_id")) {
                return true;
            }
            // `@a` alone as the argument of printa(), clear(), ... is D's; elsewhere a map.
            if TAKES_AGGREGATION.contains(&name) {
                return p.into_inner().skip(1).any(|arg| match lone_aggregation(&arg) {
                    Some(agg) => agg.into_inner().any(bpftrace_only),
                    None => bpftrace_only(arg),
                });
            }
            // The function's own name is no variable.
            return p.into_inner().skip(1).any(bpftrace_only);
        }
        Rule::ident => return BPFTRACE_VARIABLES.contains(&p.as_str()),
        Rule::member => return p.into_inner().any(|m| m.as_rule() == Rule::tuple_index),
        // A cast to bpftrace's integer type names: `(uint32)x`, `(int64)-1`.
        Rule::type_name => return p.into_inner().any(|t| t.as_rule() == Rule::ident && is_bpftrace_int(t.as_str())),
        // A cast to a postfix array type: `(uint8[4])x`, `(int32*[2]*)p`.
        Rule::cast if p.clone().into_inner().flatten().any(|t| t.as_rule() == Rule::type_array) => return true,
        Rule::paren if parenthesised_name(&p).is_some_and(|n| is_bpftrace_int(n.as_str())) => return true,
        Rule::member_path | Rule::declaration => return false,
        Rule::aggregation => return true,
        _ => {}
    }
    p.into_inner().any(bpftrace_only)
}

/// bpftrace's integer type names (`uint32`), D's `uint32_t`.
fn is_bpftrace_int(name: &str) -> bool {
    dialect::bpftrace_type(name) != name
}

/// `@a` or `@a[keys]` as a whole expression.
fn lone_aggregation<'i>(arg: &Pair<'i, Rule>) -> Option<Pair<'i, Rule>> {
    let mut e = arg.clone().into_inner();
    let binary = e.next().filter(|_| e.next().is_none())?;
    let mut b = binary.into_inner();
    b.next().filter(|a| a.as_rule() == Rule::aggregation && b.next().is_none())
}

fn syntax_error(src: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let (start, end) = match e.location {
        pest::error::InputLocation::Pos(p) => (p, p),
        pest::error::InputLocation::Span((s, e)) => (s, e),
    };
    if let pest::error::ErrorVariant::CustomError { message } = &e.variant {
        // pest stops before its recursion runs out of stack ("stack limit reached").
        let end = start + src[start..].chars().next().map_or(0, char::len_utf8);
        return Diagnostic::new(start..end, "program nested too deeply")
            .label(format!("the parser stopped here ({message})"))
            .hint(format!("expressions nest at most {MAX_EXPR_DEPTH} levels (each operator, `?:`, call, key and pair of parentheses is one): split them with clause-local variables, this->t = ...;"));
    }
    let found = src[start..].chars().next();
    // A keyword where a name or an expression could start (`x = long;`, `a->int`): say so,
    // rather than "unexpected `l`" with a hint to write a name.
    let wants_name = matches!(&e.variant, pest::error::ErrorVariant::ParsingError { positives, .. } if positives.iter().any(|r| matches!(r, Rule::ident | Rule::tag_name | Rule::expr | Rule::binary | Rule::statement | Rule::statements)));
    if let Some(word) = reserved_word(src, start).filter(|_| wants_name) {
        return Diagnostic::new(start..start + word.len(), format!("syntax error: `{word}` is a reserved word"))
            .label("not a name")
            .hint(RESERVED_HINT);
    }
    // `if = 1;`: bpftrace's `if cond {` lets the parser read on past the keyword to the `=`.
    let before = src[..start].trim_end();
    let word_start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    if src[start..].starts_with('=') && !src[start..].starts_with("==") && matches!(&before[word_start..], "if" | "else") {
        let word = &before[word_start..];
        return Diagnostic::new(word_start..before.len(), format!("syntax error: `{word}` is a reserved word"))
            .label("not a name")
            .hint(RESERVED_HINT);
    }
    let end = if end > start { end } else { start + found.map_or(0, char::len_utf8) };
    let hint = expected_hint(&e).or_else(|| Some(fallback_hint(src, start)));
    let message = match found {
        None => "unexpected end of program".to_string(),
        Some(c) => format!("syntax error: unexpected `{c}`"),
    };
    let mut d = Diagnostic::new(start..end, message).label("not expected here");
    if let Some(h) = hint {
        d = d.hint(h);
    }
    d
}

/// The reserved word (d.pest's `keyword`) at `pos`, if there is one.
/// What a reserved word where a name goes is told.
const RESERVED_HINT: &str = "C's type keywords, `sizeof` and `offsetof` cannot name variables, members or functions; types are written only in casts `(int)x`, `sizeof(type)` and `offsetof(type, member)`";

fn reserved_word(src: &str, pos: usize) -> Option<&str> {
    let mut pairs = DParser::parse(Rule::keyword, &src[pos..]).ok()?;
    Some(pairs.next()?.as_str())
}

/// A hint from the text itself when the grammar's expectations say nothing useful.
fn fallback_hint(src: &str, pos: usize) -> String {
    let clause_start = src[..pos].rfind(['}', ';']).map_or(0, |i| i + 1);
    if src[clause_start..pos].matches('/').count() % 2 == 1 {
        return "the predicate is not closed: end it with `/` before the action block".into();
    }
    "expected an operator, `;` between statements, or the end of the block".into()
}

fn expected_hint(e: &pest::error::Error<Rule>) -> Option<String> {
    let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant else {
        return None;
    };
    let mut names: Vec<&str> = positives.iter().filter_map(|r| rule_name(*r)).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return None;
    }
    Some(format!("expected {}", names.join(", ")))
}

fn rule_name(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::expr | Rule::binary => "an expression",
        Rule::statement | Rule::statements => "a statement",
        Rule::block | Rule::angle_block => "an action block `{ ... }`",
        Rule::predicate => "a predicate `/ ... /`",
        Rule::probe_desc | Rule::probe_list | Rule::clause => "a probe description",
        Rule::ident | Rule::agg_name => "a name",
        Rule::type_name => "a type name",
        Rule::tag_name => "the struct, union or enum's name (`struct file`)",
        Rule::star => "`*`",
        Rule::cast_close => "`)`",
        Rule::offsetof_comma => "`,` and a member: offsetof(type, member)",
        Rule::call => "a function call",
        Rule::EOI => "end of program",
        Rule::keys => "`[`",
        Rule::number => "a number",
        Rule::string => "a string",
        _ => return None,
    })
}

fn span(p: &Pair<Rule>) -> Span {
    p.as_span().start()..p.as_span().end()
}

/// An array length or a bitfield width: a positive number.
fn small_number(p: Pair<Rule>, what: &str) -> Result<u32, Diagnostic> {
    let n = p.into_inner().find(|x| x.as_rule() == Rule::number).expect("grammar");
    let sp = span(&n);
    let v = parse_int(n.as_str(), sp.clone())?;
    u32::try_from(v).ok().filter(|v| *v > 0 && *v <= 1 << 24).ok_or_else(|| Diagnostic::new(sp, format!("bad {what} {v}")).label("out of range").hint(format!("the {what} is a positive number, at most {}", 1 << 24)))
}

/// A declaration: a struct, union, enum or typedef, a translator, an inline, variables (one
/// `Decl::Var` per name declared), or a struct or union defined with variables of it.
fn declaration(p: Pair<Rule>) -> Result<Vec<Decl>, Diagnostic> {
    let sp = span(&p);
    let mut parts = p.into_inner();
    let inner = parts.next().expect("grammar");
    match inner.as_rule() {
        Rule::var_decl => {
            let mut scope = Scope::Global;
            let mut ty = None;
            let mut vars = Vec::new();
            let mut it = inner.into_inner().peekable();
            while let Some(x) = it.next() {
                match x.as_rule() {
                    Rule::var_scope => scope = if x.as_str() == "self" { Scope::Thread } else { Scope::Clause },
                    Rule::type_name => ty = Some(type_name(x)?),
                    Rule::ident => {
                        // The first variable, and its array length or keys.
                        let t = ty.clone().expect("grammar: a type before the name");
                        let mut rest = vec![x];
                        while let Some(y) = it.next_if(|y| matches!(y.as_rule(), Rule::array_len | Rule::var_keys)) {
                            rest.push(y);
                        }
                        vars.push(var_declarator(scope, t, rest, &sp)?);
                    }
                    Rule::more_vars => {
                        let t = ty.clone().expect("grammar: a type before the name");
                        vars.push(var_declarator(scope, TypeName { pointers: 0, ..t }, x.into_inner().collect(), &sp)?);
                    }
                    _ => {}
                }
            }
            Ok(vars)
        }
        Rule::record_decl => {
            let record = record(inner, sp.clone())?;
            let Some(vars) = parts.next() else { return Ok(vec![record]) };
            // `struct T { ... } a, b;`: the variables' type is the struct just defined.
            let Decl::Record { union, name, .. } = &record else { unreachable!("record() makes a Decl::Record") };
            let base = if *union { BaseType::Union(name.name.clone()) } else { BaseType::Struct(name.name.clone()) };
            let ty = TypeName::plain(base, 0, name.span.clone());
            let mut out = vec![record];
            let mut first = Vec::new();
            for x in vars.into_inner() {
                match x.as_rule() {
                    Rule::more_vars => out.push(var_declarator(Scope::Global, ty.clone(), x.into_inner().collect(), &sp)?),
                    _ => first.push(x),
                }
            }
            out.insert(1, var_declarator(Scope::Global, ty, first, &sp)?);
            Ok(out)
        }
        _ => Ok(vec![declaration_one(inner, sp)?]),
    }
}

/// One declared variable of base type `ty`: its `*`s (added to the type's), name, and array
/// length or keys.
fn var_declarator(scope: Scope, mut ty: TypeName, parts: Vec<Pair<Rule>>, span: &Span) -> Result<Decl, Diagnostic> {
    let (mut name, mut keys, mut len) = (None, None, None);
    for x in parts {
        match x.as_rule() {
            Rule::star => ty.pointers = ty.pointers.saturating_add(1),
            Rule::ident => name = Some(ident(x)),
            Rule::array_len => len = Some(small_number(x, "array length")?),
            Rule::var_keys => keys = Some(x.into_inner().map(type_name).collect::<Result<Vec<_>, _>>()?),
            _ => {}
        }
    }
    Ok(Decl::Var { scope, ty, name: name.expect("grammar"), keys, len, span: span.clone() })
}

/// A `struct`/`union` definition.
fn record(inner: Pair<Rule>, sp: Span) -> Result<Decl, Diagnostic> {
    let mut it = inner.into_inner();
    let union = it.next().unwrap().as_str() == "union";
    let name = ident(it.next().unwrap());
    let members = member_decls(it)?;
    Ok(Decl::Record { union, name, members, span: sp })
}

/// A declaration that declares one thing.
fn declaration_one(inner: Pair<Rule>, sp: Span) -> Result<Decl, Diagnostic> {
    match inner.as_rule() {
        Rule::inline_decl => {
            let mut it = inner.into_inner().filter(|x| x.as_rule() != Rule::inline_kw);
            let ty = type_name(it.next().unwrap())?;
            let name = ident(it.next().unwrap());
            let value = expr_at(it.next().unwrap(), 1)?.0;
            Ok(Decl::Inline { ty, name, value, span: sp })
        }
        Rule::translator_decl => {
            let mut it = inner.into_inner().filter(|x| x.as_rule() != Rule::translator_kw);
            let to = type_name(it.next().unwrap())?;
            let from = type_name(it.next().unwrap())?;
            let param = ident(it.next().unwrap());
            let mut members = Vec::new();
            for m in it {
                let mut parts = m.into_inner();
                let name = ident(parts.next().unwrap());
                members.push((name, expr_at(parts.next().unwrap(), 1)?.0));
            }
            Ok(Decl::Translator { to, from, param, members, span: sp, library: false })
        }
        Rule::forward_decl => {
            let mut it = inner.into_inner();
            let union = it.next().unwrap().as_str() == "union";
            Ok(Decl::Forward { union, name: ident(it.next().unwrap()) })
        }
        Rule::enum_decl => {
            let mut name = None;
            let mut values = Vec::new();
            for x in inner.into_inner() {
                match x.as_rule() {
                    Rule::tag_name => name = Some(ident(x)),
                    Rule::enumerator => {
                        let mut parts = x.into_inner();
                        let id = ident(parts.next().unwrap());
                        let value = match parts.next() {
                            Some(e) => Some(expr_at(e, 1)?.0),
                            None => None,
                        };
                        values.push((id, value));
                    }
                    _ => {}
                }
            }
            Ok(Decl::Enum { name, values, span: sp })
        }
        _ => {
            let mut parts = inner.into_inner().filter(|x| x.as_rule() != Rule::typedef_kw);
            let ty = type_name(parts.next().unwrap())?;
            let name = ident(parts.next().unwrap());
            let len = match parts.next() {
                Some(x) => Some(small_number(x, "array length")?),
                None => None,
            };
            Ok(Decl::Typedef { ty, name, len, span: sp })
        }
    }
}

/// The `member_decl`s among `pairs`.
fn member_decls<'i>(pairs: impl Iterator<Item = Pair<'i, Rule>>) -> Result<Vec<MemberDecl>, Diagnostic> {
    let mut members = Vec::new();
    for m in pairs.filter(|m| m.as_rule() == Rule::member_decl) {
        let msp = span(&m);
        let mut parts = m.into_inner();
        let first = parts.next().unwrap();
        let ty = match first.as_rule() {
            Rule::inline_record => {
                let rsp = span(&first);
                let mut it = first.into_inner().peekable();
                let union = it.next().unwrap().as_str() == "union";
                let tag = it.next_if(|t| t.as_rule() == Rule::tag_name).map(ident);
                MemberType::Record { union, tag, members: member_decls(it)?, span: rsp }
            }
            _ => MemberType::Named(type_name(first)?),
        };
        let mut more = Vec::new();
        let first = declarator(ty, parts, &msp, &mut more)?;
        let base = first.ty.clone();
        members.push(first);
        for m in more {
            let MemberType::Named(t) = &base else { unreachable!("the grammar lists more members only after a type name") };
            let ty = MemberType::Named(TypeName { pointers: 0, ..t.clone() });
            members.push(declarator(ty, m.into_inner(), &msp, &mut Vec::new())?);
        }
    }
    Ok(members)
}

/// One member of type `ty` from its declarator's parts: its `*`s (added to a named type's),
/// name, array length and bitfield width; the `more_members` that follow go to `more`.
fn declarator<'i>(mut ty: MemberType, parts: impl Iterator<Item = Pair<'i, Rule>>, span: &Span, more: &mut Vec<Pair<'i, Rule>>) -> Result<MemberDecl, Diagnostic> {
    let (mut name, mut len, mut bits) = (None, None, None);
    for x in parts {
        match (x.as_rule(), &mut ty) {
            (Rule::star, MemberType::Named(t)) => t.pointers = t.pointers.saturating_add(1),
            (Rule::ident, _) => name = Some(ident(x)),
            (Rule::array_len, _) => len = Some(small_number(x, "array length")?),
            (Rule::bit_width, _) => bits = Some(small_number(x, "bitfield width")?),
            (Rule::more_members, _) => more.push(x),
            _ => {}
        }
    }
    Ok(MemberDecl { ty, name, len, bits, span: span.clone() })
}

/// `#include <header>` or `#include "header"`: accepted and satisfied from the kernel's BTF.
fn include(p: Pair<Rule>) -> Result<(), Diagnostic> {
    let sp = span(&p);
    let body = p.into_inner().next().map(|b| b.as_str().trim()).unwrap_or_default();
    let well_formed = (body.starts_with('<') && body.ends_with('>') || body.starts_with('"') && body.ends_with('"')) && body.len() > 2;
    if well_formed {
        return Ok(());
    }
    Err(Diagnostic::new(sp, "malformed #include").label("expected <header> or \"header\"").hint("write e.g. #include <linux/sched.h> (crumbs takes the kernel's types from its BTF, not from headers)"))
}

fn pragma(p: Pair<Rule>) -> Result<Pragma, Diagnostic> {
    let sp = span(&p);
    let body = p.into_inner().next().map(|b| b.as_str().trim().to_string()).unwrap_or_default();
    let words: Vec<&str> = body.split_whitespace().collect();
    match words.as_slice() {
        ["D", "option", opt] => {
            let (name, value) = match opt.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (opt.to_string(), None),
            };
            Ok(Pragma { name, value, span: sp })
        }
        _ => Err(Diagnostic::new(sp, "unsupported #pragma")
            .label("not understood")
            .hint("crumbs understands `#pragma D option name` and `#pragma D option name=value`")),
    }
}

fn clause(p: Pair<Rule>) -> Result<Clause, Diagnostic> {
    let sp = span(&p);
    let mut c = Clause { probes: Vec::new(), predicate: None, body: None, span: sp, library: false };
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::probe_list => {
                for d in part.into_inner() {
                    c.probes.push(probe_desc(&d)?);
                }
            }
            Rule::predicate => c.predicate = Some(expr(part.into_inner().next().unwrap())?),
            Rule::block | Rule::angle_block => c.body = Some(statements(part.into_inner().next().unwrap())?),
            _ => {}
        }
    }
    Ok(c)
}

/// A probe description: at most four fields, `provider:module:function:name`.
fn probe_desc(d: &Pair<Rule>) -> Result<ProbeDesc, Diagnostic> {
    let text = d.as_str().to_string();
    let sp = span(d);
    let fields = crate::providers::spelling::fields_as_written(&text);
    let written = crate::providers::spelling::field_ranges(&text);
    if fields.len() > 4 {
        // From the fourth colon on is one field too many.
        let extra = written[3].end;
        return Err(Diagnostic::new(sp.start + extra..sp.end, format!("probe description `{text}` has {} fields", fields.len()))
            .label(if fields.len() == 5 { "one field too many".to_string() } else { format!("{} fields too many", fields.len() - 4) })
            .hint("a probe description has at most four fields, provider:module:function:name (e.g. `profile:::tick-1sec`, `syscall::read:entry`)"));
    }
    for (f, at) in fields.iter().zip(&written) {
        if f.len() > MAX_PROBE_FIELD {
            return Err(Diagnostic::new(sp.start + at.start..sp.start + at.end, format!("probe description field of {} characters", f.len()))
                .label("too long")
                .hint(format!("a provider, module, function or probe name has at most {MAX_PROBE_FIELD} characters")));
        }
    }
    Ok(ProbeDesc { text, fields, span: sp })
}

/// The longest field of a probe description: the kernel's longest symbol name (KSYM_NAME_LEN).
/// Longer patterns cannot match anything, and would only make the glob matcher work hard.
pub const MAX_PROBE_FIELD: usize = 512;

fn ident(p: Pair<Rule>) -> Ident {
    Ident { name: p.as_str().to_string(), span: span(&p) }
}

/// The statements of a block.
fn statements(p: Pair<Rule>) -> Result<Vec<Stmt>, Diagnostic> {
    p.into_inner().map(statement).collect()
}

fn statement(p: Pair<Rule>) -> Result<Stmt, Diagnostic> {
    let sp = span(&p);
    match p.as_rule() {
        Rule::if_stmt => return if_stmt(p),
        Rule::block => {
            let _inside = Inside::enter(&sp, 0)?;
            return Ok(Stmt::Block(statements(p.into_inner().next().unwrap())?));
        }
        Rule::while_stmt | Rule::for_stmt | Rule::unroll_stmt | Rule::jump_stmt | Rule::let_stmt => return bpftrace_stmt(p),
        _ => {}
    }
    let inner = p.into_inner().next().unwrap();
    Ok(match inner.as_rule() {
        Rule::agg_assign if bpftrace() && !inner.clone().into_inner().nth(1).and_then(|c| c.into_inner().next()).is_some_and(|f| dialect::is_aggregating(f.as_str())) => {
            // `@m[k] = str(x)`: a value stored into a map.
            let mut it = inner.into_inner();
            let agg = aggregation(it.next().unwrap())?;
            let value = primary(it.next().unwrap(), 1)?.0;
            Stmt::Assign { target: map_lvalue(agg), op: None, value, span: sp }
        }
        Rule::agg_assign => {
            let mut it = inner.into_inner();
            let agg = aggregation(it.next().unwrap())?;
            let call = it.next().unwrap();
            let mut parts = call.into_inner();
            let func = ident(parts.next().unwrap());
            let args = parts.map(expr).collect::<Result<_, _>>()?;
            Stmt::Aggregate { agg, func, args, span: sp }
        }
        // An assignment or `++`/`--` whose value nobody uses.
        _ => match expr(inner.clone())? {
            // bpftrace's discard, `_ = has_key(@m, 1);`: the value is computed and dropped.
            Expr { kind: ExprKind::Assign { target, op: None, value }, .. } if bpftrace() && matches!(&*target, LValue::Global(i) if i.name == "_") => Stmt::Expr(*value),
            Expr { kind: ExprKind::Assign { target, .. }, .. } if strict_bpftrace() && is_d_variable(&target) => return Err(d_variable_assigned(&inner, &target)),
            Expr { kind: ExprKind::IncDec { target, delta, .. }, .. } if strict_bpftrace() && is_d_variable(&target) => {
                let op = if delta > 0 { "++" } else { "--" };
                return Err(Diagnostic::new(target.span(), format!("The {op} operator must be applied to a map or variable"))
                    .label("not a map or scratch variable")
                    .hint(format!("bpftrace's variables are scratch variables, `$name{op}`, and maps, `@name{op}`; D's globals are D's (--dialect d)")));
            }
            Expr { kind: ExprKind::Assign { target, op, value }, span } => Stmt::Assign { target: *target, op, value: *value, span },
            Expr { kind: ExprKind::IncDec { target, delta, .. }, span } => Stmt::IncDec { target: *target, delta, span },
            e => Stmt::Expr(e),
        },
    })
}

/// D's global variable or associative array (`x`, `x[k]`), which bpftrace's grammar lacks.
fn is_d_variable(target: &LValue) -> bool {
    match target {
        LValue::Global(_) => true,
        LValue::Element { name, thread: false, .. } => !name.name.starts_with('@'),
        _ => false,
    }
}

/// `x = 1` in bpftrace: the syntax error bpftrace gives, at the assignment's operator.
fn d_variable_assigned(stmt: &Pair<Rule>, target: &LValue) -> Diagnostic {
    let base = stmt.as_span().start();
    let after = &stmt.as_str()[target.span().end.saturating_sub(base).min(stmt.as_str().len())..];
    let at = target.span().end + (after.len() - after.trim_start().len());
    let op: String = after.trim_start().chars().take_while(|c| "+-*/%&|^<>=".contains(*c)).collect();
    Diagnostic::new(at..at + op.len().max(1), format!("syntax error, unexpected {op}, expecting }}"))
        .label("D's variable")
        .hint(format!("bpftrace has no global variables: use a scratch variable, `${0} = ...`, or a map, `@{0} = ...` (D's globals are read with --dialect d)", target.text().trim_end_matches("[...]")))
}

/// The most times `unroll (N)` repeats its block, as bpftrace allows.
const MAX_UNROLL: i64 = 100;

/// bpftrace's `while`, `unroll`, `break`/`continue`/`return` and `let`; in D, an error
/// that says whose syntax it is.
fn bpftrace_stmt(p: Pair<Rule>) -> Result<Stmt, Diagnostic> {
    let sp = span(&p);
    if !bpftrace() {
        let word = p.as_str().split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("").to_string();
        return Err(Diagnostic::new(sp.start..sp.start + word.len(), format!("`{word}` is bpftrace's, not D's"))
            .label("not in D")
            .hint("run the program as bpftrace: --dialect bpftrace, or a .bt file"));
    }
    let rule = p.as_rule();
    let mut it = p.into_inner().filter(|x| !matches!(x.as_rule(), Rule::while_kw | Rule::for_kw | Rule::unroll_kw | Rule::let_kw)).peekable();
    Ok(match rule {
        Rule::for_stmt => {
            let var = it.next().unwrap();
            let var = Ident { name: var.as_str().to_string(), span: span(&var) };
            let over = it.next().unwrap();
            let iter = match over.as_rule() {
                Rule::for_range => {
                    let mut ends = over.into_inner();
                    let start = binary(ends.next().unwrap(), 1)?.0;
                    ForIter::Range(start, binary(ends.next().unwrap(), 1)?.0)
                }
                _ => ForIter::Map(aggregation(over)?),
            };
            let body = statements(it.next().unwrap().into_inner().next().unwrap())?;
            Stmt::For { var, iter, body, span: sp }
        }
        Rule::while_stmt => {
            let cond = expr(it.next().unwrap())?;
            let body = statements(it.next().unwrap().into_inner().next().unwrap())?;
            Stmt::While { cond, body, span: sp }
        }
        Rule::unroll_stmt => {
            let n = it.next().unwrap();
            let times = parse_int(n.as_str(), span(&n))?;
            if !(1..=MAX_UNROLL).contains(&times) {
                return Err(Diagnostic::new(span(&n), format!("unroll({times}) repeats its block {times} times"))
                    .label(format!("not 1 to {MAX_UNROLL}"))
                    .hint(format!("unroll takes a count from 1 to {MAX_UNROLL}; a while loop runs as many times as it needs")));
            }
            let body = statements(it.next().unwrap().into_inner().next().unwrap())?;
            Stmt::Block((0..times).map(|_| Stmt::Block(body.clone())).collect())
        }
        Rule::jump_stmt => {
            let jump = match it.next().unwrap().as_rule() {
                Rule::break_kw => Jump::Break,
                Rule::continue_kw => Jump::Continue,
                _ => Jump::Return,
            };
            Stmt::Jump(jump, sp)
        }
        _ => {
            // `let $x;` declares (its type comes from its first assignment); `let $x = v;`
            // assigns too.
            let var = it.next().unwrap();
            let var = Ident { name: var.as_str().to_string(), span: span(&var) };
            if it.peek().is_some_and(|t| t.as_rule() == Rule::let_type) {
                // `let $a: uint16 [= v];`: typed, then assigned (zero when no value is given).
                let ty = type_name(it.next().unwrap().into_inner().next().unwrap())?;
                let value = it.next().map(expr).transpose()?;
                return Ok(Stmt::Declare { var, ty, value, span: sp });
            }
            let target = LValue::ClauseLocal(var.clone(), var.span.clone());
            match it.next() {
                Some(value) => Stmt::Assign { target, op: None, value: expr(value)?, span: sp },
                None => Stmt::Block(Vec::new()),
            }
        }
    })
}

/// `if (cond) branch [else branch]`.
fn if_stmt(p: Pair<Rule>) -> Result<Stmt, Diagnostic> {
    let sp = span(&p);
    let mut it = p.into_inner().filter(|x| !matches!(x.as_rule(), Rule::if_kw | Rule::else_kw));
    let c = it.next().unwrap();
    let (cond, then) = if c.as_rule() == Rule::bare_cond {
        if !bpftrace() {
            return Err(Diagnostic::new(span(&c), "a condition without parentheses is bpftrace's, not D's")
                .label("no parentheses")
                .hint("write if (cond) { ... }"));
        }
        let cond = expr(c.into_inner().next().unwrap())?;
        (cond, statements(it.next().unwrap().into_inner().next().unwrap())?)
    } else {
        (expr(c)?, branch(it.next().unwrap())?)
    };
    let els = it.next().map(branch).transpose()?;
    Ok(Stmt::If { cond, then, els, span: sp })
}

fn branch(p: Pair<Rule>) -> Result<Vec<Stmt>, Diagnostic> {
    let inner = p.into_inner().next().unwrap();
    Ok(match inner.as_rule() {
        Rule::block => statements(inner.into_inner().next().unwrap())?,
        _ => vec![statement(inner)?],
    })
}

/// What an assignment or `++`/`--` stores into: a variable or an associative array's
/// element, written as an expression.
fn lvalue_of(e: Expr, what: &str) -> Result<LValue, Diagnostic> {
    let named = |name: String, sp: &Span| Ident { span: sp.end - name.len()..sp.end, name };
    // A member of a struct variable; the checker finds the variable under it.
    let member = |e: &Expr| matches!(&e.kind, ExprKind::Member { arrow: false, .. });
    if member(&e) || matches!(&e.kind, ExprKind::Index(base, _) if member(base)) {
        return Ok(LValue::Member(Box::new(e)));
    }
    Ok(match e.kind {
        ExprKind::Ident(name) => LValue::Global(Ident { name, span: e.span }),
        ExprKind::ThreadLocal(name) => LValue::ThreadLocal(named(name, &e.span), e.span),
        ExprKind::ClauseLocal(name) => LValue::ClauseLocal(named(name, &e.span), e.span),
        ExprKind::Index(base, keys) if matches!(base.kind, ExprKind::Ident(_) | ExprKind::ThreadLocal(_)) => {
            let thread = matches!(base.kind, ExprKind::ThreadLocal(_));
            let (ExprKind::Ident(name) | ExprKind::ThreadLocal(name)) = base.kind else { unreachable!() };
            LValue::Element { name: named(name, &base.span), thread, keys, span: e.span }
        }
        ExprKind::Agg(agg) if bpftrace() => map_lvalue(agg),
        ExprKind::Agg(_) => {
            return Err(Diagnostic::new(e.span, format!("cannot {what} an aggregation"))
                .label("an aggregation")
                .hint("an aggregation takes the value of an aggregating function as a statement of its own: `@name[keys] = count();`"))
        }
        _ => {
            return Err(Diagnostic::new(e.span, format!("cannot {what} this expression"))
                .label("not a variable")
                .hint("assign to a variable (`x`, `self->x`, `this->x`), an associative array's element (`a[k]`, `self->a[k]`) or a struct variable's member (`r.m`)"))
        }
    })
}

/// A bpftrace map as what a value is stored into: an element of the associative array
/// named with its `@` (`@` alone for the unnamed map), which no D variable can be; `@m`
/// without keys is the one element of a map without keys.
fn map_lvalue(agg: AggRef) -> LValue {
    let name = Ident { name: format!("@{}", agg.name), span: agg.span.start..agg.span.start + 1 + agg.name.len() };
    LValue::Element { name, thread: false, keys: agg.keys, span: agg.span }
}

fn aggregation(p: Pair<Rule>) -> Result<AggRef, Diagnostic> {
    aggregation_at(p, 0).map(|(a, _)| a)
}

/// `@name[keys]` `level` recursions deep, and the height of its tallest key.
fn aggregation_at(p: Pair<Rule>, level: usize) -> Result<(AggRef, usize), Diagnostic> {
    let sp = span(&p);
    let mut agg = AggRef { name: String::new(), keys: Vec::new(), span: sp };
    let mut height = 0;
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::agg_name => agg.name = part.as_str().to_string(),
            Rule::keys => (agg.keys, height) = operands(part.into_inner(), level)?,
            _ => {}
        }
    }
    Ok((agg, height))
}

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::lor, Assoc::Left))
            .op(Op::infix(Rule::lxor, Assoc::Left))
            .op(Op::infix(Rule::land, Assoc::Left))
            .op(Op::infix(Rule::bor, Assoc::Left))
            .op(Op::infix(Rule::bxor, Assoc::Left))
            .op(Op::infix(Rule::band, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left) | Op::infix(Rule::ne, Assoc::Left))
            .op(Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::shl, Assoc::Left) | Op::infix(Rule::shr, Assoc::Left))
            .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left)
                | Op::infix(Rule::div, Assoc::Left)
                | Op::infix(Rule::rem, Assoc::Left))
            .op(Op::prefix(Rule::not)
                | Op::prefix(Rule::bitnot)
                | Op::prefix(Rule::neg)
                | Op::prefix(Rule::plus)
                | Op::prefix(Rule::deref)
                | Op::prefix(Rule::addr_of)
                | Op::prefix(Rule::cast)
                | Op::prefix(Rule::sizeof_op)
                | Op::prefix(Rule::comptime_op)
                | Op::prefix(Rule::pre_incdec))
            .op(Op::postfix(Rule::member) | Op::postfix(Rule::index) | Op::postfix(Rule::post_incdec))
    })
}

fn binop_of(s: &str) -> BinOp {
    use BinOp::*;
    match s {
        "||" => LogOr,
        "^^" => LogXor,
        "&&" => LogAnd,
        "|" => BitOr,
        "^" => BitXor,
        "&" => BitAnd,
        "==" => Eq,
        "!=" => Ne,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "<<" => Shl,
        ">>" => Shr,
        "+" => Add,
        "-" => Sub,
        "*" => Mul,
        "/" => Div,
        _ => Rem,
    }
}

/// Deeper expressions are refused: later stages recurse over them, and the BPF stack holds
/// one slot per pending operand anyway. Parentheses count as a level too, because turning
/// the parse into a tree recurses on them.
pub const MAX_EXPR_DEPTH: usize = 100;

/// An expression and the height of its tree. Heights are checked as the tree is built, so
/// no tree deeper than the limit ever exists: whatever the input, nothing that walks or
/// drops an expression can run out of stack.
type Built = (Expr, usize);

fn too_deep(sp: Span) -> Diagnostic {
    Diagnostic::new(sp, format!("expression nested more than {MAX_EXPR_DEPTH} levels deep"))
        .label("too deep")
        .hint("split it with a clause-local variable: this->t = ...;")
}

fn node(kind: ExprKind, sp: Span, height: usize) -> Result<Built, Diagnostic> {
    if height > MAX_EXPR_DEPTH {
        return Err(too_deep(sp));
    }
    Ok((Expr { kind, span: sp }, height))
}

fn expr(p: Pair<Rule>) -> Result<Expr, Diagnostic> {
    expr_at(p, 0).map(|(e, _)| e)
}

/// An expression `level` recursions below the statement it is in.
fn expr_at(p: Pair<Rule>, level: usize) -> Result<Built, Diagnostic> {
    let sp = span(&p);
    if level > MAX_EXPR_DEPTH {
        return Err(too_deep(sp));
    }
    let mut it = p.into_inner();
    let (cond, hc) = binary(it.next().unwrap(), level)?;
    match (it.next(), it.next()) {
        (Some(op), Some(value)) if op.as_rule() == Rule::assign_op => {
            let op = match op.as_str() {
                "=" => None,
                o => Some(binop_of(&o[..o.len() - 1])),
            };
            let (value, hv) = expr_at(value, level + 1)?;
            let target = Box::new(lvalue_of(cond, "assign to")?);
            node(ExprKind::Assign { target, op, value: Box::new(value) }, sp, 1 + hc.max(hv))
        }
        (Some(a), Some(b)) => {
            let (a, ha) = expr_at(a, level + 1)?;
            let (b, hb) = expr_at(b, level + 1)?;
            node(ExprKind::Ternary(Box::new(cond), Box::new(a), Box::new(b)), sp, 1 + hc.max(ha).max(hb))
        }
        _ => Ok((cond, hc)),
    }
}

/// An operand while the Pratt parser builds a chain: the expression, its height, and the
/// source it was written as, with any parentheses around it, which the spans of the operators
/// applied to it cover (`((struct file *)arg0)->f_path` and `(a) - b` start at the first
/// parenthesis). A parenthesised expression's own span stays inside the parentheses.
struct Operand {
    e: Expr,
    h: usize,
    written: Span,
}

impl Operand {
    fn new((e, h): Built, written: Span) -> Operand {
        Operand { e, h, written }
    }
}

fn is_prefix(r: Rule) -> bool {
    matches!(r, Rule::not | Rule::bitnot | Rule::neg | Rule::plus | Rule::deref | Rule::addr_of | Rule::cast | Rule::sizeof_op | Rule::comptime_op | Rule::pre_incdec)
}

/// The grammar's `postfix` operators.
fn is_postfix(r: Rule) -> bool {
    matches!(r, Rule::member | Rule::index | Rule::post_incdec)
}

fn binary(p: Pair<Rule>, level: usize) -> Result<Built, Diagnostic> {
    // The Pratt parser recurses once per prefix operator: refuse long runs before it starts.
    let mut run = 0;
    for part in p.clone().into_inner() {
        run = if is_prefix(part.as_rule()) { run + 1 } else { 0 };
        if run > MAX_EXPR_DEPTH {
            return Err(too_deep(span(&part)));
        }
    }
    let cast_operands = RefCell::new(HashMap::new());
    let parts = casts_of_named_types(p.into_inner().collect(), level, &cast_operands)?;
    chain(parts, level, &cast_operands).map(|o| (o.e, o.h))
}

/// `(name)` as a bare parenthesised name (the grammar's reading when what follows could
/// continue an expression).
fn parenthesised_name<'i>(p: &Pair<'i, Rule>) -> Option<Pair<'i, Rule>> {
    if p.as_rule() != Rule::paren {
        return None;
    }
    let e = p.clone().into_inner().next()?;
    let mut parts = e.into_inner();
    let b = parts.next()?;
    if parts.next().is_some() {
        return None;
    }
    let mut inner = b.into_inner();
    let name = inner.next()?;
    (name.as_rule() == Rule::ident && inner.next().is_none()).then_some(name)
}

/// Rewrites `(T) - x`, `(T) + x`, `(T) * x` and `(T) & x` in a chain of operands and
/// operators, where T is a type name, into the cast of the unary `-x`, `+x`, `*x`, `&x`: the
/// cast's operand is built now and found by its `(T)` (keyed by its start) when the chain is.
/// Right to left, so `(T)-(U)-1` casts twice.
fn casts_of_named_types<'i>(mut parts: Vec<Pair<'i, Rule>>, level: usize, built: &RefCell<HashMap<usize, Operand>>) -> Result<Vec<Pair<'i, Rule>>, Diagnostic> {
    let mut i = parts.len();
    while i > 0 {
        i -= 1;
        let Some(name) = parenthesised_name(&parts[i]) else { continue };
        let Some(op) = parts.get(i + 1).map(|o| o.as_rule()).filter(|r| matches!(r, Rule::sub | Rule::add | Rule::mul | Rule::band)) else { continue };
        // bpftrace's integer type names (`(uint32)-1`) are types in its dialect.
        let bpftrace_int = bpftrace() && is_bpftrace_int(name.as_str());
        if !bpftrace_int && !TypeScope::is_type(name.as_str()) {
            continue;
        }
        // The operand: prefix operators, a primary, postfix operators.
        let mut end = i + 2;
        while end < parts.len() && is_prefix(parts[end].as_rule()) {
            end += 1;
        }
        end += 1;
        while end < parts.len() && is_postfix(parts[end].as_rule()) {
            end += 1;
        }
        let end = end.min(parts.len());
        let operand = chain(parts[i + 2..end].to_vec(), level, built)?;
        let op_start = parts[i + 1].as_span().start();
        let written = op_start..operand.written.end;
        // The infix operator read as the prefix one it is here.
        let as_prefix = match op {
            Rule::sub => Rule::neg,
            Rule::add => Rule::plus,
            Rule::mul => Rule::deref,
            _ => Rule::addr_of,
        };
        let kind = prefix_kind(as_prefix, operand.e);
        let inner = node(kind, written.clone(), operand.h + 1)?;
        let paren = span(&parts[i]);
        let t = TypeName::plain(BaseType::Named(vec![dialect::bpftrace_type(name.as_str()).to_string()]), 0, span(&name));
        let cast = node(ExprKind::Cast(t, Box::new(inner.0)), paren.start..written.end, inner.1 + 1)?;
        built.borrow_mut().insert(paren.start, Operand::new(cast, paren.start..written.end));
        parts.drain(i + 1..end);
    }
    Ok(parts)
}

/// A prefix operator other than a cast applied to `operand`.
fn prefix_kind(op: Rule, operand: Expr) -> ExprKind {
    let operand = Box::new(operand);
    match op {
        Rule::sizeof_op => ExprKind::SizeofExpr(operand),
        Rule::deref => ExprKind::Deref(operand),
        Rule::addr_of => ExprKind::AddrOf(operand),
        Rule::not => ExprKind::Unary(UnOp::Not, operand),
        Rule::bitnot => ExprKind::Unary(UnOp::BitNot, operand),
        Rule::neg => ExprKind::Unary(UnOp::Neg, operand),
        _ => ExprKind::Unary(UnOp::Plus, operand),
    }
}

/// A chain of operands and operators as the Pratt parser builds it.
fn chain(parts: Vec<Pair<Rule>>, level: usize, built: &RefCell<HashMap<usize, Operand>>) -> Result<Operand, Diagnostic> {
    pratt()
        .map_primary(|p| {
            if let Some(cast) = built.borrow_mut().remove(&p.as_span().start()) {
                return Ok(cast);
            }
            let written = span(&p);
            Ok(Operand::new(primary(p, level)?, written))
        })
        .map_prefix(|op, rhs| {
            let rhs = rhs?;
            let start = op.as_span().start();
            let written = start..rhs.written.end;
            let kind = match op.as_rule() {
                Rule::cast => ExprKind::Cast(type_name(op.into_inner().next().unwrap())?, Box::new(rhs.e)),
                Rule::pre_incdec => incdec(op.as_str(), rhs.e, false)?,
                Rule::comptime_op if !bpftrace() => return Err(not_d(span(&op), "`comptime`")),
                Rule::comptime_op => ExprKind::Comptime(Box::new(rhs.e)),
                r => prefix_kind(r, rhs.e),
            };
            Ok(Operand::new(node(kind, written.clone(), rhs.h + 1)?, written))
        })
        .map_postfix(|lhs, op| {
            let lhs = lhs?;
            let sp = lhs.written.start..op.as_span().end();
            let (kind, h) = match op.as_rule() {
                Rule::member => {
                    let mut it = op.into_inner();
                    let arrow = it.next().unwrap().as_rule() == Rule::arrow;
                    let name = it.next().unwrap();
                    if name.as_rule() == Rule::tuple_index && (arrow || !bpftrace()) {
                        return Err(Diagnostic::new(span(&name), format!("syntax error: `{}` is not a member's name", name.as_str()))
                            .label("a number")
                            .hint(if arrow { "expected a name after `->` (a tuple's element is read with `.`: $t.0)" } else { "expected a name after `.` (tuples and their elements, $t.0, are bpftrace's: --dialect bpftrace, or a .bt file)" }));
                    }
                    let member = ident(name);
                    // bpftrace's `args.name` is `args->name`, whatever the probe.
                    if !arrow && matches!(&lhs.e.kind, ExprKind::Ident(a) if a == "args") {
                        (ExprKind::ArgsField(member.name), lhs.h + 1)
                    } else {
                        (ExprKind::Member { base: Box::new(lhs.e), member, arrow }, lhs.h + 1)
                    }
                }
                Rule::post_incdec => (incdec(op.as_str(), lhs.e, true)?, lhs.h + 1),
                _ => {
                    let (keys, hi) = operands(op.into_inner(), level + 1)?;
                    (ExprKind::Index(Box::new(lhs.e), keys), 1 + lhs.h.max(hi))
                }
            };
            Ok(Operand::new(node(kind, sp.clone(), h)?, sp))
        })
        .map_infix(|lhs, op, rhs| {
            let (lhs, rhs) = (lhs?, rhs?);
            let written = lhs.written.start..rhs.written.end;
            let b = binop_of(op.as_str().trim());
            Ok(Operand::new(node(ExprKind::Binary(b, Box::new(lhs.e), Box::new(rhs.e)), written.clone(), 1 + lhs.h.max(rhs.h))?, written))
        })
        .parse(parts.into_iter())
}

/// `++target`/`--target`, or `target++`/`target--` (`post`).
fn incdec(op: &str, target: Expr, post: bool) -> Result<ExprKind, Diagnostic> {
    let (delta, verb) = if op == "++" { (1, "increment") } else { (-1, "decrement") };
    Ok(ExprKind::IncDec { target: Box::new(lvalue_of(target, verb)?), delta, post })
}

/// The most `*` a type name may have (TypeName::pointers is a u8).
const MAX_POINTERS: usize = u8::MAX as usize;

/// A type name as written; `const` and `volatile` are dropped.
fn type_name(p: Pair<Rule>) -> Result<TypeName, Diagnostic> {
    let start = p.as_span().start();
    // The span ends with the last word or `*` (a token: no pairs inside), not with the
    // whitespace pest's repetitions leave in their pairs' spans.
    let end = p.clone().into_inner().flatten().filter(|t| t.as_rule() == Rule::type_array || t.clone().into_inner().next().is_none()).map(|t| t.as_span().end()).max().unwrap_or(start);
    let mut base = None;
    let mut pointers = 0usize;
    let mut suffix = Vec::new();
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::int_type => base = Some(BaseType::Named(part.into_inner().filter(|w| w.as_rule() == Rule::int_kw).map(|w| w.as_str().to_string()).collect())),
            Rule::tagged_type => {
                let mut it = part.into_inner();
                let tag = it.next().unwrap().as_str();
                let name = it.next().unwrap().as_str().to_string();
                base = Some(match tag {
                    "struct" => BaseType::Struct(name),
                    "union" => BaseType::Union(name),
                    _ => BaseType::Enum(name),
                });
            }
            Rule::ident if bpftrace() => base = Some(BaseType::Named(vec![crate::dialect::bpftrace_type(part.as_str()).to_string()])),
            Rule::ident => base = Some(BaseType::Named(vec![part.as_str().to_string()])),
            Rule::typeof_type => {
                // `typeof(T)` is T (its `*`s and the ones after it add up); `typeof(e)`, e's type.
                let t = typeof_base(part)?;
                base = Some(t.base);
                pointers += t.pointers as usize;
                suffix = t.suffix;
            }
            Rule::type_array => {
                if !bpftrace() {
                    return Err(not_d(span(&part), "a type with `[N]`"));
                }
                let len = match part.clone().into_inner().next() {
                    Some(_) => Some(small_number(part, "array length")?),
                    None => None,
                };
                suffix.push(TypeSuffix::Array(len));
            }
            Rule::star if !suffix.is_empty() => suffix.push(TypeSuffix::Pointer),
            Rule::star => {
                pointers += 1;
                if pointers > MAX_POINTERS {
                    return Err(Diagnostic::new(span(&part), format!("type name with more than {MAX_POINTERS} `*`"))
                        .label("too many")
                        .hint(format!("a pointer type has at most {MAX_POINTERS} levels of `*`")));
                }
            }
            _ => {}
        }
    }
    Ok(TypeName { base: base.expect("the grammar requires a base type"), pointers: pointers as u8, suffix, span: start..end })
}

/// In D, `sizeof(a[1])`'s `a[1]`, which reads as a type with `[N]` (bpftrace's): the
/// element `a[1]` of variable `a`, as an expression.
#[inline(never)]
fn d_element(t: &Pair<Rule>) -> Result<Option<Expr>, Diagnostic> {
    let parts: Vec<_> = t.clone().into_inner().collect();
    if bpftrace() || parts.len() < 2 || parts[0].as_rule() != Rule::ident || parts[1..].iter().any(|x| x.as_rule() != Rule::type_array || x.clone().into_inner().next().is_none()) {
        return Ok(None);
    }
    let mut e = Expr { kind: ExprKind::Ident(parts[0].as_str().to_string()), span: span(&parts[0]) };
    for x in &parts[1..] {
        let n = x.clone().into_inner().next().expect("checked");
        let v = parse_int(n.as_str(), span(&n))?;
        let index = Expr { kind: ExprKind::Int(v, literal_type_of(n.as_str(), v)), span: span(&n) };
        e = Expr { kind: ExprKind::Index(Box::new(e.clone()), vec![index]), span: e.span.start..span(x).end };
    }
    Ok(Some(e))
}

/// `what is bpftrace's, not D's` (kept out of the recursive parsing functions' frames).
#[inline(never)]
fn not_d(sp: Span, what: &str) -> Diagnostic {
    Diagnostic::new(sp, format!("{what} is bpftrace's, not D's")).label("not in D").hint("run the program as bpftrace: --dialect bpftrace, or a .bt file")
}

/// `typeof(T)` (T, its `*`s and `[N]`s) or `typeof(expr)`; in D, an error.
#[inline(never)]
fn typeof_base(p: Pair<Rule>) -> Result<TypeName, Diagnostic> {
    let sp = span(&p);
    if !bpftrace() {
        return Err(not_d(sp, "`typeof`"));
    }
    let inner = p.into_inner().find(|x| x.as_rule() != Rule::typeof_kw).unwrap();
    Ok(match inner.as_rule() {
        Rule::type_name => type_name(inner)?,
        _ => TypeName::plain(BaseType::TypeOf(TypeOfExpr(Box::new(expr(inner)?))), 0, sp),
    })
}

/// Expressions that are each one level below `level` (call arguments, aggregation keys),
/// and the height of the tallest.
fn operands<'i>(pairs: impl Iterator<Item = Pair<'i, Rule>>, level: usize) -> Result<(Vec<Expr>, usize), Diagnostic> {
    let mut height = 0;
    let mut out = Vec::new();
    for p in pairs {
        let (e, h) = expr_at(p, level + 1)?;
        height = height.max(h);
        out.push(e);
    }
    Ok((out, height))
}

fn primary(p: Pair<Rule>, level: usize) -> Result<Built, Diagnostic> {
    let sp = span(&p);
    let kind = match p.as_rule() {
        Rule::number => {
            let v = parse_int(p.as_str(), sp.clone())?;
            ExprKind::Int(v, literal_type_of(p.as_str(), v))
        }
        Rule::char_lit => {
            let b = unescape_bytes(&p.as_str()[1..p.as_str().len() - 1], sp.clone())?;
            let mut bytes = b.into_iter();
            match (bytes.next(), bytes.next()) {
                (Some(b), None) => ExprKind::Int(b as i8 as i64, crate::types::IntType { name: "char".into(), size: 1, signed: true, char: true, bool: false }),
                _ => {
                    return Err(Diagnostic::new(sp, "a character constant holds one character")
                        .label("not one byte")
                        .hint("use double quotes for strings"))
                }
            }
        }
        Rule::string => ExprKind::Str(string_literal(&p)?),
        Rule::call => {
            let mut it = p.into_inner();
            let name = ident(it.next().unwrap());
            let (args, h) = operands(it, level)?;
            if bpftrace() {
                return node(crate::dialect::bpftrace_call(name, args)?, sp, h + 1);
            }
            return node(ExprKind::Call(name, args), sp, h + 1);
        }
        Rule::aggregation => {
            let (agg, h) = aggregation_at(p, level)?;
            return node(ExprKind::Agg(agg), sp, h + 1);
        }
        // bpftrace's scratch variables are clause-locals, named with their `$`.
        // (`$pid`, `$target` too: bpftrace's only parameters are `$1`, `$2`, ... and `$#`.)
        Rule::macro_var if bpftrace() && !dialect::is_positional(&p.as_str()[1..]) => ExprKind::ClauseLocal(p.as_str().to_string()),
        Rule::macro_var => ExprKind::Macro(p.as_str()[1..].to_string()),
        Rule::args_field => ExprKind::ArgsField(p.into_inner().next().unwrap().as_str().to_string()),
        Rule::thread_var => {
            let this = p.as_str().starts_with("this");
            let name = p.into_inner().next().unwrap().as_str().to_string();
            if this {
                ExprKind::ClauseLocal(name)
            } else {
                ExprKind::ThreadLocal(name)
            }
        }
        Rule::ident if bpftrace() => crate::dialect::bpftrace_ident(p.as_str(), &sp),
        Rule::ident => ExprKind::Ident(p.as_str().to_string()),
        // (Kept out of this function: its frame is on every level of nested expressions.)
        Rule::paren => return paren(p, sp, level),
        Rule::block_expr => return block_expr(p, level),
        // `typeof(...)` as a value: a macro's type argument (the macro pass puts it in place).
        Rule::typeof_type => return type_arg(p, sp),
        Rule::typeinfo => return typeinfo(p, sp),
        Rule::sizeof_type => {
            let t = p.into_inner().find(|part| part.as_rule() == Rule::type_name).unwrap();
            match d_element(&t)? {
                Some(e) => ExprKind::SizeofExpr(Box::new(e)),
                None => ExprKind::SizeofType(type_name(t)?),
            }
        }
        Rule::xlate => {
            let mut parts = p.into_inner().filter(|x| x.as_rule() != Rule::xlate_kw);
            let t = type_name(parts.next().unwrap())?;
            let e = expr_at(parts.next().unwrap(), level + 1)?.0;
            ExprKind::Xlate(t, Box::new(e))
        }
        Rule::offsetof => {
            let mut t = None;
            let mut path = Vec::new();
            for part in p.into_inner() {
                match part.as_rule() {
                    Rule::type_name => t = Some(type_name(part)?),
                    Rule::member_path => path = part.into_inner().map(ident).collect(),
                    _ => {}
                }
            }
            ExprKind::Offsetof(t.unwrap(), path)
        }
        Rule::container_of => container_of(p, &sp, level)?,
        r => unreachable!("primary {r:?}"),
    };
    Ok((Expr { kind, span: sp }, 0))
}

/// `(e)`, a tuple or bpftrace's record: a function of its own, so that the frame of
/// [`primary`], which nested parentheses recurse through, stays small.
#[inline(never)]
fn paren(p: Pair<Rule>, sp: Span, level: usize) -> Result<Built, Diagnostic> {
    if p.clone().into_inner().count() != 1 {
        return tuple(p, sp, level);
    }
    let (e, h) = expr_at(p.into_inner().next().unwrap(), level + 1)?;
    // bpftrace's record of one field, `(name = a)`.
    if bpftrace() && matches!(&e.kind, ExprKind::Assign { target, op: None, .. } if matches!(**target, LValue::Global(_))) {
        let ExprKind::Assign { target, value, .. } = e.kind else { unreachable!("checked") };
        let LValue::Global(name) = *target else { unreachable!("checked") };
        return node(ExprKind::Record(vec![(name, *value)]), sp, h + 1);
    }
    Ok((e, h))
}

/// bpftrace's tuple `(a, b)` (or `()`), or record `(name = a, ...)`.
fn tuple(p: Pair<Rule>, sp: Span, level: usize) -> Result<Built, Diagnostic> {
    if !bpftrace() {
        return Err(Diagnostic::new(sp, "a tuple is bpftrace's, not D's").label("not in D").hint("D has no tuples or comma operator; run the program as bpftrace (--dialect bpftrace, or a .bt file)"));
    }
    let (elems, h) = operands(p.into_inner().filter(|x| x.as_rule() != Rule::trailing_comma), level + 1)?;
    // `(name = a, ...)`: bpftrace has no variables written without `$` or `@`, so
    // what reads as assignments to them is a record's fields (`()` is the empty tuple).
    let named = |e: &Expr| matches!(&e.kind, ExprKind::Assign { target, op: None, .. } if matches!(**target, LValue::Global(_)));
    if elems.is_empty() || !elems.iter().all(named) {
        return node(ExprKind::Tuple(elems), sp, h + 1);
    }
    let mut fields: Vec<(Ident, Expr)> = Vec::new();
    for e in elems {
        let ExprKind::Assign { target, value, .. } = e.kind else { unreachable!("checked") };
        let LValue::Global(name) = *target else { unreachable!("checked") };
        if fields.iter().any(|(n, _)| n.name == name.name) {
            return Err(Diagnostic::new(name.span, format!("the record's field `{}` is given twice", name.name)).label("again").hint("give each field once: (a = 1, b = 2)"));
        }
        fields.push((name, *value));
    }
    node(ExprKind::Record(fields), sp, h + 1)
}

/// bpftrace's block expression `{ statements; value }`: the last statement is its value when
/// it is an expression with no `;` after it.
#[inline(never)]
fn block_expr(p: Pair<Rule>, level: usize) -> Result<Built, Diagnostic> {
    let sp = span(&p);
    if !bpftrace() {
        return Err(Diagnostic::new(sp, "a block expression is bpftrace's, not D's").label("not in D").hint("run the program as bpftrace: --dialect bpftrace, or a .bt file"));
    }
    let _inside = Inside::enter(&sp, level)?;
    let src = p.as_str();
    let mut items: Vec<Pair<Rule>> = p.into_inner().next().unwrap().into_inner().collect();
    // What follows the last statement up to the closing brace: nothing (but layout) when it
    // is the value.
    let last_is_value = items.last().is_some_and(|last| {
        let rest = &src[last.as_span().end() - sp.start..src.len() - 1];
        let value = last.as_rule() == Rule::block || (last.as_rule() == Rule::statement && last.clone().into_inner().next().is_some_and(|e| e.as_rule() == Rule::expr));
        value && skip_layout(rest).is_empty()
    });
    if !last_is_value {
        return Err(Diagnostic::new(sp, "a block used as a value must end with an expression")
            .label("no value")
            .hint("end the block with an expression and no `;` after it: `{ let $b = 2; $b + 1 }`"));
    }
    let last = items.pop().unwrap();
    // `{ { ... } }`: an inner block last is the value too.
    let (value, h) = if last.as_rule() == Rule::block { block_expr(last, level + 1)? } else { expr_at(last.into_inner().next().unwrap(), level + 1)? };
    let stmts = items.into_iter().map(statement).collect::<Result<Vec<_>, _>>()?;
    node(ExprKind::Block(stmts, Box::new(value)), sp, h + 1)
}

thread_local!(static BLOCKS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });

/// Inside one more block (a statement's or an expression's): blocks inside blocks, through
/// statements too (whose expressions count their levels afresh), are refused past the limit
/// rather than run out of stack.
struct Inside;

impl Inside {
    fn enter(sp: &Span, level: usize) -> Result<Inside, Diagnostic> {
        let depth = BLOCKS.with(|b| {
            b.set(b.get() + 1);
            b.get()
        });
        let inside = Inside;
        if depth.max(level) > MAX_EXPR_DEPTH {
            return Err(Diagnostic::new(sp.clone(), format!("blocks nested more than {MAX_EXPR_DEPTH} levels deep")).label("too deep").hint("split the work over fewer nested blocks"));
        }
        Ok(inside)
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        BLOCKS.with(|b| b.set(b.get() - 1));
    }
}

/// `s` without its leading whitespace and comments.
fn skip_layout(mut s: &str) -> &str {
    loop {
        let t = s.trim_start();
        s = if let Some(r) = t.strip_prefix("//") {
            r.find('\n').map_or("", |i| &r[i..])
        } else if let Some(r) = t.strip_prefix("/*") {
            r.find("*/").map_or("", |i| &r[i + 2..])
        } else {
            return t;
        };
    }
}

/// `typeof(...)` as a value: a macro's type argument (the macro pass puts it in place).
#[inline(never)]
fn type_arg(p: Pair<Rule>, sp: Span) -> Result<Built, Diagnostic> {
    let t = typeof_base(p)?;
    node(ExprKind::TypeArg(TypeName { span: sp.clone(), ..t }), sp, 1)
}

/// `typeinfo(T)` or `typeinfo(expr)`: a call of `typeinfo` with the type as its argument (the
/// checker reads its fields, check/typeinfo.rs); in D, an error.
#[inline(never)]
fn typeinfo(p: Pair<Rule>, sp: Span) -> Result<Built, Diagnostic> {
    if !bpftrace() {
        return Err(not_d(sp, "`typeinfo`"));
    }
    let inner = p.into_inner().find(|x| x.as_rule() != Rule::typeinfo_kw).unwrap();
    let t = match inner.as_rule() {
        Rule::type_name => type_name(inner)?,
        _ => {
            let isp = span(&inner);
            TypeName::plain(BaseType::TypeOf(TypeOfExpr(Box::new(expr(inner)?))), 0, isp)
        }
    };
    let arg = Expr { kind: ExprKind::TypeArg(t.clone()), span: t.span.clone() };
    node(ExprKind::Call(Ident { name: "typeinfo".into(), span: sp.start..sp.start + 8 }, vec![arg]), sp, 1)
}

/// `container_of(ptr, type, member)`, current bpftrace's: `(type *)((uint64_t)ptr -
/// offsetof(type, member))`, the object whose `member` ptr points at.
fn container_of(p: Pair<Rule>, sp: &Span, level: usize) -> Result<ExprKind, Diagnostic> {
    let (mut ptr, mut t, mut path) = (None, None, Vec::new());
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::type_name => t = Some(type_name(part)?),
            Rule::member_path => path = part.into_inner().map(ident).collect(),
            Rule::container_of_kw | Rule::offsetof_comma => {}
            _ => ptr = Some(expr_at(part, level + 1)?.0),
        }
    }
    let (ptr, t) = (ptr.expect("grammar: a pointer"), t.expect("grammar: a type"));
    let at = |kind: ExprKind| Box::new(Expr { kind, span: sp.clone() });
    let word = TypeName::plain(BaseType::Named(vec!["uint64_t".into()]), 0, ptr.span.clone());
    let address = at(ExprKind::Cast(word, Box::new(ptr)));
    let start = ExprKind::Binary(BinOp::Sub, address, at(ExprKind::Offsetof(t.clone(), path)));
    Ok(ExprKind::Cast(t.pointer_to(), at(start)))
}

/// The value of an integer written as in D (decimal, 0x hex, 0 octal, optional sign and
/// suffixes), for macro arguments.
pub fn integer_literal(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    if digits.is_empty() || !digits.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    parse_int(digits, 0..0).ok().map(|v| if neg { v.wrapping_neg() } else { v })
}

/// The C type of the integer constant `text` (whose value is `v`): its suffixes and whether
/// it is decimal decide, as in C.
fn literal_type_of(text: &str, v: i64) -> crate::types::IntType {
    let suffix = &text[text.trim_end_matches(['u', 'U', 'l', 'L']).len()..];
    let decimal = !text.starts_with('0') || text.len() - suffix.len() == 1;
    crate::types::literal_type(v as u64, decimal, suffix.contains(['u', 'U']), suffix.contains(['l', 'L']))
}

#[inline(never)]
fn parse_int(text: &str, sp: Span) -> Result<i64, Diagnostic> {
    let hex = text.starts_with("0x") || text.starts_with("0X");
    // Letters after the digits that are neither C's suffixes nor a duration's unit.
    let body = if hex { &text[2..] } else { text };
    let tail = body.trim_start_matches(|c: char| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() || c == '_' });
    let tail = tail.strip_prefix(['e', 'E']).filter(|_| !hex).map_or(tail, |t| t.trim_start_matches(|c: char| c.is_ascii_digit()));
    if let Some((unit, ns)) = (!hex).then(|| duration_unit(tail)).flatten() {
        return duration(text, &text[..text.len() - unit.len()], ns, sp);
    }
    if !tail.trim_start_matches(['u', 'U', 'l', 'L']).is_empty() || tail.len() > 3 {
        let bad = &tail[tail.len() - tail.trim_start_matches(['u', 'U', 'l', 'L']).len()..];
        let bad = if bad.is_empty() { tail } else { bad };
        let at = sp.end.saturating_sub(bad.len()).max(sp.start)..sp.end;
        return Err(Diagnostic::new(at, format!("invalid integer suffix '{bad}'"))
            .label("not a suffix")
            .hint("an integer may end in C's u, l, ll, or a duration's unit: ns us ms s m h d (`100ms` is 100000000 nanoseconds)"));
    }
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if !digits.starts_with("0x") && !digits.starts_with("0X") && digits.contains(['_', 'e', 'E']) {
        return scaled_int(digits, sp);
    }
    let parsed = c_unsigned(digits);
    let octal = digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0x") && !digits.starts_with("0X");
    parsed.map(|v| v as i64).map_err(|_| {
        if octal && digits.contains(['8', '9']) {
            Diagnostic::new(sp, "invalid octal constant").label("8 and 9 are not octal digits").hint("constants that start with 0 are octal; drop the leading 0 for decimal")
        } else {
            Diagnostic::new(sp, "integer constant out of range").label("does not fit in 64 bits").hint("integers are 64-bit")
        }
    })
}

/// A duration's unit (`ms`) and how many nanoseconds it is, if `suffix` is one.
fn duration_unit(suffix: &str) -> Option<(&str, u64)> {
    let ns = match suffix {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return None,
    };
    Some((suffix, ns))
}

/// Current bpftrace's duration literal (`100ms`): `digits` (decimal, `_`, `1e3`) times `ns`
/// nanoseconds per unit (a leading 0 is octal, as bpftrace reads it). One past 64 bits is
/// bpftrace's overflow error.
fn duration(text: &str, digits: &str, ns: u64, sp: Span) -> Result<i64, Diagnostic> {
    let overflow = || {
        Diagnostic::new(sp.clone(), format!("overflow error, maximum value is {}: {text}", u64::MAX))
            .label("more nanoseconds than 64 bits hold")
            .hint("a duration is nanoseconds in 64 bits: at most about 213503 days")
    };
    let n = if digits.contains(['_', 'e', 'E']) { scaled_int(digits, sp.clone())? as u64 } else { c_unsigned(digits).map_err(|_| overflow())? };
    n.checked_mul(ns).map(|v| v as i64).ok_or_else(overflow)
}

/// bpftrace's `1_000_000` and `1e6`: decimal digits (underscores between them), times ten to
/// the exponent.
fn scaled_int(text: &str, sp: Span) -> Result<i64, Diagnostic> {
    let (mantissa, exp) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let too_big = || Diagnostic::new(sp.clone(), "integer constant out of range").label("does not fit in 64 bits").hint("integers are 64-bit");
    let m: u64 = mantissa.replace('_', "").parse().map_err(|_| too_big())?;
    let e: u32 = exp.parse().map_err(|_| too_big())?;
    10u64.checked_pow(e).and_then(|p| m.checked_mul(p)).map(|v| v as i64).ok_or_else(too_big)
}

/// Digits as C reads an unsigned constant: `0x` hex, a leading `0` octal, else decimal.
pub(crate) fn c_unsigned(digits: &str) -> Result<u64, std::num::ParseIntError> {
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse()
    }
}

/// Processes C escapes in a string literal body. Bytes that are not UTF-8 (`\377`) are kept
/// as U+FFFD: strings are text to crumbs.
pub fn unescape(body: &str, sp: Span) -> Result<String, Diagnostic> {
    let bytes = unescape_bytes(body, sp)?;
    Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// A string literal token (with its quotes) as a value that remembers where each byte of it
/// was written.
fn string_literal(p: &Pair<Rule>) -> Result<StrLit, Diagnostic> {
    let sp = span(p);
    let text = p.as_str();
    let (bytes, from) = unescape_traced(&text[1..text.len() - 1], sp.clone())?;
    let mut value = String::with_capacity(bytes.len());
    let mut origin = Vec::with_capacity(bytes.len() + 1);
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        value.push_str(chunk.valid());
        origin.extend_from_slice(&from[at..at + chunk.valid().len()]);
        at += chunk.valid().len();
        if !chunk.invalid().is_empty() {
            value.push(char::REPLACEMENT_CHARACTER);
            origin.extend([from[at]; 3]);
            at += chunk.invalid().len();
        }
    }
    origin.push(sp.end - 1);
    Ok(StrLit { value, origin: origin.into_iter().map(|o| o as u32).collect() })
}

/// Processes C escapes in a string or character literal body, to bytes.
pub fn unescape_bytes(body: &str, sp: Span) -> Result<Vec<u8>, Diagnostic> {
    unescape_traced(body, sp).map(|(bytes, _)| bytes)
}

/// [`unescape_bytes`], and for each byte the source offset of what produced it (the
/// character itself, or the backslash of its escape).
fn unescape_traced(body: &str, sp: Span) -> Result<(Vec<u8>, Vec<usize>), Diagnostic> {
    let mut out: Vec<u8> = Vec::new();
    let mut from: Vec<usize> = Vec::new();
    // The body starts one byte (the opening quote) into the literal's span.
    let base = sp.start + 1;
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let before = out.len();
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        } else {
            let Some((_, e)) = chars.next() else { break };
            match e {
                'n' => out.push(b'\n'),
                't' => out.push(b'\t'),
                'r' => out.push(b'\r'),
                'a' => out.push(7),
                'b' => out.push(8),
                'f' => out.push(12),
                'v' => out.push(11),
                '\\' | '"' | '\'' | '?' => out.push(e as u8),
                'x' => {
                    let mut v = 0u32;
                    let mut n = 0;
                    while let Some(&(_, h)) = chars.peek() {
                        if n == 2 || !h.is_ascii_hexdigit() {
                            break;
                        }
                        v = v * 16 + h.to_digit(16).unwrap();
                        chars.next();
                        n += 1;
                    }
                    out.push(v as u8);
                }
                '0'..='7' => {
                    let mut v = e.to_digit(8).unwrap();
                    let mut n = 1;
                    while let Some(&(_, o)) = chars.peek() {
                        if n == 3 || !('0'..='7').contains(&o) {
                            break;
                        }
                        v = v * 8 + o.to_digit(8).unwrap();
                        chars.next();
                        n += 1;
                    }
                    out.push(v as u8);
                }
                other => {
                    let at = base + i;
                    return Err(Diagnostic::new(at..at + 1 + other.len_utf8(), format!("unknown escape sequence `\\{other}`"))
                        .label("not a C escape")
                        .hint("known escapes: \\n \\t \\r \\a \\b \\f \\v \\\\ \\\" \\' \\0 \\xHH \\ooo"));
                }
            }
        }
        from.resize(out.len().max(before), base + i);
    }
    Ok((out, from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_clause(src: &str) -> Clause {
        let p = parse_program(src).unwrap_or_else(|d| panic!("{src}: {}", d.message));
        assert_eq!(p.clauses.len(), 1);
        p.clauses.into_iter().next().unwrap()
    }

    fn expr_of(src: &str) -> Expr {
        let c = one_clause(&format!("BEGIN {{ {src}; }}"));
        match c.body.unwrap().remove(0) {
            Stmt::Expr(e) => e,
            s => panic!("not an expression: {s:?}"),
        }
    }

    /// Fully parenthesised rendering, to check precedence and associativity.
    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v, _) => v.to_string(),
            ExprKind::Str(s) => format!("{:?}", s.value),
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Macro(n) => format!("${n}"),
            ExprKind::ThreadLocal(n) => format!("self->{n}"),
            ExprKind::ArgsField(n) => format!("args->{n}"),
            ExprKind::ClauseLocal(n) => clause_local_text(n),
            ExprKind::Agg(a) => format!("@{}", a.name),
            ExprKind::Call(f, args) => format!("{}({})", f.name, args.iter().map(show).collect::<Vec<_>>().join(", ")),
            ExprKind::Unary(op, a) => format!("({op:?} {})", show(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
            ExprKind::Ternary(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
            ExprKind::Cast(t, a) => format!("(({}){})", show_type(t), show(a)),
            ExprKind::Member { base, member, arrow } => format!("({}{}{})", show(base), if *arrow { "->" } else { "." }, member.name),
            ExprKind::Index(a, i) => format!("({}[{}])", show(a), i.iter().map(show).collect::<Vec<_>>().join(", ")),
            ExprKind::Deref(a) => format!("(*{})", show(a)),
            ExprKind::Assign { target, op, value } => format!("({} {}= {})", target.text(), op.map_or("", |o| o.symbol()), show(value)),
            ExprKind::IncDec { target, delta, post } => {
                let op = if *delta > 0 { "++" } else { "--" };
                if *post { format!("({}{op})", target.text()) } else { format!("({op}{})", target.text()) }
            }
            ExprKind::AddrOf(a) => format!("(&{})", show(a)),
            ExprKind::SizeofType(t) => format!("sizeof({})", show_type(t)),
            ExprKind::SizeofExpr(a) => format!("(sizeof {})", show(a)),
            ExprKind::Offsetof(t, path) => format!("offsetof({}, {})", show_type(t), path.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(".")),
            ExprKind::Xlate(t, a) => format!("xlate<{}>({})", show_type(t), show(a)),
            ExprKind::Tuple(elems) => format!("({},)", elems.iter().map(show).collect::<Vec<_>>().join(", ")),
            ExprKind::Record(fields) => format!("({},)", fields.iter().map(|(n, e)| format!("{}={}", n.name, show(e))).collect::<Vec<_>>().join(", ")),
            ExprKind::Block(stmts, value) => format!("{{ {} statements; {} }}", stmts.len(), show(value)),
            ExprKind::TypeArg(t) => format!("typeof({})", show_type(t)),
            ExprKind::Comptime(a) => format!("(comptime {})", show(a)),
        }
    }

    /// A type name, its words joined by `_` so that they read as one unit in [`show`].
    fn show_type(t: &TypeName) -> String {
        let base = match &t.base {
            BaseType::Named(words) => words.join("_"),
            BaseType::Struct(n) => format!("struct_{n}"),
            BaseType::Union(n) => format!("union_{n}"),
            BaseType::Enum(n) => format!("enum_{n}"),
            BaseType::TypeOf(e) => format!("typeof_{}", show(&e.0)),
        };
        format!("{base}{}", "*".repeat(t.pointers as usize))
    }

    #[test]
    fn c_precedence_and_associativity() {
        assert_eq!(show(&expr_of("1 + 2 * 3")), "(1 + (2 * 3))");
        assert_eq!(show(&expr_of("1 - 2 - 3")), "((1 - 2) - 3)");
        assert_eq!(show(&expr_of("a || b && c")), "(a || (b && c))");
        assert_eq!(show(&expr_of("a ^^ b || c")), "((a ^^ b) || c)");
        assert_eq!(show(&expr_of("a | b ^ c & d")), "(a | (b ^ (c & d)))");
        assert_eq!(show(&expr_of("a == b < c")), "(a == (b < c))");
        assert_eq!(show(&expr_of("1 << 2 + 3")), "(1 << (2 + 3))");
        assert_eq!(show(&expr_of("!a && -b")), "((Not a) && (Neg b))");
        assert_eq!(show(&expr_of("a ? b : c ? d : e")), "(a ? b : (c ? d : e))");
        assert_eq!(show(&expr_of("(1 + 2) * 3")), "((1 + 2) * 3)");
    }

    #[test]
    fn literals() {
        assert_eq!(show(&expr_of("0x1F + 017 + 10ul")), "((31 + 15) + 10)");
        assert_eq!(show(&expr_of("'a'")), "97");
        assert_eq!(show(&expr_of("'\\n'")), "10");
        assert_eq!(show(&expr_of(r#""a\tb\x41\101\"""#)), r#""a\tbAA\"""#);
        assert!(parse_program("BEGIN { x = 99999999999999999999999; }").unwrap_err().message.contains("out of range"));
        assert!(parse_program(r#"BEGIN { printf("\q"); }"#).unwrap_err().message.contains("escape"));
    }

    #[test]
    fn duration_literals_are_nanoseconds() {
        assert_eq!(show(&expr_of("1s + 100ms + 5us + 10ns")), "(((1000000000 + 100000000) + 5000) + 10)");
        assert_eq!(show(&expr_of("1m + 2h + 1d")), "((60000000000 + 7200000000000) + 86400000000000)");
        // `_`, exponents and a leading 0 (octal) read as in any integer; `5u` is still C's.
        assert_eq!(show(&expr_of("1_000ms + 1e3us + 010s + 5u")), "(((1000000000 + 1000000) + 8000000000) + 5)");
        let (at, d) = error_of("$a = 10xs");
        assert_eq!((at.as_str(), d.message.as_str()), ("xs", "invalid integer suffix 'xs'"));
        let (at, d) = error_of("$a = 3usec");
        assert_eq!((at.as_str(), d.message.as_str()), ("sec", "invalid integer suffix 'sec'"));
        let (at, d) = error_of("$a = 300000d");
        assert_eq!((at.as_str(), d.message.as_str()), ("300000d", "overflow error, maximum value is 18446744073709551615: 300000d"));
    }

    #[test]
    fn probe_descriptions_and_blocks() {
        let c = one_clause("syscall:::entry, syscall::*read*:return /pid == 1/ { @[probefunc] = count(); }");
        assert_eq!(c.probes.len(), 2);
        assert_eq!(c.probes[0].fields, ["syscall", "", "", "entry"]);
        assert_eq!(c.probes[1].fields, ["syscall", "", "*read*", "return"]);
        assert!(c.predicate.is_some());
        // The card one-liner: `< >` block, no spaces, no trailing semicolon.
        let c = one_clause(r#"syscall:::entry /comm=="io-benchmark"/ <@[probefunc]=count()>"#);
        assert!(matches!(&c.body.unwrap()[0], Stmt::Aggregate { agg, func, .. } if agg.name.is_empty() && func.name == "count"));
        // No block: default action; empty block.
        assert!(one_clause("BEGIN").body.is_none());
        assert_eq!(one_clause("BEGIN {}").body.unwrap().len(), 0);
        // Comparisons inside an angle block.
        let c = one_clause("BEGIN < x = 1 > 0; y = 2 >");
        assert_eq!(c.body.unwrap().len(), 2);
    }

    #[test]
    fn user_space_descriptions() {
        // A path in the module field; the predicate after it, with or without a space.
        let c = one_clause("uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:getpid /pid == 1/ { }");
        assert_eq!(c.probes[0].fields, ["uprobe", "/usr/lib/x86_64-linux-gnu/libc.so.6", "getpid"]);
        assert!(c.predicate.is_some());
        let c = one_clause("syscall::read:entry/pid == 1/ { }");
        assert_eq!(c.probes[0].fields, ["syscall", "", "read", "entry"]);
        assert!(c.predicate.is_some());
        // An iterator's absolute pin path; a predicate after a description's empty last
        // field stays one.
        let c = one_clause("iter:task_file:/sys/fs/bpf/files /pid == 1/ { }");
        assert_eq!(c.probes[0].fields, ["iter", "task_file", "/sys/fs/bpf/files"]);
        assert!(c.predicate.is_some());
        let c = one_clause("fbt:::/pid == 1/ { }");
        assert_eq!(c.probes[0].fields, ["fbt", "", "", ""]);
        assert!(c.predicate.is_some());
        let c = one_clause("pid$target:a.out:main:entry, pid123:libc*:read:1a { }");
        assert_eq!(c.probes[0].fields, ["pid$target", "a.out", "main", "entry"]);
        assert_eq!(c.probes[1].fields, ["pid123", "libc*", "read", "1a"]);
    }

    #[test]
    fn statements() {
        let c = one_clause("BEGIN { x = 1; x += 2; x++; --x; self->t = timestamp; this->v = 1; @a[1, \"k\"] = sum(x); @ = count(); printa(@a); exit(0) }");
        let body = c.body.unwrap();
        assert_eq!(body.len(), 10);
        assert!(matches!(&body[1], Stmt::Assign { op: Some(BinOp::Add), .. }));
        assert!(matches!(&body[2], Stmt::IncDec { delta: 1, .. }));
        assert!(matches!(&body[3], Stmt::IncDec { delta: -1, .. }));
        assert!(matches!(&body[4], Stmt::Assign { target: LValue::ThreadLocal(..), .. }));
        assert!(matches!(&body[5], Stmt::Assign { target: LValue::ClauseLocal(..), .. }));
        assert!(matches!(&body[6], Stmt::Aggregate { agg, .. } if agg.name == "a" && agg.keys.len() == 2));
    }

    #[test]
    fn translators_and_xlate() {
        let p = parse_program("translator struct s < struct task_struct *T > { a = T->pid; b = 1 + 2; };\nBEGIN { trace(xlate <struct s *> (curthread)->a); }").unwrap();
        match &p.decls[0] {
            Decl::Translator { param, members, library: false, .. } => {
                assert_eq!(param.name, "T");
                assert_eq!(members.iter().map(|(m, e)| format!("{}={}", m.name, show(e))).collect::<Vec<_>>(), ["a=(T->pid)", "b=(1 + 2)"]);
            }
            d => panic!("{d:?}"),
        }
        assert_eq!(show(&expr_of("xlate <psinfo_t *> (curthread)->pr_pid")), "(xlate<psinfo_t*>(curthread)->pr_pid)");
        // Reserved, as in DTrace.
        assert!(parse_program("BEGIN { translator = 1; }").is_err());
    }

    #[test]
    fn declarations() {
        let p = parse_program("struct s { int a; char b[4]; unsigned c : 3; struct s *next; };\nunion u { int i; long l; }\nenum e { A, B = -2, };\nenum { Z };\ntypedef unsigned long ul;\ntypedef char name_t[16];\nBEGIN {}").unwrap();
        assert_eq!(p.decls.len(), 6);
        match &p.decls[0] {
            Decl::Record { union: false, name, members, .. } => {
                assert_eq!(name.name, "s");
                let pointers = |m: &MemberDecl| match &m.ty {
                    MemberType::Named(t) => t.pointers,
                    MemberType::Record { .. } => panic!("{m:?}"),
                };
                let m: Vec<(&str, Option<u32>, Option<u32>, u8)> = members.iter().map(|m| (m.name.as_ref().unwrap().name.as_str(), m.len, m.bits, pointers(m))).collect();
                assert_eq!(m, [("a", None, None, 0), ("b", Some(4), None, 0), ("c", None, Some(3), 0), ("next", None, None, 1)]);
            }
            d => panic!("{d:?}"),
        }
        assert!(matches!(&p.decls[1], Decl::Record { union: true, .. }));
        match &p.decls[2] {
            Decl::Enum { name: Some(n), values, .. } => {
                assert_eq!(n.name, "e");
                assert_eq!(values.len(), 2);
                assert!(values[1].1.is_some());
            }
            d => panic!("{d:?}"),
        }
        assert!(matches!(&p.decls[3], Decl::Enum { name: None, .. }));
        assert!(matches!(&p.decls[5], Decl::Typedef { len: Some(16), .. }));
        assert!(parse_program("struct s { int a[0]; }; BEGIN {}").is_err());
        // Several variables per declaration: each name its own `*`s after the first's.
        let p = parse_program("int *a, b, *c[4]; struct r { int x; } v, *w; BEGIN {}").unwrap();
        let vars: Vec<(&str, u8, Option<u32>)> = p.decls.iter().filter_map(|d| match d {
            Decl::Var { name, ty, len, .. } => Some((name.name.as_str(), ty.pointers, *len)),
            _ => None,
        }).collect();
        assert_eq!(vars, [("a", 1, None), ("b", 0, None), ("c", 1, Some(4)), ("v", 0, None), ("w", 1, None)]);
        assert!(matches!(&p.decls[3], Decl::Record { .. }), "the struct comes before its variables");
        assert!(parse_program("struct r { int x; } BEGIN {}").is_ok(), "a clause after a struct without `;`");
        let p = parse_program("struct s { struct { int x; } in; union { int i; }; char *a, b, *c[2]; }; BEGIN {}").unwrap();
        let Decl::Record { members, .. } = &p.decls[0] else { panic!() };
        type Shape<'a> = (Option<&'a str>, bool, Option<u8>, Option<u32>);
        let shape: Vec<Shape> = members
            .iter()
            .map(|m| {
                let (record, pointers) = match &m.ty {
                    MemberType::Named(t) => (false, Some(t.pointers)),
                    MemberType::Record { .. } => (true, None),
                };
                (m.name.as_ref().map(|n| n.name.as_str()), record, pointers, m.len)
            })
            .collect();
        assert_eq!(shape, [(Some("in"), true, None, None), (None, true, None, None), (Some("a"), false, Some(1), None), (Some("b"), false, Some(0), None), (Some("c"), false, Some(1), Some(2))]);
    }

    #[test]
    fn includes_are_accepted() {
        let p = parse_program("#include <linux/sched.h>\n#include \"net/sock.h\"\nBEGIN {}").unwrap();
        assert_eq!(p.clauses.len(), 1);
        let d = parse_program("#include linux/sched.h\nBEGIN {}").unwrap_err();
        assert!(d.message.contains("malformed #include"), "{d:?}");
    }

    #[test]
    fn pragmas() {
        let p = parse_program("#pragma D option quiet\n#pragma D option bufsize=8m\nBEGIN {}").unwrap();
        assert_eq!(p.pragmas[0].name, "quiet");
        assert_eq!(p.pragmas[1].value.as_deref(), Some("8m"));
        assert!(parse_program("#pragma ident foo\nBEGIN {}").is_err());
    }

    #[test]
    fn syntax_errors_point_at_the_problem() {
        let src = "BEGIN { x = ; }";
        let d = parse_program(src).unwrap_err();
        assert_eq!(&src[d.span.clone()], ";");
        assert!(d.hint.unwrap().contains("expression"));
        let d = parse_program("BEGIN { x = 1;").unwrap_err();
        assert!(d.message.contains("end of program"), "{}", d.message);
        let d = parse_program("").unwrap_err();
        assert!(d.message.contains("empty program"));
        let d = parse_program("/* only a comment */").unwrap_err();
        assert!(d.message.contains("empty program"));
    }

    fn show_of(src: &str) -> String {
        show(&expr_of(src))
    }

    /// Facts whose kernel has the typedefs `u64`, `u8` and `pid_t`.
    #[derive(Debug)]
    struct Typedefs;

    impl crate::facts::KernelFacts for Typedefs {
        fn tracepoints(&self) -> crate::facts::Listing {
            Ok(Vec::new().into())
        }
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, String> {
            Err("none".into())
        }
        fn kernel_type_id(&self, space: TypeSpace, name: &str) -> Result<Option<u32>, String> {
            Ok((space == TypeSpace::Ordinary && matches!(name, "u64" | "u8" | "pid_t")).then_some(1))
        }
    }

    fn show_with_typedefs(src: &str) -> String {
        let p = parse_program_with(src, Some(Rc::new(Typedefs))).unwrap_or_else(|d| panic!("{src}: {}", d.message));
        let c = p.clauses.into_iter().last().unwrap();
        match c.body.unwrap().remove(0) {
            Stmt::Expr(e) => show(&e),
            s => panic!("not an expression: {s:?}"),
        }
    }

    /// `(name)` before `-`, `+`, `*` or `&` is a cast when name is a typedef (the kernel's or
    /// the script's), binding as tightly as any cast; otherwise a parenthesised expression.
    #[test]
    fn parenthesised_typedef_names_are_casts() {
        let t = |e: &str| show_with_typedefs(&format!("BEGIN {{ {e}; }}"));
        assert_eq!(t("(u64)-1"), "((u64)(Neg 1))");
        assert_eq!(t("(u8)-1 * 2"), "(((u8)(Neg 1)) * 2)");
        assert_eq!(t("(u64)-(u8)-1"), "((u64)(Neg ((u8)(Neg 1))))");
        assert_eq!(t("-(u64)-x->y + 1"), "((Neg ((u64)(Neg (x->y)))) + 1)");
        assert_eq!(t("(pid_t)*p"), "((pid_t)(*p))");
        assert_eq!(t("(u64)&x"), "((u64)(&x))");
        assert_eq!(t("(u64) + 1 << 2"), "(((u64)(Plus 1)) << 2)");
        assert_eq!(t("(x) - 1 * 2"), "(x - (1 * 2))");
        assert_eq!(t("(x) & 1"), "(x & 1)");
        assert_eq!(show_with_typedefs("typedef long t; BEGIN { (t)-1; }"), "((t)(Neg 1))");
        // Without the kernel's types, a kernel typedef is a name like any other.
        assert_eq!(show_of("(u64)-1"), "(u64 - 1)");
    }

    fn error_of(src: &str) -> (String, Diagnostic) {
        let program = format!("BEGIN {{ {src}; }}");
        let d = parse_program(&program).expect_err(src);
        (program[d.span.clone()].to_string(), d)
    }

    #[test]
    fn postfix_binds_tighter_than_prefix_and_prefix_than_binary() {
        assert_eq!(show_of("*p->q"), "(*(p->q))");
        assert_eq!(show_of("-x->y"), "(Neg (x->y))");
        assert_eq!(show_of("(int)a + b"), "(((int)a) + b)");
        assert_eq!(show_of("&a.b"), "(&(a.b))");
        assert_eq!(show_of("sizeof x + 1"), "((sizeof x) + 1)");
        assert_eq!(show_of("(a)-b"), "(a - b)");
        assert_eq!(show_of("(u64)x"), "((u64)x)");
        assert_eq!(show_of("a->b[2].c"), "(((a->b)[2]).c)");
        assert_eq!(show_of("!*p"), "(Not (*p))");
        assert_eq!(show_of("*p * *q"), "((*p) * (*q))");
        assert_eq!(show_of("a ** b"), "(a * (*b))");
        assert_eq!(show_of("a & &b"), "(a & (&b))");
        assert_eq!(show_of("a&&b"), "(a && b)");
        assert_eq!(show_of("(int)-x"), "((int)(Neg x))");
        assert_eq!(show_of("-(int)x"), "(Neg ((int)x))");
        assert_eq!(show_of("(int)a->b"), "((int)(a->b))");
        assert_eq!(show_of("*a[1]"), "(*(a[1]))");
        assert_eq!(show_of("(*a)[1]"), "((*a)[1])");
        assert_eq!(show_of("sizeof -x * 2"), "((sizeof (Neg x)) * 2)");
        assert_eq!(show_of("x->y ? a.b : c[0]"), "((x->y) ? (a.b) : (c[0]))");
        assert_eq!(show_of("a - -b"), "(a - (Neg b))");
    }

    #[test]
    fn postfix_chains() {
        assert_eq!(show_of("curthread->real_parent->tgid"), "((curthread->real_parent)->tgid)");
        assert_eq!(show_of("((struct file *)arg0)->f_path.dentry->d_name.name"), "((((((struct_file*)arg0)->f_path).dentry)->d_name).name)");
        assert_eq!(show_of("mm->rss_stat[0].count"), "(((mm->rss_stat)[0]).count)");
        assert_eq!(show_of("a[1][2]"), "((a[1])[2])");
        assert_eq!(show_of("a[i + 1]"), "(a[(i + 1)])");
        assert_eq!(show_of("x.y"), "(x.y)");
        assert_eq!(show_of("x -> y . z"), "((x->y).z)");
        assert_eq!(show_of("f(x)->y"), "(f(x)->y)");
        assert_eq!(show_of("(a)->b"), "(a->b)");
        assert_eq!(show_of("(a)[0]"), "(a[0])");
    }

    #[test]
    fn special_forms_keep_their_kinds() {
        assert!(matches!(expr_of("self->x").kind, ExprKind::ThreadLocal(ref n) if n == "x"));
        assert!(matches!(expr_of("this->x").kind, ExprKind::ClauseLocal(ref n) if n == "x"));
        assert!(matches!(expr_of("args->f").kind, ExprKind::ArgsField(ref n) if n == "f"));
        assert!(matches!(expr_of("arg0").kind, ExprKind::Ident(ref n) if n == "arg0"));
        // ... and go on as members on top.
        assert_eq!(show_of("self->x->y"), "(self->x->y)");
        assert!(matches!(expr_of("self->x->y").kind, ExprKind::Member { ref base, arrow: true, .. } if matches!(base.kind, ExprKind::ThreadLocal(_))));
        assert!(matches!(expr_of("this->t.a").kind, ExprKind::Member { ref base, arrow: false, .. } if matches!(base.kind, ExprKind::ClauseLocal(_))));
        assert!(matches!(expr_of("args->f.g").kind, ExprKind::Member { ref base, arrow: false, .. } if matches!(base.kind, ExprKind::ArgsField(_))));
        assert_eq!(show_of("args[0]"), "(args[0])");
        // Aggregation keys are keys, not an index.
        let ExprKind::Agg(a) = expr_of("@a[1, 2]").kind else { panic!() };
        assert_eq!(a.keys.len(), 2);
        assert!(matches!(&one_clause("BEGIN { @int[1] = count(); }").body.unwrap()[0], Stmt::Aggregate { agg, .. } if agg.name == "int"));
        // Statements that start with the special forms still parse as before.
        let body = one_clause("BEGIN { self->x = 1; this->y++; trace(self->x->y); }").body.unwrap();
        assert!(matches!(&body[0], Stmt::Assign { target: LValue::ThreadLocal(..), .. }));
        assert!(matches!(&body[1], Stmt::IncDec { target: LValue::ClauseLocal(..), .. }));
    }

    /// The rule in d.pest: `(name)` is a cast only before something that starts an operand
    /// and cannot continue an expression.
    #[test]
    fn a_parenthesised_name_is_a_cast_only_before_an_operand() {
        for (src, want) in [
            ("(a) - b", "(a - b)"),
            ("(a) * b", "(a * b)"),
            ("(a) & b", "(a & b)"),
            ("(a) + b", "(a + b)"),
            ("(a) != b", "(a != b)"),
            ("(a) ? b : c", "(a ? b : c)"),
            ("(u64)-1", "(u64 - 1)"),
            ("(u64)x", "((u64)x)"),
            ("(u64) 1", "((u64)1)"),
            ("(u64)\"s\"", "((u64)\"s\")"),
            ("(u64)'a'", "((u64)97)"),
            ("(u64)(x + 1)", "((u64)(x + 1))"),
            ("(u64)!x", "((u64)(Not x))"),
            ("(u64)~x", "((u64)(BitNot x))"),
            ("(u64)$1", "((u64)$1)"),
            ("(u64)@a", "((u64)@a)"),
            ("(u64)self->x", "((u64)self->x)"),
            ("(u64)sizeof x", "((u64)(sizeof x))"),
            ("(pid_t)(u64)x", "((pid_t)((u64)x))"),
            // Keywords, `*` and D's own typedefs make it a type whatever follows.
            ("(int)-1", "((int)(Neg 1))"),
            ("(long)*p", "((long)(*p))"),
            ("(u64 *)&x", "((u64*)(&x))"),
            ("(const u64)-x", "((u64)(Neg x))"),
            ("(struct file *)-x", "((struct_file*)(Neg x))"),
            ("(uint64_t)-1", "((uint64_t)(Neg 1))"),
            ("(size_t)*p", "((size_t)(*p))"),
        ] {
            assert_eq!(show_of(src), want, "{src}");
        }
        // Every typedef d.pest knows is one D defines.
        for name in ["int8_t", "int16_t", "int32_t", "int64_t", "intptr_t", "ssize_t", "ptrdiff_t", "off_t", "uint8_t", "uchar_t", "uint16_t", "ushort_t", "uint32_t", "uint_t", "uint64_t", "uintptr_t", "size_t", "ulong_t"] {
            assert!(crate::types::builtin_typedef(name).is_some(), "{name}");
            assert_eq!(show_of(&format!("({name})-1")), format!("(({name})(Neg 1))"));
        }
        // A name that only starts like one is an ordinary name.
        assert_eq!(show_of("(size_tx)-1"), "(size_tx - 1)");
    }

    /// bpftrace's integer type names are types before a unary operator in its dialect
    /// (`(uint32)-1`), D's `uint32_t`; in D they are names.
    #[test]
    fn bpftrace_integer_names_cast_before_unary_operators() {
        let bt = |src: &str| {
            let p = parse_program_in(&format!("BEGIN {{ $x = 1; {src}; }}"), None, Dialect::Bpftrace).unwrap_or_else(|d| panic!("{src}: {}", d.message));
            match &p.clauses[0].body.as_ref().unwrap()[1] {
                Stmt::Expr(e) => show(e),
                s => panic!("not an expression: {s:?}"),
            }
        };
        assert_eq!(bt("(uint32)-1"), "((uint32_t)(Neg 1))");
        assert_eq!(bt("(int64)-1"), "((int64_t)(Neg 1))");
        assert_eq!(bt("(uint16)-1"), "((uint16_t)(Neg 1))");
        assert_eq!(bt("(int32)-$x"), "((int32_t)(Neg $x))");
        assert_eq!(bt("(uint8)*$x"), "((uint8_t)(*$x))");
        assert_eq!(bt("(uint64)-(int8)-1"), "((uint64_t)(Neg ((int8_t)(Neg 1))))");
        assert_eq!(bt("(uint64)$x"), "((uint64_t)$x)");
        // An ordinary name stays a name.
        assert_eq!(bt("(uint128)-1"), "(uint128 - 1)");
        assert_eq!(show_of("(uint32)-1"), "(uint32 - 1)");
    }

    fn cast_type(src: &str) -> (TypeName, String) {
        let program = format!("BEGIN {{ {src}; }}");
        let c = one_clause(&program);
        let Some(Stmt::Expr(e)) = c.body.unwrap().into_iter().next() else { panic!() };
        let (ExprKind::Cast(t, _) | ExprKind::SizeofType(t) | ExprKind::Offsetof(t, _)) = e.kind else { panic!("{src}: {:?}", e.kind) };
        let written = program[t.span.clone()].to_string();
        (t, written)
    }

    #[test]
    fn type_names() {
        let named = |w: &[&str]| BaseType::Named(w.iter().map(|s| s.to_string()).collect());
        for (src, base, pointers, written) in [
            ("(int)x", named(&["int"]), 0, "int"),
            ("(unsigned)x", named(&["unsigned"]), 0, "unsigned"),
            ("(unsigned long long)x", named(&["unsigned", "long", "long"]), 0, "unsigned long long"),
            ("(long unsigned int)x", named(&["long", "unsigned", "int"]), 0, "long unsigned int"),
            ("(signed char)x", named(&["signed", "char"]), 0, "signed char"),
            ("(short int)x", named(&["short", "int"]), 0, "short int"),
            ("(_Bool)x", named(&["_Bool"]), 0, "_Bool"),
            ("(bool)x", named(&["bool"]), 0, "bool"),
            ("(void *)x", named(&["void"]), 1, "void *"),
            ("( const  char * const * )x", named(&["char"]), 2, "const  char * const *"),
            ("(volatile unsigned const int)x", named(&["unsigned", "int"]), 0, "volatile unsigned const int"),
            ("(struct file *)x", BaseType::Struct("file".into()), 1, "struct file *"),
            ("(struct task_struct**)x", BaseType::Struct("task_struct".into()), 2, "struct task_struct**"),
            ("(union u)x", BaseType::Union("u".into()), 0, "union u"),
            ("(enum e)x", BaseType::Enum("e".into()), 0, "enum e"),
            ("(uint64_t)x", named(&["uint64_t"]), 0, "uint64_t"),
            ("(pid_t)x", named(&["pid_t"]), 0, "pid_t"),
            ("(u64 **)x", named(&["u64"]), 2, "u64 **"),
            ("(unsigned /* c */ )x", named(&["unsigned"]), 0, "unsigned"),
            ("sizeof( int  )", named(&["int"]), 0, "int"),
            ("offsetof( struct  s , a )", BaseType::Struct("s".into()), 0, "struct  s"),
        ] {
            let (t, w) = cast_type(src);
            assert_eq!((&t.base, t.pointers, w.as_str()), (&base, pointers, written), "{src}");
        }
    }

    #[test]
    fn sizeof_and_offsetof() {
        assert_eq!(show_of("sizeof(int)"), "sizeof(int)");
        assert_eq!(show_of("sizeof(struct task_struct)"), "sizeof(struct_task_struct)");
        assert_eq!(show_of("sizeof(char *)"), "sizeof(char*)");
        assert_eq!(show_of("sizeof (uint16_t)"), "sizeof(uint16_t)");
        // A plain name in parentheses is the type form; the checker decides what it names.
        assert_eq!(show_of("sizeof(x)"), "sizeof(x)");
        assert_eq!(show_of("sizeof(x) * 2"), "(sizeof(x) * 2)");
        assert_eq!(show_of("sizeof(*curthread)"), "(sizeof (*curthread))");
        assert_eq!(show_of("sizeof(x + 1)"), "(sizeof (x + 1))");
        assert_eq!(show_of("sizeof(x)->y"), "(sizeof (x->y))");
        assert_eq!(show_of("sizeof (x) [0]"), "(sizeof (x[0]))");
        assert_eq!(show_of("sizeof curthread->comm"), "(sizeof (curthread->comm))");
        assert_eq!(show_of("sizeof(int) == sizeof(x)"), "(sizeof(int) == sizeof(x))");
        assert_eq!(show_of("sizeofx"), "sizeofx");
        assert_eq!(show_of("offsetof(struct list_head, prev)"), "offsetof(struct_list_head, prev)");
        assert_eq!(show_of("offsetof(struct task_struct, tasks.prev)"), "offsetof(struct_task_struct, tasks.prev)");
        assert_eq!(show_of("offsetof(struct s, a . b . c) + 1"), "(offsetof(struct_s, a.b.c) + 1)");
    }

    #[test]
    fn spans_cover_what_was_written() {
        let program = "BEGIN { trace(((struct file *)arg0)->f_path.dentry); }";
        let Stmt::Expr(e) = one_clause(program).body.unwrap().remove(0) else { panic!() };
        let ExprKind::Call(_, args) = e.kind else { panic!() };
        let e = &args[0];
        assert_eq!(&program[e.span.clone()], "((struct file *)arg0)->f_path.dentry");
        let ExprKind::Member { base, member, arrow: false } = &e.kind else { panic!() };
        assert_eq!(&program[member.span.clone()], "dentry");
        assert_eq!(&program[base.span.clone()], "((struct file *)arg0)->f_path");
        let ExprKind::Member { base, member, arrow: true } = &base.kind else { panic!() };
        assert_eq!(&program[member.span.clone()], "f_path");
        // The cast itself, inside the parentheses, and its type.
        assert_eq!(&program[base.span.clone()], "(struct file *)arg0");
        let ExprKind::Cast(t, _) = &base.kind else { panic!() };
        assert_eq!(&program[t.span.clone()], "struct file *");
        for (src, whole) in [
            ("a [ 1 ] ", "a [ 1 ]"),
            ("*(p)", "*(p)"),
            ("& a . b", "& a . b"),
            ("(int)(x)", "(int)(x)"),
            ("sizeof (x + 1)", "sizeof (x + 1)"),
            ("sizeof(int) ", "sizeof(int)"),
            ("offsetof(struct s, a.b) ", "offsetof(struct s, a.b)"),
            ("(a)->b ", "(a)->b"),
            ("self->x -> y ", "self->x -> y"),
            // The older forms too, with their parentheses.
            ("(a) - b", "(a) - b"),
            ("-(a)", "-(a)"),
            ("((a) + (b)) * (c)", "((a) + (b)) * (c)"),
        ] {
            let program = format!("BEGIN {{ {src}; }}");
            let Stmt::Expr(e) = one_clause(&program).body.unwrap().remove(0) else { panic!() };
            assert_eq!(&program[e.span.clone()], whole, "{src}");
        }
        let program = "BEGIN { offsetof(struct s, a . b); }";
        let Stmt::Expr(Expr { kind: ExprKind::Offsetof(_, path), .. }) = one_clause(program).body.unwrap().remove(0) else { panic!() };
        assert_eq!(path.iter().map(|m| &program[m.span.clone()]).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn malformed_c_forms_are_syntax_errors_with_hints() {
        for (src, at, hint) in [
            ("(struct)x", ")", "struct, union or enum's name"),
            ("(struct *)x", "*", "struct, union or enum's name"),
            ("x->", ";", "a name"),
            ("x.", ";", "a name"),
            ("x->1", "1", "a name"),
            ("sizeof()", ")", "a type name"),
            ("sizeof", ";", "a name"),
            ("offsetof(struct s)", ")", "offsetof(type, member)"),
            ("offsetof(struct s, )", ")", "a name"),
            ("offsetof(struct s, a.)", ")", "a name"),
            ("offsetof(x)", ")", "offsetof(type, member)"),
            ("a[]", "]", "an expression"),
            ("a[1", ";", ""),
            ("(int)", ";", "a name"),
            ("(struct s *", ";", "`)`"),
            ("*", ";", "a name"),
            ("&&x", "&", ""),
        ] {
            let (found, d) = error_of(src);
            assert_eq!(found, at, "{src}: {}", d.message);
            assert!(d.message.starts_with("syntax error") || d.message.contains("end of program"), "{src}: {}", d.message);
            assert!(d.hint.as_deref().unwrap_or_default().contains(hint), "{src}: {:?}", d.hint);
        }
    }

    #[test]
    fn reserved_words_are_not_names() {
        for (src, word) in [("int = 1", "int"), ("x = long", "long"), ("a->int", "int"), ("trace(struct)", "struct"), ("(struct int)x", "int"), ("offsetof = 2", "offsetof")] {
            let (found, d) = error_of(src);
            assert_eq!(found, word, "{src}: {}", d.message);
            assert_eq!(d.message, format!("syntax error: `{word}` is a reserved word"));
            assert!(d.hint.unwrap().contains("cannot name variables"));
        }
        // Names that only start with a keyword are names.
        assert_eq!(show_of("integer + structure + sizeofs + constant"), "(((integer + structure) + sizeofs) + constant)");
    }

    /// tests/hostile_input.rs's rule for the C forms: no input runs the parser, or anything
    /// after it, out of stack.
    #[test]
    fn deep_c_forms_are_errors_not_crashes() {
        let cases = [
            ("a chain of ->", format!("x{}", "->y".repeat(10_000))),
            ("a chain of .", format!("x{}", ".y".repeat(10_000))),
            ("a chain of []", format!("x{}", "[0]".repeat(10_000))),
            ("nested []", format!("{}0{}", "a[".repeat(10_000), "]".repeat(10_000))),
            ("a chain of ->, then an operator", format!("self->x{} + 1", "->y".repeat(10_000))),
            ("dereferences", format!("{}p", "*".repeat(10_000))),
            ("addresses", format!("{}p", "& ".repeat(10_000))),
            ("casts", format!("{}x", "(int)".repeat(10_000))),
            ("casts to a name", format!("{}x", "(a)".repeat(10_000))),
            ("casts to pointers", format!("{}x", "(struct s *)".repeat(10_000))),
            ("nested casts", format!("{}x{}", "(int)(".repeat(10_000), ")".repeat(10_000))),
            ("sizeof", format!("{}x", "sizeof ".repeat(10_000))),
            ("nested sizeof", format!("{}x{}", "sizeof(".repeat(10_000), ")".repeat(10_000))),
            ("mixed prefixes", format!("{}x", "-*&!~(int)".repeat(2_000))),
        ];
        for (what, src) in cases {
            let (_, d) = error_of(&src);
            assert!(d.message.contains("nested more than 100 levels") || d.message.contains("nested too deeply"), "{what}: {}", d.message);
        }
        let (found, d) = error_of(&format!("(int {})x", "*".repeat(10_000)));
        assert_eq!((found.as_str(), d.message.as_str()), ("*", "type name with more than 255 `*`"));
        // Up to the limit is fine.
        assert_eq!(show_of(&format!("x{}", "->y".repeat(100))).matches("->").count(), 100);
        show_of(&format!("{}p", "*".repeat(100)));
        show_of(&format!("{}x", "(int)".repeat(100)));
        show_of(&format!("(int {})x", "*".repeat(255)));
    }
}

#[cfg(test)]
mod dialect_tests {
    use super::detect_dialect;
    use crate::dialect::Dialect::{Bpftrace, D};

    #[test]
    fn d_programs_stay_d() {
        for src in [
            "BEGIN { @n = count(); @q[execname, 1] = quantize(arg0); printa(@n); clear(@q); trunc(@q, 2); exit(0); }",
            "syscall::read:entry /pid == $target && $1 > 0/ { self->t = timestamp; x = $$1; @[probefunc] = sum(arg2); }",
            "tracepoint:syscalls:sys_enter_openat { printf(\"%s\\n\", str(args->filename)); }",
            "kprobe:vfs_read { @[comm] = count(); }",
            "rawtracepoint:sys_enter { @[args.id] = count(); }",
            "BEGIN { trace(rand()); x = ustack(); probefunc == \"probe\"; }",
            "BEGIN { trace(offsetof(struct s, probe)); }",
            "BEGIN { normalize(@a, 2); denormalize(@a); printa(\"%@d\\n\", @a); } BEGIN { @a = count(); }",
            "not a program {",
            "BEGIN { trace((uint32_t)-1); trace((uint64_t)arg0); }",
            "BEGIN { trace(func(arg0)); }",
        ] {
            assert_eq!(detect_dialect(src), D, "{src}");
        }
    }

    #[test]
    fn bpftrace_only_syntax_is_bpftrace() {
        for src in [
            "BEGIN { $x = 1; }",
            "BEGIN { printf(\"%d\\n\", $#); }",
            "kprobe:vfs_read { @start[tid] = nsecs; }",
            "kretprobe:vfs_read /@start[tid]/ { @lat = hist(nsecs - @start[tid]); }",
            "BEGIN { @n++; }",
            "BEGIN { @m[1] = str(arg0); }",
            "BEGIN { delete(@m[1]); }",
            "BEGIN { exit(); }",
            "BEGIN { @h = hist(1); }",
            "BEGIN { @a = count(); @b = @a; }",
            "BEGIN { @[1] = count(@x[2] + 1); }",
            "tracepoint:syscalls:sys_enter_read /pid == cpid/ { @[probe] = count(); }",
            "profile:hz:99 { @[kstack] = count(); }",
            "#define MAX 10\nBEGIN { @x = count(); }",
            "BEGIN { trace((uint32)-1); }",
            "BEGIN { trace((uint64)arg0); }",
            "BEGIN { trace((int16 *)arg0); }",
            "BEGIN { trace(pid()); }",
            "BEGIN { trace(nsecs(monotonic)); }",
        ] {
            assert_eq!(detect_dialect(src), Bpftrace, "{src}");
        }
    }
}
