//! Small helpers that several commands, stages and the measurement share.

pub mod files;
pub mod label;
pub mod symbols;
pub mod text;
