//! Kernel tracepoints as the checker sees them: the fields of each event's record, parsed
//! from its `format` file (which reaches the checker through [`crate::facts::KernelFacts`]).

/// One field of a tracepoint record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub offset: u16,
    pub size: u16,
    pub signed: bool,
    pub kind: FieldKind,
    /// The C type as the format file writes it (`pid_t`, `const char *`).
    pub c_type: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// An integer or a pointer of 1, 2, 4 or 8 bytes.
    Int,
    /// `char NAME[N]` with N <= 16: a NUL-padded name, like a process name.
    Chars,
    /// `__data_loc char[] NAME` (`__rel_loc`: `relative`): a string stored after the fixed
    /// fields; the field's low 16 bits are its offset from the record's start (from the
    /// field's end for `__rel_loc`), the high 16 its length.
    DataLocStr { relative: bool },
    /// `__data_loc TYPE[] NAME`: an array of TYPE stored after the fixed fields, located as a
    /// `DataLocStr` is; its length (bytes) is the field's high 16 bits.
    DataLocArray { relative: bool, elem: String },
    /// An array of `len` integers of `size` bytes each (`unsigned long args[6]`), or of
    /// more than 16 chars (a string): indexed as a C array, `args->args[1]`. `char`: its
    /// elements are plain `char`s (text; `unsigned char` and `u8` ones are bytes).
    Array { size: u8, signed: bool, char: bool, len: u16 },
    /// Anything else (its C type), which crumbs cannot read yet.
    Other(String),
}

/// A tracepoint a program uses: its name and record layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tracepoint {
    pub category: String,
    pub event: String,
    pub fields: Vec<Field>,
}

impl Tracepoint {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Parses the `field:TYPE NAME; offset:N; size:N; signed:N;` lines of a format file,
/// skipping the `common_*` header fields.
pub fn parse_format(text: &str) -> Vec<Field> {
    parse_fields(text, false)
}

/// Every field of a format file, the `common_*` header fields first (current bpftrace's
/// `args` record has them all).
pub fn parse_all_fields(text: &str) -> Vec<Field> {
    parse_fields(text, true)
}

fn parse_fields(text: &str, common: bool) -> Vec<Field> {
    let mut fields = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("field:") else { continue };
        let mut parts = rest.split(';').map(str::trim);
        let Some(decl) = parts.next() else { continue };
        let num = |key: &str| -> Option<u16> {
            parts.clone().find_map(|p| p.strip_prefix(key).and_then(|v| v.parse().ok()))
        };
        let (Some(offset), Some(size)) = (num("offset:"), num("size:")) else { continue };
        let signed = num("signed:") == Some(1);
        let Some((ty, name)) = decl.rsplit_once(|c: char| c.is_whitespace() || c == '*') else { continue };
        let (name, array) = match name.split_once('[') {
            Some((n, rest)) => (n.to_string(), Some(rest.trim_end_matches(']').to_string())),
            None => (name.to_string(), None),
        };
        if name.starts_with("common_") && !common {
            continue;
        }
        let ty = ty.trim().to_string();
        let c_type = if decl.contains('*') { format!("{} *", ty.trim_end_matches('*').trim()) } else { ty.clone() };
        let kind = match array {
            None if size == 4 && (ty == "__data_loc char[]" || ty == "__data_loc const char[]") => FieldKind::DataLocStr { relative: false },
            None if size == 4 && (ty == "__rel_loc char[]" || ty == "__rel_loc const char[]") => FieldKind::DataLocStr { relative: true },
            None if size == 4 && ty.ends_with("[]") && (ty.starts_with("__data_loc ") || ty.starts_with("__rel_loc ")) => {
                let (loc, elem) = ty.trim_end_matches("[]").split_once(' ').expect("checked");
                FieldKind::DataLocArray { relative: loc == "__rel_loc", elem: elem.trim().to_string() }
            }
            None if ty.starts_with("__data_loc") || ty.starts_with("__rel_loc") => FieldKind::Other(ty),
            None if matches!(size, 1 | 2 | 4 | 8) => FieldKind::Int,
            Some(n) if ty == "char" && n.parse::<usize>().is_ok_and(|n| n <= 16) => FieldKind::Chars,
            Some(n) if n.parse::<u16>().is_ok_and(|n| n > 0 && size % n == 0 && matches!(size / n, 1 | 2 | 4 | 8)) && !ty.contains('*') && !ty.starts_with("struct") && !ty.starts_with("union") => {
                let len: u16 = n.parse().expect("checked");
                FieldKind::Array { size: (size / len) as u8, signed, char: matches!(ty.as_str(), "char" | "const char"), len }
            }
            _ => FieldKind::Other(format!("{ty} [{}]", array.unwrap_or_default())),
        };
        fields.push(Field { name, offset, size, signed, kind, c_type });
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHED_SWITCH: &str = "name: sched_switch\nID: 372\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\tfield:char * buf;\toffset:40;\tsize:8;\tsigned:0;\n\tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:0;\n\tfield:__data_loc u64[] addrs;\toffset:52;\tsize:4;\tsigned:0;\n\nprint fmt: \"...\"\n";

    #[test]
    fn parses_fields() {
        let f = parse_format(SCHED_SWITCH);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["prev_comm", "prev_pid", "prev_state", "buf", "name", "addrs"]);
        assert_eq!(f[5].kind, FieldKind::DataLocArray { relative: false, elem: "u64".into() });
        assert_eq!(f[0].kind, FieldKind::Chars);
        assert_eq!((f[1].offset, f[1].size, f[1].signed, &f[1].kind), (24, 4, true, &FieldKind::Int));
        assert_eq!(f[3].kind, FieldKind::Int);
        assert_eq!(f[4].kind, FieldKind::DataLocStr { relative: false });
        let all = parse_all_fields(SCHED_SWITCH);
        assert_eq!((all.len(), all[0].name.as_str(), all[1].name.as_str(), all[1].signed), (8, "common_type", "common_pid", true));
    }
}
