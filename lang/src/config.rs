//! bpftrace's config variables: one table for the `config = { name = value; ... }` block at
//! the top of a bpftrace program and for their environment variables (`BPFTRACE_NAME`),
//! which the `bpftrace` drop-in reads and which win over the block, as in bpftrace.
//!
//! A variable is named as the block writes it (`stack_mode`), upper case (`STACK_MODE`) or
//! as its environment variable (`BPFTRACE_STACK_MODE`). Those crumbs honours map onto what
//! it has (`max_strlen` is the string size, `stack_mode` the mode of stacks that name none,
//! `print_maps_on_exit` whether maps print when tracing ends, `max_cat_bytes` what cat()
//! prints of a file, `missing_probes` what the front ends do with a description that matches
//! nothing here); the others change nothing in
//! crumbs (it sizes its maps, buffers and programs itself) and have their values checked.
//! Messages are bpftrace's.

use crate::ast::{ConfigEntry, ConfigValue};
use crate::diag::{closest, Diagnostic};
use crate::ir::StackMode;

/// What a variable's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A number (decimal, or `0x` hex).
    Uint,
    /// `true`/`false`, `1`/`0`, `on`/`off`, `yes`/`no`.
    Bool,
    /// Any string.
    Text,
    StackMode,
    /// `error`, `warn` or `ignore`.
    MissingProbes,
    /// `PER_PID`, `PER_PROGRAM` or `NONE`.
    SymbolCache,
    /// One of the licenses the kernel accepts for GPL-only helpers.
    License,
    /// An unstable feature's gate: `enable` (or true), `warn`, `error` (or false).
    Unstable,
}

/// bpftrace's config variables and the kinds of their values.
const VARIABLES: &[(&str, Kind)] = &[
    ("cache_user_symbols", Kind::SymbolCache),
    ("cpp_demangle", Kind::Bool),
    ("lazy_symbolication", Kind::Bool),
    ("license", Kind::License),
    ("log_size", Kind::Uint),
    ("max_bpf_progs", Kind::Uint),
    ("max_cat_bytes", Kind::Uint),
    ("max_map_keys", Kind::Uint),
    ("max_probes", Kind::Uint),
    ("max_strlen", Kind::Uint),
    ("missing_probes", Kind::MissingProbes),
    ("on_stack_limit", Kind::Uint),
    ("perf_rb_pages", Kind::Uint),
    ("print_maps_on_exit", Kind::Bool),
    ("show_debug_info", Kind::Bool),
    ("stack_mode", Kind::StackMode),
    ("str_trunc_trailer", Kind::Text),
    ("unstable_typeinfo", Kind::Unstable),
];

/// Names bpftrace renamed; the old ones are refused with the new one's name (bpftrace 0.17's
/// environment variables `BPFTRACE_STRLEN`, ... are read as the new ones, see [`from_env`]).
const RENAMED: &[(&str, &str)] = &[("strlen", "max_strlen"), ("no_cpp_demangle", "cpp_demangle"), ("cat_bytes_max", "max_cat_bytes"), ("map_keys_max", "max_map_keys")];

/// Variables only the environment sets.
const ENV_ONLY: &[&str] = &["btf", "kernel_build", "kernel_source", "vmlinux"];

const LICENSES: &[&str] = &["GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL", "Dual MPL/GPL"];

/// What the variables crumbs honours were set to (`None`: not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// `max_strlen`: the bytes of a string (crumbs' `strsize`).
    pub max_strlen: Option<u64>,
    /// `stack_mode`: how `kstack`/`ustack` without a mode print.
    pub stack_mode: Option<StackMode>,
    /// `print_maps_on_exit`: whether every map prints when tracing ends.
    pub print_maps_on_exit: Option<bool>,
    /// `max_cat_bytes`: the most cat() prints of a file.
    pub max_cat_bytes: Option<u64>,
    /// `missing_probes`: what becomes of a probe description that matches nothing here (the
    /// front ends act on it before compiling).
    pub missing_probes: Option<MissingProbes>,
    /// `unstable_typeinfo`: whether current bpftrace's typeinfo() may be used (`enable` or
    /// `warn`); bpftrace refuses it by default.
    pub unstable_typeinfo: Option<bool>,
}

/// `missing_probes`' values: a description that matches nothing on this machine is an error
/// (bpftrace's default), or is taken out with a warning, or silently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingProbes {
    Error,
    Warn,
    Ignore,
}

impl MissingProbes {
    fn from_name(name: &str) -> Option<MissingProbes> {
        match name.to_ascii_lowercase().as_str() {
            "error" => Some(MissingProbes::Error),
            "warn" => Some(MissingProbes::Warn),
            "ignore" => Some(MissingProbes::Ignore),
            _ => None,
        }
    }
}

