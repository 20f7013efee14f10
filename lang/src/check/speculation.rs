//! Speculations: `speculation()`, `speculate(id)`, `commit(id)`, `discard(id)`, and the
//! `nspec` option, with DTrace's rules on what a speculating or committing clause may hold.

use super::*;
use crate::ir::MAX_NSPEC;

/// What the clause being checked does that speculation rules are about.
#[derive(Default)]
pub(super) struct Uses {
    speculate: Option<Span>,
    commit: Option<Span>,
    discard: Option<Span>,
    /// Every action that records data (printf, trace, exit, printa, ...), and its name.
    recorded: Vec<(Span, &'static str)>,
    aggregated: Option<Span>,
    /// The first destructive action (raise, stop, system).
    destructive: Option<(Span, &'static str)>,
}

/// Recording actions that cannot be speculative (their effect is not a record to hold).
const NOT_SPECULATIVE: &[&str] = &["exit", "printa", "clear", "trunc", "normalize", "denormalize", "setopt"];

impl Checker<'_> {
    /// `speculate(id)` as a statement of the action block.
    pub(super) fn speculate(&mut self, arg: &ast::Expr, span: &Span, body: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        if let Some(first) = &self.spec.speculate {
            return Err(Diagnostic::new(span.clone(), "a clause can speculate() only once")
                .label("second speculate()")
                .related(first.clone(), "first speculate() here")
                .hint("speculate to another speculation in a clause of its own"));
        }
        if self.if_depth > 0 {
            return Err(Diagnostic::new(span.clone(), "speculate() cannot be inside `if`")
                .label("inside `if`")
                .hint("speculate() applies to the whole clause: call it at the top of the action block and put the condition in the predicate"));
        }
        self.spec.speculate = Some(span.clone());
        let id = self.int_expr(arg, "speculate()'s speculation id")?;
        body.push(Stmt::Speculate(id));
        Ok(())
    }

    /// Notes an action of the clause: what records data, commits or aggregates.
    pub(super) fn note_action(&mut self, hook: FnHook, name: &'static str, span: &Span) {
        match hook {
            FnHook::Commit => {
                self.spec.commit.get_or_insert(span.clone());
            }
            FnHook::Discard => {
                self.spec.discard.get_or_insert(span.clone());
            }
            FnHook::Aggregate(_) => {
                self.spec.aggregated.get_or_insert(span.clone());
            }
            h if h.is_destructive() => {
                self.spec.destructive.get_or_insert((span.clone(), name));
            }
            _ => self.spec.recorded.push((span.clone(), name)),
        }
    }

    /// DTrace's rules, once the clause is checked: a speculating clause speculates before it
    /// records anything and does not aggregate, exit, print aggregations or commit; a
    /// committing clause records nothing.
    pub(super) fn check_speculation(&mut self) -> Result<(), Diagnostic> {
        let u = std::mem::take(&mut self.spec);
        if let Some(spec) = &u.speculate {
            if let Some((at, name)) = u.recorded.iter().find(|(at, _)| at.start < spec.start) {
                return Err(Diagnostic::new(spec.clone(), "speculate() must come before the clause's data-recording actions")
                    .label("after data is recorded")
                    .related(at.clone(), format!("{name}() records data here"))
                    .hint("call speculate() first in the action block"));
            }
            if let Some((at, name)) = u.recorded.iter().find(|(_, name)| NOT_SPECULATIVE.contains(name)).or(u.destructive.as_ref()) {
                return Err(Diagnostic::new(at.clone(), format!("{name}() cannot be speculative"))
                    .label("in a clause that speculates")
                    .related(spec.clone(), "speculate() here")
                    .hint(format!("call {name}() in a clause of its own")));
            }
            if let Some(at) = &u.aggregated {
                return Err(Diagnostic::new(at.clone(), "aggregations cannot be speculative")
                    .label("in a clause that speculates")
                    .related(spec.clone(), "speculate() here")
                    .hint("aggregate in a clause of its own"));
            }
            if let Some((at, name)) = u.commit.as_ref().map(|s| (s, "commit")).or(u.discard.as_ref().map(|s| (s, "discard"))) {
                return Err(Diagnostic::new(at.clone(), format!("a clause that speculates cannot {name}()"))
                    .label(format!("{name}() here"))
                    .related(spec.clone(), "speculate() here")
                    .hint(format!("{name}() in a clause of its own")));
            }
        }
        if let (Some(at), Some(agg)) = (&u.commit, &u.aggregated) {
            return Err(Diagnostic::new(agg.clone(), "a clause that commits cannot aggregate")
                .label("aggregates")
                .related(at.clone(), "commit() here")
                .hint("aggregate in another clause for the same probe"));
        }
        if let (Some(at), Some((rec, name))) = (&u.commit, u.recorded.first()) {
            return Err(Diagnostic::new(rec.clone(), "a clause that commits cannot record data")
                .label(format!("{name}() records data"))
                .related(at.clone(), "commit() here")
                .hint("record it in another clause for the same probe, or speculate it before committing"));
        }
        Ok(())
    }
}

/// `nspec`: how many speculations can be in use at once, 1 to [`MAX_NSPEC`].
pub(super) fn nspec_option(value: Option<&str>) -> Result<u32, (String, String)> {
    let v = value.unwrap_or("");
    match crate::parse::c_unsigned(v) {
        Ok(n) if (1..=MAX_NSPEC as u64).contains(&n) => Ok(n as u32),
        Ok(_) => Err((format!("nspec={v} is out of range"), format!("from 1 to {MAX_NSPEC} speculations can be in use at once"))),
        Err(_) => Err((format!("option `nspec` needs a number, got `{v}`"), "write a number such as `nspec=4`".into())),
    }
}
