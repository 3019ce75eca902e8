use super::*;
use crate::model::task::TaskKind;
use crate::tasks::knobs::validate;
use crate::tasks::preset;

/// The preset of `task`; the lizard's on the paper's recipe, its 20x20 torus and 12 steps,
/// where the curricula, the finish and the pool these tests cover are used (its default
/// is fitted to its target and holds it).
fn on_papers_grid(task: TaskKind) -> (ModelConfig, TrainSettings) {
    match task {
        TaskKind::Lizard => crate::tasks::papers_preset(task, false),
        _ => preset(task, false),
    }
}

#[test]
fn a_curriculum_needs_a_task_of_any_size_and_a_smaller_grid_of_its_period() {
    let check = |task, side: usize| {
        let (config, mut settings) = on_papers_grid(task);
        settings.recipe.curriculum_size = side;
        settings.recipe.curriculum_share = 0.4;
        validate(&config, &settings).map_err(|e| e.to_string())
    };
    assert_eq!(check(TaskKind::Checkerboard, 8), Ok(()));
    assert_eq!(check(TaskKind::Checkerboard, 12), Ok(()));
    assert_eq!(
        check(TaskKind::CheckerboardAsync, 10),
        Ok(()),
        "14x14 less 4"
    );
    assert_eq!(
        check(TaskKind::Checkerboard, 10),
        Err(
            "the curriculum's grids (10x10) must be smaller than the task's (16x16) by a \
             multiple of 4 cells, the pattern's period"
                .into()
        )
    );
    assert!(check(TaskKind::Checkerboard, 16).is_err(), "not smaller");
    assert_eq!(
        check(TaskKind::Gol, 2),
        Err(
            "a curriculum of other grids (--curriculum-size) is for tasks defined at any \
             size (the checkerboards: smaller grids) or grown from the centre (pattern, \
             lizard: larger ones), which gol is not (--curriculum-steps shortens the \
             rollouts instead)"
                .into()
        )
    );
    assert!(
        check(TaskKind::ColoredG, 20).is_err(),
        "grown in from its border"
    );
    assert_eq!(check(TaskKind::Gol, 0), Ok(()), "no curriculum");
}

#[test]
fn a_task_grown_from_the_centre_takes_a_larger_curriculum_grid() {
    let check = |side: usize| {
        let (config, mut settings) = on_papers_grid(TaskKind::Lizard);
        settings.recipe.curriculum_size = side;
        settings.recipe.curriculum_share = 1.0;
        validate(&config, &settings).map_err(|e| e.to_string())
    };
    assert_eq!(check(26), Ok(()));
    assert_eq!(check(21), Ok(()), "any larger side");
    assert_eq!(
        check(20),
        Err(
            "the curriculum's grids (20x20) of a task grown from the centre must be larger \
             than the task's (20x20): the target is drawn in their centre"
                .into()
        )
    );
    assert!(check(16).is_err(), "a smaller grid would crop the target");
}

#[test]
fn a_finish_is_a_larger_grid_for_one_model_of_a_task_grown_from_the_centre() {
    let check = |task: TaskKind, side: usize, change: fn(&mut TrainSettings)| {
        let (config, mut settings) = on_papers_grid(task);
        settings.recipe.finish_size = side;
        change(&mut settings);
        validate(&config, &settings).map_err(|e| e.to_string())
    };
    let none = |_: &mut TrainSettings| {};
    assert_eq!(check(TaskKind::Lizard, 26, none), Ok(()));
    assert_eq!(check(TaskKind::Checkerboard, 0, none), Ok(()), "no finish");
    assert_eq!(
        check(TaskKind::Lizard, 20, none),
        Err(
            "--finish-size 20 must be larger than the task's grid (20x20): the target is \
             drawn in the centre of the larger grid"
                .into()
        )
    );
    let refused = check(TaskKind::Checkerboard, 32, none).unwrap_err();
    assert!(refused.contains("which checkerboard is not"), "{refused}");
    let with = |change: fn(&mut TrainSettings)| check(TaskKind::Lizard, 26, change).unwrap_err();
    let starts = with(|s| {
        s.recipe.starts = 2;
        s.recipe.starts_share = 0.2;
    });
    assert!(starts.contains("not go with --starts (add"), "{starts}");
    assert!(with(|s| s.recipe.pool = 4).contains("--pool (add --finish-size 0)"));
    assert!(with(|s| s.recipe.hold_steps = 12).contains("--hold-steps (add"));
    let (config, mut settings) = on_papers_grid(TaskKind::Lizard);
    settings.recipe.finish_size = 0;
    assert_eq!(settings.finish_config(&config), None);
    settings.recipe.finish_size = 26;
    let finish = settings.finish_config(&config).unwrap();
    assert_eq!(
        (finish.height, finish.width, finish.steps),
        (26, 26, config.steps)
    );
}

