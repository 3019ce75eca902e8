//! Frames recorded from a cellular automaton whose rule is not known, and what they show
//! of it: every 3x3 neighbourhood seen and the next state it got ([`observe`]). The last
//! fifth of the transitions is held out, for the fresh check.
//!
//! A recording's border is read as the recording itself shows it: when the border cells'
//! transitions agree with the inside's with the grid wrapped (a torus), or with the
//! outside dead, they are used that way; else only the inside cells are.

use std::fmt;

use crate::model::ca_rule::MAX_STATES;
use crate::model::observed_rule::{ObservedRule, Seen};

/// Frames of a grid, `frames[t][row][col]` flattened, each cell a state 0, 1, 2...
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub frames: usize,
    pub height: usize,
    pub width: usize,
    pub states: Vec<u8>,
    /// How many states the cells take: 2 at least, else the largest plus one.
    pub state_count: usize,
}

/// Why a recording cannot be learned from.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordingError {
    #[error("{got} frame(s): a recording needs at least 3 (transitions to learn and to hold out)")]
    TooFewFrames { got: usize },
    #[error("frames of {height}x{width}: each must be at least 3x3")]
    TooSmall { height: usize, width: usize },
    #[error("{values} values do not make {frames} frames of {height}x{width}")]
    Shape {
        values: usize,
        frames: usize,
        height: usize,
        width: usize,
    },
    #[error(
        "a cell holds state {state}: at most {MAX_STATES} states (0 to {}) are supported",
        MAX_STATES - 1
    )]
    TooManyStates { state: u8 },
    #[error("no cell is ever on (every state is 0): there is nothing to learn")]
    Empty,
    #[error(
        "the recording is not deterministic: {count} neighbourhood(s) go to different next \
         states at different times (first: frame {frame}, row {row}, column {col})"
    )]
    Contradictions {
        count: usize,
        frame: usize,
        row: usize,
        col: usize,
    },
}

/// How the recording's border cells were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Border {
    Wraps,
    DeadOutside,
    InsideOnly,
}

impl fmt::Display for Border {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Border::Wraps => "the grid wraps (its border cells agree with a torus)",
            Border::DeadOutside => "the outside is dead (its border cells agree with that)",
            Border::InsideOnly => {
                "the border cells are left out (they agree with neither a torus nor a dead outside)"
            }
        })
    }
}

/// What a recording shows of its rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub rule: ObservedRule,
    pub border: Border,
    /// Transitions (frame to next frame) trained on, then held out.
    pub training_transitions: usize,
    pub held_out_transitions: usize,
}

impl fmt::Display for Observation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.rule;
        let all = r.table.len();
        write!(
            f,
            "{} states; {}; {} transitions to learn from show {} of the {all} neighbourhoods, \
             {} held out show {} more; {} never seen (the rule there is unknown)",
            r.states,
            self.border,
            self.training_transitions,
            r.training_codes().len(),
            self.held_out_transitions,
            r.held_out_codes().len(),
            r.never_seen()
        )
    }
}

impl Recording {
    /// A recording of `frames` frames of `height x width`, checked.
    pub fn new(
        frames: usize,
        height: usize,
        width: usize,
        states: Vec<u8>,
    ) -> Result<Recording, RecordingError> {
        if frames
            .checked_mul(height)
            .and_then(|n| n.checked_mul(width))
            != Some(states.len())
        {
            let values = states.len();
            return Err(RecordingError::Shape {
                values,
                frames,
                height,
                width,
            });
        }
        if frames < 3 {
            return Err(RecordingError::TooFewFrames { got: frames });
        }
        if height < 3 || width < 3 {
            return Err(RecordingError::TooSmall { height, width });
        }
        if let Some(&state) = states.iter().find(|&&s| s as usize >= MAX_STATES) {
            return Err(RecordingError::TooManyStates { state });
        }
        if states.iter().all(|&s| s == 0) {
            return Err(RecordingError::Empty);
        }
        let state_count = (*states.iter().max().unwrap_or(&0) as usize + 1).max(2);
        Ok(Recording {
            frames,
            height,
            width,
            states,
            state_count,
        })
    }

