//! A run saved to a checkpoint after any epoch and resumed takes exactly the steps of a
//! run that was never stopped; a damaged checkpoint is refused with the place it is wrong.

use std::ops::ControlFlow;

use logicars::io::checkpoint_file::{self, Checkpoint, RunOutputs};
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, preset_with};

use crate::overrides;
use logicars::train::attempts::{finish_attempt, Ending};
use logicars::train::{run, EpochMetrics, ExactWatch, Keep, Trainer};

/// A short run of `task` with `changes` applied.
fn trainer(task: TaskKind, changes: &[&str]) -> Trainer {
    let (config, settings) = preset_with(task, true, &overrides(&["epochs=12"], changes)).unwrap();
    Trainer::from_seed(config, settings).unwrap()
}

/// Runs the trainer's remaining epochs, or stops after `stop_after`.
fn train(trainer: Trainer, stop_after: usize) -> (Trainer, Vec<EpochMetrics>) {
    let mut history = Vec::new();
    let (trainer, _, error) = run(trainer, |_, m| {
        history.push(*m);
        match m.epoch == stop_after {
            true => ControlFlow::Break(()),
            false => ControlFlow::Continue(()),
        }
    });
    assert!(error.is_none());
    (trainer, history)
}

fn outputs() -> RunOutputs {
    RunOutputs {
        model: "run/model.json".into(),
        log: "run/metrics.csv".into(),
        artefacts: None,
        batches: None,
        log_interval: 3,
        keep: Keep::Best,
        full: false,
    }
}

/// The runs stopped and resumed: each recipe feature that carries state across epochs.
fn resumed_runs() -> [(TaskKind, &'static [&'static str]); 8] {
    let curriculum: &'static [&'static str] = &["curriculum-size=4", "curriculum-share=0.5"];
    let starts: &'static [&'static str] =
        &["curriculum-size=4", "curriculum-share=0.5", "starts=3"];
    [
        (
            TaskKind::Checkerboard,
            &[
                "recipe=input-wise",
                "gate-noise=0.3",
                "warmup=4",
                "hard-gates=0.3",
            ],
        ),
        (TaskKind::CheckerboardAsync, &[]),
        (TaskKind::CheckerboardAsync, curriculum),
        // Stopped while the starts train side by side, and after the choice.
        (TaskKind::Checkerboard, starts),
        (TaskKind::Gol, &["sharpen=4", "straight-through=0.25"]),
        // The sample pool's states are part of what a run carries.
        (
            TaskKind::Lizard,
            &["recipe=paper", "pool=5", "batch=2", "pool-damage=1"],
        ),
        // A pool of the whole run's larger curriculum grids.
        (
            TaskKind::Lizard,
            &[
                "recipe=paper",
                "pool=5",
                "batch=2",
                "pool-damage=1",
                "curriculum-size=24",
                "curriculum-share=1",
            ],
        ),
        // From half the run: stopped before the pool phase and in it.
        (
            TaskKind::Lizard,
            &["recipe=paper", "pool=5", "batch=2", "pool-from=0.5"],
        ),
    ]
}

#[test]
fn a_resumed_run_equals_one_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    for (task, changes) in resumed_runs() {
        let (whole, whole_history) = train(trainer(task, changes), 0);
        for stop_after in [1, 5, 11] {
            let (first, mut history) = train(trainer(task, changes), stop_after);
            assert_eq!(first.epochs_done(), stop_after);
            let checkpoint = checkpoint_of(&first, history.clone());
            let path = dir.path().join("model.checkpoint.json");
            checkpoint_file::save(&checkpoint, &path).unwrap();
            let loaded = checkpoint_file::load(&path).unwrap();
            assert_eq!(
                loaded, checkpoint,
                "a checkpoint reads back as it was written"
            );
            let resumed = Trainer::resume(loaded.model, loaded.settings, loaded.state).unwrap();
            let (rest, more) = train(resumed, 0);
            history.extend(more);
            assert_eq!(
                history, whole_history,
                "{task:?} stopped after {stop_after}"
            );
            assert_eq!(rest.model.logits, whole.model.logits);
            assert_eq!(rest.best(), whole.best(), "the best model survives a stop");
            assert_eq!(rest.chosen(), whole.chosen(), "the same start is chosen");
        }
    }
}

/// The checkpoint of `trainer` after the epochs of `history`, in a run's first attempt.
fn checkpoint_of(trainer: &Trainer, history: Vec<EpochMetrics>) -> Checkpoint {
    Checkpoint {
        model: trainer.model.clone(),
        settings: trainer.settings().clone(),
        state: trainer.state(),
        history,
        outputs: outputs(),
        exact_watch: Default::default(),
        attempts: Vec::new(),
        kept: None,
    }
}

