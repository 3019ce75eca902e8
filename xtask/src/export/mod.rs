//! Exporters: a report in, bytes out. Writing the files is the caller's job.

pub mod hyperfine;
pub mod json;
pub mod markdown;
pub mod moved;
pub mod moved_svg;
pub mod svg;

#[cfg(test)]
pub mod fixture;
