//! D text to AST, through the pest grammar in `d.pest`.

use crate::ast::*;
use crate::diag::Diagnostic;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::OnceLock;

#[derive(pest_derive::Parser)]
#[grammar = "d.pest"]
struct DParser;

/// Parses a whole D program.
pub fn parse_program(src: &str) -> Result<Program, Diagnostic> {
    let mut pairs = DParser::parse(Rule::program, src).map_err(|e| syntax_error(src, e))?;
    let mut program = Program { pragmas: Vec::new(), clauses: Vec::new() };
    for pair in pairs.next().unwrap().into_inner() {
        match pair.as_rule() {
            Rule::pragma => program.pragmas.push(pragma(pair)?),
            Rule::clause => program.clauses.push(clause(pair)?),
            _ => {}
        }
    }
    if program.clauses.is_empty() {
        return Err(Diagnostic::new(src.len()..src.len(), "empty program: no probe clauses")
            .label("expected a probe clause")
            .hint("a clause looks like `syscall::read:entry { @[execname] = count(); }`"));
    }
    Ok(program)
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
        Rule::ident => "a name",
        Rule::call => "a function call",
        Rule::EOI => "end of program",
        Rule::keys => "`[`",
        Rule::assign_op => "`=`",
        Rule::number => "a number",
        Rule::string => "a string",
        _ => return None,
    })
}

fn span(p: &Pair<Rule>) -> Span {
    p.as_span().start()..p.as_span().end()
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
    let mut c = Clause { probes: Vec::new(), predicate: None, body: None, span: sp };
    for part in p.into_inner() {
        match part.as_rule() {
            Rule::probe_list => {
                for d in part.into_inner() {
                    c.probes.push(probe_desc(&d)?);
                }
            }
            Rule::predicate => c.predicate = Some(expr(part.into_inner().next().unwrap())?),
            Rule::block | Rule::angle_block => {
                let stmts = part.into_inner().next().unwrap();
                c.body = Some(stmts.into_inner().map(statement).collect::<Result<_, _>>()?);
            }
            _ => {}
        }
    }
    Ok(c)
}

/// A probe description: at most four fields, `provider:module:function:name`.
fn probe_desc(d: &Pair<Rule>) -> Result<ProbeDesc, Diagnostic> {
    let text = d.as_str().to_string();
    let sp = span(d);
    let fields: Vec<String> = text.split(':').map(str::to_string).collect();
    if fields.len() > 4 {
        // From the fourth colon on is one field too many.
        let extra = text.match_indices(':').nth(3).map_or(0, |(i, _)| i);
        return Err(Diagnostic::new(sp.start + extra..sp.end, format!("probe description `{text}` has {} fields", fields.len()))
            .label(if fields.len() == 5 { "one field too many".to_string() } else { format!("{} fields too many", fields.len() - 4) })
            .hint("a probe description has at most four fields, provider:module:function:name (e.g. `profile:::tick-1sec`, `syscall::read:entry`)"));
    }
    let mut at = sp.start;
    for f in &fields {
        if f.len() > MAX_PROBE_FIELD {
            return Err(Diagnostic::new(at..at + f.len(), format!("probe description field of {} characters", f.len()))
                .label("too long")
                .hint(format!("a provider, module, function or probe name has at most {MAX_PROBE_FIELD} characters")));
        }
        at += f.len() + 1;
    }
    Ok(ProbeDesc { text, fields, span: sp })
}

/// The longest field of a probe description: the kernel's longest symbol name (KSYM_NAME_LEN).
/// Longer patterns cannot match anything, and would only make the glob matcher work hard.
pub const MAX_PROBE_FIELD: usize = 512;

fn ident(p: Pair<Rule>) -> Ident {
    Ident { name: p.as_str().to_string(), span: span(&p) }
}

fn statement(p: Pair<Rule>) -> Result<Stmt, Diagnostic> {
    let sp = span(&p);
    let inner = p.into_inner().next().unwrap();
    Ok(match inner.as_rule() {
        Rule::agg_assign => {
            let mut it = inner.into_inner();
            let agg = aggregation(it.next().unwrap())?;
            let call = it.next().unwrap();
            let mut parts = call.into_inner();
            let func = ident(parts.next().unwrap());
            let args = parts.map(expr).collect::<Result<_, _>>()?;
            Stmt::Aggregate { agg, func, args, span: sp }
        }
        Rule::assign => {
            let mut it = inner.into_inner();
            let target = lvalue(it.next().unwrap());
            let op = match it.next().unwrap().as_str() {
                "=" => None,
                s => Some(binop_of(&s[..s.len() - 1])),
            };
            let value = expr(it.next().unwrap())?;
            Stmt::Assign { target, op, value, span: sp }
        }
        Rule::incdec => {
            let inner = inner.into_inner().next().unwrap();
            let mut target = None;
            let mut delta = 0;
            for part in inner.into_inner() {
                match part.as_rule() {
                    Rule::incdec_op => delta = if part.as_str() == "++" { 1 } else { -1 },
                    _ => target = Some(lvalue(part)),
                }
            }
            Stmt::IncDec { target: target.unwrap(), delta, span: sp }
        }
        _ => Stmt::Expr(expr(inner)?),
    })
}

