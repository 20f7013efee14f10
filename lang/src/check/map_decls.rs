//! bpftrace's map declarations (`let @m = lruhash(1024);`): the BPF map type the map's
//! values need, as bpftrace decides it, and its size. A map of values is a `hash` or an
//! `lruhash`; an aggregation (`count()`, `hist()`, ...) is per CPU, a `percpuhash` or a
//! `percpulruhash`. Messages are bpftrace's.

use crate::ast::MapDecl;
use crate::diag::Diagnostic;
use crate::ir::{Aggregation, Array, Declared};

/// The map types a declaration may name: whether each is per CPU and evicts.
const KINDS: &[(&str, bool, bool)] = &[("hash", false, false), ("lruhash", false, true), ("percpuhash", true, false), ("percpulruhash", true, true)];

/// Gives each declared map its declaration, or says why the declaration does not fit it.
pub(super) fn apply(decls: &[MapDecl], arrays: &mut [Array], aggs: &mut [Aggregation]) -> Result<(), Diagnostic> {
    for d in decls {
        let kind = d.kind.name.as_str();
        let Some(&(_, per_cpu, lru)) = KINDS.iter().find(|(k, _, _)| *k == kind) else {
            return Err(Diagnostic::new(d.kind.span.clone(), format!("Invalid bpf map type: {kind}"))
                .label("not a map type")
                .hint(format!("valid map types: {}", KINDS.iter().map(|(k, ..)| *k).collect::<Vec<_>>().join(", "))));
        };
        let declared = Some(Declared { max_entries: d.max_entries as u32, lru });
        let mismatch = |used: &str| {
            Diagnostic::new(d.kind.span.clone(), format!("Incompatible map types. Type from declaration: {kind}. Type from value/key type: {used}"))
                .label(format!("@{} is used as {}", d.name, if per_cpu { "a map of values" } else { "an aggregation" }))
                .hint("a map of values is a hash or lruhash; an aggregation (count(), sum(), hist(), ...) is a percpuhash or percpulruhash")
        };
        if let Some(a) = arrays.iter_mut().find(|a| a.name.strip_prefix('@') == Some(d.name.as_str())) {
            if per_cpu {
                return Err(mismatch("hash"));
            }
            a.declared = declared;
        } else if let Some(a) = aggs.iter_mut().find(|a| a.name == d.name) {
            if !per_cpu {
                return Err(mismatch("percpuhash"));
            }
            a.declared = declared;
        }
        // A map declared and not used has no storage, as in bpftrace (which warns).
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::check::CheckOptions;
    use crate::dialect::Dialect;
    use crate::ir::{Declared, Program};

    fn compile(src: &str) -> Result<Program, crate::diag::Diagnostic> {
        crate::compile(src, &CheckOptions { dialect: Some(Dialect::Bpftrace), ..Default::default() })
    }

    #[test]
    fn a_declaration_sizes_its_map() {
        let p = compile("let @m = lruhash(100); let @c = percpuhash(7); let @unused = hash(1); BEGIN { @m[1] = 2; @c[comm] = count(); @plain[1] = 1; }").unwrap();
        let m = p.arrays.iter().find(|a| a.name == "@m").unwrap();
        assert_eq!(m.declared, Some(Declared { max_entries: 100, lru: true }));
        assert_eq!(p.arrays.iter().find(|a| a.name == "@plain").unwrap().declared, None);
        assert_eq!(p.aggregations[0].declared, Some(Declared { max_entries: 7, lru: false }));
    }

    #[test]
    fn a_declaration_that_does_not_fit_its_map_is_an_error() {
        let cases = [
            ("let @m = hash(10); BEGIN { @m[1] = count(); }", "hash", "Incompatible map types. Type from declaration: hash. Type from value/key type: percpuhash"),
            ("let @m = percpulruhash(10); BEGIN { @m[1] = 1; }", "percpulruhash", "Incompatible map types. Type from declaration: percpulruhash. Type from value/key type: hash"),
            ("let @m = array(10); BEGIN { @m[1] = 1; }", "array", "Invalid bpf map type: array"),
            ("let @m = hash(0); BEGIN { @m[1] = 1; }", "0", "expected positive integer for map declaration max entries"),
            ("let @m = hash(1); let @m = lruhash(2); BEGIN { @m[1] = 1; }", "@m", "map `@m` is declared twice"),
        ];
        for (src, at, message) in cases {
            let d = compile(src).expect_err(src);
            assert_eq!((d.message.as_str(), &src[d.span.clone()]), (message, at), "{src}");
            assert!(d.hint.is_some(), "{src}");
        }
        let d = crate::compile("let @m = hash(1); BEGIN { @m[1] = 1; }", &CheckOptions { dialect: Some(Dialect::D), ..Default::default() }).unwrap_err();
        assert_eq!(d.message, "`let @map` is bpftrace's, not D's");
    }
}
