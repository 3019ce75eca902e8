//! Training boards of a named rule drawn from soups of every density.
//!
//! Drawn uniformly from a 4-state rule's 262,144 neighbourhoods, a board has each
//! neighbour live with chance 1/4: 5 live neighbours or more come in 3% of boards, and
//! Star Wars (live cells survive with 3, 4 or 5 and die with 6) is seen there too rarely
//! to be learned. A soup board first draws the shares of its states, uniformly among all
//! shares that sum to 1, then each cell's state from them: a sparse board, a dense one, one
//! of dying cells. Of a 4-state rule's soup boards about 12% have 5 live neighbours or
//! more and 0.5% have 8 (of uniform ones 0.0015%); of a 2-state rule's every count
//! comes about as often.

use rand::{Rng, RngExt};

use crate::model::observed_rule::LearnedRule;

/// Of a named rule's training batch, the boards drawn from a soup: every other one, the
/// rest drawn uniformly over the neighbourhoods (which Wireworld, whose answer depends on
/// one or two heads around a conductor, learns from more readily).
pub fn is_soup_board(b: usize) -> bool {
    b % 2 == 1
}

/// The number of a neighbourhood of `rule` drawn from a soup of random shares.
pub fn soup_board(rule: LearnedRule<'_>, rng: &mut impl Rng) -> usize {
    let states = rule.states();
    // Exponential draws, normalised, are uniform over the shares that sum to 1.
    let weights: Vec<f64> = (0..states)
        .map(|_| -(1.0 - rng.random::<f64>()).ln())
        .collect();
    let total: f64 = weights.iter().sum();
    let cells = std::array::from_fn(|_| {
        let mut u = rng.random::<f64>() * total;
        let mut state = 0;
        while state + 1 < states && u >= weights[state] {
            u -= weights[state];
            state += 1;
        }
        state as u8
    });
    rule.code_of(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ca_rule::CaRule;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Uniform boards of a 4-state rule have 5 or more live neighbours (state 1) in about
    /// 3% of draws and all 8 in 0.0015%; soup boards in about 12% and 0.5%.
    #[test]
    fn soups_show_every_count_of_live_neighbours() {
        let rule = LearnedRule::Named("star-wars".parse::<CaRule>().unwrap());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let draws = 20_000;
        let mut counts = [0usize; 9];
        for _ in 0..draws {
            let cells = rule.cells(soup_board(rule, &mut rng));
            let live = (0..9).filter(|&i| i != 4 && cells[i] == 1).count();
            counts[live] += 1;
        }
        let many = counts[5..].iter().sum::<usize>() as f64 / draws as f64;
        assert!((0.08..0.2).contains(&many), "{counts:?}");
        assert!(counts[8] > draws / 500, "{counts:?}");
        let states_seen = (0..draws)
            .map(|_| rule.cells(soup_board(rule, &mut rng)))
            .flat_map(|cells| cells.into_iter())
            .fold([false; 4], |mut seen, s| {
                seen[s as usize] = true;
                seen
            });
        assert_eq!(states_seen, [true; 4]);
    }
}
