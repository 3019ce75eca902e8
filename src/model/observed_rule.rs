//! A rule known only from what a recording showed: for each 3x3 neighbourhood, the next
//! state the recording gave it, if it ever appeared. The transitions of the recording's
//! last frames are held out: a model trains on the others and is checked on those.

use serde::{Deserialize, Serialize};

use crate::model::ca_rule::{digits, CaRule};

/// The observed next states, one per neighbourhood number (as [`CaRule::next_of_code`]
/// numbers them), in one string of `states^9` characters: the next state's digit when a
/// training transition showed it, `a`, `b`, ... for a state shown only by held-out
/// transitions, `.` when never shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedRule {
    pub states: u8,
    pub table: String,
    /// The named rule the trained circuit equals on every neighbourhood, seen or not,
    /// when there is one (written once the model is exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<CaRule>,
}

/// Where a neighbourhood's next state was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    Training(u8),
    HeldOut(u8),
    Never,
}

impl ObservedRule {
    /// The rule of `seen[code]` for every neighbourhood of `states` states.
    pub fn new(states: u8, seen: &[Seen]) -> ObservedRule {
        let table = seen
            .iter()
            .map(|s| match *s {
                Seen::Training(next) => char::from(b'0' + next),
                Seen::HeldOut(next) => char::from(b'a' + next),
                Seen::Never => '.',
            })
            .collect();
        ObservedRule {
            states,
            table,
            matches: None,
        }
    }

    /// Whether the table has one valid character per neighbourhood.
    pub fn is_valid(&self) -> bool {
        let states = self.states as usize;
        (2..=crate::model::ca_rule::MAX_STATES).contains(&states)
            && self.table.len() == states.pow(9)
            && self.table.bytes().all(|b| {
                b == b'.'
                    || (b'0'..b'0' + self.states).contains(&b)
                    || (b'a'..b'a' + self.states).contains(&b)
            })
    }

    /// What the recording showed for neighbourhood `code`.
    pub fn seen(&self, code: usize) -> Seen {
        match self.table.as_bytes()[code] {
            b'.' => Seen::Never,
            b if b >= b'a' => Seen::HeldOut(b - b'a'),
            b => Seen::Training(b - b'0'),
        }
    }

    /// The neighbourhoods of the training transitions, in number order.
    pub fn training_codes(&self) -> Vec<usize> {
        self.codes(|s| matches!(s, Seen::Training(_)))
    }

    /// The neighbourhoods that only held-out transitions showed, in number order.
    pub fn held_out_codes(&self) -> Vec<usize> {
        self.codes(|s| matches!(s, Seen::HeldOut(_)))
    }

    /// How many neighbourhoods the recording never showed.
    pub fn never_seen(&self) -> usize {
        self.table.bytes().filter(|&b| b == b'.').count()
    }

    /// This rule with the held-out transitions known as training ones: every
    /// neighbourhood the whole recording showed, as the fresh check tries them.
    pub fn every_transition(&self) -> ObservedRule {
        let table = self
            .table
            .bytes()
            .map(|b| char::from(if b >= b'a' { b - b'a' + b'0' } else { b }))
            .collect();
        ObservedRule {
            table,
            ..self.clone()
        }
    }

    fn codes(&self, keep: impl Fn(Seen) -> bool) -> Vec<usize> {
        (0..self.table.len())
            .filter(|&code| keep(self.seen(code)))
            .collect()
    }
}

/// The rule a `rule` model learns: one named, or one a recording showed.
#[derive(Debug, Clone, Copy)]
pub enum LearnedRule<'a> {
    Named(CaRule),
    Observed(&'a ObservedRule),
}

impl LearnedRule<'_> {
    pub fn states(self) -> usize {
        match self {
            LearnedRule::Named(rule) => rule.states(),
            LearnedRule::Observed(observed) => observed.states as usize,
        }
    }

    /// Channels a cell's state takes (as [`CaRule`] encodes states).
    pub fn channels(self) -> usize {
        self.states() - 1
    }

    /// The next state of neighbourhood number `code` as training knows it: the named
    /// rule's, or what a training transition showed (`None`: not known).
    pub fn next_of_code(self, code: usize) -> Option<u8> {
        match self {
            LearnedRule::Named(rule) => Some(rule.next_of_code(code)),
            LearnedRule::Observed(observed) => match observed.seen(code) {
                Seen::Training(next) => Some(next),
                _ => None,
            },
        }
    }

    /// The next state of neighbourhood `cells` (row-major, centre at 4) as training
    /// knows it ([`LearnedRule::next_of_code`]).
    pub fn next(self, cells: [u8; 9]) -> Option<u8> {
        match self {
            LearnedRule::Named(rule) => Some(rule.next_of_cells(cells)),
            LearnedRule::Observed(_) => self.next_of_code(self.code_of(cells)),
        }
    }

    /// The number of neighbourhood `cells` (row-major, centre at 4).
    pub fn code_of(self, cells: [u8; 9]) -> usize {
        let states = self.states();
        cells
            .iter()
            .rev()
            .fold(0, |code, &s| code * states + s as usize)
    }

    /// How many boards training knows the answer for: every neighbourhood of a named
    /// rule, the training transitions' of an observed one.
    pub fn board_count(self) -> usize {
        match self {
            LearnedRule::Named(rule) => rule.neighbourhoods(),
            LearnedRule::Observed(observed) => {
                observed.table.bytes().filter(u8::is_ascii_digit).count()
            }
        }
    }

    /// Boards `range` of those [`LearnedRule::board_count`] counts, as neighbourhood
    /// numbers.
    pub fn boards(self, range: std::ops::Range<usize>) -> Vec<usize> {
        match self {
            LearnedRule::Named(_) => range.collect(),
            LearnedRule::Observed(observed) => observed.training_codes()[range].to_vec(),
        }
    }

    /// The 9 cells of neighbourhood `code`.
    pub fn cells(self, code: usize) -> [u8; 9] {
        digits(code, self.states())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_says_where_each_neighbourhood_was_seen() {
        let mut seen = vec![Seen::Never; 512];
        seen[3] = Seen::Training(1);
        seen[7] = Seen::HeldOut(0);
        let observed = ObservedRule::new(2, &seen);
        assert!(observed.is_valid());
        assert_eq!(&observed.table[..8], "...1...a");
        assert_eq!(observed.seen(3), Seen::Training(1));
        assert_eq!(observed.seen(7), Seen::HeldOut(0));
        assert_eq!(observed.training_codes(), [3]);
        assert_eq!(observed.held_out_codes(), [7]);
        assert_eq!(observed.never_seen(), 510);
        let learned = LearnedRule::Observed(&observed);
        assert_eq!(learned.next_of_code(3), Some(1));
        assert_eq!(learned.next_of_code(7), None, "held out: not for training");
        assert_eq!(learned.boards(0..1), [3]);
        let every = observed.every_transition();
        assert_eq!(every.training_codes(), [3, 7]);
        assert_eq!(every.seen(7), Seen::Training(0));
        let short = ObservedRule {
            table: "..".into(),
            ..observed
        };
        assert!(!short.is_valid());
    }

    #[test]
    fn codes_and_cells_are_inverse() {
        let rule = LearnedRule::Named("brians-brain".parse().unwrap());
        for code in [0, 1, 81, 19_682, 12_345] {
            assert_eq!(rule.code_of(rule.cells(code)), code);
            assert_eq!(rule.next(rule.cells(code)), rule.next_of_code(code));
        }
    }
}