#[test]
fn a_curriculum_of_shorter_rollouts_fits_every_task_with_steps_to_spare() {
    let check = |task, steps: usize| {
        let (config, mut settings) = on_papers_grid(task);
        settings.recipe.curriculum_steps = steps;
        settings.recipe.curriculum_share = 0.3;
        validate(&config, &settings).map_err(|e| e.to_string())
    };
    assert_eq!(check(TaskKind::Lizard, 8), Ok(()), "the grid's size stays");
    assert_eq!(check(TaskKind::ColoredG, 10), Ok(()));
    assert_eq!(check(TaskKind::CheckerboardAsync, 40), Ok(()));
    assert_eq!(
        check(TaskKind::Gol, 1),
        Err("the curriculum's rollouts (1 steps) must be shorter than the task's (1 steps)".into())
    );
    let (config, settings) = on_papers_grid(TaskKind::Lizard);
    let mut short = settings.clone();
    short.recipe.curriculum_steps = 8;
    short.recipe.curriculum_share = 0.3;
    let small = short.curriculum_config(&config).unwrap();
    assert_eq!(
        (small.height, small.width, small.steps),
        (config.height, config.width, 8)
    );
    assert_eq!(
        settings.curriculum_config(&config),
        None,
        "the paper's has none"
    );
}

#[test]
fn a_synchronous_curriculum_drops_the_fire_masks_of_asynchronous_tasks_only() {
    let (config, mut settings) = preset(TaskKind::CheckerboardAsync, false);
    settings.recipe.curriculum_sync = true;
    assert_eq!(validate(&config, &settings), Ok(()));
    let small = settings.curriculum_config(&config).unwrap();
    assert_eq!(small.fire_rate, None, "every cell updates");
    assert_eq!(
        (small.height, small.steps, config.fire_rate),
        (10, config.steps, Some(0.6)),
        "the grid shrinks as before; the task stays asynchronous"
    );
    settings.recipe.curriculum_size = 0;
    let same_size = settings.curriculum_config(&config).unwrap();
    assert_eq!((same_size.height, same_size.fire_rate), (14, None));
    settings.recipe.curriculum_share = 0.0;
    assert_eq!(settings.curriculum_config(&config), None, "no share, none");

    let (config, mut settings) = preset(TaskKind::Checkerboard, false);
    settings.recipe.curriculum_sync = true;
    assert_eq!(
        validate(&config, &settings).map_err(|e| e.to_string()),
        Err(
            "--curriculum-sync runs the curriculum synchronously; checkerboard is \
             synchronous already (it is for checkerboard-async)"
                .into()
        )
    );
}

#[test]
fn alternating_needs_a_curriculum() {
    let (config, mut settings) = on_papers_grid(TaskKind::Lizard);
    settings.recipe.curriculum_alternate = true;
    assert_eq!(
        validate(&config, &settings),
        Err(ConfigError::AlternateWithoutCurriculum)
    );
    settings.recipe.curriculum_size = 24;
    settings.recipe.curriculum_share = 1.0;
    assert_eq!(validate(&config, &settings), Ok(()));
}

#[test]
fn steps_are_bounded_alike_everywhere() {
    assert_eq!(check_steps(0), Err(ConfigError::NoSteps));
    assert_eq!(check_steps(MAX_STEPS), Ok(()));
    assert_eq!(
        check_steps(MAX_STEPS + 1).unwrap_err().to_string(),
        "steps must be at most 1048576, got 1048577"
    );
}

#[test]
fn reference_checkerboard_has_the_papers_gate_counts() {
    let (config, _) = preset(TaskKind::Checkerboard, false);
    assert_eq!(config.gate_count(), 3040);
    assert_eq!(
        config.kernels * config.perception_layers.iter().sum::<usize>(),
        224
    );
    assert_eq!(config.update_layers.iter().sum::<usize>(), 2816);
    assert_eq!(config.gates_per_cell_step(), 4608);
    assert_eq!(config.update_inputs(), 264);
}

