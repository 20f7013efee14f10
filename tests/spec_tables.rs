//! spec.md documents every builtin variable, function and provider, and its tables match
//! the one tables in the source: spec §5.1 = `builtins::VARIABLES`, spec §7.1 =
//! `builtins::FUNCTIONS`, spec §6.1 = `providers::PROVIDERS`. Adding a builtin without
//! documenting it (or leaving a removed one in the spec) fails here.

use crumbs_lang::builtins::{FnKind, VarType, CONSTANTS, FUNCTIONS, VARIABLES};
use crumbs_lang::providers::PROVIDERS;
use crumbs_lang::types::BUILTIN_TYPEDEFS;

mod common;

const SPEC: &str = include_str!("../spec.md");

/// Whether spec.md mentions `name` in backticks.
fn mentions(name: &str) -> bool {
    SPEC.contains(&format!("`{name}`"))
}

/// The text of the section whose heading starts with `### {number} `, up to the next heading.
fn section(number: &str) -> &'static str {
    let heading = format!("\n### {number} ");
    let start = SPEC
        .find(&heading)
        .unwrap_or_else(|| panic!("spec.md has no section {number}"));
    let body = &SPEC[start + heading.len()..];
    let end = body.find("\n#").unwrap_or(body.len());
    &body[..end]
}

