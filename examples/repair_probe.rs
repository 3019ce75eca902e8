//! A probe, not part of training: does a search over single gate changes finish a growing
//! task's model that training left a few bits from exact?
//!
//! `cargo run --release --example repair_probe -- MODEL.json [PASSES [OUT.json]]`
//!
//! It scores the hard circuit where the exact check looks (the task's step and twice it,
//! from the task's fixed start), then goes over the gates from the outputs back, trying
//! each other op of each gate and keeping the first change that lowers the wrong bits,
//! for at most PASSES passes (default 1). It prints the project's own fresh check of the
//! result, and saves it to OUT.json if given. Only the growing tasks (pattern, lizard,
//! coloured G) start every rollout from one fixed state, so only for them are the
//! searched inputs the trained ones, not the checked ones alone.

use std::path::Path;
use std::time::Instant;

use logicars::automaton::hard_run::HardRun;
use logicars::evaluate::fresh::fresh_check;
use logicars::evaluate::hard::{score, Scoring};
use logicars::io::model_file;
use logicars::model::gates::NUM_OPS;
use logicars::model::network::Model;
use logicars::model::task::TaskKind;
use logicars::tasks;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: repair_probe MODEL.json [PASSES [OUT.json]]")?;
    let passes: usize = args.next().map_or(Ok(1), |p| p.parse())?;
    let out = args.next();
    let mut model = model_file::load(Path::new(&path))?;
    let c = model.config.clone();
    if !matches!(
        c.task,
        TaskKind::Pattern | TaskKind::Lizard | TaskKind::ColoredG
    ) {
        return Err("the probe is for the growing tasks, whose start is fixed".into());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let (init, _) = tasks::eval_batch(&c, 1, (c.height, c.width), 2 * c.steps, &mut rng);
    let target = tasks::target(&c, &init, c.steps);
    let scoring = Scoring {
        steps: 2 * c.steps,
        also_at: Some(c.steps),
    };
    let mut run = HardRun::new(&model, 1, (c.height, c.width));
    let wrong = |run: &mut HardRun| {
        score(
            run,
            &init,
            &target,
            &c.target_channels,
            None,
            scoring,
            |_| {},
        )
        .0
    };
    let start = Instant::now();
    let best = search(&mut model, &mut run, passes, &wrong);
    let secs = start.elapsed().as_secs_f64();
    println!("end: {best} bits wrong after {secs:.1} s");
    let check = fresh_check(&model);
    println!(
        "fresh check: {:.2}% right, {}",
        100.0 * check.accuracy,
        if check.exact() { "exact" } else { "not exact" }
    );
    if let Some(out) = out {
        model_file::save(&model, Path::new(&out))?;
    }
    Ok(())
}

/// The passes over the gates, from the outputs back; returns the wrong bits left.
fn search(
    model: &mut Model,
    run: &mut HardRun,
    passes: usize,
    wrong: &impl Fn(&mut HardRun) -> f64,
) -> f64 {
    let start = Instant::now();
    let mut best = wrong(run);
    println!("start: {best} bits wrong");
    'passes: for pass in 0..passes {
        let before = best;
        for g in (0..model.gate_count()).rev() {
            if let Some((op, other, w)) = first_better_op(model, run, g, best, wrong) {
                let secs = start.elapsed().as_secs_f64();
                println!("pass {pass}, gate {g}, op {op} -> {other}: {best} -> {w} ({secs:.1} s)");
                best = w;
            }
            if best == 0.0 {
                break 'passes;
            }
        }
        if best == before {
            break;
        }
    }
    best
}

/// Tries each other op of gate `g` and keeps the first with fewer than `best` wrong bits:
/// (the op before, the op kept, its wrong bits); none, and the gate as it was, if none is.
fn first_better_op(
    model: &mut Model,
    run: &mut HardRun,
    g: usize,
    best: f64,
    wrong: &impl Fn(&mut HardRun) -> f64,
) -> Option<(usize, usize, f64)> {
    let kept = model.logits[g];
    let op = model.hard_op(g);
    let top = kept.iter().copied().fold(f32::MIN, f32::max);
    for other in (0..NUM_OPS).filter(|&o| o != op) {
        model.logits[g] = kept;
        model.logits[g][other] = top + 1.0;
        if model.hard_op(g) != other {
            continue;
        }
        run.set_ops(model);
        let w = wrong(run);
        if w < best {
            return Some((op, other, w));
        }
    }
    // The next gate's first trial takes the ops afresh.
    model.logits[g] = kept;
    None
}
