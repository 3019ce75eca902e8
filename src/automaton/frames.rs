//! Hard rollouts frame by frame, with optional damage: what `render` and `check` show.

use std::convert::Infallible;

use crate::automaton::grid::Grids;
use crate::automaton::hard_run::HardRun;
use crate::automaton::masks::FireMasks;
use crate::error::DamageError;
use crate::model::network::Model;

/// A block of cells zeroed (all channels) after each step in `first_step..=last_step`,
/// as the paper's fault-tolerance and self-healing experiments do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    pub rows: usize,
    pub cols: usize,
    /// Top-left cell of the block.
    pub top: usize,
    pub left: usize,
    pub first_step: usize,
    pub last_step: usize,
}

impl Damage {
    /// Parses `RxC@A..B` (a block centred in the grid, steps A to B inclusive).
    pub fn parse(text: &str, height: usize, width: usize) -> Result<Self, DamageError> {
        let bad = |reason: &str| DamageError::Syntax {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (size, steps) = text.split_once('@').ok_or_else(|| bad("missing @"))?;
        let (r, c) = size
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("missing x in the block size"))?;
        let (a, b) = steps
            .split_once("..")
            .ok_or_else(|| bad("missing .. in the step range"))?;
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| bad(&format!("'{s}' is not a whole number")))
        };
        let (rows, cols, first_step, last_step) = (num(r)?, num(c)?, num(a)?, num(b)?);
        Self::centred(rows, cols, first_step, last_step, height, width)
            .map_err(|e| bad(&e.to_string()))
    }

    /// A block centred in a `height x width` grid.
    pub fn centred(
        rows: usize,
        cols: usize,
        first_step: usize,
        last_step: usize,
        height: usize,
        width: usize,
    ) -> Result<Self, DamageError> {
        if rows == 0 || cols == 0 {
            return Err(DamageError::EmptyBlock);
        }
        if rows > height || cols > width {
            return Err(DamageError::TooLarge {
                rows,
                cols,
                height,
                width,
            });
        }
        if first_step > last_step {
            return Err(DamageError::EmptySteps {
                first: first_step,
                last: last_step,
            });
        }
        Ok(Damage {
            rows,
            cols,
            top: (height - rows) / 2,
            left: (width - cols) / 2,
            first_step,
            last_step,
        })
    }

    /// The block as [`Damage::parse`] reads it back (`RxC@A..B`), for one centred as
    /// [`Damage::centred`] centres it.
    pub fn flag(&self) -> String {
        format!(
            "{}x{}@{}..{}",
            self.rows, self.cols, self.first_step, self.last_step
        )
    }

    pub fn applies_at(&self, step: usize) -> bool {
        (self.first_step..=self.last_step).contains(&step)
    }

    pub fn apply(&self, grids: &mut Grids) {
        for b in 0..grids.batch {
            for r in self.top..(self.top + self.rows).min(grids.height) {
                for c in self.left..(self.left + self.cols).min(grids.width) {
                    for ch in 0..grids.channels {
                        grids.set(b, r, c, ch, 0.0);
                    }
                }
            }
        }
    }
}

/// The grids before the first step and after every step of a hard rollout. Damage that
/// applies at step `t` is applied to the state after step `t` (step 0 = the initial grid).
pub fn hard_frames(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: Option<&Damage>,
) -> Vec<Grids> {
    let mut frames = Vec::with_capacity(steps + 1);
    visit(model, init, steps, masks, damage, |frame| {
        frames.push(frame.clone())
    });
    frames
}

/// The last of [`hard_frames`], unpacking no other (only the damaged ones, to damage
/// them); `after_step(t)` sees each step done, to show progress on long rollouts.
pub fn hard_last_frame(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: Option<&Damage>,
    mut after_step: impl FnMut(usize),
) -> Grids {
    let (mut run, first) = start(model, init, damage);
    if steps == 0 {
        return first;
    }
    for t in 0..steps {
        step(&mut run, masks, damage, t);
        after_step(t);
    }
    run.state()
}

/// [`for_each_hard_frame`] with a visitor that cannot fail.
fn visit(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: Option<&Damage>,
    mut each: impl FnMut(&Grids),
) {
    let done: Result<(), Infallible> =
        for_each_hard_frame(model, init, steps, masks, damage, |frame| {
            each(frame);
            Ok(())
        });
    done.unwrap_or_else(|never| match never {});
}

/// [`hard_frames`] handed to `each` one at a time instead of kept, so that a long
/// rollout needs the memory of one frame; stops at the first error of `each`.
pub fn for_each_hard_frame<E>(
    model: &Model,
    init: &Grids,
    steps: usize,
    masks: Option<&FireMasks>,
    damage: Option<&Damage>,
    mut each: impl FnMut(&Grids) -> Result<(), E>,
) -> Result<(), E> {
    let (mut run, first) = start(model, init, damage);
    each(&first)?;
    for t in 0..steps {
        step(&mut run, masks, damage, t);
        each(&run.state())?;
    }
    Ok(())
}

/// `model`'s hard rollout from its first frame: `init`, damaged when the damage applies
/// at step 0.
fn start(model: &Model, init: &Grids, damage: Option<&Damage>) -> (HardRun, Grids) {
    let mut run = HardRun::new(model, init.batch, (init.height, init.width));
    let mut first = init.clone();
    if let Some(d) = damage.filter(|d| d.applies_at(0)) {
        d.apply(&mut first);
    }
    run.set_state(&first);
    (run, first)
}

/// Runs step `t`, then applies the damage due after it.
fn step(run: &mut HardRun, masks: Option<&FireMasks>, damage: Option<&Damage>, t: usize) {
    run.step(masks, t);
    if let Some(d) = damage.filter(|d| d.applies_at(t + 1)) {
        let mut state = run.state();
        d.apply(&mut state);
        run.set_state(&state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_centred_block() {
        let d = Damage::parse("10x10@0..40", 64, 64).unwrap();
        assert_eq!((d.top, d.left, d.rows, d.cols), (27, 27, 10, 10));
        assert!(d.applies_at(0) && d.applies_at(40) && !d.applies_at(41));
    }

    #[test]
    fn rejects_damage_outside_the_grid_or_malformed() {
        assert!(Damage::parse("20x4@0..3", 16, 16)
            .unwrap_err()
            .to_string()
            .contains("does not fit"));
        assert!(Damage::parse("4x4@5..3", 16, 16)
            .unwrap_err()
            .to_string()
            .contains("empty"));
        assert!(Damage::parse("4x4", 16, 16).is_err());
        assert!(Damage::parse("ax4@0..1", 16, 16).is_err());
        assert!(Damage::parse("0x4@0..1", 16, 16).is_err());
    }

    #[test]
    fn apply_zeroes_only_the_block() {
        let mut g = Grids::zeros(1, 6, 6, 2);
        g.values.fill(1.0);
        Damage::centred(2, 2, 0, 0, 6, 6).unwrap().apply(&mut g);
        let zeros = g.values.iter().filter(|&&v| v == 0.0).count();
        assert_eq!(zeros, 2 * 2 * 2);
        assert_eq!(g.get(0, 2, 2, 1), 0.0);
        assert_eq!(g.get(0, 1, 2, 0), 1.0);
    }
}
