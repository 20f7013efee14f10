//! Keys of aggregations and associative arrays: each position keeps the representation of
//! the first use (integers of any type are converted to the first one's type).

use super::*;

/// Whose keys are checked, for messages: `aggregation` and `@a`, or `associative array` and `a`.
pub(super) struct KeyOwner<'a> {
    pub kind: &'a str,
    pub name: &'a str,
}

impl KeyOwner<'_> {
    /// The owner as [`KeyBuffers`] names it.
    pub fn id(&self) -> String {
        format!("{} {}", self.kind, self.name)
    }
}

impl Checker<'_> {
    /// Checks and lowers `keys` against the keys of the first use, `first` (None: this is the
    /// first use); returns the keys and how each is stored.
    pub(super) fn keys(&mut self, keys: &[ast::Expr], first: Option<&[Repr]>, owner: KeyOwner, span: &Span) -> Result<(Vec<Expr>, Vec<Repr>), Diagnostic> {
        let mut typed = Vec::new();
        for k in keys {
            typed.push(self.key_value(k)?);
        }
        // A struct key has the type of the first use at its position (DTrace's prototype).
        for (i, k) in typed.iter().enumerate() {
            if !matches!(k.expr, Expr::Object { .. }) {
                continue;
            }
            match self.key_types.get(&(owner.id(), i)).copied() {
                None if first.is_none_or(|f| matches!(f.get(i), Some(Repr::Object(_)))) => {
                    self.key_types.insert((owner.id(), i), k.ty);
                }
                Some(want) if !self.same_type(want, k.ty) => {
                    let (want, got) = (self.types.name(want), self.types.name(k.ty));
                    let what = if owner.kind == "aggregation" { format!("@{}[ ]", owner.name.trim_start_matches('@')) } else { format!("{}[ ]", owner.name) };
                    return Err(Diagnostic::new(keys[i].span.clone(), format!("{what} key #{} is incompatible with prototype: {want} vs {got}", i + 1))
                        .label(format!("a `{got}`"))
                        .hint(format!("key {} is a `{want}` where it is first used: keys at one position have one type", i + 1)));
                }
                _ => {}
            }
        }
        let mut reprs: Vec<Repr> = typed.iter().map(|k| self.repr_of(k)).collect();
        let mut out: Vec<Expr> = typed.iter().map(|k| self.own(k)).collect();
        // bpftrace 0.17 prints a pointer key in hex (`@[0xffff8881...]`): kept as a number
        // printed so.
        for (i, k) in typed.iter().enumerate() {
            if self.bpftrace() && matches!(reprs[i], Repr::Int(_)) && matches!(self.types.real(k.ty), Ok(crate::types::Type::Ptr { .. })) {
                out[i] = Expr::Named(crate::ir::NameOf::Pointer, Box::new(out[i].clone()));
                reprs[i] = Repr::Named(crate::ir::NameOf::Pointer);
            }
        }
        let Some(first) = first else {
            // A first use kept as an id, or in a smaller buffer, where a later use needs a
            // (larger) buffer: that buffer.
            for (i, k) in typed.iter().enumerate() {
                if let (Expr::Str(s), Some(&size)) = (&k.expr, self.key_buffers.get(&(owner.id(), i))) {
                    if reprs[i] == Repr::StrId || matches!(reprs[i], Repr::Str(n) if n < size) {
                        out[i] = Expr::Str(self.in_buffer(s.clone(), size));
                        reprs[i] = Repr::Str(size);
                    }
                }
            }
            return Ok((out, reprs));
        };
        let name = owner.name;
        if first.len() != reprs.len() {
            return Err(Diagnostic::new(span.clone(), format!("{} `{name}` has {} key(s) elsewhere, {} here", owner.kind, first.len(), reprs.len()))
                .label("key count differs")
                .hint("use the same number of keys everywhere"));
        }
        for (i, (a, b)) in first.iter().zip(&reprs).enumerate() {
            // Integers of any type share a key position: stored as the first was.
            if let (Repr::Int(first), Repr::Int(_) | Repr::Named(crate::ir::NameOf::Pointer)) = (a, b) {
                out[i] = self.fit(&typed[i], *first);
                continue;
            }
            // An integer where the first use had a pointer: a pointer, printed in hex.
            if let (Repr::Named(crate::ir::NameOf::Pointer), Repr::Int(_)) = (a, b) {
                let word = self.fit(&typed[i], crate::ir::IntRepr::U64);
                out[i] = Expr::Named(crate::ir::NameOf::Pointer, Box::new(word));
                continue;
            }
            // Any string where the first use had a string in a buffer is laid out as that was;
            // a literal too long for it (a process name's 16 bytes) asks for a buffer its
            // size, up to strsize, which the second pass gives every use.
            if let (Repr::Str(size), Expr::Str(s)) = (a, &typed[i].expr) {
                if let StrExpr::Const(id) = s {
                    let need = (self.strings.resolve(*id).len() as u32 + 1).next_multiple_of(8).min(self.strsize);
                    if need > *size {
                        let at = self.key_buffers.entry((owner.id(), i)).or_insert(need);
                        *at = (*at).max(need);
                        self.second_pass_needed = true;
                    }
                }
                out[i] = Expr::Str(self.in_buffer(s.clone(), *size));
                continue;
            }
            if let (Repr::Stack(x), Repr::Stack(y)) = (a, b) {
                if x != y {
                    return Err(Diagnostic::new(keys[i].span.clone(), format!("key {} of `{name}` is {} elsewhere", i + 1, describe_stack(*x)))
                        .label(describe_stack(*y))
                        .hint("stack keys at one position keep the same number of frames everywhere"));
                }
            }
            if let (Repr::UStack(x), Repr::UStack(y)) = (a, b) {
                if x != y {
                    return Err(Diagnostic::new(keys[i].span.clone(), format!("key {} of `{name}` is {} elsewhere", i + 1, describe_ustack(*x)))
                        .label(describe_ustack(*y))
                        .hint("user stack keys at one position keep the same number of frames everywhere"));
                }
            }
            // A string in a buffer where the first use kept an id: the first use too needs a
            // buffer, which the second pass gives it.
            if let (Repr::StrId, Repr::Str(size)) = (a, b) {
                let size = self.key_buffers.entry((owner.id(), i)).or_insert(*size);
                *size = (*size).max(b.size() as u32);
                self.second_pass_needed = true;
                continue;
            }
            if a != b {
                return Err(Diagnostic::new(keys[i].span.clone(), format!("key {} of `{name}` has another type elsewhere", i + 1)).label("type differs").hint("keys at one position must all be integers, all strings or all structs of one type"));
            }
        }
        Ok((out, first.to_vec()))
    }
}

