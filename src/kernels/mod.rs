//! Hot loops over the lanes of one tile. Each fast kernel has a scalar reference beside
//! it, and tests compare the two.

pub mod hard;
pub mod parameters;
pub mod plan;
pub mod simd;
pub mod soft;
pub mod subnormals;
pub mod table;
