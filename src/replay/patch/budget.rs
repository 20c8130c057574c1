//! The patch budget (L1–L3, issue 12): what one patch may still build, kept
//! as its operations apply, shared by both appliers ([`super::rfc`] and
//! [`super::client`]). The limits themselves and how a value is weighed are
//! in [`crate::limits`], a leaf the event reader uses too.
//!
//! A patch may apply at most [`MAX_PATCH_OPS`] operations, may nest the
//! document at most [`MAX_DOCUMENT_DEPTH`] deep, may not make it heavier
//! than [`MAX_DOCUMENT_BYTES`], and may copy at most that much in all.

use serde_json::Value;

use crate::limits::{
    Limit, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH, MAX_PATCH_OPS, ValueWeight, document_bytes,
    measure,
};

/// What the client's applier counts per insertion besides the value's
/// weight, so that its running total stays an upper bound of the
/// document's weight ([`Budget::add_bounded`]).
pub(super) const INSERT_ALLOWANCE: usize = 64;

/// The limit an operation would pass, and why in plain words.
#[derive(Debug)]
pub(super) struct Passed {
    /// Which limit.
    pub limit: Limit,
    /// Why, in plain words (the diagnostic's reason).
    pub reason: String,
}

/// Refuses a patch of more than [`MAX_PATCH_OPS`] operations.
pub(super) fn check_ops(num_ops: usize) -> Result<(), Passed> {
    if num_ops > MAX_PATCH_OPS {
        return Err(Passed {
            limit: Limit::Ops,
            reason: format!(
                "the patch has {num_ops} operations, more than the {MAX_PATCH_OPS} a patch may apply"
            ),
        });
    }
    Ok(())
}

/// The weight of `value` placed `depth` arrays and objects deep, if it keeps
/// the document within [`MAX_DOCUMENT_DEPTH`]; with the weight the reader
/// `measured` of the value, if it did, the same answer without walking it
/// (issue 14).
pub(super) fn weigh_placed(
    value: &Value,
    measured: Option<ValueWeight>,
    depth: usize,
) -> Option<usize> {
    let room = MAX_DOCUMENT_DEPTH.checked_sub(depth);
    match measured {
        Some(weight) => room
            .filter(|room| weight.depth <= *room)
            .map(|_| weight.bytes),
        None => room.and_then(|room| measure(value, room)),
    }
}

/// A value that would nest the document deeper than [`MAX_DOCUMENT_DEPTH`],
/// placed `at` the pointer shown, when the applier names it.
pub(super) fn too_deep(at: Option<&str>) -> Passed {
    let value = match at {
        Some(at) => format!("the value at {at}"),
        None => "the value".to_owned(),
    };
    Passed {
        limit: Limit::Depth,
        reason: format!(
            "{value} would nest the document deeper than the {MAX_DOCUMENT_DEPTH} arrays and objects a document may have"
        ),
    }
}

/// The document's weight as a patch's operations change it, and what they
/// copied.
pub(super) struct Budget {
    /// The document's weight ([`document_bytes`]): exact when kept by
    /// [`Self::change`], an upper bound when kept by [`Self::add_bounded`].
    bytes: usize,
    /// What the patch copied so far.
    copied: usize,
}

impl Budget {
    /// The budget of a patch applied to a document weighing `bytes`.
    pub fn new(bytes: usize) -> Self {
        Self { bytes, copied: 0 }
    }

    /// The document's weight as the operations left it.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether adding `most` bytes could pass the limit (an operation that
    /// might then has to be able to take itself back).
    pub fn is_tight(&self, most: usize) -> bool {
        self.bytes.saturating_add(most) > MAX_DOCUMENT_BYTES
    }

    /// Records an operation that added `added` bytes and removed `removed`;
    /// fails if it made the document heavier and heavier than the limit.
    pub fn change(&mut self, added: usize, removed: usize) -> Result<(), Passed> {
        let after = self.bytes.saturating_add(added).saturating_sub(removed);
        if added > removed && after > MAX_DOCUMENT_BYTES {
            return Err(Passed {
                limit: Limit::Bytes,
                reason: format!(
                    "it would make the document weigh {after} bytes, more than the {MAX_DOCUMENT_BYTES} (64 MiB) a patch may build"
                ),
            });
        }
        self.bytes = after;
        Ok(())
    }

    /// Whether adding a value of `weight` with [`Self::add_bounded`] weighs
    /// `doc` exactly (the bound would pass the limit).
    pub fn weighs_exactly(&self, weight: usize) -> bool {
        self.is_tight(weight + INSERT_ALLOWANCE)
    }

    /// Counts a value of `weight` inserted into `doc`, keeping the weight as
    /// an upper bound (what the client's applier does, which counts no
    /// removal): when the bound passes the limit, `doc` is weighed and the
    /// bound made exact; fails if the value then passes the limit.
    pub fn add_bounded(&mut self, doc: &Value, weight: usize) -> Result<(), Passed> {
        self.bytes = self.bytes.saturating_add(weight + INSERT_ALLOWANCE);
        if self.bytes > MAX_DOCUMENT_BYTES {
            self.bytes = document_bytes(doc).saturating_add(weight + INSERT_ALLOWANCE);
            if self.bytes > MAX_DOCUMENT_BYTES {
                return Err(Passed {
                    limit: Limit::Bytes,
                    reason: format!(
                        "it would make the document weigh more than the {MAX_DOCUMENT_BYTES} bytes (64 MiB) a patch may build"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Records a copy of `bytes`; fails once the patch has copied more than
    /// the limit in all.
    pub fn copy(&mut self, bytes: usize) -> Result<(), Passed> {
        self.copied = self.copied.saturating_add(bytes);
        if self.copied > MAX_DOCUMENT_BYTES {
            return Err(Passed {
                limit: Limit::Bytes,
                reason: format!(
                    "the patch copies more than the {MAX_DOCUMENT_BYTES} bytes (64 MiB) a patch may copy"
                ),
            });
        }
        Ok(())
    }
}
