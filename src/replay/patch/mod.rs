//! Applying a patch: as RFC 6902 says ([`rfc`], the `spec` profile) or as
//! the reference client's library does ([`client`], the
//! `ag-ui-client-1.0` profile), both within one budget of what a patch may
//! build ([`budget`], on the limits of [`crate::limits`]).

mod budget;
mod client;
mod rfc;

pub(super) use client::{applies_as_rfc, apply_patch_client};
pub(crate) use rfc::apply_patch_taking;
pub use rfc::{PatchFailure, apply_patch, apply_patch_weighed};
