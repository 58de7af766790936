//! The input a simulation reads, borrowed or shared.

use std::ops::Deref;
use std::sync::Arc;

/// Input data a simulation reads: borrowed from the caller (the CLI, tests) or shared with
/// it (the web worker keeps the jobs between slices, so the simulation cannot borrow them).
#[derive(Debug)]
pub enum Input<'a, T: ?Sized> {
    /// Borrowed for the simulation's lifetime.
    Borrowed(&'a T),
    /// Shared with the caller, who may keep it after the simulation ends.
    Shared(Arc<T>),
}

impl<T: ?Sized> Deref for Input<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Input::Borrowed(t) => t,
            Input::Shared(t) => t,
        }
    }
}

impl<'a, T: ?Sized> From<&'a T> for Input<'a, T> {
    fn from(t: &'a T) -> Self {
        Input::Borrowed(t)
    }
}

impl<T: ?Sized> From<Arc<T>> for Input<'_, T> {
    fn from(t: Arc<T>) -> Self {
        Input::Shared(t)
    }
}