impl Config {
    /// This configuration with `over`'s settings in place of its own (the environment's
    /// over the block's).
    pub fn under(self, over: &Config) -> Config {
        Config {
            max_strlen: over.max_strlen.or(self.max_strlen),
            stack_mode: over.stack_mode.or(self.stack_mode),
            print_maps_on_exit: over.print_maps_on_exit.or(self.print_maps_on_exit),
            max_cat_bytes: over.max_cat_bytes.or(self.max_cat_bytes),
            missing_probes: over.missing_probes.or(self.missing_probes),
            unstable_typeinfo: over.unstable_typeinfo.or(self.unstable_typeinfo),
        }
    }
}

/// A value as written: a number, or text (a string, a name, `true`/`false`).
enum Given<'a> {
    Number(u64),
    Text(&'a str),
}

/// A variable's name as the table has it: lower case, without `BPFTRACE_`.
fn key_of(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    lower.strip_prefix("bpftrace_").map_or(lower.clone(), str::to_string)
}

/// Whether `name`, as a config block or the environment writes it, names `variable`.
pub fn names(name: &str, variable: &str) -> bool {
    key_of(name) == variable
}

/// The variable `name` names, or why none: `(message, hint)` in bpftrace's words.
fn lookup(name: &str) -> Result<(&'static str, Kind), (String, String)> {
    let key = key_of(name);
    if let Some(&(n, k)) = VARIABLES.iter().find(|(n, _)| *n == key) {
        return Ok((n, k));
    }
    if let Some((_, new)) = RENAMED.iter().find(|(old, _)| *old == key) {
        return Err((format!("{name}: key has been renamed to '{new}'"), format!("write `{new}`")));
    }
    if ENV_ONLY.contains(&key.as_str()) {
        return Err((format!("{name}: can only be set as an environment variable"), format!("set BPFTRACE_{} in the environment", key.to_ascii_uppercase())));
    }
    let names = VARIABLES.iter().map(|(n, _)| *n);
    let hint = match closest(&key, names.clone()) {
        Some(c) => format!("did you mean `{c}`? config variables: {}", names.collect::<Vec<_>>().join(", ")),
        None => format!("config variables: {}", names.collect::<Vec<_>>().join(", ")),
    };
    Err((format!("{name}: not a known configuration option"), hint))
}

