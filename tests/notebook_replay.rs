//! The paper's recipe replayed: started from the notebook's own initial parameters and
//! fed its own training batches, training follows the notebook's run
//! (`tests/fixtures/notebook-checkerboard-seed23`; semantics in `docs/semantics.md`).

use std::io::Read;
use std::path::{Path, PathBuf};

use logicars::io::{batch_file, model_file};
use logicars::model::recipe::RecipeName;
use logicars::model::task::TaskKind;
use logicars::tasks::{preset, Override};
use logicars::train::{run, EpochMetrics, Trainer};

const EPOCHS: usize = 260;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/notebook-checkerboard-seed23")
        .join(name)
}

/// The notebook's (soft loss, hard loss) per epoch, 0-based.
fn notebook_log() -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(fixture("log.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<f64> = line.split(',').map(|f| f.parse().unwrap()).collect();
            (fields[1], fields[2])
        })
        .collect()
}

fn replay() -> Vec<EpochMetrics> {
    let (mut config, mut settings) = preset(TaskKind::Checkerboard, false);
    Override::recipe(RecipeName::Paper).apply(&mut config, &mut settings);
    settings.epochs = EPOCHS;
    let dir = tempfile::tempdir().unwrap();
    let params = dir.path().join("init_params.json");
    let mut json = String::new();
    let gz = std::fs::File::open(fixture("init_params.json.gz")).unwrap();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut json)
        .unwrap();
    std::fs::write(&params, json).unwrap();
    let model = model_file::load_params(&params, &config).unwrap();
    let shape = (config.height, config.width, config.channels);
    let batches = batch_file::load(&fixture("batches.bits"), settings.batch, shape).unwrap();
    assert_eq!(batches.len(), EPOCHS);
    let trainer = Trainer::new(model, settings).with_batches(batches).unwrap();
    let mut log = Vec::new();
    let (_, _, stopped) = run(trainer, |_, m| {
        log.push(*m);
        std::ops::ControlFlow::Continue(())
    });
    assert!(stopped.is_none(), "{stopped:?}");
    log
}

#[test]
fn the_papers_recipe_follows_the_notebooks_run() {
    let ours = replay();
    let theirs = notebook_log();
    assert_eq!(ours.len(), EPOCHS);
    for (m, &(soft, hard)) in ours.iter().zip(&theirs) {
        let e = m.epoch - 1;
        assert_eq!(m.metrics.hard_loss, hard, "hard loss at notebook epoch {e}");
        if e < 170 {
            let rel = (m.metrics.soft_loss - soft).abs() / soft.abs().max(1e-12);
            assert!(
                rel < 1e-4,
                "soft loss at notebook epoch {e}: {} vs {soft}",
                m.metrics.soft_loss
            );
        }
    }
    let first_zero = ours
        .iter()
        .find(|m| m.metrics.hard_loss == 0.0)
        .map(|m| m.epoch - 1);
    assert_eq!(first_zero, Some(244));
}
