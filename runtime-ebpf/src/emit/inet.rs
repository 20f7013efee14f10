//! inet_ntoa(), inet_ntoa6(), inet_ntop(): network addresses in kernel memory as text, in
//! DTrace's forms.

use super::strings::Buf;
use super::*;

impl Emitter<'_> {
    pub(super) fn inet(&mut self, _f: StrFn, _args: &[StrArg], _out: Buf, _own: u32) -> Result<(), EmitError> {
        Err(self.err("inet_ntoa() is not implemented yet"))
    }
}
