//! The BPF stack below r10, handed out in scopes: a slot lives until the scope that took it
//! ends, so every way out of a scope leaves the frame as deep as it found it, whatever the
//! code inside took. Branches (each arm of an `if`) then reuse the same offsets without any
//! bookkeeping by hand.

use super::{EmitError, Emitter};

/// The kernel's limit on a BPF program's stack.
const STACK_LIMIT: i32 = 512;

/// Bytes of stack in use below r10. Only [`Emitter::slot`] deepens it and only
/// [`Emitter::scoped`] gives bytes back.
#[derive(Debug)]
pub(super) struct Frame {
    depth: i32,
}

impl Frame {
    /// The word at r10-8 is the prologue's scratch (sys_exit reads the syscall number
    /// through it), so slots start below it.
    pub(super) fn new() -> Frame {
        Frame { depth: 8 }
    }

    /// A fresh 8-aligned slot of `size` bytes as its offset from r10, or None past the
    /// kernel's limit.
    fn take(&mut self, size: usize) -> Option<i16> {
        self.depth += size.next_multiple_of(8) as i32;
        (self.depth <= STACK_LIMIT).then_some(-self.depth as i16)
    }
}

impl Emitter<'_> {
    /// A fresh 8-aligned stack slot of `size` bytes, free again when the enclosing
    /// [`Emitter::scoped`] ends; returns its offset from r10.
    pub(super) fn slot(&mut self, size: usize) -> Result<i16, EmitError> {
        self.frame.take(size).ok_or_else(|| self.err("this clause needs more than the 512 bytes of BPF stack; split it into several clauses"))
    }

    /// Runs `f`, then frees every slot it took, also when it fails.
    pub(super) fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R, EmitError>) -> Result<R, EmitError> {
        let depth = self.frame.depth;
        let r = f(self);
        debug_assert!(self.frame.depth >= depth, "a scope gave back bytes it did not take");
        self.frame.depth = depth;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_go_down_from_below_the_prologue_word_and_stop_at_the_limit() {
        let mut f = Frame::new();
        assert_eq!(f.take(8), Some(-16));
        assert_eq!(f.take(3), Some(-24));
        assert_eq!(f.take(16), Some(-40));
        assert_eq!(f.take(512 - 40), Some(-512));
        assert_eq!(f.take(1), None);
    }
}
