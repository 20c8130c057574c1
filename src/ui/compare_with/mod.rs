//! File › Compare with…, drawn: [`view`] draws the tab, [`strips`] the two
//! timelines. The feature's state is [`crate::app_model::compare_with`].

pub mod strips;
pub mod view;
