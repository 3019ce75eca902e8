//! Exporters: a report in, bytes out. Writing the files is the caller's job.

pub mod json;
pub mod markdown;

#[cfg(test)]
pub mod fixture;
