use super::*;
use crate::model::task::TaskKind;
use crate::tasks::preset;

/// Every preset, full and small.
fn presets() -> Vec<(ModelConfig, TrainSettings)> {
    TaskKind::ALL
        .into_iter()
        .flat_map(|task| [false, true].map(|small| preset(task, small)))
        .collect()
}

#[test]
fn keys_are_unique_and_each_names_its_knob() {
    let keys = keys();
    for (i, key) in keys.iter().enumerate() {
        assert!(!keys[..i].contains(key), "{key} twice");
        assert_eq!(Knob::named(key).map(|k| k.key), Some(*key));
    }
    assert!(Knob::named("speed").is_none());
}

#[test]
fn a_presets_own_values_round_trip_and_change_nothing() {
    for (config, settings) in presets() {
        for knob in KNOBS {
            let value = knob.value(&config, &settings);
            let text = format!("{}={value}", knob.key);
            let change: Override = text.parse().unwrap();
            assert_eq!(change.value(), value, "{text}");
            let (mut c, mut s) = (config.clone(), settings.clone());
            change.apply(&mut c, &mut s);
            assert_eq!((&c, &s), (&config, &settings), "{text} on {}", config.task);
        }
    }
}

/// A value of `knob` other than `value`, of the same kind.
fn another(value: KnobValue) -> KnobValue {
    match value {
        KnobValue::Count(n) => KnobValue::Count(n + 3),
        KnobValue::Number(x) => KnobValue::Number(if x == 0.5 { 0.25 } else { 0.5 }),
        KnobValue::Switch(on) => KnobValue::Switch(!on),
        KnobValue::Recipe(name) => KnobValue::Recipe(match name {
            RecipeName::Paper => RecipeName::InputWise,
            _ => RecipeName::Paper,
        }),
        KnobValue::Parametrization(p) => KnobValue::Parametrization(match p {
            Parametrization::Softmax => Parametrization::InputWise,
            Parametrization::InputWise => Parametrization::Softmax,
        }),
        KnobValue::Rule(_) => KnobValue::Rule(Some("highlife".parse().unwrap())),
    }
}

#[test]
fn every_knob_sets_the_value_it_reads() {
    let (config, settings) = preset(TaskKind::Checkerboard, false);
    for knob in KNOBS {
        let value = another(knob.value(&config, &settings));
        let text = format!("{}={value}", knob.key);
        let (mut c, mut s) = (config.clone(), settings.clone());
        text.parse::<Override>().unwrap().apply(&mut c, &mut s);
        assert_eq!(knob.value(&c, &s), value, "{text}");
        assert_ne!((&c, &s), (&config, &settings), "{text} changed something");
    }
}

#[test]
fn overrides_change_only_their_field() {
    let (config, settings) = preset(TaskKind::Checkerboard, false);
    let (mut c, mut s) = (config.clone(), settings.clone());
    for text in [
        "lr=0.1",
        "recipe=input-wise",
        "pass-through=2.5",
        "warmup=10",
        "hard-gates=0.25",
    ] {
        text.parse::<Override>().unwrap().apply(&mut c, &mut s);
    }
    assert_eq!(s.learning_rate, 0.1);
    assert_eq!(s.recipe.name, RecipeName::InputWise);
    assert_eq!(c.parametrization, Parametrization::InputWise);
    assert_eq!(s.recipe.pass_through, 2.5);
    assert_eq!(s.recipe.warmup, 10);
    assert_eq!(s.recipe.hard_gates, 0.25);
    assert_eq!(
        (s.epochs, s.batch, s.seed),
        (settings.epochs, settings.batch, settings.seed)
    );
    assert_eq!(c.update_layers, config.update_layers);
}

#[test]
fn bad_overrides_say_what_was_expected() {
    let err = |t: &str| t.parse::<Override>().unwrap_err().to_string();
    assert_eq!(err("lr"), "'lr': expected key=value, e.g. lr=0.1");
    assert_eq!(err("lr=fast"), "lr=fast: expected a number");
    assert_eq!(err("batch=-1"), "batch=-1: expected a whole number");
    assert_eq!(err("cosine=yes"), "cosine=yes: expected true or false");
    assert_eq!(
        err("recipe=magic"),
        "recipe=magic: expected converge, paper or input-wise"
    );
    assert_eq!(
        err("parametrization=magic"),
        "parametrization=magic: expected softmax or input-wise"
    );
    assert!(err("speed=1").starts_with("unknown key 'speed' (one of epochs, batch,"));
}