#[test]
fn invalid_configs_are_named() {
    let (good, _) = preset(TaskKind::Checkerboard, true);
    let check = |edit: fn(&mut ModelConfig), needle: &str| {
        let mut c = good.clone();
        edit(&mut c);
        let err = c.validate().unwrap_err().to_string();
        assert!(err.contains(needle), "{err} should mention {needle}");
    };
    check(|c| c.channels = 129, "channels");
    check(|c| c.height = 0, "grid");
    check(|c| c.steps = 0, "steps");
    check(|c| c.fire_rate = Some(1.5), "fire rate");
    check(|c| c.update_layers.push(3), "last update layer");
    check(|c| c.target_channels = vec![99], "target channel");
    check(|c| c.perception_layers[0] = 4, "8 gates");
}

#[test]
fn a_sample_pool_is_for_growing_tasks_and_holds_a_batch() {
    let check = |task, pool, batch, reseed, damage, starts| {
        let (config, mut settings) = on_papers_grid(task);
        let r = &mut settings.recipe;
        (r.pool, r.pool_reseed, r.pool_damage, r.starts) = (pool, reseed, damage, starts);
        // Starts chosen among at half the run, so that they are valid without a pool;
        // the lizard's finish, which goes with neither, left out.
        r.starts_share = 0.5;
        r.finish_size = 0;
        settings.batch = batch;
        validate(&config, &settings).map_err(|e| match e {
            ConfigError::PoolTask { .. } => "task",
            ConfigError::PoolTooSmall { .. } => "small",
            ConfigError::PoolBatch { .. } => "batch",
            ConfigError::PoolWithStarts { .. } => "starts",
            ConfigError::PoolWithCurriculum => "curriculum",
            _ => "other",
        })
    };
    assert_eq!(check(TaskKind::Lizard, 64, 4, 1, 3, 1), Ok(()));
    // The G's default recipe starts with a curriculum of shorter rollouts.
    assert_eq!(check(TaskKind::ColoredG, 2, 2, 0, 0, 1), Err("curriculum"));
    // A curriculum of larger grids for the whole run holds its own grids in the pool.
    let larger = |share, steps, alternate| {
        let (config, mut settings) = on_papers_grid(TaskKind::Lizard);
        let r = &mut settings.recipe;
        (r.pool, r.finish_size, r.curriculum_size) = (8, 0, 24);
        (
            r.curriculum_share,
            r.curriculum_steps,
            r.curriculum_alternate,
        ) = (share, steps, alternate);
        validate(&config, &settings).is_ok()
    };
    assert!(larger(1.0, 0, false));
    assert!(!larger(0.5, 0, false), "part of the run");
    assert!(!larger(1.0, 8, false), "other steps");
    assert!(!larger(1.0, 0, true), "every other epoch");
    assert_eq!(check(TaskKind::Checkerboard, 64, 2, 1, 0, 1), Err("task"));
    assert_eq!(check(TaskKind::Lizard, 3, 4, 1, 0, 1), Err("small"));
    assert_eq!(check(TaskKind::Lizard, 8, 4, 2, 3, 1), Err("batch"));
    assert_eq!(check(TaskKind::Lizard, 8, 4, 1, 0, 2), Err("starts"));
    // No pool: its other numbers are not looked at, but a time to start it is refused.
    assert_eq!(check(TaskKind::Checkerboard, 0, 2, 9, 9, 1), Ok(()));
    let (config, mut settings) = on_papers_grid(TaskKind::Lizard);
    settings.recipe.pool_from = 0.5;
    assert_eq!(
        validate(&config, &settings).map_err(|e| e.to_string()),
        Err("--pool-from 0.5 says when batches start coming from the pool; set --pool too".into())
    );
    settings.recipe.pool = 8;
    settings.recipe.finish_size = 0;
    assert_eq!(validate(&config, &settings), Ok(()));
}

#[test]
fn parity_kernels_are_at_most_the_models_kernels() {
    let check = |kernels: usize| {
        let (config, mut settings) = preset(TaskKind::Rule, false);
        settings.recipe.parity_kernels = kernels;
        validate(&config, &settings).map_err(|e| e.to_string())
    };
    assert_eq!(check(16), Ok(()));
    assert_eq!(
        check(17),
        Err("--parity-kernels 17 is more than the model's 16 perception kernels".into())
    );
}
