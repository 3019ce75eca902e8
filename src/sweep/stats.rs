//! The statistics a sweep reports: success rates with an interval, and medians.

/// The Wilson score interval at 95% for `successes` of `runs`: unlike the normal
/// approximation it stays inside [0, 1] and is honest for 0 or all successes.
pub fn wilson_95(successes: usize, runs: usize) -> (f64, f64) {
    if runs == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = runs as f64;
    let p = successes as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The median (mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some(0.5 * (sorted[n / 2 - 1] + sorted[n / 2])),
    }
}

/// The `share` percentile by nearest rank: the smallest value at least `share` of the
/// values are at most (the 9th of 10 for 0.9); `None` when empty.
pub fn percentile(values: &[f64], share: f64) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (share * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len().max(1)) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computed_values() {
        // 9 of 10: p = 0.9, n = 10, z = 1.96: (0.5958, 0.9821).
        let (lo, hi) = wilson_95(9, 10);
        assert!(
            (lo - 0.5958).abs() < 1e-4 && (hi - 0.9821).abs() < 1e-4,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_95(0, 20);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.1611).abs() < 1e-4, "{hi}");
        assert_eq!(wilson_95(0, 0), (0.0, 1.0));
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn percentile_by_nearest_rank() {
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&ten, 0.9), Some(9.0));
        assert_eq!(percentile(&ten, 0.5), Some(5.0));
        assert_eq!(percentile(&ten, 1.0), Some(10.0));
        assert_eq!(percentile(&[3.0, f64::INFINITY], 0.9), Some(f64::INFINITY));
        assert_eq!(percentile(&[4.0], 0.1), Some(4.0));
        assert_eq!(percentile(&[], 0.9), None);
    }
}
