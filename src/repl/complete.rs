//! What Tab offers at the cursor: probe descriptions field by field where a clause's
//! descriptions are (providers, then modules, functions, tracepoint categories and events,
//! system calls, probe names, from the running kernel), a struct's members after `->` or `.`
//! (the expression's type found by the checker), and elsewhere builtins, functions (shown
//! with their signatures), keywords and the variables the program names.

use super::scan::{chain_start, name_start, scan, Place};
use crumbs_lang::ast::ProbeDesc;
use crumbs_lang::builtins::{FUNCTIONS, VARIABLES};
use crumbs_lang::facts::KernelFacts;
use crumbs_lang::providers::{self, spelling::long_name, PROVIDERS};
use crumbs_lang::syscalls::SyscallTable;
use std::collections::BTreeSet;
use std::rc::Rc;

/// One thing Tab may insert: `replacement`, shown in the list as `display`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub replacement: String,
    pub display: String,
}

fn plain(s: impl Into<String>) -> Candidate {
    let s = s.into();
    Candidate { display: s.clone(), replacement: s }
}

/// The REPL's commands, with what they take (for the list Tab shows).
pub const COMMANDS: &[(&str, &str)] = &[
    (":run", " CMD"),
    (":again", ""),
    (":attach", " PID"),
    (":list", " GLOB"),
    (":type", " struct NAME"),
    (":help", ""),
    (":quit", ""),
];

/// A name the query below gives the checker as a member, so that its "has no member"
/// diagnostic names the type of the expression before it.
const QUERY: &str = "__crumbs_members__";

/// The word Tab completes in an expression: a name, or `@name`, `$name`.
fn word_start(before: &str) -> usize {
    name_start(before, &['@', '$'])
}

pub struct Completer {
    facts: Rc<dyn KernelFacts>,
}

impl Completer {
    pub fn new(facts: Rc<dyn KernelFacts>) -> Completer {
        Completer { facts }
    }

    /// Where the completed word starts in `line` and what may replace it, for the cursor
    /// at `pos`.
    pub fn complete(&self, line: &str, pos: usize) -> (usize, Vec<Candidate>) {
        let before = &line[..pos];
        if before.trim_start().starts_with(':') {
            return self.command(before);
        }
        let (start, mut found) = match scan(before).place {
            Place::Quoted => (pos, Vec::new()),
            Place::Probe { start } => {
                let word = &before[start..];
                let field = word.rfind(':').map_or(start, |i| start + i + 1);
                (field, self.probe(word))
            }
            Place::Predicate { header, slash } => self.expression(before, header, slash, None),
            Place::Body { header, open } => self.expression(before, header, open, Some(open)),
        };
        let word = &line[start..pos];
        found.retain(|c| c.replacement.starts_with(word));
        found.sort();
        found.dedup_by(|a, b| a.replacement == b.replacement);
        (start, found)
    }

    /// A REPL command's name, or its argument (`:list`'s descriptions, `:type`'s kind).
    fn command(&self, before: &str) -> (usize, Vec<Candidate>) {
        let lead = before.len() - before.trim_start().len();
        let text = before.trim_start();
        let Some((cmd, arg)) = text.split_once(' ') else {
            let found = COMMANDS.iter().filter(|(c, _)| c.starts_with(text)).map(|(c, args)| Candidate { replacement: c.to_string(), display: format!("{c}{args}") }).collect();
            return (lead, found);
        };
        let arg_start = before.len() - arg.len();
        let arg_trimmed = arg.trim_start();
        let arg_start = arg_start + (arg.len() - arg_trimmed.len());
        match cmd {
            ":list" => {
                let word = arg_trimmed.rsplit(' ').next().unwrap_or("");
                let start = before.len() - word.len();
                let field = word.rfind(':').map_or(start, |i| start + i + 1);
                let mut found = self.probe(word);
                let partial = &before[field..];
                found.retain(|c| c.replacement.starts_with(partial));
                (field, found)
            }
            ":type" if !arg_trimmed.contains(' ') => {
                let found = ["struct ", "union ", "enum "].iter().filter(|k| k.starts_with(arg_trimmed)).map(|k| plain(*k)).collect();
                (arg_start, found)
            }
            _ => (before.len(), Vec::new()),
        }
    }

