//! Where the time moved between two builds: the functions whose share of the cpu-clock
//! samples changed most, with the time and the instructions behind the change.

use std::collections::BTreeMap;

use crate::results::samples::{FunctionInstructions, FunctionSamples, Moved, MovedFunction};
use crate::support::symbols::{module_of, without_simd_level};

/// The instructions counted for the builds compared, if they were counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Instructions<'a> {
    pub baseline: Option<&'a FunctionInstructions>,
    pub variant: Option<&'a FunctionInstructions>,
}

/// Where the time moved from `baseline` to `variant`: the `top` functions and modules
/// whose share changed most.
pub fn attribute(
    variant_name: &str,
    baseline: &FunctionSamples,
    variant: &FunctionSamples,
    instructions: Instructions,
    top: usize,
) -> Moved {
    Moved {
        variant: variant_name.to_string(),
        baseline_ms: baseline.total_ms_per_run(),
        variant_ms: variant.total_ms_per_run(),
        functions: moved(baseline, variant, instructions, top),
        modules: moved(
            &by_module(baseline),
            &by_module(variant),
            Instructions::default(),
            top,
        ),
    }
}

/// The `top` functions whose share of the samples changed most, largest change first.
pub fn moved(
    baseline: &FunctionSamples,
    variant: &FunctionSamples,
    instructions: Instructions,
    top: usize,
) -> Vec<MovedFunction> {
    let baseline_ir = instructions.baseline.map(by_kernel);
    let variant_ir = instructions.variant.map(by_kernel);
    // cachegrind names a library's function plainly, and does not see the kernel.
    let look_up = |ir: &Option<BTreeMap<String, u64>>, f: &str| {
        let plain = match f.strip_prefix('[') {
            Some(_) if f == "[kernel]" => return None,
            Some(rest) => rest.split_once("] ").map_or(f, |(_, symbol)| symbol),
            None => f,
        };
        ir.as_ref()
            .map(|ir| ir.get(without_simd_level(plain)).copied().unwrap_or(0))
    };
    let names: std::collections::BTreeSet<&String> = baseline
        .by_function
        .keys()
        .chain(variant.by_function.keys())
        .collect();
    let mut rows: Vec<MovedFunction> = names
        .into_iter()
        .map(|f| MovedFunction {
            function: f.clone(),
            module: module_of(f),
            baseline_samples: baseline.of(f),
            variant_samples: variant.of(f),
            baseline_share: baseline.share(f),
            variant_share: variant.share(f),
            delta_ms: variant.ms_per_run(f) - baseline.ms_per_run(f),
            baseline_instructions: look_up(&baseline_ir, f),
            variant_instructions: look_up(&variant_ir, f),
        })
        .collect();
    rows.sort_by(|a, b| {
        let change = |r: &MovedFunction| r.delta_share_points().abs();
        change(b)
            .total_cmp(&change(a))
            .then(a.function.cmp(&b.function))
    });
    rows.truncate(top);
    rows
}

/// The samples summed by module ([`module_of`]), for the same comparison one level up.
pub fn by_module(samples: &FunctionSamples) -> FunctionSamples {
    let mut modules = FunctionSamples {
        runs: samples.runs,
        ..Default::default()
    };
    for (f, n) in &samples.by_function {
        *modules.by_function.entry(module_of(f)).or_default() += n;
    }
    modules
}

