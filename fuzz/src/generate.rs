//! Random programs, nearly always valid D, built from lang's builtin tables and the fixed
//! tracepoint catalog: the mutators start from these as well as from the seeds, so that
//! enough mutated programs get through the checker to exercise the code generator and the
//! kernel's verifier. The generator keeps track of what the checker requires (variables
//! assigned somewhere, clause-locals assigned before use, `args->` only in a clause of one
//! tracepoint, integer or string operands) and breaks those rules only now and then.

use crate::catalog;
use crate::rng::Rng;
use crumbs_lang::builtins::{FnKind, VarType, FUNCTIONS, VARIABLES};
use crumbs_lang::dialect::Dialect;
use crumbs_lang::tracepoints::FieldKind;
use std::collections::BTreeSet;

const PROBES: &[&str] = &[
    "BEGIN", "END", "dtrace:::BEGIN", "syscall:::entry", "syscall:::return", "syscall::read:entry", "syscall::read:return",
    "syscall::write:entry", "syscall::openat:return", "syscall::*read*:entry", "syscall::clock_gettime:return", "read:entry",
    "syscall::exit_group:entry", "profile-997", "tick-1s", "profile:::tick-10ms", "tp:syscalls:sys_enter_*", "ERROR", "dtrace:::ERROR",
];

const NUMBERS: &[&str] = &[
    "0", "1", "2", "7", "8", "63", "64", "65", "100", "255", "256", "4096", "65535", "65536", "0x7fffffffffffffff", "0xffffffffffffffff",
    "9223372036854775808", "18446744073709551615", "2147483647", "2147483648", "4294967295", "4294967296", "017", "0x10", "1UL", "'a'",
    "'\\377'", "-1", "-9223372036854775807", "$1", "$3", "$4", "$target",
];

const BINARY: &[&str] = &["+", "-", "*", "/", "%", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&", "^", "|", "&&", "^^", "||"];
const UNARY: &[&str] = &["!", "~", "-", "+"];
const ASSIGN: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="];
const CONVERSIONS: &[&str] = &["d", "i", "u", "x", "X", "o", "c", "s", "S", "Y", "%"];
const AGGREGATIONS: &[&str] = &["@", "@a", "@b", "@count", "@x1"];
/// String variables of every kind, declared by the program's first line when used.
const STRING_VARIABLES: &[&str] = &["sv", "self->sv", "sa[1]", "sa[pid]"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Int,
    Str,
    Stack,
    /// `ustack()`.
    UStack,
    /// `usym(...)`: a user symbol.
    USym,
}

#[derive(Clone)]
struct Agg {
    name: String,
    func: String,
    keys: Vec<Key>,
    /// lquantize's or llquantize's constant arguments: ", low, high, step".
    params: String,
}

/// What the clause being generated allows.
#[derive(Default)]
struct Clause {
    /// Clause-locals assigned so far (readable from here on).
    locals: Vec<String>,
    /// `args->` fields of the clause's one tracepoint: integers, and names (char[16]).
    int_fields: Vec<String>,
    name_fields: Vec<String>,
    in_predicate: bool,
}

pub struct Generator<'r> {
    rng: &'r mut Rng,
    clause: Clause,
    /// Aggregations used so far (their function and key types must agree).
    aggs: Vec<Agg>,
    /// Globals and thread-locals read and assigned (every one read must be assigned).
    read: BTreeSet<String>,
    assigned: BTreeSet<String>,
}

impl<'r> Generator<'r> {
    pub fn new(rng: &'r mut Rng) -> Self {
        Generator { rng, clause: Clause::default(), aggs: Vec::new(), read: BTreeSet::new(), assigned: BTreeSet::new() }
    }

