//! Which instruction set the kernels run with on this machine. The kernels choose it at
//! run time (`multiversion`); this module names the same choice so that reports and the
//! build pipeline can say which one ran.

/// The instruction sets the kernels are compiled for, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimdLevel {
    /// AVX-512 (F and VL) with AVX2 and FMA.
    Avx512,
    /// AVX2 with FMA.
    Avx2,
    /// The target's baseline (SSE2 on x86_64).
    Baseline,
}

impl SimdLevel {
    /// The level the kernels select on this CPU: the same feature sets as their
    /// `multiversion` targets, widest first.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx2 = has!("avx2") && has!("fma");
            if avx2 && has!("avx512f") && has!("avx512vl") {
                return SimdLevel::Avx512;
            }
            if avx2 {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Baseline
    }

    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Avx512 => "AVX-512",
            SimdLevel::Avx2 => "AVX2",
            SimdLevel::Baseline if cfg!(target_arch = "x86_64") => "SSE2",
            SimdLevel::Baseline => "baseline",
        }
    }
}

impl std::fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
