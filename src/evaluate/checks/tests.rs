use super::*;

#[test]
fn phase_note_only_for_checkerboards_below_half() {
    assert_eq!(
        with_phase_note(TaskKind::Checkerboard, 0.9, "x".into()),
        "x"
    );
    assert_eq!(
        with_phase_note(TaskKind::CheckerboardAsync, 0.25, String::new()),
        "the other phase of the checkerboard: 75.00%"
    );
    assert_eq!(with_phase_note(TaskKind::Gol, 0.1, "n".into()), "n");
    assert!(
        with_phase_note(TaskKind::Checkerboard, 0.0, "d".into()).starts_with("d; the other phase")
    );
}

#[test]
fn growing_patterns_must_persist_and_regrow() {
    use crate::tasks::preset;
    let shape = |task| {
        let (config, _) = preset(task, false);
        rollout_checks(&config, CheckOptions::PAPER_BLOCK)
            .into_iter()
            .map(|c| (c.name, c.height, c.steps, c.damage))
            .collect::<Vec<_>>()
    };
    // The G: 16x16, 15 steps; the block is cut to half the grid's side.
    let g_block = Damage::centred(8, 8, 15, 30, 16, 16).unwrap();
    assert_eq!(
        shape(TaskKind::ColoredG),
        [
            ("training size", 16, 15, None),
            ("holds 2x steps", 16, 30, None),
            ("regrowth after damage", 16, 60, Some(g_block)),
        ]
    );
    // The lizard's default: 14 steps on a 30x30 grid fitted to it; the 2x grid, where
    // it is held and damaged with room around it.
    let lizard_block = Damage::centred(15, 15, 14, 28, 60, 60).unwrap();
    assert_eq!(
        shape(TaskKind::Lizard),
        [
            ("training size", 30, 14, None),
            ("2x grid", 60, 14, None),
            ("holds 2x steps", 60, 28, None),
            ("holds 4x steps", 60, 56, None),
            ("regrowth after damage", 60, 56, Some(lizard_block)),
        ]
    );
}

#[test]
fn regrowth_finds_the_first_step_right_for_good() {
    use crate::model::gates::OPS;
    use crate::model::pattern::PatternTarget;
    use crate::tasks::pattern;
    // An 8x8 target with every cell on, and rules whose every gate is one constant op.
    let target = PatternTarget {
        height: 8,
        width: 8,
        rgb: false,
        bits: vec![1; 64],
    };
    let config = pattern(target, 4, 2, vec![16, 8, 4]);
    let constant = |name: &str| {
        let mut model = Model::new(config.clone(), &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        let op = OPS.iter().position(|o| o.name == name).unwrap();
        for logits in &mut model.logits {
            *logits = [0.0; 16];
            logits[op] = 10.0;
        }
        model
    };
    let init = tasks::seeded_centre(1, 8, 8, 4);
    let goal = tasks::target(&config, &init, 12);
    let damage = Damage::centred(4, 4, 12, 24, 8, 8).unwrap();
    // TRUE: every cell on after each step, so only the damaged frames 12..=24 are
    // wrong; right again from step 25, and at the last step.
    let (last, regrown) = regrowth(&constant("TRUE"), &init, None, &damage, 48, &goal, || {});
    assert_eq!(regrown, Some(25));
    assert_eq!(accuracy(&last, &goal, &[0]), 1.0);
    // FALSE: never right.
    let (_, regrown) = regrowth(&constant("FALSE"), &init, None, &damage, 48, &goal, || {});
    assert_eq!(regrown, None);
    // NAND: a uniform grid flips every step (an odd number of layers), so from all
    // zeros the odd frames are right and the even ones wrong: right only from the
    // last step, and only if that step is odd.
    let zeros = Grids::zeros(1, 8, 8, 4);
    let nand = constant("NAND");
    let (_, regrown) = regrowth(&nand, &zeros, None, &damage, 49, &goal, || {});
    assert_eq!(regrown, Some(49));
    let (_, regrown) = regrowth(&nand, &zeros, None, &damage, 48, &goal, || {});
    assert_eq!(regrown, None);
}

#[test]
fn all_boards_counts_the_boards_one_at_a_time() {
    use crate::model::network::Model;
    use crate::tasks::{life_generation, preset};
    let (config, _) = preset(TaskKind::Gol, true);
    let model = Model::new(config, &mut ChaCha8Rng::seed_from_u64(4)).unwrap();
    let boards = tasks::exhaustive_init(&model.config).unwrap();
    assert_eq!(boards.batch, 512);
    // Each board alone, against Life's rule.
    let mut wrong = 0;
    for b in 0..512 {
        let mut one = Grids::zeros(1, 3, 3, 1);
        one.values
            .copy_from_slice(&boards.values[b * 9..(b + 1) * 9]);
        let got = hard_last_frame(&model, &one, 1, None, None, |_| {});
        wrong += usize::from(got.values != life_generation(&one, true).values);
    }
    assert!(wrong > 0, "an untrained rule is wrong somewhere");
    let row = all_boards(&model, &boards);
    assert_eq!(row.note, format!("{wrong} of 512 boards have a wrong cell"));
    assert_eq!((row.steps, row.grid.as_str()), (1, "3x3"));
}
