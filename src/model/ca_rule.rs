//! A cellular automaton's rule on the 3x3 (Moore) neighbourhood: Life-like rules in B/S
//! notation, Generations rules (a dying cell counts down through extra states) and
//! Wireworld. A rule is written in a model file as its canonical string (`B3/S23`,
//! `B2/S/C3`, `wireworld`).
//!
//! A cell's state is stored over [`CaRule::channels`] channels: state 0 (dead, empty)
//! with every channel off, state `k >= 1` with channel `k - 1` alone on. A Life-like
//! rule has one channel, as the Game of Life; the live cells (Wireworld's electron heads)
//! are always channel 0, so that counting them needs one channel's neighbourhood
//! (`docs/tasks.md`, "Any rule").

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The most states a rule may have (3 channels per cell), so that every one of the
/// `states^9` neighbourhoods can be checked (4^9 = 262,144).
pub const MAX_STATES: usize = 4;

/// A rule: the next state of a cell from its own state and its 8 neighbours'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum CaRule {
    /// Outer totalistic: a dead cell (state 0) with `n` live neighbours (state 1) is born
    /// when bit `n` of `birth` is set; a live cell survives when bit `n` of `survive` is.
    /// With more than 2 `states`, a live cell that does not survive goes to state 2 and
    /// counts up to `states - 1`, then dies (Generations).
    Totalistic {
        birth: u16,
        survive: u16,
        states: u8,
    },
    /// Wireworld: 0 empty, 1 electron head, 2 tail, 3 conductor. A head becomes a tail, a
    /// tail a conductor, and a conductor a head when 1 or 2 of its neighbours are heads.
    Wireworld,
}

/// Why a rule string was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RuleError {
    #[error(
        "cannot read the rule {0:?}: write it as B3/S23 (Life-like), B2/S/C3 or 345/2/4 \
         (Generations), or a name ({names})",
        names = ALIASES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    )]
    Unreadable(String),
    #[error("the rule {rule:?} has {states} states; at most {MAX_STATES} are supported (every one of the states^9 neighbourhoods is checked)")]
    TooManyStates { rule: String, states: usize },
}

/// Names a rule may be given by, and the rule each stands for.
const ALIASES: [(&str, &str); 15] = [
    ("life", "B3/S23"),
    ("conway", "B3/S23"),
    ("highlife", "B36/S23"),
    ("seeds", "B2/S"),
    ("day-and-night", "B3678/S34678"),
    ("replicator", "B1357/S1357"),
    ("life-without-death", "B3/S012345678"),
    ("maze", "B3/S12345"),
    ("2x2", "B36/S125"),
    ("diamoeba", "B35678/S5678"),
    ("morley", "B368/S245"),
    ("anneal", "B4678/S35678"),
    ("brians-brain", "B2/S/C3"),
    ("star-wars", "B2/S345/C4"),
    ("wireworld", "wireworld"),
];

impl CaRule {
    /// Conway's Game of Life.
    pub const LIFE: CaRule = CaRule::Totalistic {
        birth: 1 << 3,
        survive: (1 << 2) | (1 << 3),
        states: 2,
    };

    /// States a cell can be in.
    pub fn states(self) -> usize {
        match self {
            CaRule::Totalistic { states, .. } => states as usize,
            CaRule::Wireworld => 4,
        }
    }

    /// Channels a cell's state takes: one per state besides 0.
    pub fn channels(self) -> usize {
        self.states() - 1
    }

    /// Whether channel `channel` is on in a cell of state `state`.
    pub fn channel_on(state: u8, channel: usize) -> bool {
        state as usize == channel + 1
    }

    /// The state of a cell whose channels read `on` (the first channel on; 0 when none).
    pub fn state_of(on: impl IntoIterator<Item = bool>) -> u8 {
        on.into_iter()
            .position(|on| on)
            .map_or(0, |channel| channel as u8 + 1)
    }

    /// Every neighbourhood the rule is defined on: `states^9`.
    pub fn neighbourhoods(self) -> usize {
        self.states().pow(9)
    }

