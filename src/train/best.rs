//! The best model of a run so far. A run can reach a perfect hard circuit and drift away
//! from it afterwards (weight decay keeps pulling gates towards undecided ones), so the
//! trainer keeps the parameters that scored best rather than only the last ones.

use serde::{Deserialize, Serialize};

use crate::model::gates::NUM_OPS;

/// Which model a run keeps at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    /// The parameters whose hard circuit did best on its training batch
    /// ([`BestModel`]).
    #[default]
    Best,
    /// The parameters after the last epoch.
    Last,
}

/// The parameters of the epoch whose hard circuit got the fewest bits of its training
/// batch wrong; of equal ones the latest, which has trained longest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestModel {
    /// The epoch whose metrics scored these parameters (they are the parameters before
    /// that epoch's optimizer step).
    pub epoch: usize,
    /// The hard loss that epoch measured.
    pub hard_loss: f64,
    pub logits: Vec<[f32; NUM_OPS]>,
}

impl BestModel {
    /// Keeps `logits`, scored `hard_loss` at `epoch`, when they do at least as well as
    /// the best so far; returns whether they were kept.
    pub fn offer(
        best: &mut Option<BestModel>,
        epoch: usize,
        hard_loss: f64,
        logits: &[[f32; NUM_OPS]],
    ) -> bool {
        if hard_loss.is_nan() || best.as_ref().is_some_and(|b| hard_loss > b.hard_loss) {
            return false;
        }
        // Reuses the kept vector's memory: this runs after every epoch.
        let b = best.get_or_insert_with(|| BestModel {
            epoch,
            hard_loss,
            logits: Vec::new(),
        });
        b.epoch = epoch;
        b.hard_loss = hard_loss;
        b.logits.clear();
        b.logits.extend_from_slice(logits);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logits(x: f32) -> Vec<[f32; NUM_OPS]> {
        vec![[x; NUM_OPS]; 3]
    }

    #[test]
    fn keeps_the_lowest_hard_loss_and_the_latest_of_equals() {
        let mut best = None;
        assert!(BestModel::offer(&mut best, 1, 40.0, &logits(1.0)));
        assert!(BestModel::offer(&mut best, 2, 12.0, &logits(2.0)));
        assert!(!BestModel::offer(&mut best, 3, 13.0, &logits(3.0)));
        assert!(!BestModel::offer(&mut best, 4, f64::NAN, &logits(4.0)));
        assert_eq!(
            best.as_ref().map(|b| (b.epoch, b.hard_loss)),
            Some((2, 12.0))
        );
        assert_eq!(best.as_ref().unwrap().logits, logits(2.0));
        assert!(BestModel::offer(&mut best, 5, 12.0, &logits(5.0)));
        assert_eq!(
            best.as_ref().map(|b| b.epoch),
            Some(5),
            "the latest of equals"
        );
        assert_eq!(best.unwrap().logits, logits(5.0));
    }

    #[test]
    fn a_nan_loss_is_never_best() {
        let mut best = None;
        assert!(!BestModel::offer(&mut best, 1, f64::NAN, &logits(1.0)));
        assert_eq!(best, None);
    }
}