    fn at(&self, t: usize, row: usize, col: usize) -> u8 {
        self.states[(t * self.height + row) * self.width + col]
    }

    /// The neighbourhood number of cell `(row, col)` of frame `t` read with `border`
    /// (`None`: a border cell that is left out).
    fn code(&self, t: usize, row: usize, col: usize, border: Border) -> Option<usize> {
        let (h, w) = (self.height as isize, self.width as isize);
        let states = self.state_count;
        let mut code = 0;
        for i in (0..9).rev() {
            let (r, c) = (row as isize + i / 3 - 1, col as isize + i % 3 - 1);
            let inside = (0..h).contains(&r) && (0..w).contains(&c);
            let state = match (inside, border) {
                (true, _) => self.at(t, r as usize, c as usize),
                (false, Border::Wraps) => {
                    self.at(t, r.rem_euclid(h) as usize, c.rem_euclid(w) as usize)
                }
                (false, Border::DeadOutside) => 0,
                (false, Border::InsideOnly) => return None,
            };
            code = code * states + state as usize;
        }
        Some(code)
    }
}

/// Transitions `0..training` are learned from, the rest held out: a fifth of them, at
/// least one.
fn training_transitions(frames: usize) -> usize {
    let transitions = frames - 1;
    transitions - (transitions / 5).max(1)
}

/// What `recording` shows of its rule, its border read as it agrees with.
pub fn observe(recording: &Recording) -> Result<Observation, RecordingError> {
    let states = recording.state_count;
    let training = training_transitions(recording.frames);
    let mut table = vec![Seen::Never; states.pow(9)];
    let mut disagree = Disagreements::default();
    // The inside first: its cells are read the same whichever the border.
    record(
        recording,
        Border::InsideOnly,
        training,
        &mut table,
        &mut disagree,
    );
    if let Some(first) = disagree.first {
        return Err(disagree.error(first));
    }
    let mut border = Border::InsideOnly;
    for candidate in [Border::Wraps, Border::DeadOutside] {
        let mut trial = table.clone();
        let mut trial_disagree = Disagreements::default();
        record(
            recording,
            candidate,
            training,
            &mut trial,
            &mut trial_disagree,
        );
        if trial_disagree.first.is_none() {
            (table, border) = (trial, candidate);
            break;
        }
    }
    Ok(Observation {
        rule: ObservedRule::new(states as u8, &table),
        border,
        training_transitions: training,
        held_out_transitions: recording.frames - 1 - training,
    })
}

/// Neighbourhoods seen going to two next states: how many, and where the first was.
#[derive(Default)]
struct Disagreements {
    codes: std::collections::BTreeSet<usize>,
    first: Option<(usize, usize, usize)>,
}

impl Disagreements {
    fn error(&self, (frame, row, col): (usize, usize, usize)) -> RecordingError {
        RecordingError::Contradictions {
            count: self.codes.len(),
            frame,
            row,
            col,
        }
    }
}