    /// The probe descriptions' field being typed at the end of `word` (`syscall::rea`).
    pub fn probe(&self, word: &str) -> Vec<Candidate> {
        let fields: Vec<&str> = word.split(':').collect();
        let k = fields.len() - 1;
        if k == 0 {
            let mut out: Vec<Candidate> = PROVIDERS.iter().map(|p| plain(format!("{}:", p.name()))).collect();
            // bpftrace's probe types that are spellings of crumbs' providers.
            out.extend(["kprobe:", "kretprobe:", "fentry:", "fexit:", "uretprobe:", "interval:", "BEGIN", "END", "ERROR"].map(plain));
            return out;
        }
        let provider = long_name(fields[0]).unwrap_or(fields[0]);
        let with_colon = |names: &[String]| names.iter().map(|n| plain(format!("{n}:"))).collect::<Vec<_>>();
        let names = |list: Result<Rc<[String]>, String>| list.map(|l| l.iter().map(|n| plain(n.as_str())).collect()).unwrap_or_default();
        match (provider, k) {
            ("tracepoint" | "tp", 1) => {
                let cats: BTreeSet<String> = self.facts.tracepoints().map(|l| l.iter().map(|(c, _)| c.clone()).collect()).unwrap_or_default();
                with_colon(&cats.into_iter().collect::<Vec<_>>())
            }
            // bpftrace's tracepoint:CATEGORY:EVENT, and D's tracepoint:CATEGORY::EVENT.
            ("tracepoint" | "tp", 2) | ("tracepoint" | "tp", 3) if k == 2 || fields[2].is_empty() => {
                let cat = fields[1];
                self.facts.tracepoints().map(|l| l.iter().filter(|(c, _)| c == cat).map(|(_, e)| plain(e.as_str())).collect()).unwrap_or_default()
            }
            ("rawtracepoint" | "rt", 1) => names(self.facts.raw_tracepoints()),
            ("kprobe" | "kretprobe" | "fentry" | "fexit", 1) => names(self.facts.kernel_functions()),
            ("fbt", 1) => {
                let mut mods = vec![providers::FBT_MODULE.to_string()];
                mods.extend(self.facts.kernel_modules().map(|m| m.to_vec()).unwrap_or_default());
                with_colon(&mods)
            }
            ("fbt", 2) => {
                let list = match fields[1] {
                    "" | providers::FBT_MODULE => self.facts.kernel_functions(),
                    m => self.facts.module_functions(m),
                };
                with_colon(&list.map(|l| l.to_vec()).unwrap_or_default())
            }
            ("syscall", 2) => with_colon(&SyscallTable::get().iter().map(|(_, n)| n.to_string()).collect::<Vec<_>>()),
            ("syscall" | "fbt", 3) => ["entry", "return"].map(plain).to_vec(),
            _ => self.matched_field(&fields),
        }
    }

    /// Field `k` (the last typed) of the probes a description of the fields typed so far,
    /// the rest wild, matches: for the providers that list their probes.
    fn matched_field(&self, typed: &[&str]) -> Vec<Candidate> {
        let k = typed.len() - 1;
        if k > 3 {
            return Vec::new();
        }
        let mut fields: Vec<String> = typed.iter().map(|f| f.to_string()).collect();
        fields[k].push('*');
        fields.resize(4, "*".to_string());
        let desc = ProbeDesc { text: fields.join(":"), fields, span: 0..0 };
        let Ok(found) = providers::match_probes_with(&desc, Some(&*self.facts)) else { return Vec::new() };
        let values: BTreeSet<&str> = found.iter().map(|p| [p.provider, p.module, p.function, p.name][k]).collect();
        values.into_iter().map(|v| if k < 3 { plain(format!("{v}:")) } else { plain(v) }).collect()
    }

