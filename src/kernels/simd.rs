//! Which instruction set the kernels run with. Each kernel is compiled once per level
//! ([`multiversioned!`]) and the level is chosen at run time: the widest this CPU has,
//! or a narrower one asked for with `LOGICARS_SIMD` or [`force`], so that tests and users
//! can check that every level gives the same numbers.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// The instruction sets the kernels are compiled for, widest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SimdLevel {
    /// The target's baseline (SSE2 on x86_64).
    Baseline,
    /// AVX2 with FMA.
    Avx2,
    /// AVX-512 (F and VL) with AVX2 and FMA.
    Avx512,
}

/// The environment variable that narrows the level: `avx512`, `avx2` or `baseline`.
pub const SIMD_VAR: &str = "LOGICARS_SIMD";

/// A level this CPU cannot run, or a name that is not a level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimdError {
    #[error("this CPU cannot run {wanted} kernels (its widest level is {widest})")]
    Unsupported {
        wanted: SimdLevel,
        widest: SimdLevel,
    },
    #[error("unknown instruction set {0:?}: use avx512, avx2 or baseline")]
    Unknown(String),
}

/// The level in use: 0 until first asked, else `level as u8 + 1`.
static ACTIVE: AtomicU8 = AtomicU8::new(0);

impl SimdLevel {
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Avx512, SimdLevel::Avx2, SimdLevel::Baseline];

    /// The widest level this CPU runs. Every kernel call asserts it, so it is found once
    /// (the five feature checks showed in profiles of the gate search).
    pub fn detect() -> Self {
        static WIDEST: OnceLock<SimdLevel> = OnceLock::new();
        *WIDEST.get_or_init(Self::probe)
    }

    fn probe() -> Self {
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

    /// The levels this CPU runs, widest first.
    pub fn available() -> impl Iterator<Item = SimdLevel> {
        let widest = Self::detect();
        Self::ALL.into_iter().filter(move |&l| l <= widest)
    }

    /// The level the kernels run with: the one [`force`]d, else the one `LOGICARS_SIMD`
    /// names (which must be one this CPU has), else the widest.
    ///
    /// # Panics
    /// If `LOGICARS_SIMD` names a level this CPU lacks or no level at all: a run must not
    /// silently use another instruction set than the one asked for. Binaries call
    /// [`from_env`] first to report that as an error.
    pub fn active() -> Self {
        match ACTIVE.load(Ordering::Relaxed) {
            0 => {
                let level = from_env().unwrap_or_else(|e| panic!("{SIMD_VAR}: {e}"));
                ACTIVE.store(level as u8 + 1, Ordering::Relaxed);
                level
            }
            1 => SimdLevel::Baseline,
            2 => SimdLevel::Avx2,
            _ => SimdLevel::Avx512,
        }
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

impl std::str::FromStr for SimdLevel {
    type Err = SimdError;

    fn from_str(s: &str) -> Result<Self, SimdError> {
        match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "avx512" => Ok(SimdLevel::Avx512),
            "avx2" => Ok(SimdLevel::Avx2),
            "baseline" | "sse2" => Ok(SimdLevel::Baseline),
            _ => Err(SimdError::Unknown(s.into())),
        }
    }
}

impl std::fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The level `LOGICARS_SIMD` asks for, checked against this CPU; the widest if unset.
pub fn from_env() -> Result<SimdLevel, SimdError> {
    match std::env::var(SIMD_VAR) {
        Ok(name) if !name.is_empty() => checked(name.parse()?),
        _ => Ok(SimdLevel::detect()),
    }
}

/// Makes every kernel run with `level` from now on, in this whole process.
pub fn force(level: SimdLevel) -> Result<(), SimdError> {
    let level = checked(level)?;
    ACTIVE.store(level as u8 + 1, Ordering::Relaxed);
    Ok(())
}

fn checked(wanted: SimdLevel) -> Result<SimdLevel, SimdError> {
    let widest = SimdLevel::detect();
    if wanted > widest {
        return Err(SimdError::Unsupported { wanted, widest });
    }
    Ok(wanted)
}

/// Defines `$name(args)`, which runs the `#[inline(always)]` function `$body` compiled for
/// the [active](SimdLevel::active) level, and with `/ $name_at` also `$name_at(level,
/// args)` for a given one (for tests and benches); `fn _ / $name_at` defines only the
/// latter. `avx2 => $avx2` and `avx512 => $avx512`
/// name hand-written bodies for those levels (x86_64 only), which must give `$body`'s bits.
///
/// The level's features are enabled on a wrapper into which `$body` is inlined, so the
/// compiler vectorizes the body for that level. Results are the same at every level as
/// long as `$body` fuses multiply-adds only through `mul_add` (which is a correctly
/// rounded software routine on a baseline without FMA).
macro_rules! multiversioned {
    ($(#[$meta:meta])* $vis:vis fn $name:ident / $name_at:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:path, avx2 => $avx2:path, avx512 => $avx512:path) => {
        $crate::kernels::simd::multiversioned!(@define [$(#[$meta])*] $vis $name $name_at ($($arg: $ty),*) $body, $avx2, $avx512);
    };
    ($(#[$meta:meta])* $vis:vis fn $name:ident / $name_at:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:path) => {
        $crate::kernels::simd::multiversioned!(@define [$(#[$meta])*] $vis $name $name_at ($($arg: $ty),*) $body, $body, $body);
    };
    ($(#[$meta:meta])* $vis:vis fn $name:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:path) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) {
            let level = $crate::kernels::simd::SimdLevel::active();
            $crate::kernels::simd::multiversioned!(@dispatch level, $body, $body, $body, $($arg: $ty),*)
        }
    };
    ($(#[$meta:meta])* $vis:vis fn _ / $name_at:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:path, avx2 => $avx2:path, avx512 => $avx512:path) => {
        $(#[$meta])*
        $vis fn $name_at(level: $crate::kernels::simd::SimdLevel, $($arg: $ty),*) {
            $crate::kernels::simd::multiversioned!(@dispatch level, $body, $avx2, $avx512, $($arg: $ty),*)
        }
    };
    (@define [$(#[$meta:meta])*] $vis:vis $name:ident $name_at:ident ($($arg:ident: $ty:ty),*) $body:path, $avx2:path, $avx512:path) => {
        $(#[$meta])*
        #[inline]
        $vis fn $name($($arg: $ty),*) {
            $name_at($crate::kernels::simd::SimdLevel::active(), $($arg),*)
        }

        /// The same at `level`.
        ///
        /// # Panics
        /// If this CPU cannot run `level`.
        $vis fn $name_at(level: $crate::kernels::simd::SimdLevel, $($arg: $ty),*) {
            $crate::kernels::simd::multiversioned!(@dispatch level, $body, $avx2, $avx512, $($arg: $ty),*)
        }
    };
    (@dispatch $level:ident, $body:path, $avx2:path, $avx512:path, $($arg:ident: $ty:ty),*) => {{
        use $crate::kernels::simd::SimdLevel;
        assert!($level <= SimdLevel::detect(), "this CPU cannot run {} kernels", $level);
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
            fn avx512($($arg: $ty),*) {
                $avx512($($arg),*)
            }
            #[target_feature(enable = "avx2,fma")]
            fn avx2($($arg: $ty),*) {
                $avx2($($arg),*)
            }
            match $level {
                // SAFETY: the assertion above checked that this CPU has the features.
                SimdLevel::Avx512 => return unsafe { avx512($($arg),*) },
                // SAFETY: as above.
                SimdLevel::Avx2 => return unsafe { avx2($($arg),*) },
                SimdLevel::Baseline => {}
            }
        }
        $body($($arg),*)
    }};
}
pub(crate) use multiversioned;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_levels_and_unknown_ones_are_refused() {
        assert_eq!("avx512".parse(), Ok(SimdLevel::Avx512));
        assert_eq!("AVX-512".parse(), Ok(SimdLevel::Avx512));
        assert_eq!("avx2".parse(), Ok(SimdLevel::Avx2));
        assert_eq!("sse2".parse(), Ok(SimdLevel::Baseline));
        assert!(matches!(
            "neon".parse::<SimdLevel>(),
            Err(SimdError::Unknown(_))
        ));
    }

    #[test]
    fn available_levels_run_from_the_widest_down_to_the_baseline() {
        let levels: Vec<_> = SimdLevel::available().collect();
        assert_eq!(levels[0], SimdLevel::detect());
        assert_eq!(levels.last(), Some(&SimdLevel::Baseline));
        assert!(levels.windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn a_level_wider_than_the_cpu_is_refused() {
        if SimdLevel::detect() < SimdLevel::Avx512 {
            assert!(matches!(
                checked(SimdLevel::Avx512),
                Err(SimdError::Unsupported { .. })
            ));
        }
        assert_eq!(checked(SimdLevel::Baseline), Ok(SimdLevel::Baseline));
    }
}