    /// A whole program: an occasional pragma, one to four clauses, and a clause assigning
    /// the variables the others read but never assigned.
    pub fn program(&mut self) -> String {
        let mut out = String::new();
        if self.rng.one_in(4) {
            out.push_str(self.rng.pick::<&str>(&["#pragma D option quiet\n", "#pragma D option bufsize=64k\n", "#pragma D option aggsortkey\n", "#pragma D option aggsortrev\n", "#pragma D option aggsortpos=1\n", "#pragma D option aggsortkeypos=1\n", "#pragma D option aggpack\n"]));
        }
        let mut clauses = String::new();
        for _ in 0..self.rng.range(1, 4) {
            clauses.push_str(&self.clause());
            clauses.push('\n');
        }
        // The string variables the clauses use (STRING_VARIABLES), declared so that they can
        // be read anywhere.
        if clauses.contains("sv") || clauses.contains("sa[") {
            out.push_str("string sv; self string sv; string sa[int];\n");
        }
        out.push_str(&clauses);
        let unassigned: Vec<String> = self.read.difference(&self.assigned).map(|v| format!("{v} = 1;")).collect();
        if !unassigned.is_empty() && !self.rng.one_in(20) {
            out.push_str(&format!("END {{ {} }}\n", unassigned.join(" ")));
        }
        out
    }

    pub fn clause(&mut self) -> String {
        self.clause = Clause::default();
        let probes = if self.rng.one_in(4) {
            self.tracepoint_probe()
        } else {
            let mut p = vec![self.rng.pick(PROBES).to_string()];
            if self.rng.one_in(6) {
                p.push(self.rng.pick(PROBES).to_string());
            }
            p.join(",")
        };
        let mut out = probes;
        if self.rng.one_in(3) {
            self.clause.in_predicate = true;
            out.push_str(&format!("\n/{}/", self.expr(3)));
            self.clause.in_predicate = false;
        }
        let stmts: Vec<String> = (0..self.rng.range(0, 5)).map(|_| self.statement()).collect();
        // `>` ends a `< ... >` block: only statements without one fit in it.
        if self.rng.one_in(10) && !stmts.iter().any(|s| s.contains('>')) {
            out.push_str(&format!(" <{}>", stmts.join("; ")));
        } else if !stmts.is_empty() || self.rng.one_in(2) || out.ends_with('/') {
            // (After a predicate, a block is needed: the next clause's probe would read as
            // a division.)
            out.push_str(&format!("\n{{\n    {}\n}}", stmts.iter().map(|s| format!("{s};")).collect::<Vec<_>>().join("\n    ")));
        }
        out
    }

    /// One tracepoint of the catalog, whose fields the clause may then read.
    fn tracepoint_probe(&mut self) -> String {
        let names: Vec<String> = catalog::names().collect();
        let name = self.rng.pick(&names).clone();
        let (category, event) = name.split_once(':').expect("category:event");
        for f in catalog::fields(category, event) {
            match f.kind {
                FieldKind::Int => self.clause.int_fields.push(f.name),
                FieldKind::Chars | FieldKind::DataLocStr { .. } => self.clause.name_fields.push(f.name),
                FieldKind::Other(_) | FieldKind::Array { .. } | FieldKind::DataLocArray { .. } => {}
            }
        }
        format!("{}:{name}", self.rng.pick(&["tracepoint", "tp"]))
    }

    pub fn statement(&mut self) -> String {
        match self.rng.below(12) {
            0 | 1 => self.aggregate(),
            2 => {
                let value = self.expr(3);
                format!("{} {} {value}", self.lvalue(), self.rng.pick(ASSIGN))
            }
            3 => format!("{}{}", self.lvalue(), self.rng.pick(&["++", "--"])),
            4 | 5 => self.printf(),
            6 if self.rng.one_in(4) => self.user_value(),
            6 if self.rng.one_in(8) => match self.rng.below(2) {
                0 => format!("tracemem({}, {})", self.expr(1), self.rng.pick(&["1", "16", "40", "0", "100000"])),
                _ => format!("tracemem({}, {}, {})", self.expr(1), self.rng.pick(&["8", "33"]), self.expr(1)),
            },
            6 => format!("trace({})", self.any_value()),
            7 => self.aggregation_action(),
            8 => format!("exit({})", self.expr(1)),
            10 if self.rng.one_in(2) => {
                let cond = self.expr(2);
                let then = self.statement();
                match self.rng.below(3) {
                    0 => format!("if ({cond}) {then}"),
                    1 => format!("if ({cond}) {{ {then}; }} else {{ {}; }}", self.statement()),
                    _ => format!("if ({cond}) {{ {then}; }} else if ({}) {{ {}; }}", self.expr(1), self.statement()),
                }
            }
            11 => {
                let target = self.rng.pick(STRING_VARIABLES).to_string();
                format!("{target} = {}", self.string_value())
            }
            9 => {
                let value = self.expr(2);
                let name = format!("this->v{}", self.rng.below(3));
                self.clause.locals.push(name.clone());
                format!("{name} = {value}")
            }
            _ => self.any_value(),
        }
    }

