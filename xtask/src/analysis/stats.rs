//! Pure statistics of timing samples, computed as hyperfine computes them.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// hyperfine's outlier threshold on the modified Z-score: 10 standard deviations
/// (1.4826 turns a MAD into a standard deviation).
pub const OUTLIER_THRESHOLD: f64 = 1.4826 * 10.0;

pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample standard deviation (n - 1); `None` for fewer than two samples.
pub fn stddev(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs);
    Some((xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt())
}

pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Median absolute deviation from the median.
pub fn mad(xs: &[f64]) -> f64 {
    let m = median(xs);
    median(&xs.iter().map(|x| (x - m).abs()).collect::<Vec<_>>())
}

/// `(x - median) / MAD` for every sample (0 where the MAD is 0).
pub fn modified_zscores(xs: &[f64]) -> Vec<f64> {
    let (m, d) = (median(xs), mad(xs));
    xs.iter()
        .map(|x| if d > 0.0 { (x - m) / d } else { 0.0 })
        .collect()
}

/// Samples whose modified Z-score exceeds [`OUTLIER_THRESHOLD`].
pub fn outliers(xs: &[f64]) -> usize {
    modified_zscores(xs)
        .iter()
        .filter(|z| z.abs() > OUTLIER_THRESHOLD)
        .count()
}