    /// Candidates in a predicate or an action block: members after `->` or `.`, else names.
    /// `header..end` is the clause's descriptions (and predicate); `open` its `{`, if the
    /// cursor is past it.
    fn expression(&self, before: &str, header: usize, end: usize, open: Option<usize>) -> (usize, Vec<Candidate>) {
        // Text the scan cannot make sense of (a `}` in a predicate) leaves no header.
        let header = header.min(end);
        let start = word_start(before);
        let prefix = &before[..start];
        let op = if prefix.ends_with("->") {
            "->"
        } else if prefix.ends_with('.') && !prefix[..prefix.len() - 1].ends_with(|c: char| c.is_ascii_digit()) {
            "."
        } else {
            return (start, names(before));
        };
        let op_at = start - op.len();
        let Some(chain_at) = chain_start(before, op_at) else { return (start, Vec::new()) };
        let chain = &before[chain_at..op_at];
        let found = match chain {
            "self" | "this" => variables_of(before, chain),
            "args" => self.argument_names(&before[header..end]).unwrap_or_default(),
            _ => {
                // The clauses before this one, this one's descriptions (without the
                // predicate), and its statements before the one being typed.
                let head = &before[header..end];
                let head = head.find(" /").map_or(head, |i| &head[..i]);
                let statements = match open {
                    Some(o) => {
                        // (Nothing if the chain began before the `{`, in text the scan could not follow.)
                        let body = before.get(o + 1..chain_at).unwrap_or("");
                        let kept = body.rfind([';', '{', '}']).map_or("", |i| &body[..=i]);
                        let unclosed = kept.matches('{').count().saturating_sub(kept.matches('}').count());
                        (kept.to_string(), "}".repeat(unclosed))
                    }
                    None => (String::new(), String::new()),
                };
                let program = format!("{}{head} {{ {} {chain}{op}{QUERY}; {} }}", &before[..header], statements.0, statements.1);
                self.members(&program)
            }
        };
        (start, found.into_iter().map(plain).collect())
    }

    /// The members of the type the checker finds before the query in `program`: the names
    /// its "no member" diagnostic at the query says would be right there.
    fn members(&self, program: &str) -> Vec<String> {
        let opts = crumbs_lang::check::CheckOptions { facts: Some(self.facts.clone()), target: Some(std::process::id() as i64), ..Default::default() };
        match crumbs_lang::compile(program, &opts) {
            Err(d) if program.get(d.span.clone()) == Some(QUERY) => d.alternatives,
            _ => Vec::new(),
        }
    }

    /// `args->NAME`'s names for the first probe the clause's descriptions match: a
    /// tracepoint's fields, a kernel function's parameters.
    fn argument_names(&self, head: &str) -> Option<Vec<String>> {
        let head = head.find(" /").map_or(head, |i| &head[..i]);
        let parsed = crumbs_lang::parse::parse_program(&format!("{head} {{}}")).ok()?;
        let desc = parsed.clauses.first()?.probes.first()?;
        let probe = providers::match_probes_with(desc, Some(&*self.facts)).ok()?.into_iter().next()?;
        if probe.provider == "tracepoint" {
            let format = self.facts.tracepoint_format(probe.module, probe.name).ok()?;
            return Some(crumbs_lang::tracepoints::parse_format(&format).into_iter().map(|f| f.name).collect());
        }
        providers::provider(probe.provider)?.arg_names(&probe, Some(&*self.facts))
    }
}

/// Builtin variables (and their other spellings), functions (shown with their
/// signatures), keywords, and the aggregations and variables `text` names.
fn names(text: &str) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = VARIABLES.iter().flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied())).map(plain).collect();
    out.extend(FUNCTIONS.iter().map(|f| Candidate { replacement: format!("{}(", f.name), display: f.signature.to_string() }));
    out.extend(["self->", "this->", "args->", "args[", "sizeof(", "stringof(", "struct ", "if", "else"].map(plain));
    // `@name`s and `$name`s already in the program.
    let mut i = 0;
    while let Some(at) = text[i..].find(['@', '$']) {
        let s = i + at;
        let e = text[s + 1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(text.len(), |j| s + 1 + j);
        // Not the word being typed.
        if e > s + 1 && e < text.len() {
            out.push(plain(&text[s..e]));
        }
        i = e.max(s + 1);
    }
    out
}

