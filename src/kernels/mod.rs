//! Hot loops over the lanes of one tile. Each fast kernel has a scalar reference beside
//! it, and tests compare the two.

pub mod forward_plan;
pub mod hard;
pub mod lanes;
pub mod parameters;
pub mod simd;
pub mod soft;
#[cfg(target_arch = "x86_64")]
mod soft_avx2;
#[cfg(target_arch = "x86_64")]
mod soft_avx512;
pub mod table;
