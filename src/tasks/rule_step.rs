//! One step of a cellular automaton's rule on whole grids: the target of the `gol` and
//! `rule` tasks, and what `check` compares a learned rule with.

use crate::automaton::grid::Grids;
use crate::model::ca_rule::CaRule;

/// One generation of `rule` on the first `rule.channels()` channels (a state per cell as
/// [`CaRule`] encodes it; values >= 0.5 are on); other channels are kept.
pub fn generation(grids: &Grids, rule: CaRule, periodic: bool) -> Grids {
    let (h, w) = (grids.height as isize, grids.width as isize);
    let channels = rule.channels();
    let mut next = grids.clone();
    let state = |b: usize, r: isize, c: isize| -> u8 {
        let (r, c) = if periodic {
            (r.rem_euclid(h), c.rem_euclid(w))
        } else if r < 0 || c < 0 || r >= h || c >= w {
            return 0;
        } else {
            (r, c)
        };
        let on = (0..channels).map(|ch| grids.get(b, r as usize, c as usize, ch) >= 0.5);
        CaRule::state_of(on)
    };
    for b in 0..grids.batch {
        for r in 0..h {
            for c in 0..w {
                let mut neighbours = [0; 8];
                let mut around = (-1..=1)
                    .flat_map(|dr| (-1..=1).map(move |dc| (dr, dc)))
                    .filter(|&d| d != (0, 0))
                    .map(|(dr, dc)| state(b, r + dr, c + dc));
                neighbours.fill_with(|| around.next().expect("8 neighbours"));
                let new = rule.next(state(b, r, c), neighbours);
                for ch in 0..channels {
                    let on = CaRule::channel_on(new, ch);
                    next.set(b, r as usize, c as usize, ch, f32::from(u8::from(on)));
                }
            }
        }
    }
    next
}

/// One Game of Life generation of channel 0.
pub fn life_generation(grids: &Grids, periodic: bool) -> Grids {
    generation(grids, CaRule::LIFE, periodic)
}
