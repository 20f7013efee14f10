//! C's integer type names: keyword combinations (`unsigned long long`, `short int`) and the
//! fixed-width typedefs D defines (`uint64_t`, `size_t`, ...).

use super::IntType;
use crate::ast::{BaseType, Span, TypeName};

fn int(name: &str, size: u8, signed: bool) -> IntType {
    IntType { name: name.to_string(), size, signed, char: false, bool: false }
}

/// The integer type a list of C keywords names (`["unsigned", "long"]`), in any order C
/// allows; None if they name no integer type (`void` is not one).
pub fn int_from_keywords(words: &[String]) -> Option<IntType> {
    let count = |w: &str| words.iter().filter(|x| *x == w).count();
    let (unsigned, signed) = (count("unsigned"), count("signed"));
    let (char, short, long, int_kw, bool_kw) = (count("char"), count("short"), count("long"), count("int"), count("_Bool") + count("bool"));
    let known = unsigned + signed + char + short + long + int_kw + bool_kw + count("const") + count("volatile");
    if known != words.len() || unsigned + signed > 1 || int_kw > 1 || char + short + bool_kw > 1 || long > 2 || (long > 0 && char + short + bool_kw > 0) {
        return None;
    }
    let sign_word = if unsigned > 0 { "unsigned " } else if signed > 0 { "signed " } else { "" };
    let is_signed = unsigned == 0;
    // `signed` only changes the name of `char` (plain char is its own type in C).
    let unsigned_word = if unsigned > 0 { "unsigned " } else { "" };
    Some(if bool_kw == 1 {
        if unsigned + signed + int_kw > 0 {
            return None;
        }
        IntType { name: "_Bool".into(), size: 1, signed: false, char: false, bool: true }
    } else if char == 1 {
        if int_kw > 0 {
            return None;
        }
        // Plain char is signed on x86-64.
        IntType { name: format!("{sign_word}char"), size: 1, signed: is_signed, char: true, bool: false }
    } else if short == 1 {
        int(&format!("{unsigned_word}short"), 2, is_signed)
    } else if long == 2 {
        int(&format!("{unsigned_word}long long"), 8, is_signed)
    } else if long == 1 {
        int(&format!("{unsigned_word}long"), 8, is_signed)
    } else if int_kw + unsigned + signed > 0 {
        int(if unsigned > 0 { "unsigned int" } else { "int" }, 4, is_signed)
    } else {
        return None;
    })
}

/// The integer typedefs D itself defines, whatever the kernel has: name, size in bytes,
/// signed (spec §4.9's table).
pub const BUILTIN_TYPEDEFS: &[(&str, u8, bool)] = &[
    ("int8_t", 1, true),
    ("int16_t", 2, true),
    ("int32_t", 4, true),
    ("int64_t", 8, true),
    ("intptr_t", 8, true),
    ("ssize_t", 8, true),
    ("ptrdiff_t", 8, true),
    ("off_t", 8, true),
    ("pid_t", 4, true),
    ("id_t", 4, true),
    ("processorid_t", 4, true),
    ("uint8_t", 1, false),
    ("uint16_t", 2, false),
    ("uint32_t", 4, false),
    ("uint64_t", 8, false),
    ("uintptr_t", 8, false),
    ("size_t", 8, false),
    ("uid_t", 4, false),
    ("gid_t", 4, false),
    ("uchar_t", 1, false),
    ("ushort_t", 2, false),
    ("uint_t", 4, false),
    ("ulong_t", 8, false),
];

/// The integer typedef of D's own named `name`.
pub fn builtin_typedef(name: &str) -> Option<IntType> {
    BUILTIN_TYPEDEFS.iter().find(|t| t.0 == name).map(|&(n, size, signed)| int(n, size, signed))
}

/// The type name a C declaration's type writes (`const char *const *`, `struct stat *`,
/// `unsigned long`), as a tracepoint format or a prototype gives it; qualifiers are dropped,
/// as D ignores them. None for what a type name cannot say (arrays, function pointers).
pub fn type_name_from_c(text: &str, span: Span) -> Option<TypeName> {
    let spaced = text.replace('*', " * ");
    let words: Vec<&str> = spaced.split_whitespace().filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict" | "__user")).collect();
    let stars = words.iter().rev().take_while(|w| **w == "*").count();
    let base = &words[..words.len() - stars];
    if base.is_empty() || base.iter().any(|w| !w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')) {
        return None;
    }
    let base = match base {
        ["struct", n] => BaseType::Struct(n.to_string()),
        ["union", n] => BaseType::Union(n.to_string()),
        ["enum", n] => BaseType::Enum(n.to_string()),
        [kw, ..] if matches!(*kw, "struct" | "union" | "enum") => return None,
        words => BaseType::Named(words.iter().map(|w| w.to_string()).collect()),
    };
    Some(TypeName::plain(base, u8::try_from(stars).ok()?, span))
}
