//! Current bpftrace's `print(args)` at a tracepoint: the record as the format file lays it
//! out, every field (the `common_*` header ones too), recorded whole and printed as
//! bpftrace prints a record (`runtime::output::bpftrace::args`).

use super::*;
use crate::ir::layout::{Layout, MemberLayout, Shape};
use crate::tracepoints::{parse_all_fields, Field, FieldKind};

impl Checker<'_> {
    /// The output item and recorded value of `print(args)`, or `None` when `e` is not
    /// `args` at a bpftrace tracepoint clause.
    pub(super) fn print_args(&mut self, e: &ast::Expr) -> Result<Option<(Item, Expr)>, Diagnostic> {
        if !self.bpftrace() || !matches!(&e.kind, ExprKind::Ident(n) if n == "args") {
            return Ok(None);
        }
        let raw = !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| matches!(p.attach, AttachPoint::RawTracepoint(_)));
        if raw && self.clause_args_named() {
            return self.print_raw_args(e).map(Some);
        }
        // fentry's arguments are in its context only when it attaches as fentry, which is
        // decided as it attaches (§6.6); elsewhere they are read from registers.
        if !raw && self.clause_args_named() && self.clause_probes.iter().any(|p| !matches!(p.attach, AttachPoint::Tracepoint(_))) {
            return Err(Diagnostic::new(e.span.clone(), "print(args) is not in crumbs at probes other than tracepoints and raw tracepoints")
                .label("the whole args")
                .hint("print the arguments one by one, e.g. print(args.NAME)"));
        }
        let tracepoints: Vec<usize> = self.clause_tracepoints.clone();
        let only_tracepoints = !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| matches!(p.attach, AttachPoint::Tracepoint(_)));
        if !only_tracepoints || tracepoints.is_empty() {
            return Ok(None);
        }
        let facts = self.opts.facts.clone();
        let mut layout: Option<(Vec<Field>, String)> = None;
        for i in tracepoints {
            let (category, event) = (self.tracepoints[i].category.clone(), self.tracepoints[i].event.clone());
            let text = facts.as_deref().map(|f| f.tracepoint_format(&category, &event)).transpose().map_err(|x| {
                Diagnostic::new(e.span.clone(), format!("cannot read the format of tracepoint {category}:{event}: {x}")).label("here").hint("crumbs reads /sys/kernel/tracing/events; run it as root")
            })?;
            let fields = parse_all_fields(&text.unwrap_or_default());
            match &layout {
                Some((first, name)) if *first != fields => {
                    return Err(Diagnostic::new(e.span.clone(), format!("print(args) of tracepoints whose records differ ({name} and {category}:{event})"))
                        .label("two layouts")
                        .hint("split the clause by tracepoint"));
                }
                Some(_) => {}
                None => layout = Some((fields, format!("{category}:{event}"))),
            }
        }
        let Some((fields, name)) = layout else { return Ok(None) };
        let mut members = Vec::with_capacity(fields.len());
        // What a field's value reads: a __data_loc field as the 64-bit integer bpftrace
        // reads there.
        let mut size = 0u32;
        for f in &fields {
            let (shape, read) = match &f.kind {
                FieldKind::Int if f.c_type.contains('*') => (Shape::Ptr, 8),
                FieldKind::Int => (Shape::Int { size: f.size as u8, signed: f.signed, char: false }, f.size as u32),
                FieldKind::Chars => (char_array(f.size as u32), f.size as u32),
                FieldKind::Array { char: true, len, .. } => (char_array(*len as u32), f.size as u32),
                FieldKind::Array { size: elem, signed, len, .. } => {
                    let elem_layout = Layout { name: String::new(), shape: Shape::Int { size: *elem, signed: *signed, char: false } };
                    (Shape::Array { elem: Box::new(elem_layout), elem_size: *elem as u32, len: *len as u32 }, f.size as u32)
                }
                FieldKind::DataLocStr { .. } | FieldKind::DataLocArray { .. } => (Shape::Int { size: 8, signed: true, char: false }, 8),
                FieldKind::Other(ty) => {
                    return Err(Diagnostic::new(e.span.clone(), format!("print(args) cannot print field `{}` of {name}, of type `{ty}`", f.name))
                        .label("unsupported field type")
                        .hint("print the fields crumbs can read one by one, e.g. print(args.NAME)"));
                }
            };
            size = size.max(f.offset as u32 + read);
            members.push(MemberLayout { name: f.name.clone(), bit_offset: f.offset as u32 * 8, bits: 0, layout: Layout { name: f.c_type.clone(), shape } });
        }
        let layout = Layout { name: format!("struct _tracepoint_{}", name.replace(':', "_")), shape: Shape::ProbeArgs { members } };
        Ok(Some((Item::Print(Repr::Object(size), Box::new(layout)), Expr::Object { addr: Box::new(Expr::TpRecord), size })))
    }
}

