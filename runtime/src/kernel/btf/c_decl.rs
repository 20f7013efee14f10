//! vmlinux's structs, unions and enums written as C definitions, in the layout libbpf's
//! btf_dump writes them (tabs, `long: 64;` markers for holes, anonymous members inline,
//! `__attribute__((packed))` where the offsets say so): what bpftrace's `-lv 'struct NAME'`
//! prints, its definitions coming from that writer. The rules (where a hole needs a marker,
//! how a declarator nests) follow libbpf 1.1, the one bpftrace 0.17 runs with.

use btf_rs::{Btf, BtfType, Type};

/// The named structs, unions and enums of vmlinux, `struct path`, with their BTF ids, in id
/// order (an enum with 64-bit values and a declaration without a body are left out, as
/// bpftrace leaves them).
pub fn named_types() -> Result<Vec<(String, u32)>, String> {
    let btf = super::vmlinux()?;
    let mut out = Vec::new();
    // Ids run from 1 to the last type's; past it, the lookup fails.
    for id in 1.. {
        let Ok(t) = btf.resolve_type_by_id(id) else { break };
        let kind = match &t {
            Type::Struct(_) => "struct",
            Type::Union(_) => "union",
            Type::Enum(_) => "enum",
            _ => continue,
        };
        let name = t.as_btf_type().map(|b| btf.resolve_name(b).unwrap_or_default()).unwrap_or_default();
        if !name.is_empty() {
            out.push((format!("{kind} {name}"), id));
        }
    }
    Ok(out)
}

/// The C definition of vmlinux type `id` (a struct, union or enum), ending `};` and a
/// newline; None for a type without a body (`struct empty {}`, an enum of no values), which
/// bpftrace does not list.
pub fn definition(id: u32) -> Result<Option<String>, String> {
    let btf = super::vmlinux()?;
    let w = Writer { btf };
    let mut out = String::new();
    match w.ty(id)? {
        Type::Struct(_) | Type::Union(_) => w.struct_def(&mut out, id, 0)?,
        Type::Enum(_) => w.enum_def(&mut out, id, 0)?,
        _ => return Ok(None),
    }
    Ok(out.lines().next().is_some_and(|l| l.ends_with('{')).then(|| out + ";\n"))
}

/// The indentation of nesting level `lvl`: that many tabs.
fn pfx(lvl: usize) -> String {
    "\t".repeat(lvl)
}

fn roundup(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

struct Writer<'a> {
    btf: &'a Btf,
}