fn truthy(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// A number as bpftrace reads one: decimal, or `0x` hex.
fn uint(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A stack mode's name as `kstack(mode)`, `stack_mode` and `BPFTRACE_STACK_MODE` take it.
/// `build_id` is for user stacks alone (the checker refuses `kstack(build_id)`).
pub fn stack_mode(key: &str, name: &str) -> Result<StackMode, (String, String)> {
    match name {
        "bpftrace" => Ok(StackMode::Bpftrace),
        "perf" => Ok(StackMode::Perf),
        "raw" => Ok(StackMode::Raw),
        "build_id" => Ok(StackMode::BuildId),
        _ => Err((format!("{key}: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id."), "a stack mode is bpftrace (function+offset), perf (address and symbol), raw (addresses) or build_id (a user frame's file build id and offset)".into())),
    }
}

/// Sets variable `name` in `config` to `value`, checked as its kind says.
fn set(config: &mut Config, name: &str, value: Given) -> Result<(), (String, String)> {
    let (key, kind) = lookup(name)?;
    let bad = |detail: &str, hint: &str| Err((format!("{name}: {detail}"), hint.to_string()));
    match (kind, value) {
        (Kind::Uint, Given::Number(n)) => set_number(config, key, n),
        (Kind::Uint, Given::Text(s)) => match uint(s) {
            Some(n) => set_number(config, key, n),
            None => bad(&format!("expecting a number, got {s}"), &format!("write a number: {key} = 1024")),
        },
        (Kind::Bool, v) => {
            let b = match v {
                Given::Number(n) => n != 0,
                Given::Text(s) => match truthy(s) {
                    Some(b) => b,
                    None => return bad("Invalid bool value: valid values are true, false, 1 or 0.", &format!("write {key} = false, for instance")),
                },
            };
            if key == "print_maps_on_exit" {
                config.print_maps_on_exit = Some(b);
            }
            Ok(())
        }
        (Kind::Text, _) => Ok(()),
        (Kind::StackMode, Given::Text(s)) => stack_mode(name, s).map(|m| config.stack_mode = Some(m)),
        (Kind::StackMode, Given::Number(_)) => stack_mode(name, "").map(|_| ()),
        (Kind::MissingProbes, Given::Text(s)) if MissingProbes::from_name(s).is_some() => {
            config.missing_probes = MissingProbes::from_name(s);
            Ok(())
        }
        (Kind::MissingProbes, _) => bad("Invalid value for missing_probes: valid values are ignore, warn, and error.", "write missing_probes = warn, for instance"),
        (Kind::SymbolCache, Given::Text(s)) if matches!(s.to_ascii_lowercase().as_str(), "1" | "0" | "per_pid" | "per_program" | "none") => Ok(()),
        (Kind::SymbolCache, Given::Number(_)) => Ok(()),
        (Kind::SymbolCache, _) => bad("Invalid value for cache_user_symbols: valid values are PER_PID, PER_PROGRAM, and NONE.", "write cache_user_symbols = PER_PID, for instance"),
        (Kind::Unstable, v) => {
            let on = match v {
                Given::Number(n) => n != 0,
                Given::Text(s) => match s.to_ascii_lowercase().as_str() {
                    "enable" | "warn" => true,
                    "error" => false,
                    _ => match truthy(s) {
                        Some(b) => b,
                        None => return bad("Invalid value for unstable config: valid values are enable, warn, and error.", &format!("write {key} = enable, for instance")),
                    },
                },
            };
            config.unstable_typeinfo = Some(on);
            Ok(())
        }
        (Kind::License, Given::Text(s)) if LICENSES.contains(&s) => Ok(()),
        (Kind::License, v) => {
            let found = match v {
                Given::Number(n) => n.to_string(),
                Given::Text(s) => s.to_string(),
            };
            Err((format!("Invalid value for license. Found: {found}. Valid values: {}.", LICENSES.join(", ")), "write license = \"GPL\", for instance".into()))
        }
    }
}

/// A number for `key`: `max_strlen` is checked as crumbs' string size is.
fn set_number(config: &mut Config, key: &str, n: u64) -> Result<(), (String, String)> {
    if key == "max_strlen" {
        crate::check::strsize_option(Some(&n.to_string())).map_err(|(m, h)| (format!("max_strlen: {m}"), h))?;
        config.max_strlen = Some(n);
    }
    if key == "max_cat_bytes" {
        config.max_cat_bytes = Some(n);
    }
    Ok(())
}

/// The configuration a program's `config = { ... }` block sets; a variable set twice keeps
/// its last value.
pub fn from_block(entries: &[ConfigEntry]) -> Result<Config, Diagnostic> {
    let mut config = Config::default();
    for e in entries {
        let value = match &e.value {
            ConfigValue::Int(n) => Given::Number(*n),
            ConfigValue::Bool(b) => Given::Number(u64::from(*b)),
            ConfigValue::Str(s) | ConfigValue::Name(s) => Given::Text(s),
        };
        set(&mut config, &e.name.name, value).map_err(|(msg, hint)| {
            let unknown = lookup(&e.name.name).is_err();
            let (span, label) = if unknown { (e.name.span.clone(), "unknown config variable") } else { (e.value_span.clone(), "not a valid value") };
            Diagnostic::new(span, msg).label(label).hint(hint)
        })?;
    }
    Ok(config)
}

/// The configuration the environment sets: `BPFTRACE_NAME` for each variable, and bpftrace
/// 0.17's names (`BPFTRACE_STRLEN`, `BPFTRACE_MAP_KEYS_MAX`, `BPFTRACE_CAT_BYTES_MAX`). A
/// number that is not one, or 0, is refused in bpftrace 0.17's words.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Config, String> {
    let mut config = Config::default();
    let legacy = RENAMED.iter().filter(|(old, _)| *old != "no_cpp_demangle");
    let names = VARIABLES.iter().map(|(n, _)| *n).chain(legacy.map(|(old, _)| *old));
    for name in names {
        let var = format!("BPFTRACE_{}", name.to_ascii_uppercase());
        let Some(value) = get(&var) else { continue };
        let key = RENAMED.iter().find(|(old, _)| *old == name).map_or(name, |(_, new)| *new);
        if lookup(key).is_ok_and(|(_, k)| k == Kind::Uint) {
            match uint(&value) {
                // bpftrace 0.17 takes 0 as not set.
                Some(0) => continue,
                Some(n) => set_number(&mut config, key, n).map_err(|(m, _)| format!("{var}: {m}"))?,
                None => return Err(format!("Env var '{var}' did not contain a valid uint64_t, or was zero-valued.")),
            }
            continue;
        }
        set(&mut config, &var, Given::Text(&value)).map_err(|(m, _)| m)?;
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Ident;

    fn entry(name: &str, value: ConfigValue) -> ConfigEntry {
        ConfigEntry { name: Ident { name: name.into(), span: 0..name.len() }, value, value_span: 10..12, span: 0..12 }
    }

    #[test]
    fn names_in_three_spellings_and_the_honoured_values() {
        let c = from_block(&[
            entry("stack_mode", ConfigValue::Name("perf".into())),
            entry("MAX_STRLEN", ConfigValue::Int(200)),
            entry("BPFTRACE_PRINT_MAPS_ON_EXIT", ConfigValue::Bool(false)),
            entry("max_map_keys", ConfigValue::Int(2)),
            entry("license", ConfigValue::Str("Dual BSD/GPL".into())),
            entry("missing_probes", ConfigValue::Name("warn".into())),
            entry("cache_user_symbols", ConfigValue::Name("PER_PROGRAM".into())),
            entry("str_trunc_trailer", ConfigValue::Str("".into())),
        ])
        .unwrap();
        assert_eq!(c, Config { max_strlen: Some(200), stack_mode: Some(StackMode::Perf), print_maps_on_exit: Some(false), max_cat_bytes: None, missing_probes: Some(MissingProbes::Warn), unstable_typeinfo: None });
    }

    #[test]
    fn bad_names_and_values_say_why_where() {
        let e = from_block(&[entry("stack_mod", ConfigValue::Name("perf".into()))]).unwrap_err();
        assert_eq!(e.message, "stack_mod: not a known configuration option");
        assert_eq!(e.span, 0..9);
        assert!(e.hint.as_deref().unwrap().contains("did you mean `stack_mode`?"));
        let e = from_block(&[entry("stack_mode", ConfigValue::Name("fast".into()))]).unwrap_err();
        assert_eq!(e.message, "stack_mode: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.");
        assert_eq!(e.span, 10..12);
        let e = from_block(&[entry("max_probes", ConfigValue::Name("many".into()))]).unwrap_err();
        assert_eq!(e.message, "max_probes: expecting a number, got many");
        let e = from_block(&[entry("print_maps_on_exit", ConfigValue::Name("maybe".into()))]).unwrap_err();
        assert_eq!(e.message, "print_maps_on_exit: Invalid bool value: valid values are true, false, 1 or 0.");
        let e = from_block(&[entry("strlen", ConfigValue::Int(8))]).unwrap_err();
        assert_eq!(e.message, "strlen: key has been renamed to 'max_strlen'");
        let e = from_block(&[entry("btf", ConfigValue::Str("x".into()))]).unwrap_err();
        assert_eq!(e.message, "btf: can only be set as an environment variable");
        let e = from_block(&[entry("license", ConfigValue::Str("MIT".into()))]).unwrap_err();
        assert!(e.message.starts_with("Invalid value for license. Found: MIT. Valid values: GPL, "), "{}", e.message);
        assert!(from_block(&[entry("max_strlen", ConfigValue::Int(0))]).is_err());
    }

    #[test]
    fn the_environment_wins_and_reads_old_names() {
        let env = |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
        let c = from_env(env(&[("BPFTRACE_STACK_MODE", "raw"), ("BPFTRACE_STRLEN", "100"), ("BPFTRACE_MISSING_PROBES", "ignore")])).unwrap();
        assert_eq!(c, Config { max_strlen: Some(100), stack_mode: Some(StackMode::Raw), print_maps_on_exit: None, max_cat_bytes: None, missing_probes: Some(MissingProbes::Ignore), unstable_typeinfo: None });
        let block = Config { max_strlen: Some(8), stack_mode: Some(StackMode::Perf), print_maps_on_exit: Some(false), max_cat_bytes: None, missing_probes: Some(MissingProbes::Warn), unstable_typeinfo: None };
        assert_eq!(block.under(&c), Config { max_strlen: Some(100), stack_mode: Some(StackMode::Raw), print_maps_on_exit: Some(false), max_cat_bytes: None, missing_probes: Some(MissingProbes::Ignore), unstable_typeinfo: None });
        assert_eq!(from_env(env(&[("BPFTRACE_MISSING_PROBES", "sometimes")])).unwrap_err(), "BPFTRACE_MISSING_PROBES: Invalid value for missing_probes: valid values are ignore, warn, and error.");
        assert_eq!(from_env(env(&[("BPFTRACE_STRLEN", "abc")])).unwrap_err(), "Env var 'BPFTRACE_STRLEN' did not contain a valid uint64_t, or was zero-valued.");
        assert_eq!(from_env(env(&[("BPFTRACE_STACK_MODE", "x")])).unwrap_err(), "BPFTRACE_STACK_MODE: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.");
        assert_eq!(from_env(env(&[("BPFTRACE_MAX_STRLEN", "0")])).unwrap(), Config::default());
    }
}