fn lvalue(p: Pair<Rule>) -> LValue {
    let inner = p.into_inner().next().unwrap();
    match inner.as_rule() {
        Rule::thread_var => thread_var(inner),
        _ => LValue::Global(ident(inner)),
    }
}

fn thread_var(p: Pair<Rule>) -> LValue {
    let sp = span(&p);
    let this = p.as_str().starts_with("this");
    let name = ident(p.into_inner().next().unwrap());
    if this {
        LValue::ClauseLocal(name, sp)
    } else {
        LValue::ThreadLocal(name, sp)
    }
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
            Rule::ident => agg.name = part.as_str().to_string(),
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
                | Op::prefix(Rule::plus))
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
        (Some(a), Some(b)) => {
            let (a, ha) = expr_at(a, level + 1)?;
            let (b, hb) = expr_at(b, level + 1)?;
            node(ExprKind::Ternary(Box::new(cond), Box::new(a), Box::new(b)), sp, 1 + hc.max(ha).max(hb))
        }
        _ => Ok((cond, hc)),
    }
}

fn binary(p: Pair<Rule>, level: usize) -> Result<Built, Diagnostic> {
    // The Pratt parser recurses once per prefix operator: refuse long runs before it starts.
    let mut run = 0;
    for part in p.clone().into_inner() {
        run = if matches!(part.as_rule(), Rule::not | Rule::bitnot | Rule::neg | Rule::plus) { run + 1 } else { 0 };
        if run > MAX_EXPR_DEPTH {
            return Err(too_deep(span(&part)));
        }
    }
    pratt()
        .map_primary(|p| primary(p, level))
        .map_prefix(|op, rhs| {
            let (rhs, h) = rhs?;
            let sp = op.as_span().start()..rhs.span.end;
            let u = match op.as_rule() {
                Rule::not => UnOp::Not,
                Rule::bitnot => UnOp::BitNot,
                Rule::neg => UnOp::Neg,
                _ => UnOp::Plus,
            };
            node(ExprKind::Unary(u, Box::new(rhs)), sp, h + 1)
        })
        .map_infix(|lhs, op, rhs| {
            let ((lhs, hl), (rhs, hr)) = (lhs?, rhs?);
            let sp = lhs.span.start..rhs.span.end;
            let b = binop_of(op.as_str().trim());
            node(ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)), sp, 1 + hl.max(hr))
        })
        .parse(p.into_inner())
}

/// Expressions that are each one level below `level` (call arguments, aggregation keys),
/// and the height of the tallest.
fn operands(pairs: Pairs<Rule>, level: usize) -> Result<(Vec<Expr>, usize), Diagnostic> {
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
        Rule::number => ExprKind::Int(parse_int(p.as_str(), sp.clone())?),
        Rule::char_lit => {
            let b = unescape_bytes(&p.as_str()[1..p.as_str().len() - 1], sp.clone())?;
            let mut bytes = b.into_iter();
            match (bytes.next(), bytes.next()) {
                (Some(b), None) => ExprKind::Int(b as i8 as i64),
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
            return node(ExprKind::Call(name, args), sp, h + 1);
        }
        Rule::aggregation => {
            let (agg, h) = aggregation_at(p, level)?;
            return node(ExprKind::Agg(agg), sp, h + 1);
        }
        Rule::macro_var => ExprKind::Macro(p.as_str()[1..].to_string()),
        Rule::args_field => ExprKind::ArgsField(p.into_inner().next().unwrap().as_str().to_string()),
        Rule::thread_var => match thread_var(p) {
            LValue::ClauseLocal(i, _) => ExprKind::ClauseLocal(i.name),
            LValue::ThreadLocal(i, _) => ExprKind::ThreadLocal(i.name),
            LValue::Global(i) => ExprKind::Ident(i.name),
        },
        Rule::ident => ExprKind::Ident(p.as_str().to_string()),
        Rule::expr => return expr_at(p, level + 1),
        r => unreachable!("primary {r:?}"),
    };
    Ok((Expr { kind, span: sp }, 0))
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

fn parse_int(text: &str, sp: Span) -> Result<i64, Diagnostic> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let parsed = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<u64>()
    };
    let octal = digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0x") && !digits.starts_with("0X");
    parsed.map(|v| v as i64).map_err(|_| {
        if octal && digits.contains(['8', '9']) {
            Diagnostic::new(sp, "invalid octal constant").label("8 and 9 are not octal digits").hint("constants that start with 0 are octal; drop the leading 0 for decimal")
        } else {
            Diagnostic::new(sp, "integer constant out of range").label("does not fit in 64 bits").hint("integers are 64-bit")
        }
    })
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
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Str(s) => format!("{:?}", s.value),
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Macro(n) => format!("${n}"),
            ExprKind::ThreadLocal(n) => format!("self->{n}"),
            ExprKind::ArgsField(n) => format!("args->{n}"),
            ExprKind::ClauseLocal(n) => format!("this->{n}"),
            ExprKind::Agg(a) => format!("@{}", a.name),
            ExprKind::Call(f, args) => format!("{}({})", f.name, args.iter().map(show).collect::<Vec<_>>().join(", ")),
            ExprKind::Unary(op, a) => format!("({op:?} {})", show(a)),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
            ExprKind::Ternary(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
            other => format!("{other:?}"),
        }
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
}