#[test]
fn every_range_is_checked_and_named_by_its_knob() {
    let (config, good) = preset(TaskKind::Checkerboard, true);
    let check = |edit: fn(&mut TrainSettings)| {
        let mut settings = good.clone();
        edit(&mut settings);
        validate(&config, &settings).err().map(|e| e.to_string())
    };
    assert_eq!(check(|_| {}), None);
    let refused = [
        (check(|s| s.epochs = 0), "epochs must be at least 1, got 0"),
        (check(|s| s.batch = 0), "batch must be at least 1, got 0"),
        (
            check(|s| s.learning_rate = -1.0),
            "lr must be a finite number above 0, got -1",
        ),
        (
            check(|s| s.learning_rate = f32::INFINITY),
            "lr must be a finite number above 0, got inf",
        ),
        (
            check(|s| s.recipe.straight_through = 1.5),
            "straight-through must be a share of the run from 0 to 1, got 1.5",
        ),
        (
            check(|s| s.recipe.hardening = -0.1),
            "hardening must be a share of the run from 0 to 1, got -0.1",
        ),
        (
            check(|s| s.recipe.loss_steps = 0),
            "loss-steps must be at least 1, got 0",
        ),
        (
            check(|s| s.recipe.gate_noise = f32::NAN),
            "gate-noise must be a finite number from 0, got NaN",
        ),
        (
            check(|s| s.recipe.sharpen = 0.0),
            "sharpen must be a finite number above 0, got 0",
        ),
        (
            check(|s| s.recipe.hard_gates = 2.0),
            "hard-gates must be a share of the gates from 0 to 1, got 2",
        ),
        (
            check(|s| s.recipe.curriculum_share = 1.01),
            "curriculum-share must be a share of the run from 0 to 1, got 1.01",
        ),
        (
            check(|s| s.recipe.starts = 0),
            "starts must be at least 1, got 0",
        ),
    ];
    for (got, expected) in refused {
        assert_eq!(got.as_deref(), Some(expected));
    }
    let edges = [
        check(|s| s.recipe.hard_gates = 1.0),
        check(|s| s.recipe.gate_noise = 0.0),
        check(|s| s.recipe.straight_through = 0.0),
    ];
    assert_eq!(edges, [None, None, None]);
}

#[test]
fn tiny_numbers_read_as_exponents() {
    assert_eq!(KnobValue::Number(1e-8).to_string(), "1e-8");
    assert_eq!(KnobValue::Number(0.05).to_string(), "0.05");
    assert_eq!(KnobValue::Number(10.0).to_string(), "10");
}

#[test]
fn a_recipe_override_is_the_recipe_knob() {
    assert_eq!(
        Override::recipe(RecipeName::Paper),
        "recipe=paper".parse().unwrap()
    );
}

/// Every knob given NaN, either infinity, a negative number and zero, on every preset:
/// a value is refused as not of the knob's kind, refused by its range with the line that
/// names the knob and the range, or in the range docs/knobs.md shows for it and accepted.
/// No range holds a number that is not finite.
#[test]
fn every_knob_refuses_what_its_range_does_not_hold_and_nothing_else() {
    for (config, settings) in presets() {
        for knob in KNOBS {
            for text in ["NaN", "inf", "-inf", "-1", "0"] {
                let Ok(change) = knob.parse(text) else {
                    continue;
                };
                let value = change.value();
                if let KnobValue::Number(x) = value {
                    assert!(
                        x.is_finite() || !knob.range.admits(value),
                        "{}={text}",
                        knob.key
                    );
                }
                let (mut c, mut s) = (config.clone(), settings.clone());
                change.apply(&mut c, &mut s);
                let refused = match validate(&c, &s) {
                    Err(ConfigError::OutOfRange {
                        what,
                        expected,
                        got,
                    }) => Some((what, expected, got)),
                    _ => None,
                };
                let expected = (!knob.range.admits(value))
                    .then(|| (knob.key, knob.range.describe(), value.to_string()));
                assert_eq!(refused, expected, "{}={text} on {}", knob.key, config.task);
            }
        }
    }
}

#[test]
fn the_ranges_say_what_they_hold() {
    let cases = [
        (Range::AtLeastOne, KnobValue::Count(0), false),
        (Range::AtLeastOne, KnobValue::Count(1), true),
        (Range::Any, KnobValue::Count(0), true),
        (Range::Any, KnobValue::Number(f32::NAN), false),
        (Range::AtLeastZero, KnobValue::Number(0.0), true),
        (Range::AtLeastZero, KnobValue::Number(-0.5), false),
        (Range::AtLeastZero, KnobValue::Number(f32::INFINITY), false),
        (Range::AboveZero, KnobValue::Number(0.0), false),
        (Range::AboveZero, KnobValue::Number(1e-30), true),
        (Range::ShareOfRun, KnobValue::Number(1.0), true),
        (Range::ShareOfGates, KnobValue::Number(1.01), false),
        (Range::Any, KnobValue::Switch(false), true),
    ];
    for (range, value, holds) in cases {
        assert_eq!(range.admits(value), holds, "{range:?} {value}");
    }
}
