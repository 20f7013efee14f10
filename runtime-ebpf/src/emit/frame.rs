//! The BPF stack below r10, and the per-CPU scratch space for values too large for it
//! (strings), handed out in scopes: a slot lives until the scope that took it ends, so every
//! way out of a scope leaves the frame as deep as it found it, whatever the code inside
//! took. Branches (each arm of an `if`) then reuse the same offsets without any bookkeeping
//! by hand.

use super::{EmitError, Emitter};

/// The kernel's limit on a BPF program's stack.
const STACK_LIMIT: i32 = 512;

/// Bytes of stack in use below r10. Only [`Emitter::slot`] deepens it and only
/// [`Emitter::scoped`] gives bytes back.
#[derive(Debug)]
pub(super) struct Frame {
    depth: i32,
    /// Bytes of the scratch space in use, and the most ever used (the space's size).
    scratch: u32,
    pub(super) scratch_max: u32,
    /// Whether the program holds a pointer to its scratch space at [`SCRATCH_POINTER`].
    pub(super) has_scratch: bool,
}

/// Where a program that uses the scratch space keeps the pointer to it (this CPU's, at its
/// nesting level).
pub(super) const SCRATCH_POINTER: i16 = -16;
/// Where it keeps the pointer to this CPU's count of programs running (nested) that use
/// the scratch space.
pub(super) const SCRATCH_DEPTH_POINTER: i16 = -24;

/// The most scratch bytes a program uses: offsets into it must fit an instruction's.
const SCRATCH_LIMIT: u32 = i16::MAX as u32 + 1;

impl Frame {
    /// The word at r10-8 is the prologue's scratch (sys_exit reads the syscall number
    /// through it), so slots start below it, and below the scratch pointers if there are.
    pub(super) fn new(has_scratch: bool) -> Frame {
        Frame { depth: if has_scratch { 24 } else { 8 }, scratch: 0, scratch_max: 0, has_scratch }
    }

    /// Bytes in use below r10.
    pub(super) fn depth(&self) -> i32 {
        self.depth
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

    /// A fresh 8-aligned piece of `size` bytes of the scratch space, free again when the
    /// enclosing [`Emitter::scoped`] ends; returns its offset in the space.
    pub(super) fn scratch(&mut self, size: usize) -> Result<i16, EmitError> {
        if !self.frame.has_scratch {
            return Err(self.err("internal: a string buffer in a program without scratch space"));
        }
        let at = self.frame.scratch;
        self.frame.scratch += size.next_multiple_of(8) as u32;
        if self.frame.scratch > SCRATCH_LIMIT {
            return Err(self.err(format!("this clause needs more than {SCRATCH_LIMIT} bytes of string space; lower strsize or split it into several clauses")));
        }
        self.frame.scratch_max = self.frame.scratch_max.max(self.frame.scratch);
        Ok(at as i16)
    }

    /// Runs `f`, then frees every slot it took, also when it fails.
    pub(super) fn scoped<R>(&mut self, f: impl FnOnce(&mut Self) -> Result<R, EmitError>) -> Result<R, EmitError> {
        let (depth, scratch) = (self.frame.depth, self.frame.scratch);
        let r = f(self);
        debug_assert!(self.frame.depth >= depth, "a scope gave back bytes it did not take");
        self.frame.depth = depth;
        self.frame.scratch = scratch;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_go_down_from_below_the_prologue_word_and_stop_at_the_limit() {
        let mut f = Frame::new(false);
        assert_eq!(f.take(8), Some(-16));
        assert_eq!(f.take(3), Some(-24));
        assert_eq!(f.take(16), Some(-40));
        assert_eq!(f.take(512 - 40), Some(-512));
        assert_eq!(f.take(1), None);
    }
}