impl Checker<'_> {
    /// `print(args)` at raw tracepoints (and tp_btf): the arguments by name, as the
    /// context holds them, one 64-bit slot each; each printed by its type (an integer as
    /// its size and sign say, a pointer in hex).
    fn print_raw_args(&mut self, e: &ast::Expr) -> Result<(Item, Expr), Diagnostic> {
        let facts = self.opts.facts.clone();
        let first = self.clause_probes[0].clone();
        let names = crate::providers::provider(first.provider).and_then(|p| p.arg_names(&first, facts.as_deref())).unwrap_or_default();
        for p in self.clause_probes.clone() {
            let other = crate::providers::provider(p.provider).and_then(|prov| prov.arg_names(&p, facts.as_deref())).unwrap_or_default();
            if other != names {
                return Err(Diagnostic::new(e.span.clone(), format!("print(args) of probes whose arguments differ ({} and {})", first.name, p.name)).label("two prototypes").hint("split the clause by probe"));
            }
        }
        let mut members = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let t = self.args_named(name, &e.span)?;
            let shape = match self.types.real(t.ty) {
                Ok(crate::types::Type::Ptr { .. }) => Shape::Ptr,
                // bpftrace prints a bool as `true` or `false`.
                Ok(crate::types::Type::Int(n)) if n.bool => Shape::Enum { size: n.size, values: vec![("false".into(), 0), ("true".into(), 1)] },
                Ok(crate::types::Type::Int(n)) => Shape::Int { size: n.size, signed: n.signed, char: false },
                Ok(crate::types::Type::Enum { size, .. }) => Shape::Int { size: size as u8, signed: false, char: false },
                _ => {
                    let ty = self.types.name(t.ty);
                    return Err(Diagnostic::new(e.span.clone(), format!("print(args) cannot print argument `{name}` of {}, of type `{ty}`", first.name))
                        .label("unsupported argument type")
                        .hint("print the arguments crumbs can read one by one, e.g. print(args.NAME)"));
                }
            };
            let type_name = self.types.name(t.ty);
            members.push(MemberLayout { name: name.clone(), bit_offset: 64 * i as u32, bits: 0, layout: Layout { name: type_name, shape } });
        }
        let size = 8 * members.len() as u32;
        let layout = Layout { name: format!("struct _rawtracepoint_{}", first.name), shape: Shape::ProbeArgs { members } };
        Ok((Item::Print(Repr::Object(size), Box::new(layout)), Expr::Object { addr: Box::new(Expr::TpRecord), size }))
    }
}

/// A `char [len]` field: a string.
fn char_array(len: u32) -> Shape {
    Shape::Array { elem: Box::new(Layout { name: "char".into(), shape: Shape::Int { size: 1, signed: true, char: true } }), elem_size: 1, len }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;
    use crate::facts::sample::SampleKernel;
    use std::rc::Rc;

    fn compile(src: &str) -> Result<Program, Diagnostic> {
        crate::compile(src, &CheckOptions { facts: Some(Rc::new(SampleKernel)), dialect: Some(Dialect::Bpftrace), ..Default::default() })
    }

    #[test]
    fn raw_tracepoint_args_are_its_named_arguments() {
        let p = compile("rawtracepoint:sched_switch { print(args); }").unwrap_or_else(|d| panic!("{}", d.message));
        let layout = p.records.iter().flat_map(|r| &r.items).find_map(|i| match i {
            Item::Print(Repr::Object(size), l) => Some((*size, l.clone())),
            _ => None,
        });
        let (size, layout) = layout.expect("a print item");
        let Shape::ProbeArgs { members } = &layout.shape else { panic!("{layout:?}") };
        let names: Vec<(&str, u32)> = members.iter().map(|m| (m.name.as_str(), m.bit_offset / 8)).collect();
        assert_eq!((size, names), (32, vec![("preempt", 0), ("prev", 8), ("next", 16), ("prev_state", 24)]));
        assert!(matches!(members[1].layout.shape, Shape::Ptr), "{members:?}");
    }

    #[test]
    fn args_elsewhere() {
        // Not a probe with arguments by name: `args` is no variable.
        let d = compile("BEGIN { print(args); }").expect_err("BEGIN");
        assert_eq!(d.message, "unknown variable `args`");
    }
}