/// The names `text` gives after `self->` or `this->` (`which`).
fn variables_of(text: &str, which: &str) -> Vec<String> {
    let marker = format!("{which}->");
    let mut out = Vec::new();
    for (at, _) in text.match_indices(&marker) {
        let rest = &text[at + marker.len()..];
        let n = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        // Not the word being typed.
        if n > 0 && n < rest.len() {
            out.push(rest[..n].to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crumbs_lang::facts::sample::SampleKernel;

    fn completer() -> Completer {
        Completer::new(Rc::new(SampleKernel))
    }

    fn offered(line: &str) -> Vec<String> {
        completer().complete(line, line.len()).1.into_iter().map(|c| c.replacement).collect()
    }

    #[test]
    fn probes_field_by_field() {
        assert!(offered("sysc").contains(&"syscall:".to_string()));
        assert!(offered("BEGIN {} kpro").contains(&"kprobe:".to_string()));
        assert!(offered("syscall::clock_g").contains(&"clock_gettime:".to_string()));
        assert_eq!(offered("syscall::read:e"), vec!["entry"]);
        assert_eq!(offered("fbt::vfs_re"), vec!["vfs_read:"]);
        assert_eq!(offered("kprobe:vfs_wr"), vec!["vfs_write"]);
        assert_eq!(offered("profile:::tick-10"), vec!["tick-10", "tick-100", "tick-1000"]);
        // The start of the replaced text is the field's.
        assert_eq!(completer().complete("a:::entry, syscall::rea", 23).0, 20);
    }

    #[test]
    fn names_in_expressions() {
        assert!(offered("BEGIN { @[execn").contains(&"execname".to_string()));
        let (_, found) = completer().complete("BEGIN { @ = quan", 16);
        assert_eq!(found[0], Candidate { replacement: "quantize(".into(), display: "quantize(x)".into() });
        assert_eq!(offered("BEGIN { self->start = 1; } END { x = self->st"), vec!["start"]);
        assert_eq!(offered("BEGIN { @bytes = count(); } END { printa(@by"), vec!["@bytes"]);
        assert!(offered("BEGIN { printf(\"exec").is_empty());
    }

    #[test]
    fn members_from_the_checker() {
        assert!(offered("BEGIN { trace(curthread->pi").contains(&"pid".to_string()));
        assert!(offered("BEGIN { trace(curthread->real_pa") == ["real_parent"]);
        assert!(offered("fbt::vfs_read:entry /((struct file *)arg0)->f_p").contains(&"f_path".to_string()));
        assert_eq!(offered("fbt::vfs_read:entry { this->f = (struct file *)arg0; trace(this->f->f_pa"), vec!["f_path"]);
        assert_eq!(offered("fbt::vfs_read:entry { if (1) { trace(args[0]->f_path.dent"), vec!["dentry"]);
        assert_eq!(offered("fbt::vfs_read:entry { trace(args->co"), vec!["count"]);
    }

    /// Whatever is typed, at any cursor position, completion, colouring and hints never
    /// panic (texts with multi-byte characters, unclosed strings and brackets).
    #[test]
    fn any_text_is_safe() {
        let alphabet: Vec<char> = "ab_1 :;,{}()[]/*\"\\'->.@$é→\n".chars().collect();
        let c = completer();
        let mut seed = 0x2545f4914f6cdd1du64;
        for _ in 0..400 {
            let mut text = String::from(["BEGIN { ", "syscall::read:entry /", "fbt::vfs_read:entry { x = args[0]->", ""][(seed % 4) as usize]);
            for _ in 0..24 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            for pos in text.char_indices().map(|(i, _)| i).chain([text.len()]) {
                let _ = c.complete(&text, pos);
                let _ = super::super::highlight::hint(&text[..pos]);
            }
            let _ = super::super::highlight::highlight(&text);
        }
    }

    #[test]
    fn commands() {
        assert_eq!(offered(":ag"), vec![":again"]);
        assert_eq!(offered(":type st"), vec!["struct "]);
        assert_eq!(offered(":list syscall::clock_gett"), vec!["clock_gettime:"]);
    }
}
