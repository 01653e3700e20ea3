//! The one trait every changer, real or emulated, is driven through.

use super::element::{Element, ElementAddress, ElementKind, Params};
use super::error::ChangerError;

/// A medium changer: what it has, what each element holds, and moves.
pub trait MediumChanger: Send {
    /// How many elements of each kind.
    fn params(&mut self) -> Result<Params, ChangerError>;

    /// Every element of `kind`, in index order.
    fn elements(&mut self, kind: ElementKind) -> Result<Vec<Element>, ChangerError>;

    /// Moves the medium in `from` to `to`; returns when the robot is done.
    fn move_medium(&mut self, from: ElementAddress, to: ElementAddress)
        -> Result<(), ChangerError>;
}