    /// The next state of a cell in `centre` state whose 8 neighbours are in `neighbours`.
    pub fn next(self, centre: u8, neighbours: [u8; 8]) -> u8 {
        match self {
            CaRule::Totalistic {
                birth,
                survive,
                states,
            } => {
                let alive = neighbours.iter().filter(|&&s| s == 1).count();
                match centre {
                    0 => u8::from(birth >> alive & 1 == 1),
                    1 if survive >> alive & 1 == 1 => 1,
                    _ if centre + 1 < states => centre + 1,
                    _ => 0,
                }
            }
            CaRule::Wireworld => match centre {
                0 => 0,
                1 => 2,
                2 => 3,
                _ => match neighbours.iter().filter(|&&s| s == 1).count() {
                    1 | 2 => 1,
                    _ => 3,
                },
            },
        }
    }

    /// The next state of the centre of neighbourhood number `code`: its 9 cells in
    /// row-major order as the digits of `code` in base `states`, cell 0 the lowest.
    pub fn next_of_code(self, code: usize) -> u8 {
        self.next_of_cells(digits(code, self.states()))
    }

    /// The next state of the centre of a neighbourhood's 9 `cells` (row-major, centre
    /// at 4).
    pub fn next_of_cells(self, cells: [u8; 9]) -> u8 {
        let mut neighbours = [0; 8];
        neighbours[..4].copy_from_slice(&cells[..4]);
        neighbours[4..].copy_from_slice(&cells[5..]);
        self.next(cells[4], neighbours)
    }
}

impl CaRule {
    /// The named rule whose next state is `table[code]` for every neighbourhood `code` of
    /// `states` states, if one is: Wireworld, or the outer totalistic rule read off the
    /// table's dead and live centres.
    pub fn matching(table: &[u8], states: usize) -> Option<CaRule> {
        if table.len() != states.pow(9) || !(2..=MAX_STATES).contains(&states) {
            return None;
        }
        let (mut birth, mut survive) = (0u16, 0u16);
        for (code, &next) in table.iter().enumerate() {
            let cells = digits(code, states);
            let alive = cells
                .iter()
                .enumerate()
                .filter(|&(i, &s)| i != 4 && s == 1)
                .count();
            match (cells[4], next) {
                (0, 1) => birth |= 1 << alive,
                (1, 1) => survive |= 1 << alive,
                _ => {}
            }
        }
        let totalistic = CaRule::Totalistic {
            birth,
            survive,
            states: states as u8,
        };
        let candidates = [totalistic, CaRule::Wireworld];
        candidates.into_iter().find(|rule| {
            rule.states() == states
                && table
                    .iter()
                    .enumerate()
                    .all(|(code, &next)| rule.next_of_code(code) == next)
        })
    }
}

/// The 9 cells of neighbourhood `code` (digits in base `states`, cell 0 the lowest).
pub fn digits(mut code: usize, states: usize) -> [u8; 9] {
    let mut cells = [0; 9];
    for cell in &mut cells {
        *cell = (code % states) as u8;
        code /= states;
    }
    cells
}

impl fmt::Display for CaRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts = |mask: u16| -> String {
            (0..=8)
                .filter(|n| mask >> n & 1 == 1)
                .map(|n| char::from(b'0' + n))
                .collect()
        };
        match *self {
            CaRule::Totalistic {
                birth,
                survive,
                states,
            } => {
                write!(f, "B{}/S{}", counts(birth), counts(survive))?;
                if states > 2 {
                    write!(f, "/C{states}")?;
                }
                Ok(())
            }
            CaRule::Wireworld => f.write_str("wireworld"),
        }
    }
}

impl FromStr for CaRule {
    type Err = RuleError;

    /// Reads `B3/S23` or `S23/B3` (either case), `23/3` (survival/birth), Generations as
    /// `B2/S/C3`, `B2/S/3` or `/2/3` (survival/birth/states), and the names in [`ALIASES`].
    fn from_str(text: &str) -> Result<CaRule, RuleError> {
        let unreadable = || RuleError::Unreadable(text.to_string());
        let lower = text.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let spelled = ALIASES
            .iter()
            .find(|(name, _)| *name == lower || name.replace('-', "") == lower)
            .map_or(lower.clone(), |(_, rule)| rule.to_ascii_lowercase());
        if spelled == "wireworld" {
            return Ok(CaRule::Wireworld);
        }
        let parts: Vec<&str> = spelled.split('/').collect();
        let (birth, survive, states) = match parts.as_slice() {
            [a, b] => lettered(a, b, None).or_else(|| plain(b, a, None)),
            [a, b, c] => lettered(a, b, Some(c)).or_else(|| plain(b, a, Some(c))),
            _ => None,
        }
        .ok_or_else(unreadable)?;
        let states = states.unwrap_or(2);
        if !(2..=MAX_STATES).contains(&states) {
            return match states {
                0 | 1 => Err(unreadable()),
                _ => Err(RuleError::TooManyStates {
                    rule: text.to_string(),
                    states,
                }),
            };
        }
        Ok(CaRule::Totalistic {
            birth,
            survive,
            states: states as u8,
        })
    }
}

