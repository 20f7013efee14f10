//! How types are named in messages and listings, as C writes them.

use super::{Type, TypeId, Types};
use crate::facts::TypeSpace;

impl Types {
    /// `int`, `struct task_struct *`, `char [16]`, `pid_t`.
    pub fn name(&mut self, id: TypeId) -> String {
        if self.load(id).is_err() {
            return "a kernel type".to_string();
        }
        match self.get(id).clone() {
            Type::Void => "void".into(),
            Type::Int(i) => i.name,
            Type::Float { name, .. } => name,
            Type::Ptr { to, .. } if self.load(to).is_ok() && matches!(self.get(to), Type::Function) => "void (*)()".into(),
            Type::Ptr { to, space } => {
                // One mark for the whole pointer: `char ** (user)`.
                let named = self.name(to);
                let inner = named.strip_suffix(" (user)").unwrap_or(&named);
                let star = if inner.ends_with('*') { "*" } else { " *" };
                match space {
                    super::AddrSpace::Kernel => format!("{inner}{star}"),
                    super::AddrSpace::User => format!("{inner}{star} (user)"),
                }
            }
            Type::Array { elem, len } => format!("{} [{len}]", self.name(elem)),
            Type::Struct(r) => format!("struct {}", if r.name.is_empty() { "(anonymous)" } else { &r.name }),
            Type::Union(r) => format!("union {}", if r.name.is_empty() { "(anonymous)" } else { &r.name }),
            Type::Enum { name, .. } => format!("enum {name}"),
            Type::Typedef { name, to } if name.is_empty() => self.name(to),
            Type::Typedef { name, .. } => name,
            Type::Function => "a function".into(),
            Type::String { .. } => "string".into(),
            Type::Stack => "stack".into(),
            Type::Printed(r) => r.type_name(),
            Type::Incomplete { space, name } => match space {
                TypeSpace::Struct => format!("struct {name}"),
                TypeSpace::Union => format!("union {name}"),
                TypeSpace::Enum => format!("enum {name}"),
                TypeSpace::Ordinary => name,
            },
            Type::Kernel(_) => "a kernel type".into(),
        }
    }
}