/// The cells of every table row of a section whose first cell is in backticks.
fn rows(number: &str) -> Vec<Vec<String>> {
    section(number)
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim()
                .trim_start_matches('|')
                .trim_end_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn every_builtin_name_is_mentioned() {
    let mut missing = Vec::new();
    for v in VARIABLES {
        missing.extend(
            std::iter::once(v.name)
                .chain(v.aliases.iter().copied())
                .filter(|n| !mentions(n)),
        );
    }
    missing.extend(FUNCTIONS.iter().map(|f| f.name).filter(|n| !mentions(n)));
    missing.extend(PROVIDERS.iter().map(|p| p.name()).filter(|n| !mentions(n)));
    assert!(
        missing.is_empty(),
        "spec.md does not mention (in backticks): {missing:?}"
    );
}

#[test]
fn variable_table_matches_builtins() {
    let rows = rows("5.1");
    for v in VARIABLES {
        // A name may be a variable of each dialect (none is yet): the row of this one.
        let row = rows
            .iter()
            .find(|r| r[0] == format!("`{}`", v.name) && r.get(3).map(String::as_str) == Some(v.dialects.describe()))
            .unwrap_or_else(|| panic!("spec §5.1 has no row for `{}`", v.name));
        assert_eq!(row.len(), 5, "spec §5.1 row for `{}`: {row:?}", v.name);
        let aliases = if v.aliases.is_empty() {
            "—".to_string()
        } else {
            v.aliases
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert_eq!(row[1], aliases, "aliases of `{}` in spec §5.1", v.name);
        let ty = match v.ty {
            VarType::Int(c) => format!("`{c}`"),
            VarType::Str => "string".to_string(),
            VarType::Kernel(s) => format!("`struct {s} *`"),
            VarType::Stack => "stack".to_string(),
        };
        assert_eq!(row[2], ty, "type of `{}` in spec §5.1", v.name);
        assert_eq!(row[3], v.dialects.describe(), "dialect of `{}` in spec §5.1", v.name);
        assert_eq!(
            row[4], v.doc,
            "meaning of `{}` in spec §5.1 (copy builtins.rs' doc)",
            v.name
        );
    }
    for row in &rows {
        assert!(
            VARIABLES.iter().any(|v| row[0] == format!("`{}`", v.name)),
            "spec §5.1 documents {} which builtins.rs does not have",
            row[0]
        );
    }
    assert_eq!(rows.len(), VARIABLES.len(), "spec §5.1 rows");
}

#[test]
fn constant_table_matches_builtins() {
    let want: Vec<Vec<String>> = CONSTANTS
        .iter()
        .map(|c| vec![format!("`{}`", c.name), c.value.to_string(), format!("`{}`", c.c_type), c.doc.to_string()])
        .collect();
    assert_eq!(rows("5.8"), want, "spec §5.8 lists builtins.rs' CONSTANTS, in order (copy their docs)");
}

#[test]
fn function_table_matches_builtins() {
    let rows = rows("7.1");
    for f in FUNCTIONS {
        let row = rows
            .iter()
            .find(|r| r[0] == format!("`{}`", f.signature))
            .unwrap_or_else(|| panic!("spec §7.1 has no row `{}`", f.signature));
        assert_eq!(row.len(), 4, "spec §7.1 row for `{}`: {row:?}", f.name);
        let kind = match f.kind {
            FnKind::Action => "action",
            FnKind::Aggregating => "aggregating",
            FnKind::Subroutine => "subroutine",
        };
        assert_eq!(row[1], kind, "kind of `{}` in spec §7.1", f.name);
        assert_eq!(row[2], f.dialects.describe(), "dialect of `{}` in spec §7.1", f.name);
        assert_eq!(
            row[3], f.doc,
            "meaning of `{}` in spec §7.1 (copy builtins.rs' doc)",
            f.name
        );
    }
    for row in &rows {
        assert!(
            FUNCTIONS
                .iter()
                .any(|f| row[0] == format!("`{}`", f.signature)),
            "spec §7.1 documents {} which builtins.rs does not have",
            row[0]
        );
    }
    assert_eq!(rows.len(), FUNCTIONS.len(), "spec §7.1 rows");
}

#[test]
fn aggregating_functions_are_in_section_8() {
    let names: Vec<String> = rows("8.2").iter().map(|r| r[0].clone()).collect();
    let want: Vec<String> = FUNCTIONS
        .iter()
        .filter(|f| f.kind == FnKind::Aggregating)
        .map(|f| format!("`{}`", f.name))
        .collect();
    assert_eq!(
        names, want,
        "spec §8.2 lists the aggregating functions of builtins.rs, in order"
    );
}

#[test]
fn provider_table_matches_providers() {
    let rows = rows("6.1");
    for p in PROVIDERS {
        let row = rows
            .iter()
            .find(|r| r[0] == format!("`{}`", p.name()))
            .unwrap_or_else(|| panic!("spec §6.1 has no row for `{}`", p.name()));
        assert_eq!(
            row.get(1).map(String::as_str),
            Some(p.doc()),
            "spec §6.1 row for `{}` (copy the provider's doc, lang/src/providers/)",
            p.name()
        );
    }
    assert_eq!(rows.len(), PROVIDERS.len(), "spec §6.1 rows");
}

#[test]
fn integer_typedef_table_matches_the_checker() {
    let rows = rows("4.9");
    let table: Vec<Vec<String>> = BUILTIN_TYPEDEFS.iter().map(|&(name, size, signed)| vec![format!("`{name}`"), size.to_string(), if signed { "yes" } else { "no" }.to_string()]).collect();
    assert_eq!(rows, table, "spec §4.9's typedef table and types::BUILTIN_TYPEDEFS differ");
}

/// Every form of spec §4.8's expression table, written in a program that prints what the
/// table says it gives; a row added to the table without an example here fails.
#[test]
fn c_expression_table_forms_work_as_described() {
    let examples: &[(&str, &str, &str)] = &[
        ("`(type)x`", r#"printf("%d %d %d", (char)0x1ff, (unsigned char)0x1ff, ((struct task_struct *)curthread)->pid == pid)"#, "-1 255 1"),
        ("`p->m`, `s.m`", r#"printf("%d %d", curthread->pid == pid, curthread->real_parent->tgid == ppid)"#, "1 1"),
        ("`a[i]`, `p[i]`", r#"printf("%c %c", curthread->comm[0], (&curthread->comm[0])[1])"#, "c r"),
        ("`*p`, `&x`", r#"printf("%d %d", *&curthread->pid == pid, &curthread->comm[1] - &curthread->comm[0])"#, "1 1"),
        ("`p + n`, `p - n`", r#"printf("%d %d", (long)((int *)0 + 3), (long)((long *)64 - 2))"#, "12 48"),
        ("`sizeof(type)`, `sizeof(expr)`, `sizeof expr`", r#"printf("%d %d %d", sizeof(int), sizeof(curthread->comm), sizeof curthread->pid)"#, "4 16 4"),
        ("`offsetof(type, m)`, `offsetof(type, m.n)`", r#"printf("%d %d", offsetof(struct list_head, prev), offsetof(struct path, dentry) - offsetof(struct path, mnt))"#, "8 8"),
        ("`curthread`", r#"printf("%d", curthread->tgid == pid)"#, "1"),
    ];
    let forms: Vec<String> = rows("4.8").into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(forms, examples.iter().map(|e| e.0.to_string()).collect::<Vec<_>>(), "spec §4.8's expression table changed: give each row an example here");
    for (form, action, want) in examples {
        let out = common::run(&["-q", "-e", &format!("BEGIN {{ {action}; exit(0); }}")]);
        out.assert_ok();
        assert_eq!(out.stdout, format!("{want}\n"), "{form}\n{}", out.dump());
    }
}