impl Writer<'_> {
    fn ty(&self, id: u32) -> Result<Type, String> {
        if id == 0 {
            return Ok(Type::Void);
        }
        self.btf.resolve_type_by_id(id).map_err(super::btf_error)
    }

    fn name(&self, t: &dyn BtfType) -> String {
        self.btf.resolve_name(t).unwrap_or_default()
    }

    /// libbpf's btf__align_of: a type's alignment, 1 for a struct whose layout is packed.
    fn align_of(&self, id: u32) -> Result<u32, String> {
        Ok(match self.ty(id)? {
            Type::Int(i) => (i.size() as u32).min(8),
            Type::Enum(e) => (e.size() as u32).min(8),
            Type::Enum64(e) => (e.size() as u32).min(8),
            Type::Float(f) => (f.size() as u32).min(8),
            Type::Ptr(_) => 8,
            Type::Typedef(t) => self.align_of(t.get_type_id().unwrap_or(0))?,
            Type::Const(q) | Type::Volatile(q) | Type::Restrict(q) => self.align_of(q.get_type_id().unwrap_or(0))?,
            Type::TypeTag(t) => self.align_of(t.get_type_id().unwrap_or(0))?,
            Type::Array(a) => self.align_of(a.get_type_id().unwrap_or(0))?,
            Type::Struct(s) | Type::Union(s) => {
                let mut max_align = 1;
                for m in &s.members {
                    let align = self.align_of(m.get_type_id().unwrap_or(0))?;
                    if align == 0 {
                        return Ok(0);
                    }
                    max_align = max_align.max(align);
                    if m.bitfield_size().unwrap_or(0) == 0 && m.bit_offset() % (8 * align) != 0 {
                        return Ok(1);
                    }
                }
                if !(s.size() as u32).is_multiple_of(max_align) {
                    return Ok(1);
                }
                max_align
            }
            _ => 0,
        })
    }

    /// libbpf's btf__resolve_size: a type's size in bytes (0 where it has none).
    fn size_of(&self, id: u32) -> Result<u32, String> {
        Ok(match self.ty(id)? {
            Type::Int(i) => i.size() as u32,
            Type::Enum(e) => e.size() as u32,
            Type::Enum64(e) => e.size() as u32,
            Type::Float(f) => f.size() as u32,
            Type::Struct(s) | Type::Union(s) => s.size() as u32,
            Type::Ptr(_) => 8,
            Type::Typedef(t) => self.size_of(t.get_type_id().unwrap_or(0))?,
            Type::Const(q) | Type::Volatile(q) | Type::Restrict(q) => self.size_of(q.get_type_id().unwrap_or(0))?,
            Type::TypeTag(t) => self.size_of(t.get_type_id().unwrap_or(0))?,
            Type::Array(a) => a.len() as u32 * self.size_of(a.get_type_id().unwrap_or(0))?,
            _ => 0,
        })
    }

    /// libbpf's btf_is_struct_packed: a member off its natural alignment, or a size that is
    /// not a multiple of the largest alignment.
    fn packed(&self, s: &btf_rs::Struct) -> Result<bool, String> {
        let mut max_align = 1;
        for m in &s.members {
            let align = self.align_of(m.get_type_id().unwrap_or(0))?;
            if align != 0 && m.bitfield_size().unwrap_or(0) == 0 && m.bit_offset() % (8 * align) != 0 {
                return Ok(true);
            }
            max_align = max_align.max(align);
        }
        Ok(!(s.size() as u32).is_multiple_of(max_align))
    }

    /// The markers that fill the hole from bit `cur` to bit `next` (libbpf's
    /// btf_dump_emit_bit_padding): the largest of long, int, short, char that reaches an
    /// aligned offset within the hole, a `TYPE: 0;` (or, after a bitfield, `TYPE: BITS;`)
    /// where the compiler would not align there by itself, then full-sized markers and a
    /// last smaller one.
    fn padding(&self, out: &mut String, mut cur: u32, next: u32, next_align: u32, in_bitfield: bool, lvl: usize) {
        const PADS: [(&str, u32); 4] = [("long", 64), ("int", 32), ("short", 16), ("char", 8)];
        if cur >= next {
            return;
        }
        let (mut pad_type, mut pad_bits, mut new_off) = ("char", 8, 0);
        for (name, bits) in PADS {
            (pad_type, pad_bits, new_off) = (name, bits, roundup(cur, bits));
            if new_off <= next {
                break;
            }
        }
        if new_off > cur && new_off <= next {
            if in_bitfield || (new_off == next && roundup(cur, next_align.max(1) * 8) != new_off) || (new_off != next && next - new_off <= new_off - cur) {
                out.push_str(&format!("\n{}{pad_type}: {};", pfx(lvl), if in_bitfield { new_off - cur } else { 0 }));
            }
            cur = new_off;
        }
        while cur != next {
            let bits = (next - cur).min(pad_bits);
            if bits == pad_bits {
                out.push_str(&format!("\n{}{pad_type}: {pad_bits};", pfx(lvl)));
                cur += bits;
                continue;
            }
            for (name, size) in PADS.iter().rev() {
                if *size < bits {
                    continue;
                }
                (pad_type, pad_bits) = (name, *size);
                out.push_str(&format!("\n{}{pad_type}: {bits};", pfx(lvl)));
                cur += bits;
                break;
            }
        }
    }

    /// `struct NAME {` members `}` (libbpf's btf_dump_emit_struct_def), nested at `lvl`.
    fn struct_def(&self, out: &mut String, id: u32, lvl: usize) -> Result<(), String> {
        let (s, is_struct) = match self.ty(id)? {
            Type::Struct(s) => (s, true),
            Type::Union(u) => (u, false),
            _ => return Ok(()),
        };
        let align = self.align_of(id)?;
        let packed = is_struct && self.packed(&s)?;
        let name = self.name(&s);
        out.push_str(&format!("{}{}{name} {{", if is_struct { "struct" } else { "union" }, if name.is_empty() { "" } else { " " }));
        let (mut off, mut prev_bitfield) = (0u32, false);
        for m in &s.members {
            let m_ty = m.get_type_id().unwrap_or(0);
            let bits = m.bitfield_size().unwrap_or(0);
            let m_off = m.bit_offset();
            let m_align = if packed { 1 } else { self.align_of(m_ty)? };
            self.padding(out, off, m_off, m_align, prev_bitfield && bits != 0, lvl + 1);
            out.push_str(&format!("\n{}", pfx(lvl + 1)));
            self.decl(out, m_ty, &self.name(m), lvl + 1)?;
            if bits != 0 {
                out.push_str(&format!(": {bits}"));
                off = m_off + bits;
                prev_bitfield = true;
            } else {
                off = m_off + self.size_of(m_ty)? * 8;
                prev_bitfield = false;
            }
            out.push(';');
        }
        if is_struct {
            self.padding(out, off, s.size() as u32 * 8, align, false, lvl + 1);
        }
        if !s.members.is_empty() || s.size() != 0 {
            out.push_str(&format!("\n{}}}", pfx(lvl)));
        } else {
            out.push('}');
        }
        if packed {
            out.push_str(" __attribute__((packed))");
        }
        Ok(())
    }

    /// `enum NAME {` values `}` (libbpf's btf_dump_emit_enum_def).
    fn enum_def(&self, out: &mut String, id: u32, lvl: usize) -> Result<(), String> {
        // An 8-byte enum says so (mode(word)) unless one of its values needs 64 bits.
        let (name, size, values, word_mode): (String, usize, Vec<String>, bool) = match self.ty(id)? {
            Type::Enum(e) => {
                let v = e.members.iter().map(|m| if e.is_signed() { format!("{} = {}", self.name(m), m.val() as i32) } else { format!("{} = {}", self.name(m), m.val()) }).collect();
                (self.name(&e), e.size(), v, true)
            }
            Type::Enum64(e) => {
                let v = e.members.iter().map(|m| if e.is_signed() { format!("{} = {}LL", self.name(m), m.val() as i64) } else { format!("{} = {}ULL", self.name(m), m.val()) }).collect();
                let word_mode = e.members.iter().all(|m| m.val() >> 32 == 0);
                (self.name(&e), e.size(), v, word_mode)
            }
            _ => return Ok(()),
        };
        out.push_str(&format!("enum{}{name}", if name.is_empty() { "" } else { " " }));
        if values.is_empty() {
            return Ok(());
        }
        out.push_str(" {");
        for v in &values {
            out.push_str(&format!("\n{}{v},", pfx(lvl + 1)));
        }
        out.push_str(&format!("\n{}}}", pfx(lvl)));
        if size == 1 {
            out.push_str(" __attribute__((mode(byte)))");
        } else if size == 8 && word_mode {
            out.push_str(" __attribute__((mode(word)))");
        }
        Ok(())
    }

    /// A declaration of `name` as type `id` (libbpf's btf_dump_emit_type_decl): the chain of
    /// pointers, qualifiers, arrays and prototypes down to a named type, written inside out.
    fn decl(&self, out: &mut String, id: u32, name: &str, lvl: usize) -> Result<(), String> {
        let mut stack = Vec::new();
        let mut id = id;
        loop {
            stack.push(id);
            if id == 0 {
                break;
            }
            match self.ty(id)? {
                Type::Ptr(t) => id = t.get_type_id().unwrap_or(0),
                Type::Const(q) | Type::Volatile(q) | Type::Restrict(q) => id = q.get_type_id().unwrap_or(0),
                Type::TypeTag(t) => id = t.get_type_id().unwrap_or(0),
                Type::FuncProto(p) => id = p.return_type_id(),
                Type::Array(a) => id = a.get_type_id().unwrap_or(0),
                _ => break,
            }
        }
        self.chain(out, &mut stack, name, lvl)
    }

    fn is_mod(t: &Type) -> bool {
        matches!(t, Type::Const(_) | Type::Volatile(_) | Type::Restrict(_) | Type::TypeTag(_))
    }

    /// Qualifiers right above a base type, written before it (`const struct x`).
    fn mods(&self, out: &mut String, stack: &mut Vec<u32>) -> Result<(), String> {
        while let Some(&id) = stack.last() {
            match self.ty(id)? {
                Type::Volatile(_) => out.push_str("volatile "),
                Type::Const(_) => out.push_str("const "),
                Type::Restrict(_) => out.push_str("restrict "),
                _ => return Ok(()),
            }
            stack.pop();
        }
        Ok(())
    }

    fn drop_mods(&self, stack: &mut Vec<u32>) -> Result<(), String> {
        while let Some(&id) = stack.last() {
            if !Self::is_mod(&self.ty(id)?) {
                return Ok(());
            }
            stack.pop();
        }
        Ok(())
    }

    fn emit_name(out: &mut String, name: &str, last_was_ptr: bool) {
        if !name.is_empty() && !last_was_ptr {
            out.push(' ');
        }
        out.push_str(name);
    }

    /// libbpf's btf_dump_emit_type_chain: `stack` holds the declaration's types, the base
    /// type last.
    fn chain(&self, out: &mut String, stack: &mut Vec<u32>, name: &str, lvl: usize) -> Result<(), String> {
        let mut last_was_ptr = true;
        while let Some(id) = stack.pop() {
            if id == 0 {
                self.mods(out, stack)?;
                out.push_str("void");
                last_was_ptr = false;
                continue;
            }
            let t = self.ty(id)?;
            match &t {
                Type::Int(_) | Type::Float(_) | Type::Typedef(_) => {
                    self.mods(out, stack)?;
                    out.push_str(&self.name(t.as_btf_type().expect("a named type")));
                }
                Type::Struct(s) | Type::Union(s) => {
                    self.mods(out, stack)?;
                    let n = self.name(s);
                    if n.is_empty() {
                        self.struct_def(out, id, lvl)?;
                    } else {
                        out.push_str(&format!("{} {n}", if matches!(t, Type::Struct(_)) { "struct" } else { "union" }));
                    }
                }
                Type::Enum(_) | Type::Enum64(_) => {
                    self.mods(out, stack)?;
                    let n = self.name(t.as_btf_type().expect("a named type"));
                    if n.is_empty() {
                        self.enum_def(out, id, lvl)?;
                    } else {
                        out.push_str(&format!("enum {n}"));
                    }
                }
                Type::Fwd(f) => {
                    self.mods(out, stack)?;
                    out.push_str(&format!("{} {}", if f.is_union() { "union" } else { "struct" }, self.name(f)));
                }
                Type::Ptr(_) => out.push_str(if last_was_ptr { "*" } else { " *" }),
                Type::Volatile(_) => out.push_str(" volatile"),
                Type::Const(_) => out.push_str(" const"),
                Type::Restrict(_) => out.push_str(" restrict"),
                Type::TypeTag(tag) => {
                    self.mods(out, stack)?;
                    out.push_str(&format!(" __attribute__((btf_type_tag(\"{}\")))", self.name(tag)));
                }
                Type::Array(a) => {
                    self.drop_mods(stack)?;
                    let Some(&next) = stack.last() else {
                        Self::emit_name(out, name, last_was_ptr);
                        out.push_str(&format!("[{}]", a.len()));
                        return Ok(());
                    };
                    let multidim = matches!(self.ty(next)?, Type::Array(_));
                    if !name.is_empty() && !last_was_ptr {
                        out.push(' ');
                    }
                    if !multidim {
                        out.push('(');
                    }
                    self.chain(out, stack, name, lvl)?;
                    if !multidim {
                        out.push(')');
                    }
                    out.push_str(&format!("[{}]", a.len()));
                    return Ok(());
                }
                Type::FuncProto(p) => {
                    self.drop_mods(stack)?;
                    if stack.is_empty() {
                        Self::emit_name(out, name, last_was_ptr);
                    } else {
                        out.push_str(" (");
                        self.chain(out, stack, name, lvl)?;
                        out.push(')');
                    }
                    out.push('(');
                    let params = &p.parameters;
                    if params.len() == 1 && params[0].get_type_id().unwrap_or(0) == 0 {
                        out.push(')');
                        return Ok(());
                    }
                    for (i, param) in params.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        let pty = param.get_type_id().unwrap_or(0);
                        if i == params.len() - 1 && pty == 0 {
                            out.push_str("...");
                            break;
                        }
                        self.decl(out, pty, &self.name(param), lvl)?;
                    }
                    out.push(')');
                    return Ok(());
                }
                _ => return Ok(()),
            }
            last_was_ptr = matches!(t, Type::Ptr(_));
        }
        Self::emit_name(out, name, last_was_ptr);
        Ok(())
    }
}
