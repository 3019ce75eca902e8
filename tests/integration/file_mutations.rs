//! A damaged file is an error or a valid value, never a panic: real model, grid and
//! checkpoint files, cut short, with flipped bits, deleted or repeated spans, numbers made
//! huge or of the wrong type. Models that still load are run, to reach what loading let
//! through. `PROPTEST_CASES=100000 cargo test --release --test integration file_mutations` runs a
//! longer session.

use std::sync::OnceLock;

use logicars::evaluate::{evaluate, SoftLoss};
use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::io::{grid_file, model_file};
use logicars::model::network::Model;
use logicars::model::task::TaskKind;
use logicars::tasks::{self, preset};
use logicars::train::memory::{evaluation_bytes, RolloutSize};
use logicars::train::{Keep, Trainer, TrainerState};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// What to do to a file's text; positions wrap around its length.
#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    FlipBit(usize, u8),
    Delete(usize, usize),
    Repeat(usize, usize),
    /// Replace the n-th number with this text.
    Number(usize, &'static str),
}

const ODD_VALUES: [&str; 14] = [
    "0",
    "-1",
    "1e309",
    "-1e309",
    "1e-50",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "null",
    "\"x\"",
    "[]",
    "{}",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit(at, bit)),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete(at, len)),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Repeat(at, len)),
        (any::<usize>(), prop::sample::select(&ODD_VALUES[..]))
            .prop_map(|(n, v)| Mutation::Number(n, v)),
    ]
}

/// Start and end of every number in `text`.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit() || (bytes[i] == b'-' && i + 1 < bytes.len());
        if starts && (i == 0 || b"[:,".contains(&bytes[i - 1])) {
            let end = (i + 1..bytes.len())
                .find(|&j| !(bytes[j].is_ascii_digit() || b".eE+-".contains(&bytes[j])))
                .unwrap_or(bytes.len());
            found.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let n = bytes.len();
    match *mutation {
        Mutation::Truncate(at) => bytes.truncate(at % n),
        Mutation::FlipBit(at, bit) => bytes[at % n] ^= 1 << bit,
        Mutation::Delete(at, len) => {
            let at = at % n;
            bytes.drain(at..(at + len).min(n));
        }
        Mutation::Repeat(at, len) => {
            let at = at % n;
            let span = bytes[at..(at + len).min(n)].to_vec();
            bytes.splice(at..at, span);
        }
        Mutation::Number(k, value) => {
            let spans = numbers(text);
            let (start, end) = spans[k % spans.len()];
            bytes.splice(start..end, value.bytes());
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn small_trainer() -> Trainer {
    let (config, mut settings) = preset(TaskKind::CheckerboardAsync, true);
    settings.epochs = 3;
    let mut trainer = Trainer::from_seed(config, settings).unwrap();
    trainer.epoch(1).unwrap();
    trainer
}

fn model_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let trainer = small_trainer();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        model_file::save_trained(&trainer.model, Some(trainer.settings()), &path).unwrap();
        std::fs::read_to_string(path).unwrap()
    })
}

fn checkpoint_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let trainer = small_trainer();
        let checkpoint = Checkpoint {
            model: trainer.model.clone(),
            settings: trainer.settings().clone(),
            state: TrainerState {
                epochs_done: 0,
                ..trainer.state()
            },
            history: Vec::new(),
            outputs: RunOutputs {
                model: "m.json".into(),
                log: "l.csv".into(),
                artefacts: None,
                batches: None,
                log_interval: 1,
                keep: Keep::Best,
                full: false,
            },
            exact_watch: Default::default(),
            attempts: Vec::new(),
            kept: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        checkpoint_file::save(&checkpoint, &path).unwrap();
        std::fs::read_to_string(path).unwrap()
    })
}

const GRID: &str = "[[[[0,1],[1,0.5]],[[0.25,0],[1,1]]],[[[0,0],[0,0]],[[1,1],[0.75,1]]]]";

/// Runs a model that loaded, on one grid of its size for a step or two, when small.
fn run_briefly(model: &Model) {
    let c = &model.config;
    let size = RolloutSize::evaluation(1, (c.height, c.width), c.steps.min(2));
    if evaluation_bytes(c, &size).is_none_or(|b| b > 64 << 20) {
        return;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let init = tasks::eval_init(c, 1, c.height, c.width, &mut rng);
    let masks = c.fire_rate.map(|r| {
        logicars::automaton::masks::FireMasks::draw(size.steps, 1, c.height * c.width, r, &mut rng)
    });
    evaluate(
        model,
        &init,
        size.steps,
        masks.as_ref(),
        SoftLoss::Compute,
        |_, _| {},
    );
}

/// 1000 cases per test, or `PROPTEST_CASES`.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok());
    ProptestConfig {
        cases: cases.unwrap_or(1000),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_damaged_model_file_is_an_error_or_a_model(m in mutation()) {
        if let Ok(model) = model_file::from_json(&apply(model_text(), &m)) {
            run_briefly(&model);
        }
    }

    #[test]
    fn a_damaged_checkpoint_is_an_error_or_resumes(m in mutation()) {
        if let Ok(c) = checkpoint_file::from_json(&apply(checkpoint_text(), &m)) {
            run_briefly(&c.model);
            let _ = Trainer::resume(c.model, c.settings, c.state);
        }
    }

    #[test]
    fn a_damaged_grid_file_is_an_error_or_grids(m in mutation()) {
        let _ = grid_file::from_json(&apply(GRID, &m), 2);
    }
}

#[test]
fn the_mutations_reach_every_number() {
    let spans = numbers(r#"{"a":[1,-2.5e3],"b":7}"#);
    assert_eq!(spans, [(6, 7), (8, 14), (20, 21)]);
    assert_eq!(apply("[10,20]", &Mutation::Number(1, "null")), "[10,null]");
}
