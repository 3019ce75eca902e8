//! A new run's settings from the command line: the preset, the flags that change it, and
//! where the run writes.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use logicars::io::checkpoint_file::{self, RunOutputs};
use logicars::io::{pattern_image, recording_file};
use logicars::model::config::{ModelConfig, TrainSettings};
use logicars::model::task::TaskKind;
use logicars::tasks::pattern_geometry;
use logicars::tasks::recording;
use logicars::tasks::target_images::image_spec;
use logicars::tasks::{check_target_channels, preset, set_channels, use_observed, use_target};
use logicars::train::memory::{training_run_bytes, RolloutSize};

use super::TrainArgs;
use crate::support::bad_value;
use crate::support::outputs::check_outputs;
use crate::support::resources::ensure_memory;

/// `--target` and `--channels` shape the model of a growing task (`--rgb` only the pattern
/// task's); other tasks refuse them. A target image is read the way the task reads its own.
fn apply_pattern_flags(args: &TrainArgs, config: &mut ModelConfig) -> Result<()> {
    if !config.task.grows_image() {
        if args.target.is_some() || args.rgb || args.channels.is_some() {
            bail!("--target, --rgb and --channels are for the growing tasks (pattern, lizard, colored-g)");
        }
        return Ok(());
    }
    if args.rgb && config.task != TaskKind::Pattern {
        bail!(
            "--rgb is for the pattern task; {} reads its target its own way",
            config.task
        );
    }
    if args.target.is_some() || args.rgb {
        let target = match &args.target {
            Some(path) => {
                let spec = image_spec(config.task, args.rgb).expect("a growing task");
                pattern_image::load(path, spec)?
            }
            None => bail!("--rgb needs a colour --target image"),
        };
        use_target(config, target)?;
    }
    if let Some(channels) = args.channels {
        set_channels(config, channels).context("--channels")?;
    }
    Ok(check_target_channels(config)?)
}

/// `--frames`: the rule task learns what the recording shows, said in one line.
fn apply_frames(args: &TrainArgs, config: &mut ModelConfig) -> Result<()> {
    let Some(path) = &args.frames else {
        return Ok(());
    };
    if config.task != TaskKind::Rule {
        bail!("--frames is for the rule task (logicars train rule --frames RECORDING.npy)");
    }
    let observation = recording::observe(&recording_file::load(path)?)
        .with_context(|| format!("the recording {}", path.display()))?;
    eprintln!("recording {}: {observation}", path.display());
    use_observed(config, observation.rule)?;
    Ok(())
}

/// The preset with the flags applied, checked.
pub(super) fn configure(args: &TrainArgs) -> Result<(ModelConfig, TrainSettings)> {
    let Some(task) = args.task else {
        bail!("name a task to train, or --resume a run");
    };
    let (mut config, mut settings) = preset(task, args.small);
    settings.seed = args.seed.unwrap_or(settings.seed);
    for change in &args.knobs.0 {
        change.apply(&mut config, &mut settings);
    }
    if let Some(widths) = &args.update_layers {
        config.update_layers.clone_from(&widths.0);
    }
    apply_pattern_flags(args, &mut config)?;
    apply_frames(args, &mut config)?;
    if let Some(geometry) = pattern_geometry::fit(&mut config, &mut settings, &args.knobs.0)? {
        eprintln!("{geometry}");
    }
    if args.log_interval == Some(0) {
        bad_value!("--log-interval must be at least 1");
    }
    config.validate()?;
    logicars::tasks::knobs::validate(&config, &settings)?;
    ensure_training_fits(&config, &settings)?;
    Ok((config, settings))
}

/// The run's memory, against the limit, before anything is allocated.
pub(super) fn ensure_training_fits(config: &ModelConfig, settings: &TrainSettings) -> Result<()> {
    let size = RolloutSize::training(config, settings);
    let pool = match settings.recipe.pool {
        0 => String::new(),
        states => format!(" from a --pool of {states} states"),
    };
    let hold = match settings.recipe.hold_steps {
        0 => String::new(),
        hold => format!(" and {hold} --hold-steps"),
    };
    let what = format!(
        "training with --batch {} on {}x{} grids for --steps {}{hold}{pool}",
        size.batch, size.height, size.width, config.steps
    );
    ensure_memory(&what, training_run_bytes(config, settings))
}

/// Where a new run writes: `--save` or `runs/<task>[-small]-seed<S>/model.json` (or
/// `model.json` in `folder` when it is not empty: a numbered default folder), its log and
/// pictures beside it unless told otherwise. Paths are made absolute so that a resumed
/// run writes to the same places from any folder.
pub(super) fn outputs(
    args: &TrainArgs,
    config: &ModelConfig,
    settings: &TrainSettings,
    folder: &Path,
) -> Result<RunOutputs> {
    let small = if args.small { "-small" } else { "" };
    let run_name = format!("{}{small}-seed{}", config.task.name(), settings.seed);
    let absolute =
        |p: &PathBuf| std::path::absolute(p).with_context(|| format!("resolving {}", p.display()));
    let default_folder = match folder.as_os_str().is_empty() {
        true => PathBuf::from("runs").join(run_name),
        false => folder.to_path_buf(),
    };
    // Absolute first, so that a bare file name (`--save model.json`) has a folder for
    // the files beside it.
    let model = absolute(
        &args
            .save
            .clone()
            .unwrap_or_else(|| default_folder.join("model.json")),
    )?;
    let log = args
        .log
        .clone()
        .unwrap_or_else(|| model.with_file_name("metrics.csv"));
    let artefacts = match (args.no_artefacts, &args.artefacts) {
        (true, _) => None,
        (false, Some(dir)) => Some(dir.clone()),
        (false, None) => Some(model.with_file_name("")),
    };
    Ok(RunOutputs {
        model,
        log: absolute(&log)?,
        artefacts: artefacts.as_ref().map(absolute).transpose()?,
        batches: args.batches.as_ref().map(absolute).transpose()?,
        log_interval: args.log_interval.unwrap_or((settings.epochs / 10).max(1)),
        keep: args.keep.into(),
        full: args.full,
    })
}

/// Checks every output of the run before training.
pub(super) fn check_run_outputs(outputs: &RunOutputs) -> Result<()> {
    check_outputs(&run_files(outputs))
}

/// Every file a run writes, each named by what it holds.
pub(super) fn run_files(outputs: &RunOutputs) -> Vec<(&'static str, PathBuf)> {
    let mut files = vec![
        ("the model (--save)", outputs.model.clone()),
        ("the log (--log)", outputs.log.clone()),
        (
            "the checkpoint",
            checkpoint_file::path_beside(&outputs.model),
        ),
    ];
    if let Some(dir) = &outputs.artefacts {
        files.push(("the loss plot (--artefacts)", dir.join("loss.svg")));
        files.push(("the rollout GIF (--artefacts)", dir.join("rollout.gif")));
    }
    files
}
