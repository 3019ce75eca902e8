//! Helpers that several test files share; each file uses a part of them.
#![allow(dead_code)]

pub mod shards;
