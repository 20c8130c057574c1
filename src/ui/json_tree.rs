//! A collapsible JSON tree with highlighted paths.
