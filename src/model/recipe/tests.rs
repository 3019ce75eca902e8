use super::*;

#[test]
fn the_earlier_search_setting_loads_and_sets_no_budget() {
    let recipe = Recipe::named(RecipeName::Converge, TaskKind::ColoredG, (16, 16));
    let mut json = serde_json::to_value(recipe).unwrap();
    assert_eq!(json["search_circuits"], 15_000);
    assert!(json.get("gate_search").is_none());
    json["gate_search"] = 3.into();
    let read: Recipe = serde_json::from_value(json).unwrap();
    assert_eq!((read.search_circuits, read.gate_search_passes), (15_000, 3));
}

#[test]
fn converge_is_set_per_task() {
    let converge = |task, side| Recipe::named(RecipeName::Converge, task, (side, side));
    let sides = [16, 14, 8].map(|s| converge(TaskKind::Checkerboard, s).curriculum_size);
    assert_eq!(
        sides,
        [8, 6, 4],
        "half the side, less what breaks the period"
    );
    let board = converge(TaskKind::Checkerboard, 16);
    assert_eq!(board.parametrization, Parametrization::InputWise);
    assert_eq!((board.weight_decay, board.curriculum_share), (0.1, 0.4));
    assert_eq!(board.starts, 4);
    let tiny = converge(TaskKind::Checkerboard, 4);
    assert_eq!(
        (tiny.curriculum_size, tiny.starts),
        (0, 1),
        "no curriculum, one start"
    );
    let paper = Recipe::named(RecipeName::Paper, TaskKind::Gol, (3, 3));
    let async_board = converge(TaskKind::CheckerboardAsync, 14);
    assert_eq!(
        async_board,
        Recipe {
            curriculum_size: 10,
            attempts: 8,
            stall: 150,
            ..converge(TaskKind::Checkerboard, 14)
        },
        "the checkerboard's recipe, on the next side down, with more attempts that stop \
         once stalled"
    );
    let async_sides = [14, 8, 4].map(|s| converge(TaskKind::CheckerboardAsync, s).curriculum_size);
    assert_eq!(async_sides, [10, 4, 0]);
    let life = converge(TaskKind::Gol, 3);
    assert_eq!(
        life,
        Recipe {
            name: RecipeName::Converge,
            hard_gates: 0.3,
            attempts: 2,
            ..paper
        }
    );
    let g = converge(TaskKind::ColoredG, 16);
    assert_eq!(
        (
            g.parametrization,
            g.weight_decay,
            g.hard_gates,
            g.hold_steps,
            g.curriculum_steps,
            g.curriculum_share
        ),
        (Parametrization::Softmax, 0.01, 0.7, 15, 8, 0.3)
    );
    assert_eq!((g.search_circuits, g.rewire_layers), (15_000, 2));
}

#[test]
fn converge_makes_attempts_per_task_and_the_paper_one() {
    let converge = |task, side| Recipe::named(RecipeName::Converge, task, (side, side));
    let lizard = converge(TaskKind::Lizard, 20);
    let pattern = converge(TaskKind::Pattern, 20);
    assert_eq!(
        pattern,
        Recipe {
            name: RecipeName::Converge,
            hard_gates: 0.5,
            hold_from: 0.3333,
            search_circuits: 15_000,
            rewire_layers: 2,
            attempts: 6,
            ..Recipe::named(RecipeName::Paper, TaskKind::Pattern, (20, 20))
        },
        "its hold steps come with its fitted steps"
    );
    assert_eq!(
        lizard,
        Recipe::named(RecipeName::Converge, TaskKind::Pattern, (20, 20)),
        "the lizard grown and kept as any pattern"
    );
    let budgets = [
        (TaskKind::Checkerboard, 16, 3, 0),
        (TaskKind::CheckerboardAsync, 14, 8, 150),
        (TaskKind::Gol, 3, 2, 0),
        (TaskKind::ColoredG, 16, 5, 0),
        (TaskKind::Lizard, 20, 6, 0),
        (TaskKind::Pattern, 20, 6, 0),
    ];
    for (task, side, attempts, stall) in budgets {
        let r = converge(task, side);
        assert_eq!((r.attempts, r.stall), (attempts, stall), "{task:?}");
        let paper = Recipe::named(RecipeName::Paper, task, (side, side));
        assert_eq!(
            (paper.attempts, paper.stall),
            (1, 0),
            "{task:?}: the notebook's one"
        );
    }
}