impl Checker<'_> {
    /// A key's value: a struct or union copied whole (its bytes are the key), else a scalar
    /// or a string.
    fn key_value(&mut self, k: &ast::Expr) -> Result<TExpr, Diagnostic> {
        let t = self.typed(k)?;
        match self.object(t, &k.span)? {
            Ok(o) => Ok(o),
            Err(t) => self.lower(t, &k.span),
        }
    }
}

/// A stack key as messages name it.
fn describe_stack(u: StackUse) -> String {
    let StackUse::Frames(n, mode) = u;
    let s = if n == 0 { "stack() (the stackframes option's frames)".to_string() } else { format!("stack({n})") };
    s + mode_text(mode)
}

/// A user stack key as messages name it.
fn describe_ustack(u: crate::ir::UStackUse) -> String {
    let crate::ir::UStackUse::Frames(n, mode) = u;
    let s = if n == 0 { "ustack() (the ustackframes option's frames)".to_string() } else { format!("ustack({n})") };
    s + mode_text(mode)
}

/// A stack's mode as key messages say it (bpftrace's own mode, the default, unsaid).
fn mode_text(mode: crate::ir::StackMode) -> &'static str {
    match mode {
        crate::ir::StackMode::Bpftrace => "",
        crate::ir::StackMode::Perf => " in perf mode",
        crate::ir::StackMode::Raw => " in raw mode",
        crate::ir::StackMode::BuildId => " in build_id mode",
    }
}