    /// A user stack or symbol traced or printed (spec §7.16).
    fn user_value(&mut self) -> String {
        let pc = if self.rng.one_in(3) { "ucaller".to_string() } else { self.expr(1) };
        match self.rng.below(8) {
            0 => "ustack()".into(),
            1 => format!("ustack({})", self.rng.pick(&["1", "3", "100", "0", "101"])),
            2 => format!("trace({}({pc}))", self.rng.pick(&["usym", "ufunc", "uaddr", "umod"])),
            3 => format!("trace({})", self.rng.pick(&["ucaller", "ustackdepth"])),
            4 => format!("printf(\"%A %-20A\\n\", {pc}, {})", self.expr(1)),
            5 => format!("printf(\"%k|%-3k\", ustack({}), ustack(2, 0))", self.rng.pick(&["1", "5"])),
            6 => format!("@u[{}({pc})] = count()", self.rng.pick(&["usym", "ufunc", "uaddr", "umod"])),
            _ => format!("@us[ustack(), {pc}] = count()"),
        }
    }

    fn lvalue(&mut self) -> String {
        let name = match self.rng.below(4) {
            0 => format!("g{}", self.rng.below(3)),
            1 => format!("self->t{}", self.rng.below(3)),
            2 => {
                let e = self.element();
                self.assigned.insert(e.0);
                return e.1;
            }
            _ => {
                // op= and ++ read the clause-local too: only one already assigned.
                if let Some(l) = self.clause.locals.first() {
                    return l.clone();
                }
                format!("g{}", self.rng.below(3))
            }
        };
        self.assigned.insert(name.clone());
        name
    }

    /// An element of an associative array (one integer key): the array's name as the
    /// program's last clause would assign it, and the element.
    fn element(&mut self) -> (String, String) {
        let name = format!("{}{}", self.rng.pick(&["a", "self->b"]), self.rng.below(2));
        let key = if self.rng.one_in(2) { self.rng.pick(NUMBERS).to_string() } else { self.rng.pick(&["pid", "tid", "arg0", "cpu"]).to_string() };
        (format!("{name}[0]"), format!("{name}[{key}]"))
    }

    fn aggregate(&mut self) -> String {
        // Not bpftrace's hist(), lhist() and stats(): a call makes the program bpftrace's, where
        // the D globals the generator writes are errors.
        let aggregating: Vec<_> = FUNCTIONS.iter().filter(|f| f.kind == FnKind::Aggregating && !matches!(f.name, "hist" | "lhist" | "stats") && crumbs_lang::builtins::function(f.name, Dialect::D).is_some()).collect();
        let name = self.rng.pick(AGGREGATIONS).to_string();
        // An aggregation keeps its function and key types, unless we choose to break that.
        let (func, keys, params) = match self.aggs.iter().find(|a| a.name == name) {
            Some(a) if !self.rng.one_in(30) => (a.func.clone(), a.keys.clone(), a.params.clone()),
            _ => {
                let keys = (0..self.rng.below(4)).map(|_| *self.rng.pick(&[Key::Int, Key::Int, Key::Str, Key::Stack, Key::UStack, Key::USym])).collect();
                let func = self.rng.pick(&aggregating).name.to_string();
                let params = if func == "llquantize" { self.llquantize_params() } else { self.lquantize_params() };
                (func, keys, params)
            }
        };
        self.aggs.push(Agg { name: name.clone(), func: func.clone(), keys: keys.clone(), params: params.clone() });
        let key_text = match keys.len() {
            0 => String::new(),
            _ => format!("[{}]", keys.iter().map(|k| self.key(*k)).collect::<Vec<_>>().join(", ")),
        };
        let f = crumbs_lang::builtins::function(&func, Dialect::D).expect("an aggregating function");
        let call = match f.args.len() {
            0 => format!("{func}()"),
            1 => format!("{func}({})", self.expr(2)),
            _ => format!("{func}({}{params})", self.expr(2)),
        };
        format!("{name}{key_text} = {call}")
    }