/// `B.../S...` in either order, with an optional `C<states>` or `<states>` third part.
fn lettered(a: &str, b: &str, c: Option<&&str>) -> Option<(u16, u16, Option<usize>)> {
    let (birth, survive) = match (a.strip_prefix('b'), b.strip_prefix('s')) {
        (Some(birth), Some(survive)) => (birth, survive),
        _ => (b.strip_prefix('b')?, a.strip_prefix('s')?),
    };
    Some((counts(birth)?, counts(survive)?, states_of(c)?))
}

/// Digits only, survival first (`23/3`, `345/2/4`).
fn plain(birth: &str, survive: &str, c: Option<&&str>) -> Option<(u16, u16, Option<usize>)> {
    Some((counts(birth)?, counts(survive)?, states_of(c)?))
}

/// The optional third part: `None` when absent, `Some(None)` when unreadable.
fn states_of(c: Option<&&str>) -> Option<Option<usize>> {
    match c {
        None => Some(None),
        Some(c) => c.strip_prefix('c').unwrap_or(c).parse().ok().map(Some),
    }
}

/// Neighbour counts as digits 0..=8, each at most once, as a bit mask.
fn counts(digits: &str) -> Option<u16> {
    digits.chars().try_fold(0u16, |mask, ch| {
        let n = ch.to_digit(10).filter(|&n| n <= 8)?;
        (mask >> n & 1 == 0).then_some(mask | 1 << n)
    })
}

impl TryFrom<String> for CaRule {
    type Error = RuleError;
    fn try_from(text: String) -> Result<CaRule, RuleError> {
        text.parse()
    }
}