/// Adds every transition of `recording` read with `border` to `table` (those before
/// `training` as training ones, a held-out one only where training saw nothing).
fn record(
    recording: &Recording,
    border: Border,
    training: usize,
    table: &mut [Seen],
    disagree: &mut Disagreements,
) {
    let (h, w) = (recording.height, recording.width);
    for t in 0..recording.frames - 1 {
        for row in 0..h {
            for col in 0..w {
                let Some(code) = recording.code(t, row, col, border) else {
                    continue;
                };
                let next = recording.at(t + 1, row, col);
                let before = table[code];
                let known = match before {
                    Seen::Training(s) | Seen::HeldOut(s) => Some(s),
                    Seen::Never => None,
                };
                if known.is_some_and(|s| s != next) {
                    disagree.codes.insert(code);
                    disagree.first.get_or_insert((t, row, col));
                    continue;
                }
                table[code] = match (t < training, before) {
                    (true, _) => Seen::Training(next),
                    (false, Seen::Never) => Seen::HeldOut(next),
                    (false, seen) => seen,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ca_rule::CaRule;

    /// `frames` frames of `rule` on a `side x side` torus from a random-ish start.
    fn life_like(rule: CaRule, side: usize, frames: usize) -> Recording {
        let mut grid: Vec<u8> = (0..side * side)
            .map(|i| u8::from((i * 7919 + i / 3) % 5 < 2))
            .collect();
        let mut states = Vec::new();
        for _ in 0..frames {
            states.extend_from_slice(&grid);
            grid = step(rule, &grid, side);
        }
        Recording::new(frames, side, side, states).unwrap()
    }

    fn step(rule: CaRule, grid: &[u8], side: usize) -> Vec<u8> {
        let at = |r: usize, c: usize| grid[(r % side) * side + c % side];
        (0..side * side)
            .map(|i| {
                let (r, c) = (i / side + side, i % side + side);
                let mut n = [0; 8];
                let mut k = 0;
                for (dr, dc) in (0..3).flat_map(|a| (0..3).map(move |b| (a, b))) {
                    if (dr, dc) != (1, 1) {
                        n[k] = at(r + dr - 1, c + dc - 1);
                        k += 1;
                    }
                }
                rule.next(at(r, c), n)
            })
            .collect()
    }

    #[test]
    fn a_torus_recording_of_life_shows_lifes_transitions() {
        let observation = observe(&life_like(CaRule::LIFE, 16, 11)).unwrap();
        assert_eq!(observation.border, Border::Wraps);
        assert_eq!(
            (
                observation.training_transitions,
                observation.held_out_transitions
            ),
            (8, 2)
        );
        let rule = &observation.rule;
        assert_eq!(rule.states, 2);
        let mut seen = 0;
        for code in 0..512 {
            match rule.seen(code) {
                Seen::Training(next) | Seen::HeldOut(next) => {
                    assert_eq!(next, CaRule::LIFE.next_of_code(code), "{code}");
                    seen += 1;
                }
                Seen::Never => {}
            }
        }
        assert!(seen > 50 && rule.never_seen() == 512 - seen);
    }

    #[test]
    fn a_cut_out_recording_leaves_its_border_out() {
        // A 16x16 window of a 20x20 torus: its border agrees with neither reading.
        let big = life_like(CaRule::LIFE, 20, 6);
        let states: Vec<u8> = (0..6)
            .flat_map(|t| (0..16).flat_map(move |r| (0..16).map(move |c| (t, r, c))))
            .map(|(t, r, c)| big.at(t, r, c))
            .collect();
        let window = Recording::new(6, 16, 16, states).unwrap();
        assert_eq!(observe(&window).unwrap().border, Border::InsideOnly);
    }

    #[test]
    fn bad_recordings_are_refused_with_what_is_wrong() {
        let err =
            |frames, side, states: Vec<u8>| Recording::new(frames, side, side, states).unwrap_err();
        assert_eq!(
            err(2, 3, vec![1; 18]),
            RecordingError::TooFewFrames { got: 2 }
        );
        assert!(matches!(
            err(3, 3, vec![1; 26]),
            RecordingError::Shape { .. }
        ));
        assert_eq!(err(3, 3, vec![0; 27]), RecordingError::Empty);
        assert_eq!(
            err(3, 3, vec![5; 27]),
            RecordingError::TooManyStates { state: 5 }
        );
        // A cell that flips while its neighbourhood stays the same: not deterministic.
        let mut states = vec![0u8; 4 * 9];
        states[4] = 1; // frame 0: centre on
        states[9 + 4] = 1; // frame 1: centre stays on (all else off)
        states[18 + 4] = 1; // frame 2: the same neighbourhood, and now it goes off
        let recording = Recording::new(4, 3, 3, states).unwrap();
        match observe(&recording) {
            Err(RecordingError::Contradictions { count, frame, .. }) => {
                assert_eq!((count, frame), (1, 2));
            }
            other => panic!("{other:?}"),
        }
    }
}