/// Instructions by function with the kernels' instruction-set suffix dropped, so the
/// AVX2 count of a kernel stands beside its samples at any level.
fn by_kernel(ir: &FunctionInstructions) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (f, n) in ir {
        *out.entry(without_simd_level(f).to_string()).or_default() += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(runs: usize, pairs: &[(&str, u64)]) -> FunctionSamples {
        FunctionSamples {
            runs,
            by_function: pairs.iter().map(|(f, n)| (f.to_string(), *n)).collect(),
        }
    }

    /// By hand: the baseline's 1000 samples over 2 runs are 600 in `soft`, 400 in `hard`;
    /// the variant's 1200 over 2 runs are 900 in `soft`, 200 in `hard` and 100 in `exp`.
    #[test]
    fn the_biggest_change_of_share_comes_first_with_its_time() {
        let base = samples(
            2,
            &[
                ("logicars::kernels::soft::forward_at::avx512", 600),
                ("logicars::kernels::hard::forward_at::avx512", 400),
            ],
        );
        let variant = samples(
            2,
            &[
                ("logicars::kernels::soft::forward_at::avx512", 900),
                ("logicars::kernels::hard::forward_at::avx512", 200),
                ("[libm] exp", 100),
            ],
        );
        let rows = moved(&base, &variant, Instructions::default(), 2);
        assert_eq!(rows.len(), 2, "only the top 2");
        // hard: 40% -> 16.7% (-23.3 points); soft: 60% -> 75% (+15); exp: 0 -> 8.3%.
        assert_eq!(
            rows[0].function,
            "logicars::kernels::hard::forward_at::avx512"
        );
        assert!((rows[0].delta_share_points() - (200.0 / 12.0 - 40.0)).abs() < 1e-9);
        // 100 samples a run fewer at 999 per second: 100.1 ms less.
        assert!((rows[0].delta_ms - (-100.0 * 1000.0 / 999.0)).abs() < 1e-9);
        assert_eq!(
            rows[1].function,
            "logicars::kernels::soft::forward_at::avx512"
        );
        assert_eq!(
            (rows[1].baseline_samples, rows[1].variant_samples),
            (600, 900)
        );
        assert_eq!(rows[1].module, "logicars::kernels");
        assert_eq!(rows[1].baseline_instructions, None);
    }

    #[test]
    fn a_kernels_avx2_count_stands_beside_its_avx512_samples() {
        let base = samples(
            1,
            &[
                ("logicars::kernels::soft::forward_at::avx512", 10),
                ("main", 10),
                ("[libm] exp", 4),
                ("[kernel]", 2),
            ],
        );
        let variant = samples(
            1,
            &[
                ("logicars::kernels::soft::forward_at::avx512", 5),
                ("main", 10),
            ],
        );
        let ir_base = FunctionInstructions::from([
            ("logicars::kernels::soft::forward_at::avx2".to_string(), 700),
            ("main".to_string(), 3),
            ("exp".to_string(), 9),
        ]);
        let ir_variant = FunctionInstructions::from([(
            "logicars::kernels::soft::forward_at::avx2".to_string(),
            650,
        )]);
        let counted = Instructions {
            baseline: Some(&ir_base),
            variant: Some(&ir_variant),
        };
        let rows = moved(&base, &variant, counted, 5);
        let soft = rows.iter().find(|r| r.function.contains("soft")).unwrap();
        assert_eq!(
            (soft.baseline_instructions, soft.variant_instructions),
            (Some(700), Some(650))
        );
        let main = rows.iter().find(|r| r.function == "main").unwrap();
        assert_eq!(
            (main.baseline_instructions, main.variant_instructions),
            (Some(3), Some(0))
        );
        let exp = rows.iter().find(|r| r.function == "[libm] exp").unwrap();
        assert_eq!(exp.baseline_instructions, Some(9));
        let kernel = rows.iter().find(|r| r.function == "[kernel]").unwrap();
        assert_eq!(
            kernel.baseline_instructions, None,
            "cachegrind does not see the kernel"
        );
    }

    #[test]
    fn modules_sum_their_functions() {
        let s = samples(
            3,
            &[
                ("logicars::kernels::a", 5),
                ("logicars::kernels::b", 7),
                ("[libm] exp", 2),
                ("[libm] log", 1),
            ],
        );
        let m = by_module(&s);
        assert_eq!(m.runs, 3);
        assert_eq!(m.of("logicars::kernels"), 12);
        assert_eq!(m.of("[libm]"), 3);
        assert_eq!(m.total(), s.total());
    }
}
