//! Tracepoints: numbering the program's tracepoints and resolving `args->NAME`.

use super::*;
use crate::types::{AddrSpace, TypeId};

impl Checker<'_> {
    /// Whether every probe of the clause being checked is a tracepoint (and it has one).
    fn clause_only_tracepoints(&self) -> bool {
        !self.clause_probes.is_empty() && self.clause_probes.iter().all(|p| matches!(p.attach, AttachPoint::Tracepoint(_)))
    }

    /// The index of a tracepoint in the program, reading its record format on first use.
    pub(super) fn tracepoint(&mut self, opts: &CheckOptions, category: &str, event: &str, desc: &ast::ProbeDesc) -> Result<usize, Diagnostic> {
        if let Some(i) = self.tracepoints.iter().position(|t| t.category == category && t.event == event) {
            return Ok(i);
        }
        if self.tracepoints.len() >= 4096 {
            return Err(Diagnostic::new(desc.span.clone(), "too many tracepoints in one program").label("over 4096").hint("narrow the pattern"));
        }
        let facts = opts.facts.as_deref().expect("matched through the kernel facts");
        let text = facts.tracepoint_format(category, event).map_err(|e| Diagnostic::new(desc.span.clone(), format!("cannot read the format of tracepoint {category}:{event}: {e}")).label("here").hint("crumbs reads /sys/kernel/tracing/events; run it as root"))?;
        self.tracepoints.push(Tracepoint { category: category.into(), event: event.into(), fields: parse_format(&text) });
        Ok(self.tracepoints.len() - 1)
    }

    /// An array field `args->name` of the clause's tracepoints (all at one offset, of one
    /// kind): its offset and kind.
    pub(super) fn tp_array_field(&self, name: &str) -> Option<(u16, FieldKind)> {
        if !self.clause_only_tracepoints() {
            return None;
        }
        let mut found: Option<(u16, FieldKind)> = None;
        for &i in &self.clause_tracepoints {
            let f = self.tracepoints[i].field(name)?;
            if !matches!(f.kind, FieldKind::Array { .. }) || found.as_ref().is_some_and(|(o, k)| (*o, k) != (f.offset, &f.kind)) {
                return None;
            }
            found = Some((f.offset, f.kind.clone()));
        }
        found
    }

    /// `args->name`: a field every tracepoint of the clause has, with one kind.
    pub(super) fn args_field(&mut self, name: &str, span: &Span) -> Result<TExpr, Diagnostic> {
        // A raw tracepoint whose prototype does not name its arguments.
        let facts = self.opts.facts.clone();
        let unnamed = self.clause_probes.iter().find(|p| p.provider == "rawtracepoint" && crate::providers::provider(p.provider).is_some_and(|prov| prov.arg_names(p, facts.as_deref()).is_none()));
        if let (Some(p), false) = (unnamed, self.clause_only_tracepoints()) {
            return Err(Diagnostic::new(span.clone(), format!("the prototype of {}:{}:{}:{} does not name its arguments", p.provider, p.module, p.function, p.name))
                .label("no argument of this name")
                .hint(format!("read them by position, args[N]; `crumbs -lv -e '{}:{}'` lists their types", p.provider, p.name)));
        }
        if !self.clause_only_tracepoints() {
            return Err(Diagnostic::new(span.clone(), "args-> is only for tracepoint probes")
                .label("this clause fires on other probes")
                .hint("use args->NAME in clauses whose probes are all tracepoint:CATEGORY:EVENT"));
        }
        let mut kind: Option<FieldKind> = None;
        let mut at: Option<(u16, u16)> = None;
        let mut typed: Option<(TypeId, String)> = None;
        // Each tracepoint's field as it is recorded (size, sign): where a slot is wider than
        // the type or of the other sign (system call arguments sit in 8-byte slots), the
        // value read is cut to its type.
        let mut slots: Vec<(u8, bool)> = Vec::new();
        for i in self.clause_tracepoints.clone() {
            let t = &self.tracepoints[i];
            let Some(f) = t.field(name).cloned() else {
                let names: Vec<&str> = t.fields.iter().map(|f| f.name.as_str()).collect();
                let hint = match closest(name, names.iter().copied()) {
                    Some(c) => format!("did you mean `args->{c}`? fields: {}", names.join(", ")),
                    None => format!("fields of {}:{}: {}", t.category, t.event, names.join(", ")),
                };
                return Err(Diagnostic::new(span.clone(), format!("tracepoint {}:{} has no field `{name}`", t.category, t.event)).label("no such field").hint(hint));
            };
            if let FieldKind::Other(ty) = &f.kind {
                return Err(Diagnostic::new(span.clone(), format!("field `{name}` has type `{ty}`, which crumbs cannot read yet"))
                    .label("unsupported field type")
                    .hint("integer, pointer, char[N], integer-array, __data_loc string and __data_loc array fields can be read"));
            }
            // One array field at one offset is a typed place (ctypes.rs); here it differs.
            if matches!(f.kind, FieldKind::Array { .. }) {
                return Err(Diagnostic::new(span.clone(), format!("array field `{name}` has different layouts in this clause's tracepoints")).label("ambiguous").hint("split the clause by tracepoint"));
            }
            match &kind {
                Some(k) if *k != f.kind => {
                    return Err(Diagnostic::new(span.clone(), format!("field `{name}` has different types in this clause's tracepoints")).label("ambiguous").hint("split the clause by tracepoint"));
                }
                _ => kind = Some(f.kind.clone()),
            }
            if f.kind == FieldKind::Int {
                // Each tracepoint reads the field at its own width; where they differ, the
                // value's type is the one both convert to.
                let (c_type, size, signed) = (f.c_type.clone(), f.size as u8, f.signed);
                // The system call tracepoints record the call's arguments: their pointers
                // point into the calling process.
                let space = if t.category == "syscalls" { AddrSpace::User } else { AddrSpace::Kernel };
                let here = format!("{}:{}", t.category, t.event);
                // An integer is what the format says (its size and sign), named as it names
                // it, so only a pointer's target needs the kernel's types; but a system call's
                // arguments are all recorded as 8-byte slots ("int flags; size:8; signed:0"),
                // so there the C type decides.
                let ty = if c_type.contains('*') || space == AddrSpace::User {
                    self.c_type_text(&c_type, size, signed, space)
                } else {
                    self.types.int_of(crate::types::IntType::named(&c_type, size, signed))
                };
                slots.push((size, signed));
                let what = format!("field `{name}`");
                typed = Some(self.meet_across(typed, ty, here, &what, &super::args::TRACEPOINTS, span)?);
            }
            // A string's location is read from the field: its offset and size must agree.
            if matches!(f.kind, FieldKind::DataLocStr { .. } | FieldKind::DataLocArray { .. }) {
                match at {
                    Some(a) if a != (f.offset, f.size) => {
                        return Err(Diagnostic::new(span.clone(), format!("field `{name}` is at different offsets in this clause's tracepoints")).label("ambiguous").hint("split the clause by tracepoint"));
                    }
                    _ => at = Some((f.offset, f.size)),
                }
            }
        }
        let string = self.c_string();
        Ok(match kind {
            Some(FieldKind::Chars) => TExpr::new(Expr::Str(StrExpr::TpField(name.to_string())), string),
            Some(FieldKind::DataLocStr { relative }) => {
                TExpr::new(Expr::Str(StrExpr::KernelStr(Box::new(data_loc_address(name, relative, at)), self.strsize)), string)
            }
            // A pointer to the array's first element, in the record (kernel memory).
            Some(FieldKind::DataLocArray { relative, elem }) => {
                let elem_ty = crate::types::type_name_from_c(&elem, span.clone()).and_then(|t| self.type_of_name(&t).ok());
                let Some(elem_ty) = elem_ty.filter(|t| matches!(self.types.size_of(*t), Ok(Some(_)))) else {
                    return Err(Diagnostic::new(span.clone(), format!("field `{name}` is an array of `{elem}`, a type crumbs does not know")).label("unknown element type").hint("the kernel's BTF lacks it"));
                };
                let ty = self.types.pointer(elem_ty, AddrSpace::Kernel);
                TExpr::new(data_loc_address(name, relative, at), ty)
            }
            _ => {
                let ty = match typed {
                    Some((t, _)) => t,
                    None => self.long(),
                };
                let field = Expr::TpField(name.to_string());
                let value = match self.types.as_int(ty) {
                    Ok(Some(i)) if i.size < 8 && slots.iter().any(|&(size, signed)| size > i.size || signed != i.signed) => Expr::Bits { inner: Box::new(field), shift: 0, width: i.size * 8, signed: i.signed },
                    _ => field,
                };
                TExpr::new(value, ty)
            }
        })
    }
}

/// Where a `__data_loc` (`__rel_loc`: `relative`) field's data is: the record's address plus
/// the field's low 16 bits (for `__rel_loc`, counted from the field's end). `at` is the
/// field's offset and size.
fn data_loc_address(name: &str, relative: bool, at: Option<(u16, u16)>) -> Expr {
    let (offset, size) = at.expect("a data_loc field");
    let loc = Expr::Binary(BinOp::BitAnd, Box::new(Expr::TpField(name.to_string())), Box::new(Expr::Int(0xffff)));
    let from = if relative { Expr::Binary(BinOp::Add, Box::new(Expr::TpRecord), Box::new(Expr::Int((offset + size) as i64))) } else { Expr::TpRecord };
    Expr::Binary(BinOp::Add, Box::new(from), Box::new(loc))
}