    /// `, low, high, step`: a valid range, or now and then any three constants.
    fn lquantize_params(&mut self) -> String {
        if self.rng.one_in(20) {
            return format!(", {}, {}, {}", self.rng.pick(NUMBERS), self.rng.pick(NUMBERS), self.rng.pick(NUMBERS));
        }
        let lo = self.rng.range(0, 100) as i64 - 50;
        let step = self.rng.range(1, 100) as i64;
        format!(", {lo}, {}, {step}", lo + step * self.rng.range(1, 200) as i64)
    }

    /// `, factor, low, high, steps`: valid parameters, or now and then any four constants.
    fn llquantize_params(&mut self) -> String {
        if self.rng.one_in(20) {
            let n: Vec<&str> = (0..4).map(|_| *self.rng.pick(NUMBERS)).collect();
            return format!(", {}", n.join(", "));
        }
        let (factor, steps) = *self.rng.pick(&[(10, 10), (10, 20), (10, 100), (2, 2), (2, 8), (3, 27), (4, 16)]);
        let low = self.rng.below(4);
        format!(", {factor}, {low}, {}, {steps}", low + self.rng.range(1, 6))
    }

    /// An action on an aggregation defined before (rarely one that is not).
    fn aggregation_action(&mut self) -> String {
        if self.aggs.is_empty() {
            if !self.rng.one_in(30) {
                return self.any_value();
            }
            let agg = self.rng.pick(&["@", "@a", "@nope"]);
            return format!("{}({agg})", self.rng.pick(&["printa", "clear", "trunc", "denormalize"]));
        }
        let a = self.aggs[self.rng.below(self.aggs.len())].clone();
        if self.rng.one_in(5) {
            return self.joined_printa(&a);
        }
        match self.rng.below(6) {
            0 => format!("printa({})", a.name),
            1 => {
                let keys: String = a.keys.iter().map(|k| match k { Key::Str => "%-12s ", Key::UStack => "%k ", Key::USym => "%A ", _ => "%d " }).collect();
                let value = if a.func.ends_with("quantize") { "%@d" } else { *self.rng.pick(&["%@d", "%@u", "%@x", "%-10@d"]) };
                format!("printa(\"{keys}{value}\\n\", {})", a.name)
            }
            2 => format!("clear({})", a.name),
            3 => format!("trunc({}, {})", a.name, self.rng.pick(&["0", "1", "5", "-2", "100"])),
            4 => format!("normalize({}, {})", a.name, self.expr(1)),
            _ => format!("denormalize({})", a.name),
        }
    }

    /// printa() of `a` and aggregations with the same keys (rarely other keys), with or
    /// without a format.
    fn joined_printa(&mut self, a: &Agg) -> String {
        let same: Vec<Agg> = self.aggs.iter().filter(|b| b.keys == a.keys || self.rng.one_in(20)).cloned().collect();
        let mut names = vec![a.name.clone()];
        for _ in 0..self.rng.range(1, 3) {
            names.push(self.rng.pick(&same).name.clone());
        }
        if self.rng.one_in(2) {
            return format!("printa({})", names.join(", "));
        }
        let keys: String = a.keys.iter().map(|k| if *k == Key::Str { "%s " } else { "%d " }).collect();
        let values = "%@d ".repeat(self.rng.below(names.len() + 2));
        format!("printa(\"{keys}{values}\\n\", {})", names.join(", "))
    }

    fn key(&mut self, kind: Key) -> String {
        match kind {
            Key::Stack => "stack()".into(),
            Key::UStack => "ustack()".into(),
            Key::USym => format!("usym({})", self.expr(1)),
            Key::Str => self.string_value(),
            Key::Int => self.expr(2),
        }
    }

