//! Several starts: each start trains exactly as a run of its own seed would, every
//! epoch reports the start that leads, and the run goes on with the chosen one alone.

use logicars::model::task::TaskKind;
use logicars::tasks::{preset, preset_with};
use logicars::train::starts::{leader, start_seed};
use logicars::train::{EpochMetrics, Trainer};

use crate::overrides;

const EPOCHS: usize = 12;

/// The small checkerboard preset seeded `seed`, with `starts` starts, after `changes`, and
/// the choice after epoch 6: the end of a curriculum on 4x4 grids for half the run, or,
/// when `changes` set no curriculum, half the run (`starts-share=0.5`).
fn trainer(seed: u64, starts: usize, changes: &[&str]) -> Trainer {
    let starts = format!("starts={starts}");
    let base = match changes.contains(&"curriculum-share=0") {
        false => ["curriculum-size=4", "curriculum-share=0.5", starts.as_str()],
        true => ["curriculum-share=0", "starts-share=0.5", starts.as_str()],
    };
    let changes = overrides(changes, &base);
    let (config, mut settings) = preset_with(TaskKind::Checkerboard, true, &changes).unwrap();
    settings.epochs = EPOCHS;
    settings.seed = seed;
    Trainer::from_seed(config, settings).unwrap()
}

fn history(trainer: &mut Trainer) -> Vec<EpochMetrics> {
    (1..=EPOCHS).map(|e| trainer.epoch(e).unwrap()).collect()
}

#[test]
fn each_start_trains_as_a_run_of_its_own_seed_and_the_leader_is_reported() {
    // Seed 7's lead passes from one start to another before the choice.
    let mut leads = Vec::new();
    let cases = [
        (7, &[][..]),
        (5, &["recipe=input-wise", "hard-gates=0.3"]),
        (5, &["recipe=input-wise", "curriculum-share=0"]),
    ];
    for (seed, changes) in cases {
        let mut several = trainer(seed, 3, changes);
        let got = history(&mut several);
        // The runs each start would be on its own, trained the whole run.
        let mut alone: Vec<(Trainer, Vec<EpochMetrics>)> = (0..3)
            .map(|i| {
                let mut t = trainer(start_seed(seed, i), 1, changes);
                let h = history(&mut t);
                (t, h)
            })
            .collect();
        let choice = *several
            .chosen()
            .expect("the run chose by the curriculum's end, or half the run");
        assert!(choice.epoch <= EPOCHS / 2, "{choice:?}");
        assert_eq!(choice.seed, start_seed(seed, choice.start));
        for (e, m) in got.iter().enumerate() {
            let lead = match m.epoch <= choice.epoch {
                true => {
                    let scored: Vec<_> = (0..3).map(|i| (i, alone[i].1[e].metrics)).collect();
                    leader(&scored).unwrap()
                }
                false => choice.start,
            };
            leads.push((seed, lead));
            assert_eq!(*m, alone[lead].1[e], "epoch {} ({changes:?})", m.epoch);
        }
        assert!(
            alone[0].0.chosen().is_none(),
            "one start: nothing to choose"
        );
        let (chosen, _) = &mut alone[choice.start];
        assert_eq!(several.model.logits, chosen.model.logits);
        assert_eq!(several.model, chosen.model, "its wiring and logits");
        assert_eq!(several.best(), chosen.best());
        assert_eq!(several.state().optimizer, chosen.state().optimizer);
    }
    let seven: Vec<usize> = leads.iter().filter(|l| l.0 == 7).map(|l| l.1).collect();
    assert!(seven.iter().any(|&l| l != seven[0]), "{seven:?}");
}

#[test]
fn several_starts_without_a_time_to_choose_are_refused() {
    let (config, mut settings) = preset(TaskKind::Checkerboard, true);
    settings.recipe.curriculum_size = 0;
    settings.recipe.starts = 3;
    let err = Trainer::from_seed(config.clone(), settings.clone())
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("3 starts need a time to choose among them: set --starts-share"),
        "{err}"
    );
    settings.recipe.starts_share = 0.25;
    settings.epochs = 60;
    let mut trainer = Trainer::from_seed(config, settings).unwrap();
    for epoch in 1..=15 {
        assert!(trainer.chosen().is_none(), "before epoch {epoch}");
        trainer.epoch(epoch).unwrap();
    }
    assert_eq!(
        trainer.chosen().map(|c| c.epoch),
        Some(15),
        "a quarter of 60"
    );
}