#[test]
fn a_damaged_checkpoint_names_what_is_wrong() {
    let (trainer, history) = train(trainer(TaskKind::Checkerboard, &[]), 4);
    let checkpoint = Checkpoint {
        // Solved at epoch 3 and checked then, not exact: what a stopping run carries on.
        exact_watch: serde_json::from_str(r#"{"solved_at":3,"exact_at":null,"checked_at":3}"#)
            .unwrap(),
        ..checkpoint_of(&trainer, history)
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    checkpoint_file::save(&checkpoint, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        checkpoint_file::from_json(&text).unwrap(),
        checkpoint,
        "the check's epochs read back"
    );
    let cases = [
        (
            r#""checked_at":3"#,
            r#""checked_at":9"#,
            "exact_watch",
            "names epoch 9, after the 4 epochs done",
        ),
        (
            r#""epochs_done":4"#,
            r#""epochs_done":3"#,
            "history",
            "4 epochs of metrics for 3 epochs done",
        ),
        (
            r#""epochs_done":4"#,
            r#""epochs_done":40"#,
            "state.epochs_done",
            "40 epochs done of a run of 12",
        ),
        (
            r#"{"epoch":2,"#,
            r#"{"epoch":7,"#,
            "history[1].epoch",
            "expected epoch 2, found 7",
        ),
        (
            r#""format":"logicars-checkpoint""#,
            r#""format":"x""#,
            "format",
            "expected \"logicars-checkpoint\", found \"x\"",
        ),
    ];
    assert_refused(&text, &cases);
}

/// Each case, `(from, to, at, message)`: the checkpoint `text` with `from` changed to `to`
/// is refused, naming `at` with `message`.
fn assert_refused(text: &str, cases: &[(&str, &str, &str, &str)]) {
    for &(from, to, at, message) in cases {
        assert!(text.contains(from), "{from}");
        let broken = text.replacen(from, to, 1);
        let got = checkpoint_file::from_json(&broken).unwrap_err();
        assert_eq!(got, (at.to_string(), message.to_string()), "{from}");
    }
}

/// A checkpoint of a run's second attempt carries the first's record and kept model, and
/// a checkpoint whose attempts do not lead up to the training one is refused.
#[test]
fn a_checkpoint_of_a_later_attempt_carries_the_earlier_ones() {
    let (first, first_history) = train(trainer(TaskKind::Checkerboard, &["attempts=3"]), 0);
    let first_settings = first.settings().clone();
    let finished = finish_attempt(
        first,
        first_history,
        ExactWatch::default(),
        Ending::Finished,
        Keep::Best,
        |_| {},
    );
    assert!(
        !finished.record.exact,
        "12 epochs do not make an exact checkerboard"
    );
    let second = first_settings.for_attempt(2);
    assert_eq!((second.attempt, second.recipe.attempts), (2, 2));
    let (config, _) = preset(TaskKind::Checkerboard, true);
    let model = logicars::train::fresh_model(config, &second).unwrap();
    let (trainer, history) = train(Trainer::new(model, second), 5);
    let checkpoint = Checkpoint {
        attempts: vec![finished.record.clone()],
        kept: Some(finished.kept.clone()),
        ..checkpoint_of(&trainer, history)
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.json");
    checkpoint_file::save(&checkpoint, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(checkpoint_file::from_json(&text).unwrap(), checkpoint);
    let cases = [
        (
            r#""attempts":[{"attempt":1,"#,
            r#""attempts":[{"attempt":3,"#,
            "attempts[0]",
            "attempt 3 (exact: false) where attempt 1 that was not exact belongs",
        ),
        (
            r#""exact":false,"#,
            r#""exact":true,"#,
            "attempts[0]",
            "attempt 1 (exact: true) where attempt 1 that was not exact belongs",
        ),
        (
            r#""attempt":2}"#,
            r#""attempt":1}"#,
            "model.attempt_seed",
            &format!(
                "{} is not the seed of attempt 1 of seed 0 (0)",
                logicars::train::attempt_seed(0, 2)
            ),
        ),
    ];
    assert_refused(&text, &cases);
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("kept").unwrap();
    let got = checkpoint_file::from_json(&json.to_string()).unwrap_err();
    let expected = "1 attempts before attempt 2, with no kept model";
    assert_eq!(got, ("attempts".to_string(), expected.to_string()));
}