    fn printf(&mut self) -> String {
        let mut fmt = String::new();
        let mut args = Vec::new();
        for _ in 0..self.rng.range(0, 4) {
            fmt.push_str(self.rng.pick::<&str>(&["", " ", "x=", "\\n", "\\t", "é", "\\\\", "£ "]));
            if self.rng.one_in(20) {
                fmt.push_str(self.rng.pick::<&str>(crate::mutate::FORMAT));
            }
            let conv = *self.rng.pick(CONVERSIONS);
            let flags: String = (0..self.rng.below(3)).map(|_| *self.rng.pick(&["-", "+", " ", "#", "0"])).collect();
            let width = if self.rng.one_in(3) { self.rng.below(40).to_string() } else { String::new() };
            let precision = if self.rng.one_in(4) { format!(".{}", self.rng.below(20)) } else { String::new() };
            let length = if self.rng.one_in(5) { *self.rng.pick(&["l", "ll", "h", "hh", "z", "j", "t"]) } else { "" };
            match conv {
                // Flags and width are an error on %%.
                "%" => fmt.push_str("%%"),
                "s" | "S" => {
                    fmt.push_str(&format!("%{flags}{width}{precision}{length}{conv}"));
                    args.push(self.string_value());
                }
                _ => {
                    fmt.push_str(&format!("%{flags}{width}{precision}{length}{conv}"));
                    args.push(self.expr(2));
                }
            }
        }
        fmt.push_str("\\n");
        let args: String = args.iter().map(|a| format!(", {a}")).collect();
        format!("printf(\"{fmt}\"{args})")
    }

    fn any_value(&mut self) -> String {
        if self.rng.one_in(3) {
            self.string_value()
        } else {
            self.expr(3)
        }
    }

    /// A string: an atom, or a subroutine, `?:` or string variable around atoms.
    fn string_value(&mut self) -> String {
        match self.rng.below(14) {
            0 => format!("strjoin({}, {})", self.string_atom(), self.string_atom()),
            5 => match self.rng.below(4) {
                0 => format!("strstr({}, {})", self.string_atom(), self.string_atom()),
                1 => format!("{}({}, {})", self.rng.pick(&["strchr", "strrchr"]), self.string_atom(), self.expr(1)),
                2 => format!("strtok({}, {})", if self.rng.one_in(2) { "NULL".to_string() } else { self.string_atom() }, self.string_atom()),
                _ => format!("lltostr({})", self.expr(1)),
            },
            6 => match self.rng.below(4) {
                0 => format!("inet_ntoa({})", self.expr(1)),
                1 => format!("inet_ntoa6({})", self.expr(1)),
                2 => format!("inet_ntoa6({}, {})", self.expr(1), self.rng.below(2)),
                _ => format!("inet_ntop({}, {})", self.rng.pick(&["2", "10", "arg0"]), self.expr(1)),
            },
            1 => match self.rng.below(2) {
                0 => format!("substr({}, {})", self.string_atom(), self.expr(1)),
                _ => format!("substr({}, {}, {})", self.string_atom(), self.expr(1), self.expr(1)),
            },
            2 => format!("{}({})", self.rng.pick(&["toupper", "tolower", "basename", "dirname"]), self.string_atom()),
            3 => format!("({} ? {} : {})", self.expr(1), self.string_atom(), self.string_atom()),
            4 => self.rng.pick(STRING_VARIABLES).to_string(),
            _ => self.string_atom(),
        }
    }

