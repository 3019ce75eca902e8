use super::*;
use crate::evaluate::batch::{evaluate, SoftLoss};
use crate::model::config::TrainSettings;
use crate::tasks::preset;

/// The model a run of the preset starts from (as training builds it).
fn fresh_model(mut config: ModelConfig, settings: &TrainSettings) -> Model {
    config.parametrization = settings.recipe.parametrization;
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let mut model = Model::new(config, &mut rng).expect("a preset builds");
    model.set_pass_through(settings.recipe.pass_through);
    model
}

/// A preset's model with mixed ops, so that grids are scored differently.
fn mixed_model(task: TaskKind) -> Model {
    let (config, settings) = preset(task, true);
    let mut model = fresh_model(config, &settings);
    for (i, gate) in model.logits.iter_mut().enumerate() {
        gate[i % gate.len()] += 20.0;
    }
    model
}

/// Each probe scores what one `evaluate` of all its grids scores (the grids of
/// `logicars eval` with the probe's flags).
#[test]
fn a_probe_in_parts_equals_one_rollout_of_its_grids() {
    for task in [TaskKind::Checkerboard, TaskKind::CheckerboardAsync] {
        let model = mixed_model(task);
        let check = fresh_check(&model);
        assert!(!check.every_input);
        assert_eq!(check.scores.len(), probes(&model.config).len());
        for score in &check.scores {
            let p = score.probe;
            let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
            let (init, masks) =
                tasks::eval_batch(&model.config, p.batch, p.size, p.steps, &mut rng);
            let skip = SoftLoss::Skip;
            let whole = evaluate(&model, &init, p.steps, masks.as_ref(), skip, |_, _| {});
            assert_eq!(score.wrong, whole.hard_loss, "{task:?} {p:?}");
            assert!(whole.accuracy > 0.0 && whole.accuracy < 1.0, "{task:?}");
        }
    }
}

#[test]
fn each_task_has_its_probes() {
    let probes_of = |task| probes(&preset(task, false).0);
    let board = probes_of(TaskKind::Checkerboard);
    assert_eq!(
        board[0].eval_flags(),
        "--seed 99 --batch 16 --size 16x16 --steps 20"
    );
    assert_eq!(
        board[1].eval_flags(),
        "--seed 99 --batch 4 --size 64x64 --steps 80"
    );
    let not_sync = probes_of(TaskKind::CheckerboardAsync);
    let seeds: Vec<u64> = not_sync.iter().map(|p| p.seed).collect();
    assert_eq!(seeds, [99, 100, 101, 99]);
    assert_eq!(
        not_sync[3].eval_flags(),
        "--seed 99 --batch 4 --size 58x58 --steps 200"
    );
    assert_eq!([8, 14, 16].map(larger_side), [32, 58, 64]);
    // The lizard's default, fitted to it: grows at step 14 on 30x30 and on 60x60; holds
    // at steps 28 and 56 on 60x60.
    let lizard = probes_of(TaskKind::Lizard);
    let shape = |p: &Probe| (p.size, p.steps, p.measure);
    assert_eq!(
        lizard.iter().map(shape).collect::<Vec<_>>(),
        [
            ((30, 30), 14, Measure::Grows),
            ((60, 60), 14, Measure::Grows),
            ((60, 60), 28, Measure::Holds),
            ((60, 60), 56, Measure::Holds),
            ((60, 60), 56, Measure::Regrows),
        ]
    );
    // Regrowth: the paper's 20x20 block cut to half the training side, zeroed after
    // steps 14 to 28 on the 60x60 grid.
    assert_eq!(
        lizard[4].eval_flags(),
        "--seed 99 --batch 1 --size 60x60 --steps 56 --damage 15x15@14..28"
    );
    // The pattern's own grid already has room for its steps; it is held on twice it too.
    let pattern = probes_of(TaskKind::Pattern);
    assert_eq!(
        pattern.iter().map(shape).collect::<Vec<_>>(),
        [
            ((24, 24), 11, Measure::Grows),
            ((48, 48), 11, Measure::Grows),
            ((48, 48), 22, Measure::Holds),
            ((48, 48), 44, Measure::Holds),
            ((48, 48), 44, Measure::Regrows),
        ]
    );
    // The G is drawn in from the border: its own grid only.
    let g = probes_of(TaskKind::ColoredG);
    assert_eq!(
        g.iter().map(shape).collect::<Vec<_>>(),
        [
            ((16, 16), 15, Measure::Grows),
            ((16, 16), 30, Measure::Holds),
            ((16, 16), 60, Measure::Regrows)
        ]
    );
    assert_eq!(CRITERION, Measure::Holds, "the lizard's too");
    assert!(probes_of(TaskKind::Gol).is_empty());
}

