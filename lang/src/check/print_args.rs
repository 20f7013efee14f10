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

/// A `char [len]` field: a string.
fn char_array(len: u32) -> Shape {
    Shape::Array { elem: Box::new(Layout { name: "char".into(), shape: Shape::Int { size: 1, signed: true, char: true } }), elem_size: 1, len }
}