impl From<CaRule> for String {
    fn from(rule: CaRule) -> String {
        rule.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> CaRule {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn the_spellings_of_life_are_one_rule() {
        for text in [
            "B3/S23", "b3/s23", "S23/B3", "23/3", "life", "Conway", "B3/S32",
        ] {
            assert_eq!(rule(text), CaRule::LIFE, "{text}");
        }
        assert_eq!(CaRule::LIFE.to_string(), "B3/S23");
    }

    #[test]
    fn generations_are_read_in_three_notations() {
        let brain = CaRule::Totalistic {
            birth: 1 << 2,
            survive: 0,
            states: 3,
        };
        for text in ["B2/S/C3", "B2/S/3", "/2/3", "brians-brain", "Brian's Brain"] {
            if text.contains('\'') {
                assert!(text.parse::<CaRule>().is_err());
                continue;
            }
            assert_eq!(rule(text), brain, "{text}");
        }
        assert_eq!(brain.to_string(), "B2/S/C3");
        assert_eq!(rule("345/2/4"), rule("star-wars"));
        assert_eq!(rule("star-wars").to_string(), "B2/S345/C4");
    }

    #[test]
    fn unreadable_rules_are_refused() {
        for text in [
            "",
            "B9/S23",
            "B3/S23/C1",
            "B33/S23",
            "X3/S23",
            "B3",
            "B3/S2/C3/4",
        ] {
            assert!(
                matches!(text.parse::<CaRule>(), Err(RuleError::Unreadable(_))),
                "{text}"
            );
        }
        assert_eq!(
            "B2/S/C5".parse::<CaRule>(),
            Err(RuleError::TooManyStates {
                rule: "B2/S/C5".into(),
                states: 5
            })
        );
    }

    #[test]
    fn a_channel_per_state_besides_zero() {
        assert_eq!(CaRule::LIFE.channels(), 1);
        assert_eq!(rule("brians-brain").channels(), 2);
        assert_eq!(CaRule::Wireworld.channels(), 3);
        assert_eq!(rule("brians-brain").neighbourhoods(), 19_683);
        for state in 0..4u8 {
            let on = (0..3).map(|c| CaRule::channel_on(state, c));
            assert_eq!(CaRule::state_of(on), state);
        }
    }

    #[test]
    fn life_by_hand() {
        let n = |alive: usize| {
            let mut cells = [0u8; 8];
            cells[..alive].fill(1);
            cells
        };
        assert_eq!(CaRule::LIFE.next(0, n(3)), 1);
        assert_eq!(CaRule::LIFE.next(0, n(2)), 0);
        assert_eq!(CaRule::LIFE.next(1, n(2)), 1);
        assert_eq!(CaRule::LIFE.next(1, n(4)), 0);
        assert_eq!(CaRule::LIFE.next(1, n(1)), 0);
    }

    #[test]
    fn brians_brain_by_hand() {
        let brain = rule("brians-brain");
        // Born on exactly 2 live neighbours; dying neighbours (2) do not count.
        assert_eq!(brain.next(0, [1, 1, 2, 2, 0, 0, 0, 0]), 1);
        assert_eq!(brain.next(0, [1, 1, 1, 0, 0, 0, 0, 0]), 0);
        // A live cell always starts dying, a dying one dies.
        assert_eq!(brain.next(1, [1, 1, 0, 0, 0, 0, 0, 0]), 2);
        assert_eq!(brain.next(2, [1, 1, 0, 0, 0, 0, 0, 0]), 0);
        // Star Wars: survival on 3 to 5, then 2 dying states.
        let wars = rule("star-wars");
        assert_eq!(wars.next(1, [1, 1, 1, 0, 0, 0, 0, 0]), 1);
        assert_eq!(wars.next(1, [1, 0, 0, 0, 0, 0, 0, 0]), 2);
        assert_eq!(wars.next(2, [0; 8]), 3);
        assert_eq!(wars.next(3, [1; 8]), 0);
    }

    #[test]
    fn wireworld_by_hand() {
        let w = CaRule::Wireworld;
        assert_eq!(w.next(1, [0; 8]), 2);
        assert_eq!(w.next(2, [1; 8]), 3);
        assert_eq!(w.next(3, [1, 2, 3, 0, 0, 0, 0, 0]), 1);
        assert_eq!(w.next(3, [1, 1, 3, 0, 0, 0, 0, 0]), 1);
        assert_eq!(w.next(3, [1, 1, 1, 0, 0, 0, 0, 0]), 3);
        assert_eq!(w.next(0, [1, 1, 0, 0, 0, 0, 0, 0]), 0);
    }

    #[test]
    fn codes_put_the_centre_in_digit_four() {
        // Neighbourhood with only the centre alive (3^4 for 3 states).
        let brain = rule("brians-brain");
        assert_eq!(brain.next_of_code(81), 2);
        // Life: cells 0, 1, 2 alive around a dead centre: born.
        assert_eq!(CaRule::LIFE.next_of_code(0b111), 1);
        assert_eq!(digits(0b1_0000_0111, 2), [1, 1, 1, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_rules_table_matches_that_rule_and_a_changed_one_none() {
        for text in [
            "highlife",
            "brians-brain",
            "wireworld",
            "star-wars",
            "B0/S8",
        ] {
            let r = rule(text);
            let mut table: Vec<u8> = (0..r.neighbourhoods()).map(|c| r.next_of_code(c)).collect();
            assert_eq!(CaRule::matching(&table, r.states()), Some(r), "{text}");
            // One neighbourhood of a dying centre that does not count down: no rule.
            let code = 2 * 3usize.pow(4);
            table[code] = if table[code] == 0 { 1 } else { 0 };
            assert_eq!(CaRule::matching(&table, r.states()), None, "{text} changed");
        }
    }

    #[test]
    fn rules_round_trip_through_json() {
        for text in ["B3/S23", "B2/S/C3", "wireworld", "B0/S8"] {
            let r = rule(text);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<CaRule>(&json).unwrap(), r);
        }
        assert!(serde_json::from_str::<CaRule>("\"B9\"").is_err());
    }
}
