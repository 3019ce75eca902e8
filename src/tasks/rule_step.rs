//! One step of a cellular automaton's rule on whole grids: the target of the `gol` and
//! `rule` tasks, and what `check` compares a learned rule with.

use crate::automaton::grid::Grids;
use crate::model::ca_rule::CaRule;
use crate::model::observed_rule::LearnedRule;

/// One generation of `rule` on the first `rule.channels()` channels (a state per cell as
/// [`CaRule`] encodes it; values >= 0.5 are on); other channels are kept. A cell whose
/// neighbourhood the rule does not know (a recording never showed it) gets NaN in every
/// state channel: a target no loss or count takes into account.
pub fn generation(grids: &Grids, rule: LearnedRule<'_>, periodic: bool) -> Grids {
    let (h, w) = (grids.height as isize, grids.width as isize);
    let channels = rule.channels();
    let mut next = grids.clone();
    // Each cell's state read once per grid, then its 9 neighbours looked up.
    let mut states = vec![0u8; grids.cells()];
    for b in 0..grids.batch {
        for (cell, state) in states.iter_mut().enumerate() {
            let (r, c) = (cell / grids.width, cell % grids.width);
            let on = (0..channels).map(|ch| grids.get(b, r, c, ch) >= 0.5);
            *state = CaRule::state_of(on);
        }
        let state = |r: isize, c: isize| -> u8 {
            let (r, c) = if periodic {
                (r.rem_euclid(h), c.rem_euclid(w))
            } else if r < 0 || c < 0 || r >= h || c >= w {
                return 0;
            } else {
                (r, c)
            };
            states[(r * w + c) as usize]
        };
        for r in 0..h {
            for c in 0..w {
                let mut cells = [0; 9];
                for (i, cell) in cells.iter_mut().enumerate() {
                    *cell = state(r + i as isize / 3 - 1, c + i as isize % 3 - 1);
                }
                let new = rule.next(cells);
                for ch in 0..channels {
                    let on = new.map(|s| f32::from(u8::from(CaRule::channel_on(s, ch))));
                    next.set(b, r as usize, c as usize, ch, on.unwrap_or(f32::NAN));
                }
            }
        }
    }
    next
}

/// One Game of Life generation of channel 0.
pub fn life_generation(grids: &Grids, periodic: bool) -> Grids {
    generation(grids, LearnedRule::Named(CaRule::LIFE), periodic)
}
