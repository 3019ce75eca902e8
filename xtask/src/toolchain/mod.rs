//! The tools the pipeline runs: rustc and its LLVM, and where to find the others.

pub mod rustc;
pub mod tools;