/// The check that stops at the first wrong probe agrees with the whole check.
#[test]
fn the_short_check_agrees_with_the_whole_one() {
    for task in [TaskKind::Checkerboard, TaskKind::Lizard] {
        let model = mixed_model(task);
        let whole = fresh_check(&model);
        let short = check(&model, true);
        assert_eq!(short.exact(), whole.exact());
        assert_eq!(
            short.scores.len(),
            1,
            "{task:?}: stops at the first wrong probe"
        );
        assert_eq!(short.scores[0], whole.scores[0]);
    }
}

#[test]
fn game_of_life_is_checked_on_every_board() {
    let (config, settings) = preset(TaskKind::Gol, true);
    let model = fresh_model(config, &settings);
    let check = fresh_check(&model);
    assert!(check.every_input);
    assert_eq!(check.grids, 512);
}

/// A check's measures by hand: a lizard right at step 12 on both grids and wrong at 24
/// grows, does not hold, and is not exact (the criterion is *holds*); a real lizard
/// check's accuracy counts the probes of *grows* and *holds*, not the regrowth.
#[test]
fn grows_and_holds_by_hand() {
    let score = |size, steps, measure, wrong| ProbeScore {
        probe: Probe {
            seed: 99,
            batch: 1,
            size,
            steps,
            measure,
            damage: None,
        },
        wrong,
        bits: 400.0,
    };
    let scores = vec![
        score((20, 20), 12, Measure::Grows, 0.0),
        score((40, 40), 12, Measure::Grows, 0.0),
        score((20, 20), 24, Measure::Holds, 100.0),
    ];
    let lizard = FreshCheck {
        every_input: false,
        grids: 3,
        scores: scores.clone(),
        criterion: Measure::Holds,
        accuracy: 0.75,
    };
    assert!(lizard.passes(Measure::Grows) && !lizard.passes(Measure::Holds));
    assert!(!lizard.exact() && lizard.has_holds());
    assert!(!lizard.scored(Measure::Regrows));
    // Regrows is its own probe: a rule may heal a drawing it does not keep.
    let mut healing = lizard.clone();
    healing
        .scores
        .push(score((40, 40), 48, Measure::Regrows, 0.0));
    assert!(healing.passes(Measure::Regrows) && !healing.passes(Measure::Holds));
    healing.scores[3].wrong = 1.0;
    assert!(!healing.passes(Measure::Regrows) && healing.passes(Measure::Grows));
    let model = mixed_model(TaskKind::Lizard);
    let real = fresh_check(&model);
    assert_eq!(real.criterion, Measure::Holds);
    let counted: Vec<_> = real
        .scores
        .iter()
        .filter(|s| s.probe.measure != Measure::Regrows)
        .collect();
    let (wrong, bits) = counted
        .iter()
        .fold((0.0, 0.0), |(w, b), s| (w + s.wrong, b + s.bits));
    assert_eq!(
        real.accuracy,
        1.0 - wrong / bits,
        "the regrowth probe is not counted"
    );
    assert_eq!(real.passes(Measure::Holds), wrong == 0.0);
}