    fn string_atom(&mut self) -> String {
        let strings: Vec<&str> = VARIABLES.iter().filter(|v| v.ty == VarType::Str && v.dialects.includes(Dialect::D)).map(|v| v.name).collect();
        match self.rng.below(7) {
            0 => format!("\"{}\"", self.rng.pick(&["", "io-benchmark", "a\\tb", "\\377", "£é", "0123456789abcdef", "%d", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"])),
            1 => format!("{}({})", self.rng.pick(&["copyinstr", "str"]), self.expr(1)),
            2 if !self.clause.name_fields.is_empty() => format!("args->{}", self.rng.pick(&self.clause.name_fields)),
            3 => self.rng.pick(&["$0", "$2", "$$1"]).to_string(),
            _ => self.rng.pick(&strings).to_string(),
        }
    }

    /// An integer expression nested up to `depth` operators.
    pub fn expr(&mut self, depth: usize) -> String {
        if depth == 0 || self.rng.one_in(3) {
            return self.atom();
        }
        match self.rng.below(8) {
            0 => {
                let (op, e) = (self.rng.pick(UNARY), self.expr(depth - 1));
                // `- -x`, not `--x` (which is a decrement, not an expression).
                let gap = if e.starts_with(['-', '+']) { " " } else { "" };
                format!("{op}{gap}{e}")
            }
            1 => format!("({})", self.expr(depth - 1)),
            2 if self.rng.one_in(3) => {
                let target = self.lvalue();
                match self.rng.below(3) {
                    0 => format!("({target} {} {})", self.rng.pick(ASSIGN), self.expr(depth - 1)),
                    1 => format!("({target}{})", self.rng.pick(&["++", "--"])),
                    _ => format!("({}{target})", self.rng.pick(&["++", "--"])),
                }
            }
            2 => format!("{} ? {} : {}", self.expr(depth - 1), self.expr(depth - 1), self.expr(depth - 1)),
            3 => {
                let a = self.string_value();
                let b = format!("\"{}\"", self.rng.pick(&["", "bash", "io-benchmark", "read", "entry", "0123456789abcdef"]));
                // Probe names compare only for equality (spec §4.5).
                let probe_name = a.starts_with("probe") || a == "func";
                let op = if probe_name { self.rng.pick(&["==", "!="]) } else { self.rng.pick(&["==", "!=", "<", ">="]) };
                format!("({a} {op} {b})")
            }
            _ => format!("{} {} {}", self.expr(depth - 1), self.rng.pick(BINARY), self.expr(depth - 1)),
        }
    }

    fn atom(&mut self) -> String {
        // retval belongs to return probes only: anywhere else it is an error, which would
        // crowd out the programs that compile.
        let ints: Vec<&str> = VARIABLES.iter().filter(|v| matches!(v.ty, VarType::Int(_)) && v.name != "retval" && v.dialects.includes(Dialect::D)).map(|v| v.name).collect();
        match self.rng.below(9) {
            0 | 1 => self.rng.pick(NUMBERS).to_string(),
            2 => {
                let g = format!("g{}", self.rng.below(3));
                self.read.insert(g.clone());
                g
            }
            3 => {
                let t = format!("self->t{}", self.rng.below(3));
                self.read.insert(t.clone());
                t
            }
            4 if !self.clause.locals.is_empty() && !self.clause.in_predicate => self.rng.pick(&self.clause.locals).clone(),
            5 if !self.clause.int_fields.is_empty() => format!("args->{}", self.rng.pick(&self.clause.int_fields)),
            5 | 7 if self.rng.one_in(3) => match self.rng.below(4) {
                0 => format!("strlen({})", self.string_atom()),
                1 => match self.rng.below(3) {
                    0 => format!("{}({}, {})", self.rng.pick(&["index", "rindex"]), self.string_atom(), self.string_atom()),
                    _ => format!("{}({}, {}, {})", self.rng.pick(&["index", "rindex"]), self.string_atom(), self.string_atom(), self.rng.pick(NUMBERS)),
                },
                2 => match self.rng.below(3) {
                    0 => "rand()".to_string(),
                    1 => format!("progenyof({})", self.rng.pick(&["pid", "ppid", "1", "$target"])),
                    _ => format!("{}({})", self.rng.pick(&["htons", "htonl", "htonll", "ntohs", "ntohl", "ntohll"]), self.rng.pick(NUMBERS)),
                },
                _ => format!("({} {} {})", self.string_atom(), self.rng.pick(&["==", "!=", "<", ">="]), self.string_atom()),
            },
            6 if self.rng.one_in(2) => {
                let (name, e) = self.element();
                self.read.insert(name);
                e
            }
            _ => self.rng.pick(&ints).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{compile, Outcome};

    /// The generator's purpose is programs that compile; most must. (A panic in the
    /// compiler counts as not compiling here: finding those is the fuzzer's job.)
    #[test]
    fn generated_programs_mostly_compile() {
        let mut errors = std::collections::BTreeMap::new();
        let n = 300;
        let mut ok = 0;
        for i in 0..n {
            let mut rng = Rng::for_input(7, i);
            let text = Generator::new(&mut rng).program();
            match std::panic::catch_unwind(|| compile(&text, &mut |_| {})) {
                Ok(Outcome::Compiled { .. }) => ok += 1,
                Ok(Outcome::Rejected { message, .. }) => errors.entry(message).or_insert((0, text)).0 += 1,
                Err(_) => errors.entry("panic".into()).or_insert((0, text)).0 += 1,
            }
        }
        assert!(ok * 10 >= n * 7, "{ok} of {n} compiled; errors: {errors:#?}");
    }
}
