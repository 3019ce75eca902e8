//! Pure statistics of timing samples, computed as hyperfine computes them.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

/// `mean / baseline_mean` and its standard deviation, propagated from both samples'
/// relative standard deviations (hyperfine's formula).
pub fn relative(mean_x: f64, sd_x: f64, mean_base: f64, sd_base: f64) -> (f64, f64) {
    let ratio = mean_x / mean_base;
    let sd = ratio * ((sd_x / mean_x).powi(2) + (sd_base / mean_base).powi(2)).sqrt();
    (ratio, sd)
}

/// Bootstrap 95% interval of `median(base) / median(x)` (a speedup: above 1 = faster),
/// from `resamples` resamples with a fixed seed, so a report is reproducible.
pub fn bootstrap_speedup_ci(x: &[f64], base: &[f64], resamples: usize, seed: u64) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let draw = |xs: &[f64], rng: &mut ChaCha8Rng| -> f64 {
        let sample: Vec<f64> = (0..xs.len())
            .map(|_| xs[rng.random_range(0..xs.len())])
            .collect();
        median(&sample)
    };
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| draw(base, &mut rng) / draw(x, &mut rng))
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    (at(0.025), at(0.975))
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
    fn relative_speed_propagates_uncertainty() {
        // 2 +- 0.2 against 1 +- 0.1: ratio 2, sd = 2 * sqrt(0.01 + 0.01).
        let (r, sd) = relative(2.0, 0.2, 1.0, 0.1);
        assert!(close(r, 2.0));
        assert!(close(sd, 2.0 * 0.02f64.sqrt()));
    }

    #[test]
    fn bootstrap_interval_brackets_the_true_ratio() {
        let base: Vec<f64> = (0..20).map(|i| 2.0 + 0.01 * (i % 5) as f64).collect();
        let fast: Vec<f64> = (0..20).map(|i| 1.0 + 0.01 * (i % 4) as f64).collect();
        let (lo, hi) = bootstrap_speedup_ci(&fast, &base, 2000, 1);
        let point = median(&base) / median(&fast);
        assert!(lo <= point && point <= hi, "{lo} {point} {hi}");
        assert!(lo > 1.8 && hi < 2.2, "{lo} {hi}");
        assert_eq!(
            bootstrap_speedup_ci(&fast, &base, 2000, 1),
            (lo, hi),
            "seeded"
        );
    }

    #[test]
    fn geometric_mean_by_hand() {
        assert!(close(geometric_mean(&[1.0, 4.0]), 2.0));
        assert!(close(geometric_mean(&[0.5, 2.0, 1.0]), 1.0));
    }
}