/// Bootstrap 95% interval of the median of `xs`, from `resamples` resamples with a fixed
/// seed, so a report is reproducible.
pub fn bootstrap_median_ci(xs: &[f64], resamples: usize, seed: u64) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut medians: Vec<f64> = (0..resamples)
        .map(|_| {
            let sample: Vec<f64> = (0..xs.len())
                .map(|_| xs[rng.random_range(0..xs.len())])
                .collect();
            median(&sample)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let at = |q: f64| medians[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    (at(0.025), at(0.975))
}

/// Quantile `p` of Student's t distribution with `df` degrees of freedom.
pub fn student_t_quantile(p: f64, df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .expect("df >= 1")
        .inverse_cdf(p)
}

/// A variant against the baseline over interleaved rounds: each round's
/// `baseline / variant` time, compared on a log scale (ratios multiply), so drift that
/// slows one round slows both sides of its pair and cancels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PairedSpeedup {
    pub rounds: usize,
    /// Geometric mean of the per-round speedups (above 1 = faster than the baseline).
    pub speedup: f64,
    /// 95% interval (Student's t on the log ratios).
    pub ci95: (f64, f64),
    /// The interval's relative half-width: `exp(t * se) - 1`.
    pub half_width: f64,
    /// The smallest true speedup these rounds detect 4 times in 5 (95% confidence, 80%
    /// power): `exp((t_0.975 + t_0.80) * se) - 1`.
    pub detectable: f64,
}

/// `None` for fewer than two rounds (no spread to estimate).
pub fn paired_speedup(x: &[f64], base: &[f64]) -> Option<PairedSpeedup> {
    assert_eq!(x.len(), base.len(), "one time per round on each side");
    let n = x.len();
    if n < 2 {
        return None;
    }
    let logs: Vec<f64> = base.iter().zip(x).map(|(b, v)| (b / v).ln()).collect();
    let m = mean(&logs);
    let se = stddev(&logs)? / (n as f64).sqrt();
    let t = student_t_quantile(0.975, n - 1);
    let power = student_t_quantile(0.80, n - 1);
    Some(PairedSpeedup {
        rounds: n,
        speedup: m.exp(),
        ci95: ((m - t * se).exp(), (m + t * se).exp()),
        half_width: (t * se).exp() - 1.0,
        detectable: ((t + power) * se).exp() - 1.0,
    })
}

pub fn geometric_mean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * (1.0 + b.abs())
    }

    #[test]
    fn basic_statistics_by_hand() {
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert!(close(mean(&xs), 5.0));
        // Sum of squared deviations = 32; 32 / 7.
        assert!(close(stddev(&xs).unwrap(), (32.0f64 / 7.0).sqrt()));
        assert!(close(median(&xs), 4.5));
        assert!(close(median(&[3.0, 1.0, 2.0]), 2.0));
        assert_eq!((min(&xs), max(&xs)), (2.0, 9.0));
        // |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median 0.5.
        assert!(close(mad(&xs), 0.5));
        assert_eq!(stddev(&[1.0]), None);
    }

    #[test]
    fn outliers_follow_hyperfines_threshold() {
        let mut xs = vec![1.0, 1.01, 0.99, 1.02, 0.98, 1.0];
        assert_eq!(outliers(&xs), 0);
        // MAD = 0.01; a sample 0.2 above the median has Z = 20 > 14.826.
        xs.push(1.2);
        assert_eq!(outliers(&xs), 1);
        assert_eq!(outliers(&[1.0, 1.0, 1.0]), 0, "MAD 0 flags nothing");
    }

    #[test]
    fn bootstrap_median_interval_brackets_the_median() {
        let xs: Vec<f64> = (0..20).map(|i| 2.0 + 0.01 * (i % 5) as f64).collect();
        let (lo, hi) = bootstrap_median_ci(&xs, 2000, 1);
        assert!(lo <= median(&xs) && median(&xs) <= hi, "{lo} {hi}");
        assert!(lo >= 2.0 && hi <= 2.04, "{lo} {hi}");
        assert_eq!(bootstrap_median_ci(&xs, 2000, 1), (lo, hi), "seeded");
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Printed t tables: t(0.975; 3) = 3.182, t(0.80; 3) = 0.978, t(0.975; 30) = 2.042.
        assert!((student_t_quantile(0.975, 3) - 3.182446).abs() < 1e-5);
        assert!((student_t_quantile(0.80, 3) - 0.978472).abs() < 1e-5);
        assert!((student_t_quantile(0.975, 30) - 2.042272).abs() < 1e-5);
    }

    /// Four rounds whose speedups are e^0.01, e^0.03, e^0.02, e^0.02: log mean 0.02,
    /// sd sqrt(0.0002 / 3), se = sd / 2 = 0.0040825; t(0.975; 3) = 3.182446,
    /// t(0.80; 3) = 0.978472.
    #[test]
    fn paired_speedup_by_hand() {
        let base = [1.0, 1.0, 1.0, 1.0];
        let x: Vec<f64> = [0.01f64, 0.03, 0.02, 0.02]
            .iter()
            .map(|l| (-l).exp())
            .collect();
        let p = paired_speedup(&x, &base).unwrap();
        let se = (0.0002f64 / 3.0).sqrt() / 2.0;
        assert!(close(p.speedup, 0.02f64.exp()));
        assert!((p.ci95.0 - (0.02f64 - 3.182446 * se).exp()).abs() < 1e-6);
        assert!((p.ci95.1 - (0.02f64 + 3.182446 * se).exp()).abs() < 1e-6);
        assert!((p.half_width - 0.013077).abs() < 1e-5, "{}", p.half_width);
        assert!((p.detectable - 0.017132).abs() < 1e-5, "{}", p.detectable);
        assert_eq!(p.rounds, 4);
        assert_eq!(paired_speedup(&[1.0], &[1.0]), None);
    }

    #[test]
    fn drift_shared_by_a_round_cancels_in_the_pairs() {
        // Each round is slower than the one before, both sides alike: the variant is
        // exactly 10% faster every round, so the interval has no width.
        let base = [1.0, 1.5, 2.0, 3.0];
        let x: Vec<f64> = base.iter().map(|b| b / 1.1).collect();
        let p = paired_speedup(&x, &base).unwrap();
        assert!(close(p.speedup, 1.1));
        assert!(p.half_width < 1e-9 && p.detectable < 1e-9);
    }

    #[test]
    fn geometric_mean_by_hand() {
        assert!(close(geometric_mean(&[1.0, 4.0]), 2.0));
        assert!(close(geometric_mean(&[0.5, 2.0, 1.0]), 1.0));
    }
}
